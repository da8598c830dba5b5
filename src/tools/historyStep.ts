/**
 * Going back / forward with the back-forward cache on. A browser
 * tabwright attaches to has bfcache on (playwright-core's own launch turns
 * it off with `--disable-features=...BackForwardCache`). A page restored
 * from it commits again (`Page.frameNavigated` of type
 * `BackForwardCacheRestore`, its old loader id, `pageshow` with
 * `persisted: true`) but fires no new DOMContentLoaded or load, so
 * playwright-core's `goBack`/`goForward` would wait for them until the
 * timeout. That commit ends the wait here: the restored document is fully
 * loaded already.
 */
import type { Response } from 'playwright-core';
import type { Tab } from '../session/tab.js';
import { raceTimeout } from '../util/wait.js';

type WaitUntil = 'commit' | 'domcontentloaded' | 'load' | 'networkidle';

/** What a history step produced: playwright-core's response, or a restore from the back-forward cache. */
export interface HistoryStep {
  /** Resolves with the main document's response (null for a bfcache restore, or a document without one). */
  done: Promise<Response | null>;
  /** True once the step turned out to be a bfcache restore. */
  restored(): boolean;
}

/**
 * Starts going `direction` in `tab`'s history. `done` settles when
 * playwright-core's navigation does, or as soon as the main frame is
 * restored from the back-forward cache; it rejects as goBack/goForward do
 * (timeout, net errors) otherwise.
 */
export function historyStep(tab: Tab, direction: 'back' | 'forward', opts: { waitUntil: WaitUntil; timeout: number }): HistoryStep {
  const step = direction === 'back' ? tab.page.goBack(opts) : tab.page.goForward(opts);
  const cdp = tab.cdp;
  if (!cdp) return { done: step, restored: () => false };
  let restored = false;
  let onNavigated: ((event: { frame: { parentId?: string }; type: string }) => void) | undefined;
  const restore = new Promise<null>(resolve => {
    onNavigated = event => {
      if (event.frame.parentId || event.type !== 'BackForwardCacheRestore') return;
      restored = true;
      resolve(null);
    };
    cdp.on('Page.frameNavigated', onNavigated);
  });
  // After a restore playwright-core's own wait runs on until its timeout: its rejection is expected and dropped.
  step.catch(() => undefined);
  const done = Promise.race([step, restore]).finally(() => cdp.off('Page.frameNavigated', onNavigated!));
  return { done, restored: () => restored };
}

/**
 * The HTTP status of the document a bfcache restore brought back: the
 * `responseStatus` of its navigation timing entry (0 when the browser does
 * not report one, or the page does not answer in 2 s).
 */
export async function restoredStatus(tab: Tab): Promise<number> {
  const read = tab.page.evaluate('performance.getEntriesByType("navigation")[0]?.responseStatus ?? 0').then(value => (typeof value === 'number' ? value : 0));
  return (await raceTimeout(read.catch(() => 0), { ms: 2_000, onTimeout: 'undefined' })) ?? 0;
}
