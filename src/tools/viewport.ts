/**
 * resize_viewport: the size of a tab's viewport in CSS pixels (Playwright's `page.setViewportSize`, which sets the
 * DevTools protocol's device metrics override: the page lays out at that size; the window itself keeps its size).
 */
import * as z from 'zod';
import { emulatesMetrics, resizeEmulated } from '../session/emulation.js';
import { defineTabTool } from './define.js';
import { tabIdField } from './schemas.js';

/** The bounds of each side, in CSS pixels: a narrow phone up to an 8K screen. */
const VIEWPORT_MIN = 200;
const VIEWPORT_MAX = 7680;

export const resizeViewport = defineTabTool({
  name: 'resize_viewport',
  title: 'Resize the viewport',
  description:
    `Set the size of a tab's viewport in CSS pixels (each side ${VIEWPORT_MIN}–${VIEWPORT_MAX}): the page lays out at that size, ` +
    'for responsive layouts (e.g. 390×844 for a phone) and screenshots. Says the size before and after; refs stay valid.',
  needs: ['snapshot'],
  effect: 'interact',
  launchesBrowser: true,
  target: 'tab',
  input: z.object({
    tabId: tabIdField,
    width: z.number().int().min(VIEWPORT_MIN).max(VIEWPORT_MAX).describe('Width in CSS pixels'),
    height: z.number().int().min(VIEWPORT_MIN).max(VIEWPORT_MAX).describe('Height in CSS pixels'),
  }),
  async handle(tab, { width, height }, _ctx, res) {
    const inner = () => tab.page.evaluate('({ width: window.innerWidth, height: window.innerHeight })') as Promise<{ width: number; height: number }>;
    const before = await inner();
    // A tab that emulates a device (emulate) keeps its scale factor and mobile flag at the new size.
    const emulated = emulatesMetrics(tab);
    if (emulated) await resizeEmulated(tab, { width, height });
    else await tab.page.setViewportSize({ width, height });
    const after = await inner();
    res.merge({ tabId: tab.id, before, viewport: after });
    res.text(`The viewport of tab ${tab.id} is now ${after.width}×${after.height} CSS pixels (was ${before.width}×${before.height}).`);
    if (emulated) res.text(`It keeps what emulate set for it (${tab.emulation?.deviceScaleFactor === undefined ? '' : `devicePixelRatio ${tab.emulation.deviceScaleFactor}, `}${tab.emulation?.isMobile ? 'mobile' : 'not mobile'}); emulate {reset: true} undoes both.`);
    if (!emulated && (after.width !== width || after.height !== height)) res.text(`The page reports ${after.width}×${after.height}, not the ${width}×${height} asked for (a page zoom or a scrollbar changes what it sees).`);
  },
});
