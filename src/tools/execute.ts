/**
 * execute: run the body of an async function in a page and
 * return its value as JSON, with a size cap and a timeout that also stops a
 * runaway loop.
 */
import { Script } from 'node:vm';
import * as z from 'zod';
import { describeDialog } from '../session/dialogs.js';
import type { Session } from '../session/session.js';
import type { ElementHandle } from 'playwright-core';
import type { RunResult } from '../page/runtime.js';
import type { JsonCut } from '../page/truncateJson.js';
import { resolveRef } from '../session/refs.js';
import { STUCK_PROBE_MS, STUCK_PROBES, stuckClause, stuckHint, type MainThreadProbe, type Tab } from '../session/tab.js';
import { defineTabTool } from './define.js';
import { withRefHandle } from './refHandle.js';
import { gateCode } from './codeConsent.js';
import { toToolError, ToolError } from '../errors.js';
import { refField, tabIdField } from './schemas.js';

export const DEFAULT_MAX_BYTES = 16 * 1024;
export const MAX_MAX_BYTES = 2 * 1024 * 1024;

/**
 * Wraps user code as an async arrow function: a single expression returns
 * its value; anything else is a function body (use `return`). With `param`
 * (execute's `ref`) the function takes that one parameter.
 * @throws ToolError invalid_arguments on a syntax error (the source is not echoed).
 */
export function wrapCode(code: string, param = ''): string {
  const asExpression = `async (${param}) => (\n${code}\n)`;
  try {
    new Script(`(${asExpression})`);
    return asExpression;
  } catch {
    // not a single expression
  }
  const asBody = `async (${param}) => {\n${code}\n}`;
  try {
    new Script(`(${asBody})`);
    return asBody;
  } catch (error) {
    // V8 quotes the offending identifier ("Unexpected identifier 'token'"): a piece of the source, so it is dropped.
    const message = error instanceof SyntaxError ? error.message.replace(/ '[^']*[\p{L}\p{N}_$][^']*'/gu, '') : 'syntax error';
    throw new ToolError('invalid_arguments', `The code does not parse: ${message}.`, 'Pass one expression, or a function body that uses return.');
  }
}

async function runInPage(session: Session, tab: Tab, fn: string, maxBytes: number, truncate: boolean): Promise<RunResult> {
  const expression = `globalThis.__tabwright ? globalThis.__tabwright.run(${fn}, ${maxBytes}, ${truncate}) : 'runtime-missing'`;
  const first = await tab.page.evaluate(expression) as RunResult | 'runtime-missing';
  if (first !== 'runtime-missing') return first;
  // Documents that existed before the session injected its runtime (the first tab of a profile).
  await session.injectRuntime(tab.page.mainFrame());
  return await tab.page.evaluate(expression) as RunResult;
}

/**
 * Runs `fn` (source of `async (element) => ...`) in the frame of `element`,
 * the frame's own document and globals (a ref inside a cross-site frame
 * runs there). The function is compiled through CDP, not `eval`, so a
 * page's CSP does not block it.
 */
async function runOnElement(element: ElementHandle, fn: string, maxBytes: number, truncate: boolean): Promise<RunResult> {
  const frame = await element.ownerFrame();
  if (!frame) throw new ToolError('stale_ref', 'The element is no longer in a frame.', 'Call get_page_context for a fresh snapshot and use its refs.');
  const compiled = await frame.evaluateHandle(fn);
  try {
    return await element.evaluate((el, [f, max, cut]) => {
      const rt = (globalThis as { __tabwright?: { run(fn: () => unknown, maxBytes: number, truncate: boolean): Promise<RunResult> } }).__tabwright;
      if (!rt) throw new Error('the in-page runtime is missing in this frame');
      return rt.run(() => (f as unknown as (e: Node) => unknown)(el), max as number, cut as boolean);
    }, [compiled, maxBytes, truncate] as const);
  } finally {
    void compiled.dispose();
  }
}

/** One cut in words: `$.items kept 19 of 1000 items`. */
function describeCut(cut: JsonCut): string {
  const unit = cut.kind === 'string' ? 'characters' : cut.kind === 'array' ? 'items' : 'keys';
  return `${cut.path} ${cut.kind === 'string' ? 'cut at' : 'kept'} ${cut.kept} of ${cut.total} ${unit}`;
}

export const execute = defineTabTool({
  name: 'execute',
  title: 'Execute JavaScript',
  description:
    'Run JavaScript in a tab\'s page as an async function body: one expression returns its value, else use return. ' +
    'With ref: in that element\'s frame, the element as `element`. ' +
    'Returns the value as JSON (DOM nodes described, cycles marked); over maxBytes is result_too_large, or cut to fit with truncate.',
  needs: ['evaluate'],
  effect: 'sensitive',
  launchesBrowser: true,
  destructive: true,
  target: 'ref',
  // A syntax error is reported before anything about the tab (the handler wraps the code again: a parse costs little).
  check: ({ code, ref }) => void wrapCode(code, ref ? 'element' : ''),
  input: z.object({
    tabId: tabIdField,
    ref: refField.optional().describe('Element ref (from get_page_context): run in its frame with it as `element`'),
    code: z.string().min(1).max(1_000_000).describe('JavaScript: one expression (its value is returned) or an async function body with return'),
    timeoutSec: z.number().int().min(1).max(300).optional().describe('Time limit in seconds (default 30); a runaway script is stopped'),
    maxBytes: z.number().int().min(1024).max(MAX_MAX_BYTES).optional().describe(`Largest JSON result in bytes (default ${DEFAULT_MAX_BYTES})`),
    truncate: z.boolean().optional().describe('Cut an oversized result to maxBytes (valid JSON)'),
    navigate: z.boolean().optional().describe('userscript connection: the code navigates; wait for the new document or a same-document navigation and report it'),
  }),
  async remote(tabs, tab, { ref, code, timeoutSec, maxBytes, truncate, navigate }, ctx, res) {
    if (ref) throw new ToolError('invalid_arguments', 'The userscript connection runs code in the page as a whole, not on a ref.', 'Drop ref; select the element in the code (document.querySelector).');
    if (truncate) throw new ToolError('invalid_arguments', 'The userscript connection never cuts a result.', `Drop truncate; return less, or raise maxBytes (up to ${MAX_MAX_BYTES}).`);
    const fn = wrapCode(code);
    await gateCode(ctx, tab, 'execute', code);
    const seconds = timeoutSec ?? 30;
    // Guarded by the document the call resolved (its expectRevision was checked against it): a replaced one fails.
    const limits = { timeoutMs: seconds * 1000, maxBytes: maxBytes ?? DEFAULT_MAX_BYTES, instanceId: tab.instanceId, signal: ctx.signal };
    ctx.waiting?.({ kind: 'execute', tabId: tab.tabId });
    if (navigate) {
      const seen = await tabs.navigate(tab.tabId, fn, limits);
      res.merge({ tabId: tab.tabId, ...seen });
      res.text(seen.navigation === 'timeout'
        ? `No navigation was observed within ${seconds} s (${seen.reason}); tab ${tab.tabId} is at revision ${seen.revision}: ${seen.url} "${seen.title}". The code may have run: check the page before running it again.`
        : `${seen.navigation === 'document' ? 'A new document loaded' : 'A same-document navigation happened'} in tab ${tab.tabId}: ${seen.url} "${seen.title}" (revision ${seen.revision}).${seen.value !== undefined ? ` The code returned ${JSON.stringify(seen.value)} first.` : ''}`);
      return;
    }
    const value = await tabs.execute(tab.tabId, fn, limits);
    const json = JSON.stringify(value ?? null);
    res.merge({ tabId: tab.tabId, value: value ?? null, bytes: Buffer.byteLength(json) });
    res.text(json);
  },
  async handle(tab, { ref, code, timeoutSec, maxBytes, truncate, navigate }, ctx, res) {
    if (navigate) throw new ToolError('invalid_arguments', 'navigate mode is the userscript connection\'s.', 'Run the code without navigate, then wait_for the page you expect (or call navigate with the URL).');
    const { session, signal } = ctx;
    const fn = wrapCode(code, ref ? 'element' : '');
    const resolved = ref ? await resolveRef(session, ref) : undefined;
    await gateCode(ctx, tab, 'execute', code);
    ctx.waiting?.({ kind: 'execute', tabId: tab.id });
    const limit = maxBytes ?? DEFAULT_MAX_BYTES;
    const seconds = timeoutSec ?? 30;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    // A probe of the main thread one probe window before the deadline: a loop then times out at the deadline. Not
    // before 0.5 s: a probe sent with the code can be answered before the code starts.
    let probe: MainThreadProbe | undefined;
    const probeTimer = setTimeout(() => (probe = tab.probeMainThread()), Math.max(500, seconds * 1000 - STUCK_PROBE_MS * STUCK_PROBES));
    const stop = new Promise<'timeout' | 'cancelled'>(resolve => {
      timer = setTimeout(() => resolve('timeout'), seconds * 1000);
      onAbort = () => resolve('cancelled');
      signal.addEventListener('abort', onAbort, { once: true });
    });
    const started = resolved
      ? withRefHandle(resolved, ref!, handle => runOnElement(handle, fn, limit, !!truncate))
      : runInPage(session, tab, fn, limit, !!truncate);
    const run = started.then(
      result => ({ result }),
      error => ({ error }),
    );
    // A dialog the code opens (alert, confirm) blocks the page until answered: return then.
    const dialogWaiter = tab.dialogs.next();
    const outcome = await Promise.race([run, stop, dialogWaiter.opened.then(dialog => ({ dialog }))]).finally(() => {
      clearTimeout(timer);
      clearTimeout(probeTimer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
      dialogWaiter.cancel();
    });
    if (outcome === 'timeout' || outcome === 'cancelled') {
      const stuck = await tab.stopIfStuck(probe);
      // The code had started: what it did before it was stopped stays done (src/tools/recovery.ts).
      if (outcome === 'cancelled') throw new ToolError('cancelled', 'The call was cancelled.', 'Send it again if still wanted.', { dispatched: 'yes' });
      throw new ToolError(
        'timeout',
        `The code did not finish within ${seconds} s${stuck === 'stopped' ? '; it was busy (a loop) and has been stopped' : stuck ? `; ${stuckClause(stuck)}` : ''}.`,
        stuck === 'not_stopped' ? stuckHint(stuck, '') : 'Make the code finish sooner, or raise timeoutSec (up to 300).',
        { dispatched: 'yes' },
      );
    }
    if ('dialog' in outcome) {
      res.merge({ tabId: tab.id, dialog: outcome.dialog });
      res.text(describeDialog(tab.id, outcome.dialog)).text('The code is paused at the dialog; its value is not returned. Run execute again after answering to read the page.');
      return;
    }
    if ('error' in outcome) {
      const err = toToolError(outcome.error);
      if (err.type !== 'internal') throw err;
      throw new ToolError('evaluation_failed', `The page could not run the code: ${err.message}`, 'Check the tab is showing a page (not a crashed or closed one) and try again.');
    }
    const result = outcome.result;
    if (result.error) {
      throw new ToolError('evaluation_failed', `The page threw ${result.error.name}: ${result.error.message.slice(0, 2000)}`, 'Fix the code; the message is the page\'s own.');
    }
    if (result.tooLarge !== undefined && !result.cuts) {
      throw new ToolError('result_too_large', `The result is ${result.tooLarge} bytes of JSON, over maxBytes ${limit}.`, `Return less (select fields, slice arrays), raise maxBytes (up to ${MAX_MAX_BYTES}), or pass truncate: true for its first maxBytes.`);
    }
    const value: unknown = JSON.parse(result.json ?? 'null');
    res.merge({ tabId: tab.id, value, bytes: result.bytes });
    // JSON has no undefined (the value is null): the text says undefined, since code of several statements returns
    // nothing without `return`.
    if (result.undefined) res.set('undefined', true).text('undefined (the code returned no value: a function body returns one only with `return`)');
    else res.text(result.json ?? 'null');
    if (result.cuts && result.tooLarge !== undefined) {
      res.set('truncated', { totalBytes: result.tooLarge, cuts: result.cuts });
      res.text(`… Truncated (truncate: true): ${result.bytes} of ${result.tooLarge} bytes of JSON shown${result.cuts.length ? `; ${result.cuts.map(describeCut).join('; ')}` : ''}. Return less, or raise maxBytes (up to ${MAX_MAX_BYTES}), for the rest.`);
    }
  },
});
