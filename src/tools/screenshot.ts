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
  const shot = await within(cdp.send('Page.captureScreenshot', { format: type, quality, captureBeyondViewport: false, fromSurface: true }), timeoutMs);
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
    fullPage: z.boolean().optional().describe('Capture the whole scrollable page instead of the viewport'),
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
    try {
      image = await inFront(session, tab, () => {
        if (resolved) return resolved.locator.screenshot(opts);
        if (fullPage) return tab.page.screenshot({ ...opts, fullPage: true });
        return captureViewport(tab, type, opts.quality, opts.timeout);
      });
    } catch (error) {
      const what = ref ? `screenshot ${ref}` : `screenshot tab ${tab.id}`;
      throw (await stuckPageError(tab, what)) ?? actionError(error, what);
    }
    const mimeType = `image/${type}`;
    const base64 = image.toString('base64');
    const mode = output ?? config.output;
    const what = ref ? `element ${ref}` : fullPage ? 'full page' : 'viewport';
    res.merge({ tabId: tab.id, revision: tab.revision, format: type, bytes: image.length });
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
