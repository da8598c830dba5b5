/**
 * Per-tab emulation (docs/emulation.md): device metrics, user agent, locale, time zone, geolocation, media features,
 * offline, extra headers and HTTP credentials, applied to a running tab. Playwright sets most of these only when a
 * context is created, so the tab's own CDP session (Tab.cdp) carries them (the DevTools protocol's Emulation and
 * Network domains); Playwright's runtime APIs carry the rest (page.emulateMedia, page.setExtraHTTPHeaders,
 * context.setHTTPCredentials, context.grantPermissions). Overrides on a tab's session last as long as the tab:
 * they hold across navigations and reloads in it. Popups the tab opens do not inherit them.
 */
import { devices, type Page } from 'playwright-core';
import { ToolError } from '../errors.js';
import type { Tab } from './tab.js';

/** What a tab emulates: every field the agent set and has not reset. Sizes in CSS pixels. */
export interface EmulationState {
  /** The playwright-core device preset the other fields started from. */
  device?: string;
  viewport?: { width: number; height: number };
  deviceScaleFactor?: number;
  isMobile?: boolean;
  hasTouch?: boolean;
  userAgent?: string;
  locale?: string;
  timezone?: string;
  /** Degrees; accuracy in metres. */
  geolocation?: { latitude: number; longitude: number; accuracy: number };
  colorScheme?: 'light' | 'dark' | 'no-preference';
  reducedMotion?: 'reduce' | 'no-preference';
  offline?: boolean;
  extraHeaders?: Record<string, string>;
  /** The user name only: the password is never shown or kept here. */
  httpCredentials?: { username: string };
}

/** What one emulate call asks for: EmulationState's fields plus the password, all optional. */
export type EmulationRequest = Omit<EmulationState, 'httpCredentials' | 'geolocation'> & {
  geolocation?: { latitude: number; longitude: number; accuracy?: number };
  httpCredentials?: { username: string; password: string };
};

/** What applying found worth saying: e.g. touch handlers that appear only in documents loaded afterwards. */
export interface EmulationOutcome {
  state: EmulationState;
  notes: string[];
}

/** The names of playwright-core's device presets. */
export const DEVICE_NAMES: readonly string[] = Object.keys(devices);

/**
 * The device preset `name` (exact, else case-insensitive).
 * @throws ToolError invalid_arguments naming up to five close matches.
 */
export function devicePreset(name: string): { name: string; descriptor: (typeof devices)[string] } {
  const exact = devices[name] ? name : DEVICE_NAMES.find(n => n.toLowerCase() === name.toLowerCase());
  if (exact) return { name: exact, descriptor: devices[exact]! };
  const close = closeMatches(name, DEVICE_NAMES, 5);
  throw new ToolError('invalid_arguments', `Device "${name}" is not one of playwright-core's ${DEVICE_NAMES.length} device presets.`,
    close.length ? `Close matches: ${close.map(n => `"${n}"`).join(', ')}.` : 'Names look like "iPhone 13", "Pixel 7", "iPad Mini", "Desktop Chrome".');
}

/** Up to `max` of `names` closest to `query`: those containing its words first, then by edit distance. */
export function closeMatches(query: string, names: readonly string[], max: number): string[] {
  const q = query.toLowerCase().trim();
  const words = q.split(/\s+/).filter(Boolean);
  const score = (name: string) => {
    const n = name.toLowerCase();
    const shared = words.filter(w => n.includes(w)).length;
    return editDistance(q, n) - shared * 10 + (n.includes('landscape') && !q.includes('landscape') ? 1 : 0);
  };
  return [...names].map(name => ({ name, s: score(name) })).sort((a, b) => a.s - b.s || a.name.localeCompare(b.name)).slice(0, max).map(x => x.name);
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The state a request leads to from `current`: the device's fields first, then the request's own over them, over
 * what the tab already emulates (a call changes only what it names).
 * @throws ToolError invalid_arguments for an unknown device.
 */
export function nextState(current: EmulationState, request: EmulationRequest): EmulationState {
  const next: EmulationState = { ...current };
  if (request.device !== undefined) {
    const { name, descriptor } = devicePreset(request.device);
    Object.assign(next, {
      device: name,
      viewport: { ...descriptor.viewport },
      deviceScaleFactor: descriptor.deviceScaleFactor,
      isMobile: descriptor.isMobile,
      hasTouch: descriptor.hasTouch,
      userAgent: descriptor.userAgent,
    });
  }
  for (const key of ['viewport', 'deviceScaleFactor', 'isMobile', 'hasTouch', 'userAgent', 'locale', 'timezone', 'colorScheme', 'reducedMotion', 'offline', 'extraHeaders'] as const) {
    if (request[key] !== undefined) (next as Record<string, unknown>)[key] = request[key];
  }
  if (request.geolocation) next.geolocation = { accuracy: 0, ...request.geolocation };
  if (request.httpCredentials) next.httpCredentials = { username: request.httpCredentials.username };
  // Back online, or no headers: nothing left to emulate there.
  if (next.offline === false) delete next.offline;
  if (next.extraHeaders && !Object.keys(next.extraHeaders).length) delete next.extraHeaders;
  return next;
}

/** What the session keeps per tab besides the state: Playwright's viewport before emulation changed it. */
const playwrightViewports = new WeakMap<Tab, { width: number; height: number } | null>();

/** Whether a state overrides the device metrics (size, scale, mobile). */
function hasMetrics(s: EmulationState): boolean {
  return s.viewport !== undefined || s.deviceScaleFactor !== undefined || s.isMobile !== undefined;
}

/** Whether a state sets anything. */
export function isEmulating(s: EmulationState | undefined): s is EmulationState {
  return s !== undefined && Object.keys(s).length > 0;
}

/**
 * Applies `next` to `tab` (whose state is `tab.emulation`), undoing what `next` no longer has, and records it on the
 * tab. `password` is the HTTP credentials' password when the request set them.
 * @throws ToolError capability_unavailable when the tab has no CDP session; invalid_arguments for a time zone or
 *   locale the browser does not know (nothing of that field is applied).
 */
export async function applyEmulation(tab: Tab, next: EmulationState, password?: string): Promise<EmulationOutcome> {
  const cdp = tab.cdp;
  if (!cdp) throw new ToolError('capability_unavailable', `Tab ${tab.id} has no DevTools protocol session to emulate through.`, 'Open a new tab (open_tab) and emulate there.');
  const prev = tab.emulation ?? {};
  const page = tab.page;
  const notes: string[] = [];
  const changed = <K extends keyof EmulationState>(...keys: K[]) => keys.some(k => JSON.stringify(prev[k]) !== JSON.stringify(next[k]));

  if (changed('viewport', 'deviceScaleFactor', 'isMobile')) {
    if (hasMetrics(next)) await applyMetrics(tab, next);
    else {
      await cdp.send('Emulation.clearDeviceMetricsOverride');
      // Playwright's own override (the managed browser's viewport) is what the page shows again.
      const before = playwrightViewports.get(tab);
      if (before) await page.setViewportSize(before);
      playwrightViewports.delete(tab);
    }
  }
  if (changed('hasTouch', 'isMobile')) {
    await cdp.send('Emulation.setTouchEmulationEnabled', next.hasTouch ? { enabled: true, maxTouchPoints: 5 } : { enabled: false });
    await cdp.send('Emulation.setEmitTouchEventsForMouse', next.hasTouch ? { enabled: true, configuration: next.isMobile ? 'mobile' : 'desktop' } : { enabled: false });
    if (next.hasTouch !== prev.hasTouch) notes.push(`touch events (ontouchstart) ${next.hasTouch ? 'appear' : 'go'} in documents loaded from now on: reload_tab to see ${next.hasTouch ? 'them' : 'the change'} in this one`);
  }
  if (changed('userAgent', 'locale', 'isMobile')) {
    await cdp.send('Emulation.setUserAgentOverride', {
      // An empty user agent means none of ours: the browser's (or Playwright's) own stays.
      userAgent: next.userAgent ?? '',
      ...(next.locale ? { acceptLanguage: next.locale } : {}),
      ...(next.userAgent ? { platform: platformOf(next.userAgent), userAgentMetadata: userAgentMetadata(next.userAgent, next.isMobile ?? false) } : {}),
    });
  }
  if (changed('locale')) {
    await cdp.send('Emulation.setLocaleOverride', next.locale ? { locale: next.locale } : {}).catch((error: Error) => {
      throw new ToolError('invalid_arguments', `The browser refused locale "${next.locale}": ${browserReason(error)}.`, 'Use a BCP 47 tag such as "de-DE" or "ja-JP".');
    });
  }
  if (changed('timezone')) {
    await cdp.send('Emulation.setTimezoneOverride', { timezoneId: next.timezone ?? '' }).catch((error: Error) => {
      throw new ToolError('invalid_arguments', `The browser does not know time zone "${next.timezone}" (${browserReason(error)}).`, 'Use an IANA name such as "Europe/Berlin" or "America/New_York".');
    });
  }
  if (changed('geolocation')) {
    if (next.geolocation) {
      // Every origin of the tab's context may read the emulated position (Playwright's `permissions: ['geolocation']`).
      await page.context().grantPermissions(['geolocation']);
      await cdp.send('Emulation.setGeolocationOverride', next.geolocation);
    } else await cdp.send('Emulation.clearGeolocationOverride');
  }
  if (changed('colorScheme', 'reducedMotion')) await page.emulateMedia({ colorScheme: next.colorScheme ?? null, reducedMotion: next.reducedMotion ?? null });
  if (changed('offline')) {
    await cdp.send('Network.emulateNetworkConditions', { offline: next.offline ?? false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  }
  if (changed('extraHeaders')) await page.setExtraHTTPHeaders(next.extraHeaders ?? {});
  if (password !== undefined || changed('httpCredentials')) {
    await page.context().setHTTPCredentials(next.httpCredentials && password !== undefined ? { username: next.httpCredentials.username, password } : null);
  }
  tab.emulation = isEmulating(next) ? next : undefined;
  return { state: next, notes };
}

/** Sets the device metrics override on the tab's session (and Playwright's viewport to the same size, where it has one). */
async function applyMetrics(tab: Tab, s: EmulationState): Promise<void> {
  const page = tab.page;
  if (!playwrightViewports.has(tab)) playwrightViewports.set(tab, page.viewportSize());
  // Where Playwright keeps a viewport (the managed browser), it sizes screenshots by it: it follows the emulated size.
  if (s.viewport && playwrightViewports.get(tab)) await page.setViewportSize(s.viewport);
  const size = s.viewport ?? (await viewportOf(page));
  await tab.cdp!.send('Emulation.setDeviceMetricsOverride', {
    width: size.width,
    height: size.height,
    deviceScaleFactor: s.deviceScaleFactor ?? 0,
    mobile: s.isMobile ?? false,
    screenWidth: size.width,
    screenHeight: size.height,
  });
}

/** The page's viewport as Playwright knows it, else as the page reports it. */
async function viewportOf(page: Page): Promise<{ width: number; height: number }> {
  return page.viewportSize() ?? await page.evaluate('({ width: window.innerWidth, height: window.innerHeight })') as { width: number; height: number };
}

/**
 * resize_viewport on a tab that emulates device metrics: the new size with the emulated scale factor and mobile flag
 * kept (Playwright's own setViewportSize would drop them).
 */
export async function resizeEmulated(tab: Tab, viewport: { width: number; height: number }): Promise<void> {
  const next = { ...tab.emulation, viewport };
  await applyMetrics(tab, next);
  tab.emulation = next;
}

/** Whether resize_viewport must go through the emulation (the tab emulates a scale factor or mobile). */
export function emulatesMetrics(tab: Tab): boolean {
  return tab.emulation !== undefined && hasMetrics(tab.emulation);
}

/** navigator.platform for a user agent. */
function platformOf(ua: string): string {
  if (/iPhone/.test(ua)) return 'iPhone';
  if (/iPad/.test(ua)) return 'iPad';
  if (/Android/.test(ua)) return 'Linux armv8l';
  if (/Windows/.test(ua)) return 'Win32';
  if (/Macintosh|Mac OS X/.test(ua)) return 'MacIntel';
  if (/Linux/.test(ua)) return 'Linux x86_64';
  return '';
}

/** The DevTools protocol's Emulation.UserAgentMetadata. */
interface UserAgentMetadata {
  brands: Array<{ brand: string; version: string }>;
  fullVersionList: Array<{ brand: string; version: string }>;
  platform: string;
  platformVersion: string;
  architecture: string;
  model: string;
  mobile: boolean;
}

/** User-agent client hints for a user agent (after Playwright's calculateUserAgentMetadata), with its Chrome brands. */
function userAgentMetadata(ua: string, mobile: boolean): UserAgentMetadata {
  const meta = { mobile, model: '', architecture: 'x86', platform: 'Windows', platformVersion: '' };
  const m = (re: RegExp) => re.exec(ua)?.[1];
  const android = m(/Android (\d+(?:\.\d+)*)/);
  const ios = m(/(?:iPhone|CPU) OS (\d+(?:_\d+)*)/);
  const mac = m(/Mac OS X (\d+(?:_\d+)*)/);
  const windows = m(/Windows\D+(\d+(?:\.\d+)*)/);
  if (android) Object.assign(meta, { platform: 'Android', platformVersion: android, architecture: 'arm', model: m(/Android [^;]*; ([^;)]+)/)?.trim() ?? '' });
  else if (ios) Object.assign(meta, { platform: 'iOS', platformVersion: ios.replace(/_/g, '.'), architecture: 'arm' });
  else if (mac) Object.assign(meta, { platform: 'macOS', platformVersion: mac.replace(/_/g, '.'), architecture: ua.includes('Intel') ? 'x86' : 'arm' });
  else if (windows) Object.assign(meta, { platform: 'Windows', platformVersion: windows });
  else if (/linux/i.test(ua)) meta.platform = 'Linux';
  const chrome = m(/Chrome\/(\d+)/);
  const brands = chrome ? [{ brand: 'Chromium', version: chrome }, { brand: 'Google Chrome', version: chrome }, { brand: 'Not?A_Brand', version: '99' }] : [];
  return { ...meta, brands, fullVersionList: brands };
}

/** One line for the model: what `s` emulates (`iPhone 13 (390×664, ×3, mobile, touch), locale de-DE, …`). */
export function describeEmulation(s: EmulationState): string {
  const parts: string[] = [];
  const metrics = [s.viewport && `${s.viewport.width}×${s.viewport.height}`, s.deviceScaleFactor !== undefined && `×${s.deviceScaleFactor}`,
    s.isMobile && 'mobile', s.hasTouch && 'touch'].filter(Boolean).join(', ');
  if (s.device) parts.push(`device ${s.device}${metrics ? ` (${metrics})` : ''}`);
  else if (metrics) parts.push(metrics);
  if (s.userAgent && !s.device) parts.push(`user agent "${s.userAgent}"`);
  if (s.locale) parts.push(`locale ${s.locale}`);
  if (s.timezone) parts.push(`time zone ${s.timezone}`);
  if (s.geolocation) parts.push(`geolocation ${s.geolocation.latitude},${s.geolocation.longitude} (±${s.geolocation.accuracy} m)`);
  if (s.colorScheme) parts.push(`color scheme ${s.colorScheme}`);
  if (s.reducedMotion) parts.push(`reduced motion ${s.reducedMotion}`);
  if (s.offline !== undefined) parts.push(s.offline ? 'offline' : 'online');
  if (s.extraHeaders && Object.keys(s.extraHeaders).length) parts.push(`extra headers ${Object.keys(s.extraHeaders).join(', ')}`);
  if (s.httpCredentials) parts.push(`HTTP credentials of user ${s.httpCredentials.username}`);
  return parts.join(', ') || 'nothing';
}

/**
 * The browser's own words in a CDP error: `cdpSession.send: Protocol error (Emulation.x): Invalid timezone id` →
 * `Invalid timezone id`; through the extension the reason comes as the JSON of chrome.debugger's error
 * (`{"code":-32602,"message":"Invalid timezone id"}`), whose message is taken.
 */
function browserReason(error: Error): string {
  const reason = error.message.replace(/^[\s\S]*?Protocol error \([^)]*\):\s*/, '').split('\n')[0]!.trim();
  try {
    const parsed = JSON.parse(reason) as { message?: unknown };
    if (typeof parsed?.message === 'string') return parsed.message;
  } catch {
    // plain text
  }
  return reason;
}
