/**
 * The daemon's transport limits (docs/daemon.md "Limits").
 * Each is answered before dispatch except the response cap and the call
 * deadline. Three can be shortened by environment variables, for tests.
 */

type Env = Record<string, string | undefined>;

/** The default port of the daemon's loopback HTTP API (`TABWRIGHT_HTTP_PORT`). */
export const DEFAULT_HTTP_PORT = 19681;

/** Version of the HTTP API in docs/daemon.md; written to daemon.json as `protocol`. */
export const DAEMON_PROTOCOL = 1;

export interface DaemonLimits {
  /** Requests in flight (tool calls, POST /mcp) before 429 too_many_requests. */
  maxConcurrent: number;
  /** Distinct workspaces active within `workspaceWindowMs` before a new one gets 429 too_many_workspaces. */
  maxWorkspaces: number;
  /** Window of the workspace limit, ms (15 minutes). */
  workspaceWindowMs: number;
  /** Largest request body, bytes (8 MiB); over it: 413 payload_too_large. */
  maxBodyBytes: number;
  /** Time for a request body to arrive, ms (30 s; `TABWRIGHT_DAEMON_BODY_TIMEOUT_MS`); over it: 408 request_timeout. */
  bodyTimeoutMs: number;
  /** TCP connections open at once (`server.maxConnections`). */
  maxConnections: number;
  /** Time for the request headers, ms (`server.headersTimeout`). */
  headersTimeoutMs: number;
  /** Largest response, bytes, a whole SSE stream included (32 MiB; `TABWRIGHT_DAEMON_MAX_RESPONSE_BYTES` lowers it, for tests); over it: result_too_large. */
  maxResponseBytes: number;
  /** Longest tool call, ms (10 minutes; `TABWRIGHT_DAEMON_REQUEST_TIMEOUT_MS`); then it is cancelled: timeout. */
  requestTimeoutMs: number;
  /** Idle time before the daemon exits, ms (30 minutes; `TABWRIGHT_DAEMON_IDLE_MS`). */
  idleMs: number;
  /** Interval of SSE keep-alive comments, ms. */
  keepAliveMs: number;
}

function positive(text: string | undefined, fallback: number): number {
  const n = Number(text);
  return text !== undefined && text !== '' && Number.isFinite(n) && n > 0 ? n : fallback;
}

/** The limits, with the environment's overrides applied (otherwise the values of docs/daemon.md, "Limits"). */
export function daemonLimits(env: Env = process.env): DaemonLimits {
  return {
    maxConcurrent: 16,
    maxWorkspaces: 256,
    workspaceWindowMs: 15 * 60_000,
    maxBodyBytes: 8 * 1024 * 1024,
    bodyTimeoutMs: positive(env.TABWRIGHT_DAEMON_BODY_TIMEOUT_MS, 30_000),
    maxConnections: 64,
    headersTimeoutMs: 15_000,
    maxResponseBytes: Math.min(positive(env.TABWRIGHT_DAEMON_MAX_RESPONSE_BYTES, 32 * 1024 * 1024), 32 * 1024 * 1024),
    requestTimeoutMs: positive(env.TABWRIGHT_DAEMON_REQUEST_TIMEOUT_MS, 10 * 60_000),
    idleMs: positive(env.TABWRIGHT_DAEMON_IDLE_MS, 30 * 60_000),
    keepAliveMs: 15_000,
  };
}

/**
 * The port to bind: `TABWRIGHT_HTTP_PORT` (0 = any free port, for tests), else 19681.
 * @throws Error for a value that is not an integer 0..65535.
 */
export function daemonPort(env: Env = process.env): number {
  const text = env.TABWRIGHT_HTTP_PORT;
  if (text === undefined || text === '') return DEFAULT_HTTP_PORT;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`TABWRIGHT_HTTP_PORT="${text}" is not a port number (0..65535).`);
  return n;
}
