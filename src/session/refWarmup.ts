/**
 * Gets a document ready for ref actions right after a snapshot of it
 * (the first action by ref on a fresh document took about twice as long as
 * the next one).
 *
 * Playwright builds its InjectedScript (about 0.5 MB of JavaScript) lazily,
 * once per document and world, on first use. A ref action needs it in two
 * worlds: the page's main world, where the `tabwright-ref` selector engine
 * asks the in-page runtime for the element (./snapshot.ts), and Playwright's
 * utility world, where actions check actionability and act. Measured on the
 * bench login page (loaded machine), each build took 50-60 ms of the first
 * action of a document, and nothing afterwards.
 *
 * A snapshot says ref actions are coming, so each frame whose walk issued
 * refs gets both built in the background (one `count()` per world, not
 * awaited, errors ignored), WARM_DELAY_MS after the walk so that the work
 * does not hold up the snapshot's own reply (started at once, it did). An
 * agent reads the snapshot before it acts, so its action finds both ready;
 * an action that comes sooner waits for the build in progress rather than
 * starting another. When no ref action follows, the cost is that renderer
 * time, once per document.
 */
import type { Frame } from 'playwright-core';
import { logger } from '../log.js';

const log = logger('snapshot');

/** How long after a walk the warm-up starts, in ms (the snapshot's reply goes out first). */
export const WARM_DELAY_MS = 50;

/** The runtime nonce (one per document, src/page/snapshot.ts) each frame was last warmed for. */
const warmedFor = new WeakMap<Frame, string>();

/**
 * Builds Playwright's injected scripts for `frame`'s current document
 * (named by its runtime `nonce`) in the background, once per document.
 * `engine` resolves to the registered ref selector engine's name.
 * Returns at once and never throws.
 */
export function warmRefActions(frame: Frame, nonce: string, engine: () => Promise<string>): void {
  if (warmedFor.get(frame) === nonce) return;
  warmedFor.set(frame, nonce);
  setTimeout(() => {
    void (async () => {
      if (frame.isDetached()) return;
      const name = await engine();
      // An id no element has: the query runs in each world, and the scripts it built stay.
      await Promise.all([frame.locator(`${name}=${nonce}_warmup`).count(), frame.locator('css=html').count()]);
    })().catch(error => log.debug('ref warm-up failed', error));
  }, WARM_DELAY_MS).unref();
}
