/**
 * Reading a tab's visible text (`get_text`; docs/snapshot.md, "Reading
 * text"): the in-page runtime (src/page/text.ts) collects it in one
 * evaluate, from the top document's body, the element of a ref (an iframe's
 * ref: the document in it, same-origin or not), or the first match of a CSS
 * selector in the top document (under a ref when both are given is not
 * offered: one target per call).
 */
import type { ElementHandle, Frame } from 'playwright-core';
import { timeoutError } from '../browser/playwright.js';
import { firstLine, ToolError } from '../errors.js';
import type { TextResult } from '../page/text.js';
import { raceTimeout } from '../util/wait.js';
import { elementOf, refScope } from './refs.js';
import type { Session } from './session.js';
import type { Tab } from './tab.js';

export interface TextOptions {
  ref?: string;
  selector?: string;
  /** First character to return (of the whole text). */
  offset?: number;
  /** Characters to return at most. */
  maxChars: number;
  timeoutMs?: number;
}

type Runtime = { __tabwright?: { text?: (o: unknown) => TextResult } };

/** Runs the runtime's `text` in `frame` (on `root` when given), injecting the runtime into a document that predates it. */
async function readIn(session: Session, frame: Frame, opts: { offset?: number; maxChars: number }, root?: ElementHandle): Promise<TextResult> {
  const run = () => (root
    ? root.evaluate((el, o) => (globalThis as Runtime).__tabwright?.text?.({ ...o, root: el }) ?? 'runtime-missing', opts)
    : frame.evaluate(o => (globalThis as Runtime).__tabwright?.text?.(o) ?? 'runtime-missing', opts)) as Promise<TextResult | 'runtime-missing'>;
  let result = await run();
  if (result === 'runtime-missing') {
    await session.injectRuntime(frame);
    result = await run();
    if (result === 'runtime-missing') throw new ToolError('capability_unavailable', 'The in-page runtime could not be loaded into this page.', 'Reload the tab and try again.');
  }
  return result;
}

/**
 * The visible text of `tab` (its top document), of a ref's element, or of a
 * selector's first match, from `offset`, at most `maxChars` characters.
 * @throws ToolError stale_ref / invalid_arguments for the ref (src/session/refs.ts); invalid_arguments for a
 *   selector that does not parse or matches nothing; timeout.
 */
export async function readText(session: Session, tab: Tab, opts: TextOptions): Promise<TextResult> {
  const timeout = opts.timeoutMs ?? 15_000;
  const page = { offset: opts.offset, maxChars: opts.maxChars };
  const work = async (): Promise<TextResult> => {
    if (opts.ref) {
      const scope = await refScope(session, opts.ref);
      if (scope.content) return readIn(session, scope.content, page);
      const handle = await elementOf(scope, opts.ref);
      try {
        return await readIn(session, scope.frame, page, handle);
      } finally {
        void handle.dispose().catch(() => undefined);
      }
    }
    if (opts.selector) {
      const locator = tab.page.locator(opts.selector);
      let count: number;
      try {
        count = await locator.count();
      } catch (error) {
        throw new ToolError('invalid_arguments', `The selector is not valid: ${firstLine(String(error)).slice(0, 300)}`, 'Pass a CSS selector such as "main" or "#results", or omit it for the whole page.');
      }
      const handle = count ? await locator.first().elementHandle({ timeout }).catch(() => null) : null;
      if (!handle) {
        throw new ToolError('invalid_arguments', 'The selector matches no element in the top document.',
          'Check it against the page (get_page_context {level: "summary"} shows the landmarks, with refs get_text takes); it does not reach into iframes: pass the iframe\'s ref instead; find {selector} searches every frame.');
      }
      try {
        return await readIn(session, (await handle.ownerFrame()) ?? tab.page.mainFrame(), page, handle);
      } finally {
        void handle.dispose().catch(() => undefined);
      }
    }
    return readIn(session, tab.page.mainFrame(), page);
  };
  return raceTimeout(work(), { ms: timeout, onTimeout: () => timeoutError(`get_text: no answer within ${timeout} ms`) });
}
