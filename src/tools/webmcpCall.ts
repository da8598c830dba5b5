/**
 * Lists and calls native WebMCP tools, each in one evaluation (issue #3: a
 * `call_webmcp_tool` round trip under 10 ms).
 *
 * Playwright's `frame.webmcp.callTool` evaluates twice: it lists the
 * frame's tools again, then calls. tabwright already knows the tool is
 * there (the cached list, ./webmcpCache.ts), so it runs what Playwright's
 * injected WebMCPScript.callTool does in one `Runtime.callFunctionOn`: take
 * `document.modelContext ?? navigator.modelContext`; use its `invokeTool`
 * when it has one; else find the tool in `getTools()` (tools of this
 * window only), `executeTool(tool, input)` it (again with the input as JSON
 * text when the browser answers "Failed to parse input"), and parse a string
 * result as JSON. A tool no longer there comes back as "not found" without
 * being called.
 *
 * Like Playwright, it runs in an isolated world ("tabwright", created
 * through the tab's CDP session with `Page.createIsolatedWorld`), so page
 * scripts that replace `modelContext.executeTool` or its prototype in the
 * main world do not change what the call does. The world's execution
 * context id is kept per tab and main-frame document (loader id); a context
 * the browser no longer knows (the document was replaced meanwhile) is
 * created again once.
 *
 * Listing a main frame's native tools is one evaluation in that world too
 * (`listNativeTools`): Playwright's `frame.webmcp.tools()` drops the tool's
 * `title` and the `debugging` annotation, which the issue asks for (#5).
 * A call passes the page's `execute` an AbortSignal (`executeTool(tool,
 * input, {signal})`), aborted by a second evaluation when the MCP call is
 * cancelled or times out.
 *
 * Tools of child frames go through Playwright's `frame.webmcp.callTool`
 * (two evaluations, same isolation): a Playwright frame does not tell its
 * CDP frame id, and an out-of-process frame is not reachable through the
 * tab's session. So does every call when the tab has no CDP session, or
 * when the browser will not make the world. Listing a tab's tools makes the
 * world in the background (`prepareWebMcpCalls`), so the first call after a
 * list is one round trip too.
 */
import { randomUUID } from 'node:crypto';
import type { CDPSession, Frame } from 'playwright-core';
import { isTimeoutError, timeoutError } from '../browser/playwright.js';
import type { Tab } from '../session/tab.js';
import type { SourceTool } from '../webmcp/source.js';
import { ToolError } from './errors.js';

/** What the in-page function returns: `found: false` when the frame has no such tool (nothing was called). */
type Outcome = { found: true; value?: unknown } | { found: false };

/**
 * Runs in the isolated world; mirrors Playwright's WebMCPScript.callTool
 * (playwright-core 1.65), plus an AbortController per call, kept by call id
 * on the world's global so ABORT can reach it (the page's main world cannot).
 */
const CALL = `async function (name, input, callId) {
  const calls = (globalThis.__tabwrightCalls = globalThis.__tabwrightCalls || new Map());
  const ctl = new AbortController();
  calls.set(callId, ctl); // before the first await: an ABORT sent after this call always finds it
  try {
    const mc = (document && document.modelContext) || navigator.modelContext;
    if (!mc) return { found: false };
    if (typeof mc.invokeTool === 'function') return { found: true, value: await mc.invokeTool(name, input) };
    const tools = (typeof mc.getTools === 'function' ? await mc.getTools() : null) || [];
    const tool = tools.find(t => (!('window' in t) || t.window === window) && t.name === name);
    if (!tool || typeof mc.executeTool !== 'function') return { found: false };
    let result;
    try {
      result = await mc.executeTool(tool, input, { signal: ctl.signal });
    } catch (e) {
      if (!String(e && e.message).includes('Failed to parse input')) throw e;
      result = await mc.executeTool(tool, JSON.stringify(input), { signal: ctl.signal });
    }
    if (typeof result !== 'string') return { found: true, value: result };
    if (result === 'undefined') return { found: true };
    try {
      return { found: true, value: JSON.parse(result) };
    } catch {
      return { found: true, value: result };
    }
  } finally {
    calls.delete(callId);
  }
}`;

/** Runs in the isolated world: aborts the signal of call `callId` (CALL's controller); false when it is not running. */
const ABORT = `function (callId) {
  const ctl = globalThis.__tabwrightCalls && globalThis.__tabwrightCalls.get(callId);
  if (!ctl) return false;
  ctl.abort(new DOMException('The call was cancelled.', 'AbortError'));
  return true;
}`;

/**
 * Runs in the isolated world; Playwright's WebMCPScript.tools + normalizeTool
 * (playwright-core 1.65: this window's tools, description defaulting to '',
 * a string inputSchema parsed, annotations only where truthy), keeping what
 * Playwright drops: `title` (where non-empty) and the `debugging` annotation.
 * null when the document has no modelContext.
 */
const LIST = `async function () {
  const mc = (document && document.modelContext) || navigator.modelContext;
  if (!mc) return null;
  const tools = (typeof mc.getTools === 'function' ? await mc.getTools() : null) || [];
  const out = [];
  for (const t of tools) {
    if ('window' in t && t.window !== window) continue;
    let schema = t.inputSchema;
    if (typeof schema === 'string') {
      try { schema = JSON.parse(schema); } catch { schema = undefined; }
    }
    const given = t.annotations || {};
    const annotations = {};
    for (const hint of ['readOnlyHint', 'consequentialHint', 'untrustedContentHint', 'debugging']) if (given[hint]) annotations[hint] = true;
    const tool = { name: t.name, description: t.description == null ? '' : t.description, annotations };
    if (t.title) tool.title = String(t.title);
    if (schema != null) tool.inputSchema = schema;
    out.push(tool);
  }
  return out;
}`;

const WORLD_NAME = 'tabwright';

/** Per tab: the main frame's CDP id and the isolated world of its current document. */
interface TabWorld {
  frameId?: string;
  instanceId?: string;
  contextId?: Promise<number>;
}
const worlds = new WeakMap<Tab, TabWorld>();

/** A page-side failure of the call: the message is the page's own (first line of its exception). */
export class WebMcpPageError extends Error {}

/** The isolated world's execution context id for the tab's current main-frame document, created on first use. */
function isolatedWorld(tab: Tab, cdp: CDPSession): Promise<number> {
  let world = worlds.get(tab);
  if (!world) worlds.set(tab, (world = {}));
  const w = world;
  if (w.contextId && w.instanceId === tab.instanceId) return w.contextId;
  w.instanceId = tab.instanceId;
  w.contextId = (async () => {
    w.frameId ??= (await cdp.send('Page.getFrameTree')).frameTree.frame.id;
    const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: w.frameId, worldName: WORLD_NAME });
    return executionContextId;
  })();
  w.contextId.catch(() => {
    if (worlds.get(tab) === w) w.contextId = undefined;
  });
  return w.contextId;
}

/**
 * Makes the isolated world for the tab's current main-frame document in the
 * background (called when the tab's tools are listed, so the first call
 * finds it). Returns at once and never throws.
 */
export function prepareWebMcpCalls(tab: Tab): void {
  const cdp = tab.session;
  if (cdp && !tab.closed) isolatedWorld(tab, cdp).catch(() => undefined);
}

function forgetWorld(tab: Tab): void {
  const world = worlds.get(tab);
  if (world) world.contextId = undefined;
}

/** Rejects with a Playwright-style TimeoutError after `ms`, or with ToolError `cancelled` when `signal` aborts. */
function within<T>(promise: Promise<T>, ms: number, what: string, signal?: AbortSignal): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(`${what}: no answer within ${ms} ms`)), ms);
    if (!signal) return;
    onAbort = () => reject(cancelledError());
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  promise.catch(() => undefined); // settles after the timeout: nobody listens any more
  return Promise.race([promise, stop]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  });
}

function cancelledError(): ToolError {
  return new ToolError('cancelled', 'The call was cancelled.', 'Send the call again if it is still wanted.');
}

/** The first line of a CDP evaluation's exception. */
function exceptionText(details: { text: string; exception?: { description?: string; value?: unknown } }): string {
  const text = details.exception?.description ?? (details.exception?.value !== undefined ? String(details.exception.value) : details.text);
  return text.split('\n')[0] ?? text;
}

/**
 * Runs `functionDeclaration` with `args` in the tab's isolated world of the
 * main frame, awaiting its promise and returning its value; undefined
 * (nothing ran) when the browser would not make the world.
 * @throws TimeoutError after `deadline` (epoch ms); ToolError `cancelled`
 *   when `signal` aborts; WebMcpPageError with the page's message when the
 *   function threw; CDP errors otherwise.
 */
async function inWorld(tab: Tab, cdp: CDPSession, functionDeclaration: string, args: unknown[], deadline: number, what: string, signal?: AbortSignal): Promise<{ value: unknown } | undefined> {
  for (let attempt = 0; ; attempt++) {
    let executionContextId: number;
    try {
      executionContextId = await within(isolatedWorld(tab, cdp), Math.max(1, deadline - Date.now()), what, signal);
    } catch (error) {
      if (isTimeoutError(error) || error instanceof ToolError) throw error;
      return undefined; // a document on its way out: the caller falls back to Playwright's way
    }
    let reply;
    try {
      reply = await within(cdp.send('Runtime.callFunctionOn', {
        functionDeclaration,
        executionContextId,
        arguments: args.map(value => ({ value })),
        awaitPromise: true,
        returnByValue: true,
      }), Math.max(1, deadline - Date.now()), what, signal);
    } catch (error) {
      // The document behind the cached world was replaced (its context is gone): make a world in the new one, once.
      if (attempt === 0 && /Cannot find context with specified id/i.test(String(error))) {
        forgetWorld(tab);
        continue;
      }
      throw error;
    }
    if (reply.exceptionDetails) throw new WebMcpPageError(exceptionText(reply.exceptionDetails));
    return { value: reply.result.value };
  }
}

/**
 * Lists the native WebMCP tools of `frame` (a frame of `tab`): for the main
 * frame, one evaluation in the isolated world that keeps `title` and the
 * `debugging` annotation; for child frames, or without a CDP session, or
 * when the document has no modelContext, Playwright's `frame.webmcp.tools()`
 * (which raises its own "WebMCP is not enabled" error where it applies, and
 * reports neither `title` nor `debugging`). Annotations appear only where
 * true, like the polyfill's (src/webmcp/polyfillSource.ts).
 * @param timeoutMs  longest wait, in ms.
 * @throws TimeoutError after `timeoutMs`; Playwright/CDP errors.
 */
export async function listNativeTools(tab: Tab, frame: Frame, timeoutMs: number): Promise<SourceTool[]> {
  const cdp = tab.session;
  if (cdp && frame === tab.page.mainFrame()) {
    const deadline = Date.now() + timeoutMs;
    const listed = await inWorld(tab, cdp, LIST, [], deadline, 'list WebMCP tools');
    if (listed && Array.isArray(listed.value)) return listed.value as SourceTool[];
    timeoutMs = Math.max(1, deadline - Date.now());
  }
  const tools = await frame.webmcp.tools({ timeout: timeoutMs });
  return tools.map(tool => {
    const a = tool.annotations ?? {};
    const annotations: SourceTool['annotations'] = {};
    if (a.readOnly) annotations.readOnlyHint = true;
    if (a.consequential) annotations.consequentialHint = true;
    if (a.untrustedContent) annotations.untrustedContentHint = true;
    return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, annotations };
  });
}

/**
 * Calls WebMCP tool `name` of `frame` (a frame of `tab`) with `input`, in
 * one evaluation for the main frame. Resolves to the tool's result
 * (`undefined` for none).
 *
 * Cancellation (issue #5): for a main-frame tool, `signal` aborting (MCP
 * `notifications/cancelled`) or the timeout aborts the AbortSignal that
 * `executeTool` handed the page's `execute`, through a second evaluation
 * in the same world. A child-frame tool cannot be aborted (Playwright's
 * callTool takes no signal): the call still ends at once, the page's
 * execute runs on.
 * @param timeoutMs  longest wait for the tool, in ms.
 * @throws Error whose message says `No WebMCP tool named` when the frame has
 *   no such tool now (nothing was called); WebMcpPageError with the page's
 *   message when the tool or the browser threw; a TimeoutError after
 *   `timeoutMs`; ToolError `cancelled` when `signal` aborted; CDP/Playwright
 *   errors otherwise (e.g. the document was replaced during the call).
 */
export async function callWebMcpTool(tab: Tab, frame: Frame, name: string, input: Record<string, unknown>, timeoutMs: number, signal: AbortSignal): Promise<unknown> {
  const cdp = tab.session;
  const what = `call WebMCP tool "${name}"`;
  const deadline = Date.now() + timeoutMs;
  const viaPlaywright = () =>
    within(frame.webmcp.callTool(name, input as Parameters<Frame['webmcp']['callTool']>[1], { timeout: Math.max(1, deadline - Date.now()) }), Math.max(1, deadline - Date.now()) + 1_000, what, signal);
  if (!cdp || frame !== tab.page.mainFrame()) return await viaPlaywright();
  const callId = randomUUID();
  let called;
  try {
    called = await inWorld(tab, cdp, CALL, [name, input, callId], deadline, what, signal);
  } catch (error) {
    if (isTimeoutError(error) || (error instanceof ToolError && error.type === 'cancelled')) {
      // The page's execute got a signal: abort it (the page may stop its work). Nobody waits for the answer.
      inWorld(tab, cdp, ABORT, [callId], Date.now() + 5_000, 'abort a WebMCP call').catch(() => undefined);
    }
    throw error;
  }
  if (!called) return await viaPlaywright(); // the browser would not make the world
  const outcome = called.value as Outcome | undefined;
  if (!outcome || !outcome.found) throw new Error(`No WebMCP tool named "${name}" in this frame.`);
  return outcome.value;
}
