/**
 * take_screenshot: any tab, the viewport, the full page or one
 * element, as PNG, JPEG or WebP, scaled to the configured maximum width, and
 * inline only within the image budget of the clients (docs/screenshots.md).
 */
import * as z from 'zod';
import { SCREENSHOT_DEFAULTS, type ScreenshotFormat } from '../config.js';
import type { Session } from '../session/session.js';
import { resolveRef } from '../session/refs.js';
import type { Tab } from '../session/tab.js';
import { actionError, pageReadError, stuckPageError } from './actionErrors.js';
import { INLINE_IMAGE_CAP, stamp, writeArtifact } from './artifacts.js';
import { defineTabTool } from './define.js';
import { ToolError } from '../errors.js';
import { withRefHandle } from './refHandle.js';
import { outputField, refField, tabIdField } from './schemas.js';
import { captureClip, insideViewport, pageMetrics, type Capture, type Rect } from './screenshotCapture.js';

let frontQueue: Promise<unknown> = Promise.resolve();

/** Longest side of a full-page screenshot, in CSS px; longer pages are clipped. */
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
 * the bring-to-front round trip.
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
 * The inline image budget: Claude's API keeps an image up to 1,568 px on its
 * long edge and about 1.15 megapixels (~1,600 image tokens) and scales a
 * bigger one down (Anthropic vision docs, "Evaluate image size"); Claude Code
 * counts images against MAX_MCP_OUTPUT_TOKENS and other clients resize
 * (docs/screenshots.md, "Capture").
 * An inline full page or element taller than this is cut (viewport captures
 * are what the viewport shows and never cut).
 */
export const INLINE_MAX_EDGE = 1568;
export const INLINE_MAX_PIXELS = 1_150_000;

/** The tallest inline full-page or element image `width` px wide, in pixels. */
export function inlineMaxHeight(width: number): number {
  return Math.max(1, Math.min(INLINE_MAX_EDGE, Math.floor(INLINE_MAX_PIXELS / width)));
}

/** What one capture call produced: the region captured (CSS px), the 8,000 px clip, and the images. */
interface Shots {
  region: Rect;
  clipped?: { width: number; height: number; fullWidth: number; fullHeight: number };
  /** The top of a full page or element, cut to the inline budget. */
  cut?: Capture;
  /** The whole region (absent when only the cut is needed). */
  whole?: Capture;
}

const FORMAT_NAMES: Record<ScreenshotFormat, string> = { png: 'PNG', jpeg: 'JPEG', webp: 'WebP' };
const EXTENSIONS: Record<ScreenshotFormat, string> = { png: 'png', jpeg: 'jpg', webp: 'webp' };

/** `JPEG 1280 × 720 px, 81234 bytes`. */
function describe(shot: Capture): string {
  return `${FORMAT_NAMES[shot.format]} ${shot.width} × ${shot.height} px, ${shot.image.length} bytes`;
}

export const takeScreenshot = defineTabTool({
  name: 'take_screenshot',
  title: 'Take screenshot',
  description: 'Screenshot of any tab: the viewport, the full page, or one element by ref; inline image or a file. '
    + `Scaled down to the server's max width (default ${SCREENSHOT_DEFAULTS.maxWidth} px); inline, a full page is cut to its top `
    + `${INLINE_MAX_PIXELS / 1e6} megapixels (output auto writes the whole one to a file). The text says size, scaling, cut and file.`,
  needs: ['screenshot'],
  effect: 'observe',
  launchesBrowser: true,
  target: 'ref',
  check({ fullPage, ref, format, quality }, { config }) {
    if (ref && fullPage) throw new ToolError('invalid_arguments', 'ref and fullPage exclude each other.', 'Pass ref for one element, or fullPage for the whole page.');
    if (quality !== undefined && (format ?? config.screenshot.format) === 'png') {
      throw new ToolError('invalid_arguments', 'quality applies to jpeg and webp only.', 'Pass format: "jpeg" or "webp" with quality, or drop quality.');
    }
  },
  input: z.object({
    tabId: tabIdField,
    fullPage: z.boolean().optional().describe(`The whole scrollable page (at most ${MAX_SIDE} px a side)`),
    ref: refField.optional().describe('Capture only this element (ref from get_page_context)'),
    format: z.enum(['png', 'jpeg', 'webp']).optional().describe(`Default: the server's --screenshot-format (${SCREENSHOT_DEFAULTS.format})`),
    quality: z.number().int().min(1).max(100).optional().describe(`JPEG/WebP quality (default: the server's --screenshot-quality, ${SCREENSHOT_DEFAULTS.quality})`),
    output: outputField,
  }),
  async handle(tab, { fullPage, ref, format, quality, output }, { session, config }, res) {
    const type = format ?? config.screenshot.format;
    const resolved = ref ? await resolveRef(session, ref) : undefined;
    const mode = output ?? config.output;
    const what = ref ? `element ${ref}` : fullPage ? 'full page' : 'viewport';
    const timeoutMs = 30_000;
    const encode = { format: type, quality: type === 'png' ? undefined : (quality ?? config.screenshot.quality), timeoutMs };
    let shots: Shots;
    try {
      shots = await inFront(session, tab, async () => {
        const { viewport, page } = await pageMetrics(tab, timeoutMs);
        let region: Rect = fullPage ? { x: 0, y: 0, ...page } : viewport;
        if (resolved) {
          // As Playwright's element screenshots do: scroll it into view (waits until it is visible), then clip to its box.
          const box = await withRefHandle(resolved, ref!, async handle => {
            await handle.scrollIntoViewIfNeeded({ timeout: timeoutMs });
            return await handle.boundingBox();
          });
          if (!box || box.width < 1 || box.height < 1) {
            throw new ToolError('element_not_actionable', `Could not screenshot ${ref}: it has no size on screen.`, 'Take a fresh snapshot (get_page_context) to check the element, or screenshot the viewport.');
          }
          const scrolled = (await pageMetrics(tab, timeoutMs)).viewport;
          region = { x: box.x + scrolled.x, y: box.y + scrolled.y, width: box.width, height: box.height };
          viewport.x = scrolled.x;
          viewport.y = scrolled.y;
        }
        let clipped: Shots['clipped'];
        const clip = resolved || fullPage ? fullPageClip(region.width, region.height) : undefined;
        if (clip) {
          clipped = { width: clip.width, height: clip.height, fullWidth: Math.round(region.width), fullHeight: Math.round(region.height) };
          region = { ...region, width: clip.width, height: clip.height };
        }
        const width = Math.max(1, Math.min(Math.round(region.width), config.screenshot.maxWidth));
        const factor = width / region.width;
        const maxHeight = inlineMaxHeight(width);
        const capture = (rect: Rect) => captureClip(tab, rect, { ...encode, width, beyondViewport: !insideViewport(rect, viewport) });
        if (!(resolved || fullPage) || Math.round(region.height * factor) <= maxHeight || mode === 'file') {
          return { region, clipped, whole: await capture(region) };
        }
        // Inline, only its top, as tall as the budget allows; auto output also writes the whole to a file.
        const cut = await capture({ ...region, height: Math.floor(maxHeight / factor) });
        return { region, clipped, cut, whole: mode === 'auto' ? await capture(region) : undefined };
      });
    } catch (error) {
      if (ref) throw (await stuckPageError(tab, `screenshot ${ref}`)) ?? actionError(error, `screenshot ${ref}`);
      // The whole tab: nothing to be covered or hidden, so a timeout is the page's (a page that keeps reloading itself
      // or never paints), as for any page read.
      throw await pageReadError(tab, error, `screenshot tab ${tab.id}`, {
        message: `Could not screenshot tab ${tab.id} within the time limit: the page did not paint a frame in time.`,
        hint: 'The page may be reloading itself or very busy; wait for it to settle (wait_for {text}) and try again.',
      });
    }
    const { region, clipped, cut, whole } = shots;
    const first = (cut ?? whole)!;
    const base64 = first.image.toString('base64');
    const inline = mode !== 'file' && base64.length <= INLINE_IMAGE_CAP ? first : undefined;
    const toFile = mode === 'file' ? whole : inline ? (cut ? whole : undefined) : (whole ?? cut);
    const shown = inline ?? toFile!;
    const cssWidth = Math.round(region.width);
    // A fractional CSS width (an element 54.53 px wide) rounds to a pixel either way: that is not scaling.
    const scaledFrom = Math.abs(shown.width - region.width) >= 1 ? { width: cssWidth, height: Math.round(region.height) } : undefined;
    const from = scaledFrom ? `, scaled from ${scaledFrom.width} × ${scaledFrom.height} CSS px` : '';
    res.merge({ tabId: tab.id, revision: tab.revision, format: shown.format, bytes: shown.image.length, width: shown.width, height: shown.height, scaledFrom, clipped });
    if (clipped) {
      res.text(`Clipped to the top-left ${clipped.width} × ${clipped.height} px of ${clipped.fullWidth} × ${clipped.fullHeight} px (the longest side a screenshot has is ${MAX_SIDE} px); scroll, or pass the ref of a part, to see the rest.`);
    }
    const path = toFile && writeArtifact(config.workspace, 'screenshots', `tab${tab.id}-${stamp()}.${EXTENSIONS[toFile.format]}`, toFile.image);
    if (path) res.set('path', path);
    const wholeName = ref ? 'the whole element' : 'the whole page';
    const cutLine = (c: Capture) => {
      const fullHeight = Math.round(region.height * c.width / region.width);
      res.set('cut', { width: c.width, height: c.height, fullWidth: c.width, fullHeight });
      return `the top ${c.height} px, cut to the inline image budget (at most ${INLINE_MAX_PIXELS / 1e6} megapixels and ${INLINE_MAX_EDGE} px tall); ${wholeName} is ${c.width} × ${fullHeight} px${from}`;
    };
    if (inline) {
      let line = `Screenshot of tab ${tab.id} (${what}): ${describe(inline)}`;
      if (cut) {
        line += `, ${cutLine(cut)}`;
        line += path ? `, in ${path} (${describe(toFile!)}).` : `. Pass output: "file" for ${wholeName}, or scroll and take viewport screenshots.`;
      } else {
        line += `${from}.`;
      }
      res.text(line).image(base64, `image/${inline.format}`);
      if (path && toFile !== cut) res.set('file', { format: toFile!.format, bytes: toFile!.image.length, width: toFile!.width, height: toFile!.height });
      return;
    }
    const why = mode === 'file' ? 'as asked' : `because it is ${Math.round(base64.length / 1024)} KB of base64, over the ${INLINE_IMAGE_CAP / 1024} KB inline cap`;
    const part = toFile === cut ? `, ${cutLine(cut!)}; pass output: "file" for ${wholeName}` : from;
    res.text(`Screenshot of tab ${tab.id} (${what}) written to ${path} ${why}: ${describe(toFile!)}${part}.`);
  },
});
