/**
 * Where a frame's WebMCP tools come from:
 * the browser's native WebMCP, or the in-page runtime's polyfill
 * (src/page/webmcp.ts). list_webmcp_tools and call_webmcp_tool pick a
 * source per frame (src/tools/webmcp.ts); every source lists and calls tools
 * in the same shapes, so agents cannot tell them apart except by `source`.
 */
import type { Frame } from 'playwright-core';

/** The sources a listed tool can come from (`agentscript`: a tool an AgentScript registered, either way; docs/userscripts.md). */
export type WebMcpSourceKind = 'native' | 'polyfill' | 'agentscript';

/** One tool as a source lists it (annotations only where true). */
export interface SourceTool {
  name: string;
  description: string;
  /** The tool's title, where the source reports one. */
  title?: string;
  inputSchema?: unknown;
  /** Only the hints that are true; `debugging` marks a tool meant for development. */
  annotations: { readOnlyHint?: true; consequentialHint?: true; untrustedContentHint?: true; debugging?: true };
  /** The AgentScript that registered the tool: the listing reports it with source `agentscript`. */
  scriptId?: string;
}

/** Options of one call. */
export interface SourceCallOptions {
  /** How long the tool may run, in ms; then the call fails with CallTimeout and the tool's signal is aborted. */
  timeoutMs: number;
  /** The caller's signal (MCP `notifications/cancelled`): aborts the tool's execute signal. */
  signal: AbortSignal;
  /**
   * Filled in by the source when the call succeeded: `windowClosed` says
   * whether the tab's top window was closed (the tool called window.close())
   * when the tool settled, read in the same evaluation as the call; left
   * unset when the source cannot tell (the caller then asks the page).
   */
  report?: CallReport;
}

/** What a source learned about the page while calling a tool (see SourceCallOptions.report). */
export interface CallReport {
  windowClosed?: boolean;
}

/** A source of WebMCP tools for frames. */
export interface WebMcpSource {
  readonly kind: WebMcpSourceKind;
  /**
   * The frame's tools, or undefined when this source does not serve the
   * frame (e.g. the polyfill in a frame with native WebMCP).
   */
  list(frame: Frame, timeoutMs: number): Promise<SourceTool[] | undefined>;
  /**
   * Runs a tool in the frame and returns its result as the page gave it
   * (`{content: [...]}`, `{structuredContent}`, a string, a declarative
   * form's `respondWith` value; undefined for none).
   * @throws CallTimeout when `timeoutMs` passed; ToolError `cancelled`,
   *   `webmcp_tool_not_found` (gone before or during the call: unregistered,
   *   navigated away) or `evaluation_failed` (the tool threw).
   */
  call(frame: Frame, name: string, input: Record<string, unknown>, opts: SourceCallOptions): Promise<unknown>;
}

/** A source's call ran out of time (handled like Playwright's TimeoutError). */
export class CallTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`Timeout ${timeoutMs}ms exceeded.`);
    this.name = 'CallTimeout';
  }
}
