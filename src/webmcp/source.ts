/**
 * Where a frame's WebMCP tools come from:
 * the browser's native WebMCP, or the in-page runtime's polyfill
 * (src/page/webmcp.ts). list_webmcp_tools and call_webmcp_tool pick a
 * source per frame (src/tools/webmcp.ts); every source lists and calls tools
 * in the same shapes, so agents cannot tell them apart except by `source`.
 */
import type { Frame } from 'playwright-core';
import type { BridgeDeclarations } from '../page/webmcp.js';

/** The sources a listed tool can come from (`agentscript`: a tool an AgentScript registered, either way; docs/userscripts.md). */
export type WebMcpSourceKind = 'native' | 'polyfill' | 'agentscript';

/**
 * The hints a tool declared (WebMCP `annotations`), only those that are
 * true; `debugging` marks a tool meant for development.
 */
export type ToolAnnotations = { readOnlyHint?: true; consequentialHint?: true; untrustedContentHint?: true; debugging?: true };

/** One tool as a source lists it. */
export interface SourceTool {
  name: string;
  description: string;
  /** The tool's title, where the source reports one. */
  title?: string;
  inputSchema?: unknown;
  /** Instead of `inputSchema`: the length of its JSON text, over INPUT_SCHEMA_MAX_CHARS (src/page/webmcp.ts). */
  inputSchemaChars?: number;
  /**
   * The hints the tool declared, only those that are true (`{}`: it gave
   * `annotations`, none true); absent when it gave none, as every
   * declarative form (Chromium 156 has no form attribute for them).
   */
  annotations?: ToolAnnotations;
  /** The AgentScript that registered the tool: the listing reports it with source `agentscript`. */
  scriptId?: string;
  /** A declarative `<form>` tool: whether it submits itself on the call (`toolautosubmit`) or waits for the person's submit. */
  form?: { autosubmit: boolean };
}

/** A frame's tools as a source lists them, with what the document declared (forms, refused registrations) when the source reads it. */
export interface SourceListing {
  tools: SourceTool[];
  declarations?: BridgeDeclarations;
  /** The polyfill came into the document after its scripts had started: tools registered before are not among `tools` (WebMcpBridge.late). */
  late?: true;
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
  list(frame: Frame, timeoutMs: number): Promise<SourceListing | undefined>;
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
