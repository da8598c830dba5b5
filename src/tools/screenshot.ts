/** take_screenshot (issue #2): any tab, the viewport, the full page or one element. */
import * as z from 'zod';
import type { Session } from '../session/session.js';
import { resolveRef } from '../session/snapshot.js';
import type { Tab } from '../session/tab.js';
import { actionError, stuckPageError, within } from './actionErrors.js';
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
 * Per session, the tab tabwright last left in front and the open tabs at
 * that moment (their ids, joined). While the tab is still the active one and
 * no tab has opened or closed since, it is still in front (opening a tab or a
 * popup, and select_tab, change one or the other), so a capture of it skips
 * the bring-to-front round trip (issue #3).
 */
const lastFront = new WeakMap<Session, { tab: Tab; tabs: string }>();

function openTabIds(session: Session): string {
  return session.openTabs().map(t => t.id).join(',');
}

/**
 * Runs `capture` with `tab` brought to the front of its window: Chromium
 * paints only the front tab, and capturing any other waits forever. The
 * active tab goes back to the front afterwards. Captures run one at a time.
 * The bring-to-front is skipped when `tab` is the active tab and known to be
 * in front already (see `lastFront`).
 */
export function inFront<T>(session: Session, tab: Tab, capture: () => Promise<T>): Promise<T> {
  const run = async () => {
    const known = lastFront.get(session);
    const isActive = session.activeTabId === tab.id;
    if (!(isActive && known?.tab === tab && known.tabs === openTabIds(session))) {
      lastFront.delete(session);
      await tab.page.bringToFront();
    }
    let front: Tab | undefined = tab;
    try {
      return await capture();
    } finally {
      const active = session.openTabs().find(t => t.id === session.activeTabId);
      if (active && active !== tab && !active.closed) front = await active.page.bringToFront().then(() => active, () => undefined);
      if (front && front === active) lastFront.set(session, { tab: front, tabs: openTabIds(session) });
    }
  };
  const result = frontQueue.then(run, run);
  frontQueue = result.catch(() => undefined);
  return result;
}

/**
 * A viewport capture straight through the tab's own CDP session
 * (`Page.captureScreenshot`): about half the time of Playwright's
 * page.screenshot, which first hides the caret and waits for web fonts in
 * every frame. Falls back to page.screenshot when the tab has no CDP session.
 * @param quality  JPEG quality 1-100 (ignored for png).
 * @throws playwright TimeoutError after `timeoutMs`.
 */
async function captureViewport(tab: Tab, type: 'png' | 'jpeg', quality: number | undefined, timeoutMs: number): Promise<Buffer> {
  const cdp = tab.session;
  if (!cdp) return tab.page.screenshot({ type, quality, timeout: timeoutMs });
  // optimizeForSpeed: Chromium's fast PNG compression, ~35% faster here for ~1.6× the bytes; a model pays for an
  // image by its pixels, not its bytes (issue #3, screenshot round trip).
  const shot = await within(cdp.send('Page.captureScreenshot', { format: type, quality, captureBeyondViewport: false, fromSurface: true, optimizeForSpeed: true }), timeoutMs);
  return Buffer.from(shot.data, 'base64');
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
        if (!fullPage) return captureViewport(tab, type, opts.quality, opts.timeout);
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
