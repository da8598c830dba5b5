/**
 * Lists and calls native WebMCP tools, each in one evaluation (the target: a
 * `call_webmcp_tool` round trip under 10 ms; docs/webmcp.md, "One round trip
 * per call").
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
 * context id is kept per frame and document (the main frame's loader id, a
 * child frame's navigation count); a context the browser no longer knows
 * (the document was replaced meanwhile) is created again once.
 *
 * Listing a frame's native tools is one evaluation in that world too
 * (`listNativeTools`): Playwright's `frame.webmcp.tools()` drops the tool's
 * `title` and the `debugging` annotation, which list_webmcp_tools reports.
 * A call passes the page's `execute` an AbortSignal (`executeTool(tool,
 * input, {signal})`), aborted by a second evaluation when the MCP call is
 * cancelled or times out. The call also reads `window.top.closed` once the
 * tool settled, so the action bookkeeping needs no round trip of its own to
 * learn whether the tool closed the tab (speed).
 *
 * Child frames (cancellation) get their world the same way: a
 * Playwright frame does not tell its CDP frame id, so it is found in
 * `Page.getFrameTree` by the URLs up the frame's parent chain (the name
 * breaks ties). Where that leaves no single frame (two identical iframes),
 * where the frame is out of process (the tab's session cannot make a world
 * there), or when the tab has no CDP session, lists and calls go through
 * Playwright's `frame.webmcp` (two evaluations, same isolation, no abort
 * signal). Listing a tab's tools makes the worlds in the background
 * (`prepareWebMcpCalls`), so the first call after a list is one round trip.
 */
import { randomUUID } from 'node:crypto';
import type { CDPSession, Frame } from 'playwright-core';
import { timeoutError } from '../browser/playwright.js';
import { classifyPlaywrightError, isTimeoutError } from '../util/playwrightErrors.js';
import type { Tab } from '../session/tab.js';
import type { CallReport, SourceTool } from '../webmcp/source.js';
import { INPUT_SCHEMA_MAX_CHARS } from '../page/webmcp.js';
import { ToolError } from '../errors.js';
import { raceTimeout, type RaceOrReject } from '../util/wait.js';

/**
 * What the in-page function returns: `found: false` when the frame has no
 * such tool (nothing was called); `closed`: the tab's top window was closed
 * when the tool settled.
 */
type Outcome = { found: true; value?: unknown; closed?: boolean } | { found: false };

/**
 * Runs in the isolated world; mirrors Playwright's WebMCPScript.callTool
 * (playwright-core 1.65), plus an AbortController per call, kept by call id
 * on the world's global so ABORT can reach it (the page's main world cannot).
 */
export const CALL = `async function (name, input, callId) {
  const calls = (globalThis.__tabwrightCalls = globalThis.__tabwrightCalls || new Map());
  const ctl = new AbortController();
  calls.set(callId, ctl); // before the first await: an ABORT sent after this call always finds it
  // Whether the tab's top window was closed (window.close()) by the time the tool settled: the
  // caller skips its own window.closed round trip (speed). Read in this world, where
  // page scripts cannot redefine it; a cross-origin top's closed is readable too.
  const closed = () => {
    try { return Boolean(window.top && window.top.closed); } catch { return false; }
  };
  const done = value => ({ found: true, value, closed: closed() });
  try {
    const mc = (document && document.modelContext) || navigator.modelContext;
    if (!mc) return { found: false };
    if (typeof mc.invokeTool === 'function') return done(await mc.invokeTool(name, input));
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
    if (typeof result !== 'string') return done(result);
    if (result === 'undefined') return done(undefined);
    try {
      return done(JSON.parse(result));
    } catch {
      return done(result);
    }
  } finally {
    calls.delete(callId);
  }
}`;

/** Runs in the isolated world: aborts the signal of call `callId` (CALL's controller); false when it is not running. */
export const ABORT = `function (callId) {
  const ctl = globalThis.__tabwrightCalls && globalThis.__tabwrightCalls.get(callId);
  if (!ctl) return false;
  ctl.abort(new DOMException('The call was cancelled.', 'AbortError'));
  return true;
}`;

/**
 * Runs in the isolated world; Playwright's WebMCPScript.tools + normalizeTool
 * (playwright-core 1.65: this window's tools, description defaulting to '',
 * a string inputSchema parsed, annotations only where truthy; a schema over
 * INPUT_SCHEMA_MAX_CHARS is left out and its length given), keeping what
 * Playwright drops: `title` (where non-empty), the `debugging` annotation,
 * and whether the tool declared annotations at all (no `annotations` when
 * it gave none: Chromium 156 reports them only then).
 * null when the document has no modelContext.
 */
export const LIST = `async function () {
  const mc = (document && document.modelContext) || navigator.modelContext;
  if (!mc) return null;
  const tools = (typeof mc.getTools === 'function' ? await mc.getTools() : null) || [];
  const out = [];
  for (const t of tools) {
    if ('window' in t && t.window !== window) continue;
    let schema = t.inputSchema;
    let schemaChars;
    if (typeof schema === 'string' && schema.length > ${INPUT_SCHEMA_MAX_CHARS}) {
      schemaChars = schema.length;
      schema = undefined;
    }
    if (typeof schema === 'string') {
      try { schema = JSON.parse(schema); } catch { schema = undefined; }
    }
    const tool = { name: t.name, description: t.description == null ? '' : t.description };
    if (schemaChars !== undefined) tool.inputSchemaChars = schemaChars;
    // Declared hints, only the true ones; no annotations when the tool gave none (a form never does).
    if (t.annotations != null) {
      const annotations = {};
      for (const hint of ['readOnlyHint', 'consequentialHint', 'untrustedContentHint', 'debugging']) if (t.annotations[hint]) annotations[hint] = true;
      tool.annotations = annotations;
    }
    if (t.title) tool.title = String(t.title);
    if (schema != null) tool.inputSchema = schema;
    out.push(tool);
  }
  // By name, as the polyfill lists them: Chromium 150 answers in registration order, later builds sorted.
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}`;

const WORLD_NAME = 'tabwright';

/** One frame's isolated world, for one of its documents (`docKey`). */
interface FrameWorld {
  docKey?: string;
  contextId?: Promise<number>;
  /** When a child frame's world could not be made: not asked again for this document before then (epoch ms). */
  retryAt?: number;
}

/**
 * How long a child frame whose world could not be made goes through
 * Playwright before it is asked again, in ms. Not for the document's whole
 * life: the frame tree may have disagreed with Playwright's frame URLs for a
 * moment (a commit the two sessions learnt of at different times).
 */
const CHILD_WORLD_RETRY_MS = 1_000;

/** Per tab: the main frame's CDP id, each frame's world, and how often each child frame navigated. */
interface TabWorlds {
  mainFrameId?: string;
  frames: WeakMap<Frame, FrameWorld>;
  navigations: WeakMap<Frame, number>;
}
const worlds = new WeakMap<Tab, TabWorlds>();

/** A page-side failure of the call: the message is the page's own (first line of its exception). */
export class WebMcpPageError extends Error {}

function worldsOf(tab: Tab): TabWorlds {
  let w = worlds.get(tab);
  if (!w) {
    const tw: TabWorlds = { frames: new WeakMap(), navigations: new WeakMap() };
    w = tw;
    // A child frame's document is known by how often the frame navigated (its loader id would cost a round trip).
    tab.page.on('framenavigated', frame => {
      tw.navigations.set(frame, (tw.navigations.get(frame) ?? 0) + 1);
    });
    worlds.set(tab, w);
  }
  return w;
}

/** The frame's parent chain as URLs (CDP reports the fragment apart), frame first. */
function cdpChain(node: CdpFrameNode, parents: CdpFrameNode[]): string[] {
  return [node, ...parents].map(n => n.frame.url + (n.frame.urlFragment ?? ''));
}
interface CdpFrameNode {
  frame: { id: string; url: string; urlFragment?: string; name?: string };
  childFrames?: CdpFrameNode[];
}

/**
 * The CDP frame id of child frame `frame`: the one frame of the tab's frame
 * tree with the same URLs up its parent chain (and the same name, when URLs
 * alone leave several). Playwright does not tell a frame's CDP id.
 * @throws Error when no frame or several frames match (two identical
 *   iframes): the caller falls back to Playwright's frame.webmcp.
 */
async function childFrameId(cdp: CDPSession, frame: Frame): Promise<string> {
  const want: string[] = [];
  for (let f: Frame | null = frame; f; f = f.parentFrame()) want.push(f.url());
  const { frameTree } = await cdp.send('Page.getFrameTree');
  const matches: CdpFrameNode[] = [];
  const walk = (node: CdpFrameNode, parents: CdpFrameNode[]) => {
    if (parents.length === want.length - 1) {
      const chain = cdpChain(node, parents);
      if (chain.every((url, i) => url === want[i])) matches.push(node);
      return;
    }
    for (const child of node.childFrames ?? []) walk(child, [node, ...parents]);
  };
  walk(frameTree as CdpFrameNode, []);
  const named = matches.length > 1 ? matches.filter(n => (n.frame.name ?? '') === frame.name()) : matches;
  if (named.length !== 1) throw new Error(`${named.length} frames of the tab match ${frame.url()}`);
  return named[0]!.frame.id;
}

/**
 * The isolated world's execution context id for `frame`'s current document,
 * created on first use: the main frame's document is known by the tab's
 * instanceId, a child frame's by its navigation count. A world the browser
 * would not make (an out-of-process frame the tab's session does not reach,
 * an ambiguous child frame) is remembered for that document for
 * CHILD_WORLD_RETRY_MS: calls there go through Playwright meanwhile.
 */
function isolatedWorld(tab: Tab, cdp: CDPSession, frame: Frame): Promise<number> {
  const tw = worldsOf(tab);
  const main = frame === tab.page.mainFrame();
  const docKey = main ? tab.instanceId : `nav-${tw.navigations.get(frame) ?? 0}`;
  let world = tw.frames.get(frame);
  if (!world) tw.frames.set(frame, (world = {}));
  const w = world;
  if (w.contextId && w.docKey === docKey && !(w.retryAt !== undefined && Date.now() >= w.retryAt)) return w.contextId;
  w.docKey = docKey;
  w.retryAt = undefined;
  const made = (w.contextId = (async () => {
    let frameId: string;
    if (main) frameId = tw.mainFrameId ??= (await cdp.send('Page.getFrameTree')).frameTree.frame.id;
    else frameId = await childFrameId(cdp, frame);
    const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId, worldName: WORLD_NAME });
    return executionContextId;
  })());
  // The main frame's document may have been on its way out: try again next time. A child frame's failure stands
  // for CHILD_WORLD_RETRY_MS (an out-of-process or ambiguous frame fails each time; calls there go through Playwright).
  made.catch(() => {
    if (tw.frames.get(frame) !== w || w.docKey !== docKey || w.contextId !== made) return;
    if (main) w.contextId = undefined;
    else w.retryAt = Date.now() + CHILD_WORLD_RETRY_MS;
  });
  return made;
}

/**
 * Makes the isolated worlds for `frames` (default: the main frame) of the
 * tab's current documents in the background (called when the tab's tools
 * are listed, so the first call finds them). Returns at once, never throws.
 */
export function prepareWebMcpCalls(tab: Tab, frames: Frame[] = [tab.page.mainFrame()]): void {
  const cdp = tab.cdp;
  if (!cdp || tab.closed) return;
  for (const frame of frames) {
    if (!frame.isDetached()) isolatedWorld(tab, cdp, frame).catch(() => undefined);
  }
}

/** Drops the cached isolated world of `frame`: the next evaluation there makes a new one. */
export function forgetWorld(tab: Tab, frame: Frame): void {
  const world = worlds.get(tab)?.frames.get(frame);
  if (world) world.contextId = undefined;
}

/**
 * raceTimeout's options for one step of a call that must end by `deadline`
 * (epoch ms) plus `graceMs`: a Playwright-style TimeoutError naming `what`
 * when the time is up, ToolError `cancelled` when `signal` aborts.
 */
function untilDeadline(deadline: number, what: string, signal?: AbortSignal, graceMs = 0): RaceOrReject {
  const ms = Math.max(1, deadline - Date.now()) + graceMs;
  return { ms, signal, onTimeout: () => timeoutError(`${what}: no answer within ${ms} ms`), onAbort: cancelledError };
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
async function inWorld(tab: Tab, cdp: CDPSession, frame: Frame, functionDeclaration: string, args: unknown[], deadline: number, what: string, signal?: AbortSignal): Promise<{ value: unknown } | undefined> {
  for (let attempt = 0; ; attempt++) {
    let executionContextId: number;
    try {
      executionContextId = await raceTimeout(isolatedWorld(tab, cdp, frame), untilDeadline(deadline, what, signal));
    } catch (error) {
      if (isTimeoutError(error) || error instanceof ToolError) throw error;
      return undefined; // a document on its way out: the caller falls back to Playwright's way
    }
    let reply;
    try {
      reply = await raceTimeout(cdp.send('Runtime.callFunctionOn', {
        functionDeclaration,
        executionContextId,
        arguments: args.map(value => ({ value })),
        awaitPromise: true,
        returnByValue: true,
      }), untilDeadline(deadline, what, signal));
    } catch (error) {
      // The document behind the cached world was replaced (its context is gone): make a world in the new one, once.
      if (attempt === 0 && classifyPlaywrightError(error).has('context_not_found')) {
        forgetWorld(tab, frame);
        continue;
      }
      throw error;
    }
    if (reply.exceptionDetails) throw new WebMcpPageError(exceptionText(reply.exceptionDetails));
    return { value: reply.result.value };
  }
}

/**
 * Lists the native WebMCP tools of `frame` (a frame of `tab`): one
 * evaluation in the frame's isolated world that keeps `title` and the
 * `debugging` annotation, sorted by name whatever order the browser
 * answers in; without a CDP session, where the world cannot be
 * made (an out-of-process frame, an ambiguous child frame), or when the
 * document has no modelContext, Playwright's `frame.webmcp.tools()`
 * (which raises its own "WebMCP is not enabled" error where it applies, and
 * reports neither `title` nor `debugging`). Annotations appear only where
 * true, like the polyfill's (src/webmcp/polyfillSource.ts).
 * @param timeoutMs  longest wait, in ms.
 * @throws TimeoutError after `timeoutMs`; Playwright/CDP errors.
 */
export async function listNativeTools(tab: Tab, frame: Frame, timeoutMs: number): Promise<SourceTool[]> {
  const cdp = tab.cdp;
  if (cdp) {
    const deadline = Date.now() + timeoutMs;
    const listed = await inWorld(tab, cdp, frame, LIST, [], deadline, 'list WebMCP tools');
    if (listed && Array.isArray(listed.value)) return listed.value as SourceTool[];
    timeoutMs = Math.max(1, deadline - Date.now());
  }
  const tools = await frame.webmcp.tools({ timeout: timeoutMs });
  return [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(tool => {
    const a = tool.annotations ?? {};
    const annotations: NonNullable<SourceTool['annotations']> = {};
    if (a.readOnly) annotations.readOnlyHint = true;
    if (a.consequential) annotations.consequentialHint = true;
    if (a.untrustedContent) annotations.untrustedContentHint = true;
    // Playwright does not tell whether the tool declared annotations: none true reads as none declared.
    return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, ...(Object.keys(annotations).length ? { annotations } : {}) };
  });
}

/**
 * Calls WebMCP tool `name` of `frame` (a frame of `tab`) with `input`, in
 * one evaluation in the frame's isolated world. Resolves to the tool's
 * result (`undefined` for none).
 *
 * Cancellation: `signal` aborting (MCP `notifications/cancelled`)
 * or the timeout aborts the AbortSignal that `executeTool` handed the page's
 * `execute`, through a second evaluation in the same world; for main-frame
 * and child-frame tools alike. Where the world cannot be made (an
 * out-of-process frame, two child frames with the same URLs, no CDP
 * session) the call goes through Playwright's `frame.webmcp.callTool`,
 * which takes no signal: the call still ends at once, the page's execute
 * runs on.
 * @param timeoutMs  longest wait for the tool, in ms.
 * @param report  filled on success: `windowClosed`, whether the tab's top
 *   window was closed when the tool settled (unset through Playwright).
 * @throws Error whose message says `No WebMCP tool named` when the frame has
 *   no such tool now (nothing was called); WebMcpPageError with the page's
 *   message when the tool or the browser threw; a TimeoutError after
 *   `timeoutMs`; ToolError `cancelled` when `signal` aborted; CDP/Playwright
 *   errors otherwise (e.g. the document was replaced during the call).
 */
export async function callWebMcpTool(tab: Tab, frame: Frame, name: string, input: Record<string, unknown>, timeoutMs: number, signal: AbortSignal, report?: CallReport): Promise<unknown> {
  const cdp = tab.cdp;
  const what = `call WebMCP tool "${name}"`;
  const deadline = Date.now() + timeoutMs;
  const viaPlaywright = () =>
    raceTimeout(frame.webmcp.callTool(name, input as Parameters<Frame['webmcp']['callTool']>[1], { timeout: Math.max(1, deadline - Date.now()) }), untilDeadline(deadline, what, signal, 1_000));
  if (!cdp) return await viaPlaywright();
  const callId = randomUUID();
  let called;
  try {
    called = await inWorld(tab, cdp, frame, CALL, [name, input, callId], deadline, what, signal);
  } catch (error) {
    if (isTimeoutError(error) || (error instanceof ToolError && error.type === 'cancelled')) {
      // The page's execute got a signal: abort it (the page may stop its work). Nobody waits for the answer.
      inWorld(tab, cdp, frame, ABORT, [callId], Date.now() + 5_000, 'abort a WebMCP call').catch(() => undefined);
    }
    throw error;
  }
  if (!called) return await viaPlaywright(); // the browser would not make the world
  const outcome = called.value as Outcome | undefined;
  if (!outcome || !outcome.found) throw new Error(`No WebMCP tool named "${name}" in this frame.`);
  if (report) report.windowClosed = outcome.closed === true;
  return outcome.value;
}
