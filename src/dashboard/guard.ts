/**
 * Who may talk to the dashboard (docs/dashboard.md, "The key and the guard"): Host must be the dashboard's loopback
 * address (DNS rebinding), an Origin, when sent, must be the dashboard's own, and every API and event-stream request
 * carries the token as `Authorization: Bearer <token>`. No cookie is ever set, so a page of another site can neither
 * read the dashboard nor act through it: it has no token, a fetch with one is cross-origin (refused here), and a form
 * cannot send the header. State-changing requests are POSTs with a JSON body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLoopbackHost, sameSecret } from '../util/loopback.js';

/** Stable types of the dashboard's HTTP answers and of the CLI's dashboard verbs (docs/errors.md, "Dashboard"). */
export const DASHBOARD_ERROR_TYPES = [
  'unauthorized', 'forbidden_host', 'forbidden_origin', 'not_found', 'method_not_allowed', 'bad_request',
  'payload_too_large', 'request_timeout', 'prompt_not_found', 'dashboard_unavailable',
] as const;

export type DashboardErrorType = (typeof DASHBOARD_ERROR_TYPES)[number];

/** An error the dashboard answers with `status`: body `{error: {type, message, hint}}`. */
export class DashboardError extends Error {
  constructor(readonly status: number, readonly type: DashboardErrorType, message: string, readonly hint: string) {
    super(message);
    this.name = 'DashboardError';
  }

  toJSON(): { type: DashboardErrorType; message: string; hint: string } {
    return { type: this.type, message: this.message, hint: this.hint };
  }
}

/** The dashboard's own origins: `http://127.0.0.1:<port>` and `http://localhost:<port>`. */
function ownOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/**
 * Checks Host and Origin.
 * @throws DashboardError 403 forbidden_host when Host is not `127.0.0.1:<port>` or `localhost:<port>`; 403
 *   forbidden_origin when an Origin is sent and is not the dashboard's own (another port of 127.0.0.1 is foreign too).
 */
export function checkHostAndOrigin(req: IncomingMessage, port: number): void {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!isLoopbackHost(host, port)) {
    throw new DashboardError(403, 'forbidden_host', `Host "${host.slice(0, 100)}" is not the dashboard's loopback address.`, `Open http://127.0.0.1:${port}/ (\`tabwright dashboard\` prints the address with its key).`);
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !ownOrigins(port).includes(origin.toLowerCase())) {
    throw new DashboardError(403, 'forbidden_origin', `Origin "${origin.slice(0, 100)}" is not the dashboard's own.`, 'Only the dashboard\'s own page and local programs may call its API.');
  }
}

/**
 * Checks `Authorization: Bearer <token>` in constant time.
 * @throws DashboardError 401 unauthorized when it is missing or wrong.
 */
export function checkToken(req: IncomingMessage, token: string): void {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!sameSecret(given, token)) {
    throw new DashboardError(401, 'unauthorized', given === undefined ? 'The request carries no dashboard key (Authorization: Bearer).' : 'The dashboard key is wrong.',
      'Open the address `tabwright dashboard` prints (it carries the key from <config dir>/dashboard-token).');
  }
}

/** Headers of every answer: no caching, no framing (clickjacking of the answer buttons), no sniffing. */
export const SAFE_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

/** Writes one JSON answer (no-op once the response ended). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.writableEnded) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { ...SAFE_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Answers `error` as `{error}` with its status. */
export function sendError(res: ServerResponse, error: DashboardError): void {
  sendJson(res, error.status, { error: error.toJSON() });
}
