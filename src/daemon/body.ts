/**
 * Reads a request body under the daemon's upload limits: at most
 * `maxBytes` (a declared Content-Length over it is refused before reading;
 * a streamed body is counted) and complete within `timeoutMs` of the call
 * (src/util/httpBody.ts), each refusal in the daemon's words.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyError, readBody as readLimited } from '../util/httpBody.js';
import { DaemonError } from './httpErrors.js';

/**
 * The whole body as a Buffer.
 * @throws DaemonError 413 payload_too_large, 408 request_timeout, 400 bad_request (the client
 *   aborted the upload or declared a bad Content-Length).
 */
export async function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<Buffer> {
  try {
    return await readLimited(req, maxBytes, timeoutMs);
  } catch (error) {
    if (!(error instanceof BodyError)) throw error;
    switch (error.reason) {
      case 'too_large':
        throw new DaemonError(413, 'payload_too_large', `The request body is over ${maxBytes} bytes.`, `Send at most ${Math.round(maxBytes / 1024 / 1024)} MiB; put large data in a file in the workspace and pass its path.`);
      case 'timeout':
        throw new DaemonError(408, 'request_timeout', `The request body did not arrive within ${Math.round(timeoutMs / 1000)} s.`, 'Send the whole body at once; nothing was run.');
      case 'bad_length':
        throw new DaemonError(400, 'bad_request', 'Content-Length is not a byte count.', 'Send a valid Content-Length, or none.');
      case 'aborted':
        throw new DaemonError(400, 'bad_request', 'The client aborted the upload.', 'Send the request again.');
    }
  }
}

/** How much of a refused (413) body the daemon reads and drops before it closes the connection, in bytes. */
const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
/** How long it reads a refused body before it closes the connection, in ms. */
const DISCARD_MAX_MS = 10_000;

/**
 * After a 413 is answered: reads and drops the rest of the body (at most DISCARD_MAX_BYTES, DISCARD_MAX_MS), then
 * closes the connection. Closing at once would reset it while the client still writes, and a client that meets
 * the reset (EPIPE) before it reads the answer reports the daemon unreachable instead of the 413 (RFC 9110
 * §15.5.14 lets the server close; reading on keeps the answer readable).
 */
export function discardRest(req: IncomingMessage, res: ServerResponse): void {
  let read = 0;
  const close = () => {
    clearTimeout(timer);
    res.socket?.destroy();
  };
  const timer = setTimeout(close, DISCARD_MAX_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > DISCARD_MAX_BYTES) close();
  });
  req.once('end', () => {
    clearTimeout(timer);
    res.socket?.end();
  });
  req.once('error', close);
  req.resume();
}

/**
 * Parses a tool call's body: empty = `{}`, else a JSON object.
 * @throws DaemonError 400 bad_request for invalid JSON or a non-object.
 */
export function parseArguments(body: Buffer): Record<string, unknown> {
  const text = body.toString('utf8');
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DaemonError(400, 'bad_request', 'The request body is not valid JSON.', 'Send the tool\'s arguments as one JSON object ({} for none).');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new DaemonError(400, 'bad_request', 'The request body is not a JSON object.', 'Send the tool\'s arguments as one JSON object ({} for none).');
  }
  return value as Record<string, unknown>;
}
