/**
 * node:http ↔ web-standard Request/Response, for the MCP SDK's fetch-shaped
 * handlers (`@modelcontextprotocol/node` is not a dependency; this is the
 * part of it the daemon needs). The body has been read already, under the
 * daemon's limits; the Request's signal aborts when the client goes away.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A web Request for `req` with the already-read `body`; `signal` should abort when the client disconnects. */
export function toWebRequest(req: IncomingMessage, port: number, body: Buffer | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'host' || name === 'content-length' || name === 'connection' || name === 'transfer-encoding') continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const method = req.method ?? 'GET';
  const withBody = method !== 'GET' && method !== 'HEAD' && body !== undefined;
  return new Request(`http://127.0.0.1:${port}${req.url ?? '/'}`, { method, headers, body: withBody ? new Uint8Array(body) : undefined, signal });
}

/**
 * Writes a web Response to `res`, streaming its body with backpressure;
 * cancels the body when the client goes away. Resolves when done.
 */
export async function sendWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const onClose = () => void reader.cancel().catch(() => undefined);
  res.on('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) break;
      if (!res.write(value)) {
        await new Promise<void>(resolve => {
          const finish = () => {
            res.off('drain', finish);
            res.off('close', finish);
            resolve();
          };
          res.on('drain', finish);
          res.on('close', finish);
        });
      }
    }
  } catch {
    // the body errored or was cancelled: end what we have
  } finally {
    res.off('close', onClose);
    if (!res.writableEnded) res.end();
  }
}
