/**
 * Where the child frames of one tab stand in loading their documents
 * (docs/snapshot.md, "Frames"): a frame whose navigation request is under
 * way is `loading` until its document commits; one whose request failed
 * (the browser shows its error page, `chrome-error://`) is `failed` with the
 * network error (`net::ERR_NAME_NOT_RESOLVED`). Fed by the page's Playwright
 * events (`request`, `requestfailed`, `framenavigated`, `framedetached`),
 * which cover out-of-process frames too. The snapshot
 * marks such an iframe's line, and navigate waits for the frames a page has
 * when its document is ready.
 */
import type { Frame, Page, Request } from 'playwright-core';
import { pollUntil, raceTimeout } from '../util/wait.js';

/** A child frame's load that is not done: under way, or failed with the browser's error text. */
export type FrameLoad = { state: 'loading' } | { state: 'failed'; error?: string };

/** How long after its response a frame that has not committed is taken to get no document, in ms. */
const NO_DOCUMENT_MS = 2_000;

export class FrameLoads {
  private readonly loads = new Map<Frame, FrameLoad>();

  constructor(private readonly page: Page) {
    page.on('request', request => {
      const frame = childNavigation(page, request);
      if (!frame) return;
      const load: FrameLoad = { state: 'loading' };
      this.loads.set(frame, load);
      // A navigation answered without a document (a 204, a download) leaves the frame as it was: a frame that has
      // not committed NO_DOCUMENT_MS after its response came is not loading. (A call, not the `requestfinished`
      // event: subscribing to that changes what other waits see, ./tabAction.ts.)
      void request.response().then(response => {
        if (!response) return;
        setTimeout(() => {
          if (this.loads.get(frame) === load) this.loads.delete(frame);
        }, NO_DOCUMENT_MS).unref();
      }, () => undefined);
    });
    page.on('requestfailed', request => {
      const frame = childNavigation(page, request);
      if (frame) this.loads.set(frame, { state: 'failed', error: request.failure()?.errorText || undefined });
    });
    page.on('framenavigated', frame => {
      if (frame === page.mainFrame()) {
        this.loads.clear();
        return;
      }
      // The error page of a failed load commits too: the failure stays.
      if (isErrorPage(frame) && this.loads.get(frame)?.state === 'failed') return;
      if (isErrorPage(frame)) this.loads.set(frame, { state: 'failed' });
      else this.loads.delete(frame);
    });
    page.on('framedetached', frame => this.loads.delete(frame));
  }

  /** How `frame`'s load stands when it is not done; undefined for a frame whose document has committed. */
  of(frame: Frame): FrameLoad | undefined {
    if (frame.isDetached()) return undefined;
    return this.loads.get(frame) ?? (isErrorPage(frame) ? { state: 'failed' } : undefined);
  }

  /**
   * Waits until no child frame of the page (those it has now, at any depth) is `loading`, then for each of them to
   * reach `domcontentloaded`, at most `ms` in all. Returns whether they all did; a failed frame counts as done.
   */
  async settle(ms: number): Promise<boolean> {
    if (ms <= 0) return false;
    const deadline = Date.now() + ms;
    const frames = this.page.frames().filter(f => f !== this.page.mainFrame());
    if (!frames.length) return true;
    // A frame still on its initial empty document whose iframe names a page has a navigation to come that the
    // browser may not have reported yet (its request event can come after the parent's domcontentloaded).
    const coming = new Set((await Promise.all(frames.map(async f => ((await navigationToCome(f, ms)) ? f : undefined)))).filter(f => f !== undefined));
    const pending = (f: Frame) => this.loads.get(f)?.state === 'loading' || (coming.has(f) && !this.loads.has(f) && isInitial(f));
    const committed = await pollUntil(() => frames.every(f => f.isDetached() || !pending(f)) || undefined, { ms: deadline - Date.now(), intervalMs: 25 });
    if (!committed) return false;
    const loaded = await Promise.all(frames.map(f => {
      const left = deadline - Date.now();
      if (f.isDetached() || this.of(f)?.state === 'failed') return true;
      return left > 0 ? f.waitForLoadState('domcontentloaded', { timeout: left }).then(() => true, () => false) : false;
    }));
    return loaded.every(Boolean);
  }
}

/** The child frame a navigation request is for; undefined for the main frame's, a subresource or a worker's. */
function childNavigation(page: Page, request: Request): Frame | undefined {
  if (!request.isNavigationRequest()) return undefined;
  let frame: Frame;
  try {
    frame = request.frame();
  } catch {
    return undefined; // a service worker's request has no frame
  }
  return frame === page.mainFrame() ? undefined : frame;
}

/** Whether `frame` is on the initial empty document of a frame (no URL yet, or about:blank). */
function isInitial(frame: Frame): boolean {
  return /^(about:blank|)$/.test(frame.url());
}

/**
 * Whether `frame` is on its initial empty document while its `<iframe>` names a page to load (a `src` other than
 * about:blank and javascript:), read from the parent within `ms`; false when it cannot be read.
 */
async function navigationToCome(frame: Frame, ms: number): Promise<boolean> {
  if (!isInitial(frame) || frame.isDetached()) return false;
  const read = (async () => {
    const element = await frame.frameElement();
    try {
      return await element.evaluate(node => {
        const el = node as Element;
        const src = (el.getAttribute('src') ?? '').trim();
        return src !== '' && !el.hasAttribute('srcdoc') && !/^(about:blank|javascript:)/i.test(src);
      });
    } finally {
      void element.dispose().catch(() => undefined);
    }
  })();
  return (await raceTimeout(read.catch(() => false), { ms, onTimeout: 'undefined' })) ?? false;
}

function isErrorPage(frame: Frame): boolean {
  return frame.url().startsWith('chrome-error:');
}
