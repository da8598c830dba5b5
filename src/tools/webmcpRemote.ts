/**
 * WebMCP on a tab reached from inside its page (`RemoteTabs`, the userscript connection; docs/userscript-connection.md,
 * "WebMCP tools"): the tools the page registered with `document.modelContext` (or declared with `<form toolname>`),
 * listed and called through the tab's own `execute`, one round trip each, in the page's JavaScript world. Per
 * document, as the runtime's bridge says (src/page/webmcp.ts, `__tabwright.webmcp`): the browser's native WebMCP
 * where it has one (the same list and call functions as ./webmcpCall.ts runs in an isolated world elsewhere), else
 * tabwright's polyfill, which the companion installs at document start on an allowed tab (userscript/src/companion.ts)
 * and which the first listing injects, late, into a document that lacks the runtime.
 */
import { randomUUID } from 'node:crypto';
import type { RemoteTabInfo, RemoteTabs } from '../browser/connection.js';
import { ToolError } from '../errors.js';
import type { BridgeDeclarations, BridgeResult, BridgeTool } from '../page/webmcp.js';
import { bridgeOutcome, toSourceTool } from '../webmcp/polyfillSource.js';
import { CallTimeout, type CallReport, type SourceTool } from '../webmcp/source.js';
import { ABORT, CALL, LIST } from './webmcpCall.js';

/** The largest listing or result a remote tab sends back, in bytes of JSON (execute's ceiling). */
const MAX_RESULT_BYTES = 2 * 1024 * 1024;
/** How long an abort sent after a timeout or a cancel may take, in ms. */
const ABORT_TIMEOUT_MS = 5_000;

/** Where a remote document's tools come from: the browser's own WebMCP or tabwright's polyfill. */
export type RemoteWebMcpSource = 'native' | 'polyfill';

/** One document's tools, as listed in one execute. */
export interface RemoteListing {
  source: RemoteWebMcpSource;
  tools: SourceTool[];
  /** The document's forms and refused registrations (src/webmcp/declarations.ts). */
  declarations?: BridgeDeclarations;
  /** The polyfill came after the document's scripts had started: tools registered before are not listed. */
  late?: true;
}

type ListAnswer =
  | { noRuntime: true }
  | { source: 'none' }
  | { source: 'polyfill'; tools: BridgeTool[]; declarations?: BridgeDeclarations; late?: boolean }
  | { source: 'native'; tools: BridgeTool[] | null; declarations?: BridgeDeclarations };

/**
 * The WebMCP tools of `tab`'s current document. The runtime (with the session's `--webmcp` mode) goes along only to
 * a document that lacks it, as for the snapshot (src/session/remoteSnapshot.ts).
 * @param runtime  the in-page runtime's init script (Session.runtimeScript).
 * @throws ToolError capability_unavailable (the document has neither native WebMCP nor the polyfill, or the runtime
 *   could not be loaded), and what execute throws (tab_not_found, revision_mismatch, timeout, browser_disconnected…).
 */
export async function listRemoteTools(tabs: RemoteTabs, tab: RemoteTabInfo, runtime: string, limits: { timeoutMs: number; signal?: AbortSignal }): Promise<RemoteListing> {
  const read = async (load: boolean): Promise<ListAnswer> => await tabs.execute(tab.tabId, `async () => {
const rt0 = globalThis.__tabwright;
if (!rt0 || !rt0.webmcp) {
${load ? runtime : 'return { noRuntime: true };'}
}
const w = globalThis.__tabwright && globalThis.__tabwright.webmcp;
if (!w) return { noRuntime: true };
const listed = w.list();
const declarations = w.declarations ? w.declarations() : undefined;
if (Array.isArray(listed)) return { source: 'polyfill', tools: listed, declarations, late: w.late === true };
if (listed !== 'native') return { source: 'none' };
return { source: 'native', tools: await (${LIST})(), declarations };
}`, { ...limits, maxBytes: MAX_RESULT_BYTES, instanceId: tab.instanceId }) as ListAnswer;
  let answer = await read(false);
  if ('noRuntime' in answer) answer = await read(true);
  if ('noRuntime' in answer) throw new ToolError('capability_unavailable', 'The in-page runtime could not be loaded into this page.', 'Reload the tab and try again.');
  if (answer.source === 'none') {
    throw new ToolError('capability_unavailable', 'This page has no WebMCP: the browser has no native WebMCP and tabwright\'s polyfill is off (--webmcp native).',
      'Start tabwright with --webmcp auto (the default), which gives such pages tabwright\'s polyfill.');
  }
  const tools = (answer.tools ?? []).map(toSourceTool);
  return {
    source: answer.source,
    tools,
    ...(answer.declarations ? { declarations: answer.declarations } : {}),
    ...(answer.source === 'polyfill' && answer.late ? { late: true as const } : {}),
  };
}

type CallAnswer =
  | { bridge: BridgeResult }
  | { native: { found: true; value?: unknown; closed?: boolean } | { found: false } }
  | { thrown: { name: string; message: string } };

/**
 * Calls tool `name` of `tab`'s document through `source`, in one execute. A timeout or a cancel aborts the signal
 * the page's `execute` got, with a second execute (not awaited).
 * @returns the tool's result as the page gave it (undefined for none).
 * @throws CallTimeout after `timeoutMs`; ToolError cancelled, webmcp_tool_not_found (gone before or during the
 *   call), evaluation_failed (the tool threw, or native WebMCP refused the call), and what execute throws.
 */
export async function callRemoteTool(tabs: RemoteTabs, tab: RemoteTabInfo, source: RemoteWebMcpSource, name: string, input: Record<string, unknown>, opts: { timeoutMs: number; signal?: AbortSignal; report?: CallReport }): Promise<unknown> {
  const id = randomUUID();
  const args = `${JSON.stringify(id)}, ${JSON.stringify(name)}, ${JSON.stringify(input)}`;
  const code = source === 'polyfill'
    ? `async () => {
const w = globalThis.__tabwright && globalThis.__tabwright.webmcp;
if (!w) return { bridge: { ok: false, gone: true, error: { name: 'NotFoundError', message: 'The page has no WebMCP polyfill.' } } };
return { bridge: await w.call(${args}) };
}`
    : `async () => {
const [id, name, input] = [${args}];
try { return { native: await (${CALL})(name, input, id) }; }
catch (e) { return { thrown: { name: String(e && e.name || 'Error'), message: String(e && e.message || e) } }; }
}`;
  let answer: CallAnswer;
  try {
    answer = await tabs.execute(tab.tabId, code, { timeoutMs: opts.timeoutMs, signal: opts.signal, maxBytes: MAX_RESULT_BYTES, instanceId: tab.instanceId }) as CallAnswer;
  } catch (error) {
    if (error instanceof ToolError && (error.type === 'timeout' || error.type === 'cancelled')) {
      const abort = source === 'polyfill' ? `globalThis.__tabwright.webmcp.abort(${JSON.stringify(id)})` : `(${ABORT})(${JSON.stringify(id)})`;
      tabs.execute(tab.tabId, `async () => ${abort}`, { timeoutMs: ABORT_TIMEOUT_MS, maxBytes: 1024, instanceId: tab.instanceId }).catch(() => undefined);
      if (error.type === 'timeout') throw new CallTimeout(opts.timeoutMs);
      throw new ToolError('cancelled', 'The call was cancelled.', 'Send the call again if it is still wanted.');
    }
    throw error;
  }
  if ('bridge' in answer) return bridgeOutcome(name, answer.bridge, opts.report);
  if ('thrown' in answer) {
    throw new ToolError('evaluation_failed', `WebMCP tool "${name}" failed: ${answer.thrown.name}: ${answer.thrown.message.split('\n')[0]!.slice(0, 2000)}`, 'The error is the page\'s own; check the arguments or the page state.');
  }
  if (!answer.native.found) throw new ToolError('webmcp_tool_not_found', `WebMCP tool "${name}" went away before the call.`, 'Call list_webmcp_tools again.');
  if (opts.report) opts.report.windowClosed = answer.native.closed === true;
  return answer.native.value;
}
