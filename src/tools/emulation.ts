/**
 * emulate: a device, locale, time zone, position, media features, offline and request headers for one tab, on the
 * running page (src/session/emulation.ts; docs/emulation.md).
 */
import * as z from 'zod';
import { applyEmulation, describeEmulation, nextState, type EmulationState } from '../session/emulation.js';
import { defineTabTool } from './define.js';
import { tabIdField } from './schemas.js';

const side = z.number().int().min(100).max(7680);

export const emulate = defineTabTool({
  name: 'emulate',
  title: 'Emulate a device or setting',
  description:
    'Make one tab look like a device or setting to its page, until reset: a playwright-core device preset ("iPhone 13"), ' +
    'or viewport, scale factor, mobile, touch, user agent, locale, time zone, geolocation, color scheme, reduced motion, offline, ' +
    'extra request headers, HTTP credentials. Holds across navigations in the tab; popups it opens do not inherit it. ' +
    'A call changes only the fields it names; reset: true clears everything first. Says what the tab emulates now.',
  needs: ['emulation'],
  toolset: 'emulation',
  effect: 'interact',
  launchesBrowser: true,
  target: 'tab',
  guarded: false,
  input: z.object({
    tabId: tabIdField,
    device: z.string().min(1).max(100).optional().describe('A playwright-core device name, e.g. "iPhone 13", "Pixel 7", "iPad Mini", "Desktop Chrome"; fields below override it'),
    viewport: z.object({ width: side, height: side }).optional().describe('Viewport in CSS pixels'),
    deviceScaleFactor: z.number().min(0.25).max(5).optional().describe('Device pixel ratio'),
    isMobile: z.boolean().optional().describe('Mobile: the meta viewport tag counts, overlay scrollbars'),
    hasTouch: z.boolean().optional().describe('Touch screen (touch events in documents loaded afterwards)'),
    userAgent: z.string().min(1).max(1000).optional().describe('navigator.userAgent and the User-Agent header'),
    locale: z.string().min(2).max(35).optional().describe('BCP 47 locale, e.g. "de-DE": Intl, navigator.language, Accept-Language'),
    timezone: z.string().min(1).max(60).optional().describe('IANA time zone, e.g. "Asia/Tokyo"'),
    geolocation: z.object({
      latitude: z.number().min(-90).max(90),
      longitude: z.number().min(-180).max(180),
      accuracy: z.number().min(0).max(100_000).optional().describe('Metres (default 0)'),
    }).optional().describe('Position navigator.geolocation reports (the permission is granted)'),
    colorScheme: z.enum(['light', 'dark', 'no-preference']).optional().describe('prefers-color-scheme'),
    reducedMotion: z.enum(['reduce', 'no-preference']).optional().describe('prefers-reduced-motion'),
    offline: z.boolean().optional().describe('true: requests fail and navigator.onLine is false; false: back online'),
    extraHeaders: z.record(z.string().min(1).max(200), z.string().max(4000)).optional().describe('Headers sent with every request of the tab ({} removes them)'),
    httpCredentials: z.object({
      username: z.string().max(500),
      password: z.string().max(500),
    }).optional().describe('Answer HTTP authentication (Basic, Digest) with these, for every tab of the session'),
    reset: z.literal(true).optional().describe('Undo everything this tab emulates first'),
  }),
  async handle(tab, input, _ctx, res) {
    const { tabId: _tabId, reset, httpCredentials, ...request } = input;
    const base: EmulationState = reset ? {} : tab.emulation ?? {};
    const next = nextState(base, { ...request, httpCredentials });
    const { state, notes } = await applyEmulation(tab, next, httpCredentials?.password);
    const now = Object.keys(state).length ? describeEmulation(state) : undefined;
    res.merge({ tabId: tab.id, emulation: state });
    res.text(now ? `Tab ${tab.id} now emulates: ${now}.` : `Tab ${tab.id} emulates nothing: it shows the browser's own settings.`);
    if (state.viewport) {
      const seen = await tab.page.evaluate('({ width: innerWidth, height: innerHeight, dpr: devicePixelRatio })').catch(() => undefined) as { width: number; height: number; dpr: number } | undefined;
      if (seen) {
        res.set('pageViewport', seen);
        res.text(`The page reports ${seen.width}×${seen.height} at devicePixelRatio ${seen.dpr}${state.isMobile && seen.width !== state.viewport.width ? ' (a mobile page without a width=device-width meta viewport lays out wider)' : ''}.`);
      }
    }
    for (const note of notes) res.text(`Note: ${note}.`);
  },
});
