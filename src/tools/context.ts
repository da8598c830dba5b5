/**
 * What a tool handler gets besides its input: the session, the config, the
 * caller's abort signal and a progress reporter. Every front (MCP, CLI,
 * daemon) builds one per call.
 */
import type { Config } from '../config.js';
import type { Session } from '../session/session.js';

export interface ClientInfo {
  /** Negotiated MCP protocol revision (`2026-07-28`, `2025-11-25`, ...), if the front is MCP. */
  protocolVersion?: string;
  era?: 'legacy' | 'modern';
  name?: string;
  version?: string;
}

export interface CallContext {
  session: Session;
  config: Config;
  /** Aborted when the caller cancels or disconnects. */
  signal: AbortSignal;
  /** Reports progress; `done` must increase within a call. A no-op when the caller did not ask. */
  progress(done: number, total?: number, message?: string): Promise<void>;
  client: ClientInfo;
  /**
   * The consent gate's verdict for calling a WebMCP tool now (issue #5),
   * reported by list_webmcp_tools as each entry's `permission`. Set by the
   * front once the gate (src/consent) exists; absent, entries carry none.
   */
  permissionFor?: (tool: { tabId: number; origin: string; name: string; source: string }) => Promise<'allow' | 'prompt' | 'deny'>;
}
