/**
 * HTTP-level errors of the daemon (docs/daemon.md, "Errors answered before
 * dispatch"). These never reach a tool result: they are the daemon's own
 * answer, `{outcome: "not_dispatched", error: {type, message, hint}}`, or
 * `{outcome: "failed", error}` for a call the daemon ended (timeout,
 * result_too_large).
 */
import type { ServerResponse } from 'node:http';

/** Stable types of the daemon's HTTP answers (docs/daemon.md lists every one; test/docs.test.ts checks). */
export const DAEMON_ERROR_TYPES = [
  'bad_workspace', 'bad_request', 'unauthorized', 'forbidden_host', 'forbidden_origin', 'not_found',
  'method_not_allowed', 'request_timeout', 'payload_too_large', 'too_many_requests', 'too_many_workspaces',
  'shutting_down', 'unknown_question', 'bad_answer', 'timeout', 'result_too_large',
] as const;

export type DaemonErrorType = (typeof DAEMON_ERROR_TYPES)[number];

/** An error the daemon answers with `status`, before (or instead of) a tool result. */
export class DaemonError extends Error {
  constructor(readonly status: number, readonly type: DaemonErrorType, message: string, readonly hint: string) {
    super(message);
    this.name = 'DaemonError';
  }

  /** The `error` member of the JSON body. */
  toJSON(): { type: DaemonErrorType; message: string; hint: string } {
    return { type: this.type, message: this.message, hint: this.hint };
  }
}

/**
 * Answers `res` with `{outcome: "not_dispatched", error}` and the error's
 * status. `close` adds `Connection: close` and ends the socket after the
 * answer (used when the rest of the body will not be read: 408, 413).
 */
export function sendNotDispatched(res: ServerResponse, error: DaemonError, close = false): void {
  sendJson(res, error.status, { outcome: 'not_dispatched', error: error.toJSON() }, close);
}

/** Writes one JSON answer (no-op when the response already ended or its socket is gone). */
export function sendJson(res: ServerResponse, status: number, body: unknown, close = false): void {
  if (res.headersSent || res.writableEnded || res.destroyed) return;
  const text = JSON.stringify(body);
  const headers: Record<string, string | number> = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' };
  if (close) headers.connection = 'close';
  res.writeHead(status, headers);
  res.end(text);
  if (close) res.once('finish', () => res.socket?.destroySoon());
}
