/**
 * The top document's snapshot walk in one round trip on a relayed connection (docs/actions.md, "Direct actions on
 * relayed connections"). Playwright's `frame.evaluate` sends its utility script to a document it has not evaluated
 * in yet (every fresh document) before the call itself: two round trips one after the other, each crossing the
 * relay. A `Runtime.evaluate` on the tab's own CDP session runs in the top document's main world, where the runtime
 * is (the context's init script), and answers by value in one.
 */
import type { CDPSession } from 'playwright-core';
import type { SnapshotResult } from '../page/snapshot.js';
import { logger } from '../log.js';

const log = logger('snapshot');

/**
 * Runs the runtime's `snapshot(opts)` in the top document through `cdp`.
 * @param opts  the walker's options (plain JSON: ids, limits, level).
 * @returns the walk; `'runtime-missing'` when the document has no runtime; undefined when the evaluation failed (an
 *   exception, a document that went away mid-call, a value that is not a walk): the caller walks through Playwright,
 *   whose errors it knows.
 */
export async function directWalk(cdp: CDPSession, opts: object): Promise<SnapshotResult | 'runtime-missing' | undefined> {
  const expression = `(() => { const rt = globalThis.__tabwright; return rt && rt.snapshot ? rt.snapshot(${JSON.stringify(opts)}) : 'runtime-missing'; })()`;
  try {
    const answer = await cdp.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (answer.exceptionDetails) {
      log.debug(`direct walk: ${answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text}`);
      return undefined;
    }
    const value: unknown = answer.result.value;
    if (value === 'runtime-missing') return value;
    return value && typeof value === 'object' && Array.isArray((value as SnapshotResult).lines) ? value as SnapshotResult : undefined;
  } catch (error) {
    log.debug('direct walk failed', error);
    return undefined;
  }
}
