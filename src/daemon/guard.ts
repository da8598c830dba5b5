/**
 * Who may talk to the daemon: loopback Host and Origin only (DNS
 * rebinding protection) and the token from daemon.json on every request.
 */
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost, sameSecret } from '../util/loopback.js';
import { DaemonError } from './httpErrors.js';

/**
 * Checks Host and Origin.
 * @throws DaemonError 403 forbidden_host when Host is not `127.0.0.1:<port>` or `localhost:<port>`;
 *   403 forbidden_origin when an Origin header is present and is not `http://127.0.0.1[:port]` or `http://localhost[:port]`.
 */
export function checkHostAndOrigin(req: IncomingMessage, port: number): void {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!isLoopbackHost(host, port)) {
    throw new DaemonError(403, 'forbidden_host', `Host "${host.slice(0, 100)}" is not this daemon's loopback address.`, `Send requests to http://127.0.0.1:${port} (Host 127.0.0.1:${port} or localhost:${port}).`);
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin)) {
    throw new DaemonError(403, 'forbidden_origin', `Origin "${origin.slice(0, 100)}" is not a loopback origin.`, 'The daemon serves local programs only; web pages cannot call it.');
  }
}

/** True for `http://127.0.0.1[:port]` and `http://localhost[:port]` (no path, no credentials). */
export function isLoopbackOrigin(origin: string): boolean {
  return /^http:\/\/(127\.0\.0\.1|localhost)(:\d{1,5})?$/i.test(origin);
}

/** The token a request presents: `x-tabwright-token`, else (for /mcp) `Authorization: Bearer <token>`. */
function presentedToken(req: IncomingMessage, bearer: boolean): string | undefined {
  const header = req.headers['x-tabwright-token'];
  if (typeof header === 'string') return header;
  if (!bearer) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m?.[1];
}

/**
 * Checks the token in constant time.
 * @param bearer also accept `Authorization: Bearer` (the /mcp route).
 * @throws DaemonError 401 unauthorized when it is missing or wrong.
 */
export function checkToken(req: IncomingMessage, token: string, bearer = false): void {
  const given = presentedToken(req, bearer);
  if (!sameSecret(given, token)) {
    throw new DaemonError(401, 'unauthorized', given === undefined ? 'The request carries no x-tabwright-token.' : 'The x-tabwright-token is wrong.', 'Read the token from daemon-token (or daemon.json) in the tabwright config dir, or use the tabwright CLI; `tabwright mcp-config --client http` prints the URL and header for an MCP client.');
  }
}
