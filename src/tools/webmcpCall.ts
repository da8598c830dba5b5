/**
 * Calls one WebMCP tool in one evaluation (issue #3: a `call_webmcp_tool`
 * round trip under 10 ms).
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
 * Tools of child frames go through Playwright's `frame.webmcp.callTool`
 * (two evaluations, same isolation): a Playwright frame does not tell its
 * CDP frame id, and an out-of-process frame is not reachable through the
 * tab's session. So does every call when the tab has no CDP session, or
 * when the browser will not make the world. Listing a tab's tools makes the
 * world in the background (`prepareWebMcpCalls`), so the first call after a
 * list is one round trip too.
 */
import type { CDPSession, Frame } from 'playwright-core';
import { isTimeoutError, timeoutError } from '../browser/playwright.js';
import type { Tab } from '../session/tab.js';

/** What the in-page function returns: `found: false` when the frame has no such tool (nothing was called). */
type Outcome = { found: true; value?: unknown } | { found: false };

/** Runs in the isolated world; mirrors Playwright's WebMCPScript.callTool (playwright-core 1.65). */
const CALL = `async function (name, input) {
  const mc = (document && document.modelContext) || navigator.modelContext;
  if (!mc) return { found: false };
  if (typeof mc.invokeTool === 'function') return { found: true, value: await mc.invokeTool(name, input) };
  const tools = (typeof mc.getTools === 'function' ? await mc.getTools() : null) || [];
  const tool = tools.find(t => (!('window' in t) || t.window === window) && t.name === name);
  if (!tool || typeof mc.executeTool !== 'function') return { found: false };
  let result;
  try {
    result = await mc.executeTool(tool, input);
  } catch (e) {
    if (!String(e && e.message).includes('Failed to parse input')) throw e;
    result = await mc.executeTool(tool, JSON.stringify(input));
  }
  if (typeof result !== 'string') return { found: true, value: result };
  if (result === 'undefined') return { found: true };
  try {
    return { found: true, value: JSON.parse(result) };
  } catch {
    return { found: true, value: result };
  }
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

/** Rejects with a Playwright-style TimeoutError after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(`${what}: no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => undefined); // settles after the timeout: nobody listens any more
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Calls WebMCP tool `name` of `frame` (a frame of `tab`) with `input`, in
 * one evaluation for the main frame. Resolves to the tool's result
 * (`undefined` for none).
 * @param timeoutMs  longest wait for the tool, in ms.
 * @throws Error whose message says `No WebMCP tool named` when the frame has
 *   no such tool now (nothing was called); WebMcpPageError with the page's
 *   message when the tool or the browser threw; a TimeoutError after
 *   `timeoutMs`; CDP/Playwright errors otherwise (e.g. the document was
 *   replaced during the call).
 */
export async function callWebMcpTool(tab: Tab, frame: Frame, name: string, input: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
  const cdp = tab.session;
  if (!cdp || frame !== tab.page.mainFrame()) {
    return await frame.webmcp.callTool(name, input as Parameters<Frame['webmcp']['callTool']>[1], { timeout: timeoutMs });
  }
  const deadline = Date.now() + timeoutMs;
  const what = `call WebMCP tool "${name}"`;
  for (let attempt = 0; ; attempt++) {
    let executionContextId: number;
    try {
      executionContextId = await within(isolatedWorld(tab, cdp), Math.max(1, deadline - Date.now()), what);
    } catch (error) {
      if (isTimeoutError(error)) throw error;
      // The browser would not make the world (a document on its way out): Playwright's way still works.
      return await frame.webmcp.callTool(name, input as Parameters<Frame['webmcp']['callTool']>[1], { timeout: Math.max(1, deadline - Date.now()) });
    }
    let reply;
    try {
      reply = await within(cdp.send('Runtime.callFunctionOn', {
        functionDeclaration: CALL,
        executionContextId,
        arguments: [{ value: name }, { value: input }],
        awaitPromise: true,
        returnByValue: true,
      }), Math.max(1, deadline - Date.now()), what);
    } catch (error) {
      // The document behind the cached world was replaced (its context is gone): make a world in the new one, once.
      if (attempt === 0 && /Cannot find context with specified id/i.test(String(error))) {
        forgetWorld(tab);
        continue;
      }
      throw error;
    }
    if (reply.exceptionDetails) {
      const details = reply.exceptionDetails;
      const text = details.exception?.description ?? (details.exception?.value !== undefined ? String(details.exception.value) : details.text);
      throw new WebMcpPageError(text.split('\n')[0] ?? text);
    }
    const outcome = reply.result.value as Outcome | undefined;
    if (!outcome || !outcome.found) throw new Error(`No WebMCP tool named "${name}" in this frame.`);
    return outcome.value;
  }
}
