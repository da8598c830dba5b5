/**
 * Reading an HTTP body under limits: a request's, for every local listener (the daemon, the dashboard, the userscript
 * broker), at most `maxBytes` (a declared Content-Length over it is refused before reading; a streamed body is
 * counted) and complete within `timeoutMs` of the call; and a `fetch` response's, for the requests tabwright makes
 * for scripts (GM_xmlhttpRequest, remote @require and @resource). Each caller words the failure its own way.
 */
import type { IncomingMessage } from 'node:http';

/**
 * Why a body was refused: `too_large` (over maxBytes, declared or counted), `timeout` (not complete in time),
 * `aborted` (the client went away, or the stream failed), `bad_length` (a Content-Length that is not a byte count).
 */
export type BodyFailure = 'too_large' | 'timeout' | 'aborted' | 'bad_length';

/** A refused body: `reason` says why. */
export class BodyError extends Error {
  constructor(readonly reason: BodyFailure) {
    super(`request body refused: ${reason}`);
    this.name = 'BodyError';
  }
}

/**
 * The whole body as a Buffer. A refused body is left unread (the stream is paused): the caller answers, then
 * reads on or closes the connection.
 * @throws BodyError
 */
export function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined) {
    const n = Number(declared);
    if (!Number.isSafeInteger(n) || n < 0) return Promise.reject(new BodyError('bad_length'));
    if (n > maxBytes) return Promise.reject(new BodyError('too_large'));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error?: BodyError) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('error', onAborted);
      if (error) {
        req.pause(); // read no more of a body we refuse
        reject(error);
      } else {
        resolve(Buffer.concat(chunks, size));
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return finish(new BodyError('too_large'));
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onAborted = () => finish(new BodyError('aborted'));
    const timer = setTimeout(() => finish(new BodyError('timeout')), timeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('error', onAborted);
  });
}

/**
 * The whole body of a `fetch` Response as a Buffer, at most `maxBytes`: a declared Content-Length over it is refused
 * before reading, a streamed body is counted and its reading stopped (the stream cancelled) once over.
 * @throws BodyError too_large; what reading the stream throws.
 */
export async function readResponseBody(res: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    void res.body?.cancel().catch(() => undefined);
    throw new BodyError('too_large');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  if (res.body) {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new BodyError('too_large');
      chunks.push(Buffer.from(chunk));
    }
  }
  return Buffer.concat(chunks);
}

