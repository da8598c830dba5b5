/** take_screenshot (issue #2): any tab, the viewport, the full page or one element. */
import * as z from 'zod';
import type { Session } from '../session/session.js';
import { resolveRef } from '../session/snapshot.js';
import type { Tab } from '../session/tab.js';
import { actionError, stuckPageError } from './actionErrors.js';
import { INLINE_IMAGE_CAP, stamp, writeArtifact } from './artifacts.js';
import { defineTool } from './define.js';
import { ToolError } from './errors.js';
import { outputField, refField, tabIdField } from './schemas.js';

let frontQueue: Promise<unknown> = Promise.resolve();

/** Longest side of a full-page screenshot, in CSS px (issue #4: "long side ≤ 8,000 px"); longer pages are clipped. */
export const MAX_SIDE = 8_000;

/** The clip of a full-page capture of a `width` × `height` page: the top-left MAX_SIDE × MAX_SIDE at most. */
export function fullPageClip(width: number, height: number): { x: number; y: number; width: number; height: number } | undefined {
  if (width <= MAX_SIDE && height <= MAX_SIDE) return undefined;
  return { x: 0, y: 0, width: Math.min(width, MAX_SIDE), height: Math.min(height, MAX_SIDE) };
}

/**
 * Runs `capture` with `tab` brought to the front of its window: Chromium
 * paints only the front tab, and capturing any other waits forever. The
 * active tab goes back to the front afterwards. Captures run one at a time.
 */
export function inFront<T>(session: Session, tab: Tab, capture: () => Promise<T>): Promise<T> {
  const run = async () => {
    await tab.page.bringToFront();
    try {
      return await capture();
    } finally {
      const active = session.openTabs().find(t => t.id === session.activeTabId);
      if (active && active !== tab && !active.closed) await active.page.bringToFront().catch(() => undefined);
    }
  };
  const result = frontQueue.then(run, run);
  frontQueue = result.catch(() => undefined);
  return result;
}

export const takeScreenshot = defineTool({
  name: 'take_screenshot',
  title: 'Take screenshot',
  description: 'Screenshot of any tab (not only the focused one): the viewport, the full page, or one element by ref. Inline as an image, or written to a file.',
  needs: ['screenshot'],
  consent: 'observe',
  launchesBrowser: true,
  input: z.object({
    tabId: tabIdField,
    fullPage: z.boolean().optional().describe(`Capture the whole scrollable page instead of the viewport (clipped at ${MAX_SIDE} px a side)`),
    ref: refField.optional().describe('Capture only this element (ref from get_page_context)'),
    format: z.enum(['png', 'jpeg']).optional().describe('Image format (default png)'),
    quality: z.number().int().min(1).max(100).optional().describe('JPEG quality 1-100 (default 80)'),
    output: outputField,
  }),
  async handle({ tabId, fullPage, ref, format, quality, output }, { session, config }, res) {
    if (ref && fullPage) throw new ToolError('invalid_arguments', 'ref and fullPage exclude each other.', 'Pass ref for one element, or fullPage for the whole page.');
    if (quality !== undefined && format !== 'jpeg') throw new ToolError('invalid_arguments', 'quality applies to jpeg only.', 'Pass format: "jpeg" with quality, or drop quality.');
    const resolved = ref ? await resolveRef(session, ref) : undefined;
    const tab = resolved?.tab ?? (await session.tab(tabId));
    const type = format ?? 'png';
    const opts = { type, quality: type === 'jpeg' ? (quality ?? 80) : undefined, timeout: 30_000 } as const;
    let image: Buffer;
    let clipped: { width: number; height: number; fullWidth: number; fullHeight: number } | undefined;
    try {
      image = await inFront(session, tab, async () => {
        if (resolved) {
          const box = await resolved.locator.boundingBox();
          const clip = box && fullPageClip(box.width, box.height);
          if (!box || !clip) return resolved.locator.screenshot(opts);
          clipped = { width: clip.width, height: clip.height, fullWidth: Math.round(box.width), fullHeight: Math.round(box.height) };
          await resolved.locator.scrollIntoViewIfNeeded(opts);
          const at = (await resolved.locator.boundingBox()) ?? box;
          const scroll = await tab.page.evaluate(() => [scrollX, scrollY]);
          return tab.page.screenshot({ ...opts, fullPage: true, clip: { ...clip, x: at.x + scroll[0]!, y: at.y + scroll[1]! } });
        }
        if (!fullPage) return tab.page.screenshot(opts);
        const [w, h] = await tab.page.evaluate(() => {
          const d = document.documentElement;
          const b = document.body;
          return [Math.max(d.scrollWidth, b?.scrollWidth ?? 0, d.clientWidth), Math.max(d.scrollHeight, b?.scrollHeight ?? 0, d.clientHeight)];
        });
        const clip = fullPageClip(w!, h!);
        if (clip) clipped = { width: clip.width, height: clip.height, fullWidth: w!, fullHeight: h! };
        return tab.page.screenshot({ ...opts, fullPage: true, clip });
      });
    } catch (error) {
      const what = ref ? `screenshot ${ref}` : `screenshot tab ${tab.id}`;
      throw (await stuckPageError(tab, what)) ?? actionError(error, what);
    }
    const mimeType = `image/${type}`;
    const base64 = image.toString('base64');
    const mode = output ?? config.output;
    const what = ref ? `element ${ref}` : fullPage ? 'full page' : 'viewport';
    res.merge({ tabId: tab.id, revision: tab.revision, format: type, bytes: image.length, clipped });
    if (clipped) {
      res.text(`Clipped to the top-left ${clipped.width} × ${clipped.height} px of ${clipped.fullWidth} × ${clipped.fullHeight} px (the longest side a screenshot has is ${MAX_SIDE} px); scroll, or pass the ref of a part, to see the rest.`);
    }
    if (mode === 'inline' || (mode === 'auto' && base64.length <= INLINE_IMAGE_CAP)) {
      if (base64.length <= INLINE_IMAGE_CAP) {
        res.text(`Screenshot of tab ${tab.id} (${what}), ${image.length} bytes.`).image(base64, mimeType);
        return;
      }
    }
    const path = writeArtifact(config.workspace, 'screenshots', `tab${tab.id}-${stamp()}.${type === 'jpeg' ? 'jpg' : 'png'}`, image);
    res.set('path', path);
    const why = mode === 'file' ? 'as asked' : `because it is ${Math.round(base64.length / 1024)} KB of base64, over the ${INLINE_IMAGE_CAP / 1024} KB inline cap`;
    res.text(`Screenshot of tab ${tab.id} (${what}) written to ${path} ${why} (${image.length} bytes).`);
  },
});
