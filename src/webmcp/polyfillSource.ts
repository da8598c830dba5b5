/**
 * The polyfill source: tools registered with the in-page
 * runtime's WebMCP polyfill (src/page/webmcp.ts), listed and called through
 * the runtime's bridge `__tabwright.webmcp` in the page's main world, one
 * evaluation per list or call. Cancelling the MCP call (or its timeout)
 * aborts the signal the page's `execute` got, by call id.
 */
import { randomUUID } from 'node:crypto';
import type { Frame } from 'playwright-core';
import type { BridgeDeclarations, BridgeResult, BridgeTool } from '../page/webmcp.js';
import { firstLine, ToolError } from '../errors.js';
import { classifyPlaywrightError } from '../util/playwrightErrors.js';
import { raceTimeout } from '../util/wait.js';
import { CallTimeout, type CallReport, type SourceCallOptions, type SourceListing, type SourceTool, type WebMcpSource } from './source.js';

type Bridge = { webmcp: { late?: boolean; list(): BridgeTool[] | string; call(id: string, name: string, input: unknown): Promise<BridgeResult>; abort(id: string): boolean; declarations?(): BridgeDeclarations } };

/** Frames whose document has native WebMCP: no need to ask their runtime again (nativeness is per browser). */
const nativeFrames = new WeakSet<Frame>();

/** A page that navigated, closed or detached the frame while we waited. */
function wentAway(error: unknown): boolean {
  const kinds = classifyPlaywrightError(error);
  return kinds.has('document_gone') || kinds.has('target_closed');
}

export function toSourceTool(t: BridgeTool): SourceTool {
  const tool: SourceTool = { name: t.name, description: t.description, inputSchema: t.inputSchema };
  if (t.annotations) tool.annotations = { ...t.annotations };
  if (t.title) tool.title = t.title;
  if (t.inputSchemaChars !== undefined) tool.inputSchemaChars = t.inputSchemaChars;
  if (t.scriptId !== undefined) tool.scriptId = t.scriptId;
  if (t.form) tool.form = { autosubmit: t.form.autosubmit };
  return tool;
}

/**
 * What the document of `frame` declared, read from the runtime's bridge in
 * the main world (`declarations()`, src/page/webmcp.ts): its `<form
 * toolname>` elements and the registerTool calls refused for their name or
 * description, under native WebMCP as under the polyfill. Undefined when
 * the frame has no runtime (a document older than the session), gives no
 * answer within `timeoutMs`, or went away.
 */
export async function readDeclarations(frame: Frame, timeoutMs: number): Promise<BridgeDeclarations | undefined> {
  try {
    const read = await raceTimeout(frame.evaluate(() => (globalThis as unknown as { __tabwright?: Bridge }).__tabwright?.webmcp?.declarations?.() ?? null), { ms: timeoutMs, onTimeout: 'undefined' });
    return read ?? undefined;
  } catch {
    return undefined;
  }
}

function abortInPage(frame: Frame, id: string): void {
  frame.evaluate(callId => (globalThis as unknown as { __tabwright?: Bridge }).__tabwright?.webmcp?.abort(callId) ?? false, id).catch(() => undefined);
}

export const polyfillSource: WebMcpSource = {
  kind: 'polyfill',

  async list(frame: Frame, timeoutMs: number): Promise<SourceListing | undefined> {
    if (nativeFrames.has(frame)) return undefined;
    const listed = await raceTimeout(frame.evaluate(() => {
      const rt = (globalThis as unknown as { __tabwright?: Bridge }).__tabwright;
      if (!rt?.webmcp) return 'missing';
      const tools = rt.webmcp.list();
      return typeof tools === 'string' ? tools : { tools, declarations: rt.webmcp.declarations?.(), late: rt.webmcp.late === true };
    }), { ms: timeoutMs, onTimeout: () => new CallTimeout(timeoutMs) });
    if (listed === 'native') nativeFrames.add(frame);
    if (typeof listed === 'string') return undefined;
    return { tools: listed.tools.map(toSourceTool), ...(listed.declarations ? { declarations: listed.declarations } : {}), ...(listed.late ? { late: true as const } : {}) };
  },

  async call(frame: Frame, name: string, input: Record<string, unknown>, { timeoutMs, signal, report }: SourceCallOptions): Promise<unknown> {
    const id = randomUUID();
    let result: BridgeResult;
    try {
      result = await raceTimeout(frame.evaluate(
        ([callId, tool, args]) => {
          const rt = (globalThis as unknown as { __tabwright?: Bridge }).__tabwright;
          if (!rt?.webmcp) return { ok: false, gone: true, error: { name: 'NotFoundError', message: 'The page has no WebMCP polyfill.' } } as BridgeResult;
          return rt.webmcp.call(callId, tool, args);
        },
        [id, name, input] as const,
      ), {
        ms: timeoutMs,
        signal,
        onTimeout: () => new CallTimeout(timeoutMs),
        onAbort: () => new ToolError('cancelled', 'The call was cancelled.', 'Send the call again if it is still wanted.'),
      });
    } catch (error) {
      if (error instanceof CallTimeout || error instanceof ToolError) {
        abortInPage(frame, id); // the tool's execute signal fires; the page may stop its work
        throw error;
      }
      if (wentAway(error)) throw new ToolError('webmcp_tool_not_found', `WebMCP tool "${name}" went away during the call: the page navigated or closed.`, 'Call list_webmcp_tools for the tools the page offers now.');
      throw error;
    }
    return bridgeOutcome(name, result, report);
  },
};

/**
 * The value of a bridge call's answer (`__tabwright.webmcp.call`), however it reached the server: a frame's
 * evaluation here, a userscript tab's execute (src/tools/webmcpRemote.ts).
 * @throws ToolError cancelled, webmcp_tool_not_found (not or no longer registered), evaluation_failed (the tool threw).
 */
export function bridgeOutcome(name: string, result: BridgeResult, report?: CallReport): unknown {
  if (result.ok) {
    if (report) report.windowClosed = result.closed === true;
    return result.json === undefined ? undefined : JSON.parse(result.json);
  }
  if (result.cancelled) throw new ToolError('cancelled', 'The call was cancelled.', 'Send the call again if it is still wanted.');
  if (result.gone) throw new ToolError('webmcp_tool_not_found', `WebMCP tool "${name}" went away: ${result.error.message}`, 'Call list_webmcp_tools for the tools the page offers now.');
  throw new ToolError('evaluation_failed', `WebMCP tool "${name}" failed: ${result.error.name}: ${firstLine(result.error.message).slice(0, 2000)}`, 'The error is the page\'s own; check the arguments or the page state.');
}
