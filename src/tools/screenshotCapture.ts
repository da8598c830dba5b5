/**
 * Captures one region of a tab at a chosen output width, in PNG, JPEG or
 * WebP, through the tab's own CDP session (`Page.captureScreenshot` with a
 * `clip` and its `scale`; Chrome DevTools Protocol, Page domain). Playwright's
 * page.screenshot has no WebP and no scale below CSS pixels, so it is only
 * the fallback for a tab without a CDP session.
 */
import type { Tab } from '../session/tab.js';
import { playwrightTimeout } from '../browser/playwright.js';
import { raceTimeout } from '../util/wait.js';
import { imageSize, type ImageFormat } from './imageSize.js';

/** A rectangle in CSS pixels, in document coordinates (0,0 = the top-left of the page, not of the viewport). */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The visual viewport (document coordinates) and the size of the whole page, in CSS pixels. */
export interface PageMetrics {
  viewport: Rect;
  page: { width: number; height: number };
}

/** One encoded capture and its pixel size as read from its header. */
export interface Capture {
  image: Buffer;
  format: ImageFormat;
  width: number;
  height: number;
}

/**
 * Output pixels per CSS pixel at clip scale 1, per tab, as last measured.
 * Not always `devicePixelRatio`: our CDP session does not see Playwright's
 * device-metrics emulation, so attached to a HiDPI screen it captures at the
 * screen's ratio while the page reports 1. Measured from the first capture
 * and corrected when a capture comes out another size.
 */
const captureRatio = new WeakMap<Tab, number>();

/**
 * The visual viewport and the page's scrollable size.
 * @throws playwright TimeoutError after `timeoutMs`.
 */
export async function pageMetrics(tab: Tab, timeoutMs: number): Promise<PageMetrics> {
  const cdp = tab.cdp;
  if (cdp) {
    const m = await raceTimeout(cdp.send('Page.getLayoutMetrics'), playwrightTimeout(timeoutMs));
    const v = m.cssVisualViewport;
    const viewport = { x: v.pageX, y: v.pageY, width: v.clientWidth, height: v.clientHeight };
    return { viewport, page: { width: Math.max(m.cssContentSize.width, v.clientWidth), height: Math.max(m.cssContentSize.height, v.clientHeight) } };
  }
  const [x, y, width, height, pageWidth, pageHeight] = await raceTimeout(tab.page.evaluate(() => {
    const d = document.documentElement;
    const b = document.body;
    return [scrollX, scrollY, d.clientWidth, d.clientHeight, Math.max(d.scrollWidth, b?.scrollWidth ?? 0, d.clientWidth), Math.max(d.scrollHeight, b?.scrollHeight ?? 0, d.clientHeight)];
  }), playwrightTimeout(timeoutMs));
  return { viewport: { x: x!, y: y!, width: width!, height: height! }, page: { width: pageWidth!, height: pageHeight! } };
}

/** True when `rect` lies inside `viewport` (both in document coordinates). */
export function insideViewport(rect: Rect, viewport: Rect): boolean {
  return rect.x >= viewport.x && rect.y >= viewport.y && rect.x + rect.width <= viewport.x + viewport.width + 0.5 && rect.y + rect.height <= viewport.y + viewport.height + 0.5;
}

/**
 * Captures `clip` scaled to `width` output pixels wide (the height follows,
 * aspect ratio kept). `beyondViewport` lets the clip reach outside the
 * viewport (full pages, tall elements; Chromium lays the page out at the
 * clip's size for the capture, as Playwright's full-page capture does).
 * Without a CDP session: Playwright's page.screenshot (full-page mode, so the
 * clip is in document coordinates) at CSS pixels, unscaled, and PNG for WebP; the returned `format`, `width` and `height` say what came out.
 * @param quality  1-100, for jpeg and webp.
 * @throws playwright TimeoutError after `timeoutMs`; CDP errors of a closed tab.
 */
export async function captureClip(tab: Tab, clip: Rect, opts: { width: number; beyondViewport: boolean; format: ImageFormat; quality?: number; timeoutMs: number }): Promise<Capture> {
  const cdp = tab.cdp;
  if (!cdp) {
    const type = opts.format === 'jpeg' ? 'jpeg' : 'png';
    const image = await tab.page.screenshot({ type, quality: type === 'jpeg' ? opts.quality : undefined, scale: 'css', clip, fullPage: true, timeout: opts.timeoutMs });
    const size = imageSize(image);
    return { image, format: type, width: size?.width ?? Math.round(clip.width), height: size?.height ?? Math.round(clip.height) };
  }
  const shoot = async (ratio: number) => {
    const scale = opts.width / (clip.width * ratio);
    // optimizeForSpeed: Chromium's fast PNG compression, ~35% faster here for ~1.6× the bytes (a model pays for an
    // image by its pixels, not its bytes); JPEG and WebP came out the same bytes and time with it or without.
    const shot = await raceTimeout(cdp.send('Page.captureScreenshot', {
      format: opts.format,
      quality: opts.format === 'png' ? undefined : opts.quality,
      clip: { ...clip, scale },
      captureBeyondViewport: opts.beyondViewport,
      fromSurface: true,
      optimizeForSpeed: opts.format === 'png',
    }), playwrightTimeout(opts.timeoutMs));
    const image = Buffer.from(shot.data, 'base64');
    return { image, scale, size: imageSize(image) };
  };
  let ratio = captureRatio.get(tab) ?? 1;
  let shot = await shoot(ratio);
  if (shot.size && Math.abs(shot.size.width - opts.width) > 1) {
    // This session captures at another ratio than assumed (a HiDPI screen, a zoomed page): measure it and capture again.
    ratio = shot.size.width / (clip.width * shot.scale);
    shot = await shoot(ratio);
  }
  captureRatio.set(tab, ratio);
  return { image: shot.image, format: opts.format, width: shot.size?.width ?? opts.width, height: shot.size?.height ?? Math.round(clip.height * opts.width / clip.width) };
}
