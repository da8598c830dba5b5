/**
 * JSON-RPC batches on stdio. Revision 2025-03-26 says a server MUST accept a
 * batch (a JSON array of requests and notifications on one line); the SDK's
 * stdio reader drops an array without any reply, so such a client waits
 * forever. `reader()` rewrites each batch line on stdin into one line per
 * message before the SDK reads it; `outgoing()` holds the responses to a
 * batch's requests and writes them as one array line once all are there, as
 * JSON-RPC 2.0 asks. Framing stays on "\n" only (docs/mcp.md, "The stream"); lines that
 * are not batches pass through byte for byte.
 */
import { Transform } from 'node:stream';

/** Lines longer than this are never held (the SDK's own reader limit then applies). */
const MAX_HELD_LINE = 10 * 1024 * 1024;

interface Batch {
  /** Keys (JSON of the id) of the batch's requests, in batch order; invalid entries get a synthetic key. */
  order: string[];
  replies: Map<string, string>;
}

const key = (id: unknown) => JSON.stringify(id);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const invalidRequest = (message: string) => JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } });

/** The first byte of `buf` that is not JSON whitespace, if any. */
function firstByte(buf: Buffer): number | undefined {
  for (const b of buf) if (b !== 0x20 && b !== 0x09 && b !== 0x0d && b !== 0x0a) return b;
  return undefined;
}

export class BatchFraming {
  private readonly batches: Batch[] = [];
  /** The start of the current line, held while it may be a batch (or a cancellation, while batches are open). */
  private line: Buffer = Buffer.alloc(0);
  /** The current line is known not to need a look: its bytes go straight through. */
  private passing = false;

  /** @param write writes a frame to stdout directly (replies that need no SDK: invalid batches). */
  constructor(private readonly write: (frame: string) => void) {}

  /** A stream between stdin and the SDK's reader that splits batch lines into single messages. */
  reader(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        const out: Buffer[] = [];
        this.feed(chunk, b => out.push(b));
        callback(null, out.length ? Buffer.concat(out) : undefined);
      },
      flush: callback => callback(null, this.line.length ? this.line : undefined),
    });
  }

  private feed(chunk: Buffer, push: (b: Buffer) => void): void {
    while (chunk.length) {
      const nl = chunk.indexOf(0x0a);
      const part = nl < 0 ? chunk : chunk.subarray(0, nl + 1);
      chunk = nl < 0 ? Buffer.alloc(0) : chunk.subarray(nl + 1);
      if (this.passing) {
        push(part);
      } else {
        this.line = this.line.length ? Buffer.concat([this.line, part]) : part;
        const first = firstByte(this.line);
        const mayNeedLook = first === undefined || first === 0x5b /* [ */ || (first === 0x7b /* { */ && this.batches.length > 0);
        if (!mayNeedLook || this.line.length > MAX_HELD_LINE) {
          push(this.line);
          this.line = Buffer.alloc(0);
          this.passing = nl < 0;
        } else if (nl >= 0) {
          push(this.look(this.line));
          this.line = Buffer.alloc(0);
        }
      }
      if (nl >= 0) this.passing = false;
    }
  }

  /** A whole line that may be a batch or a cancellation: returns what the SDK should read instead. */
  private look(line: Buffer): Buffer {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line.toString('utf8'));
    } catch {
      return line; // the SDK reports it
    }
    if (isObject(parsed)) {
      this.cancelled(parsed);
      return line;
    }
    if (!Array.isArray(parsed)) return line;
    if (parsed.length === 0) {
      this.write(`${invalidRequest('Invalid Request: empty batch')}\n`);
      return Buffer.alloc(0);
    }
    const batch: Batch = { order: [], replies: new Map() };
    const lines: string[] = [];
    parsed.forEach((msg, i) => {
      if (!isObject(msg) || msg.jsonrpc !== '2.0') {
        const k = `invalid#${i}`;
        batch.order.push(k);
        batch.replies.set(k, invalidRequest('Invalid Request'));
        return;
      }
      if (typeof msg.method === 'string' && msg.id !== undefined && msg.id !== null) batch.order.push(key(msg.id));
      this.cancelled(msg);
      lines.push(`${JSON.stringify(msg)}\n`);
    });
    if (batch.order.length) this.batches.push(batch);
    this.flushComplete();
    return Buffer.from(lines.join(''), 'utf8');
  }

  /** A notifications/cancelled for a request in an open batch: that request gets no response. */
  private cancelled(msg: Record<string, unknown>): void {
    if (msg.method !== 'notifications/cancelled' || !isObject(msg.params)) return;
    const k = key(msg.params.requestId);
    for (const batch of this.batches) {
      if (batch.replies.has(k)) continue;
      const at = batch.order.indexOf(k);
      if (at >= 0) batch.order.splice(at, 1);
    }
    this.flushComplete();
  }

  /** Writes every batch whose requests have all been answered. */
  private flushComplete(): void {
    for (let i = 0; i < this.batches.length; i++) {
      const done = this.complete(this.batches[i]!);
      if (done === undefined) continue;
      this.batches.splice(i--, 1);
      if (done) this.write(done);
    }
  }

  /** The batch's reply line once every request has a response ('' when nothing is owed), else undefined. */
  private complete(batch: Batch): string | undefined {
    if (batch.order.some(k => !batch.replies.has(k))) return undefined;
    return batch.order.length ? `[${batch.order.map(k => batch.replies.get(k)!).join(',')}]\n` : '';
  }

  /**
   * Takes one outgoing frame (a JSON-RPC message and "\n") and returns what to
   * write now: the frame itself; '' while it waits for the rest of its batch;
   * or the whole batch as one array line.
   */
  outgoing(frame: string): string {
    if (!this.batches.length) return frame;
    let msg: unknown;
    try {
      msg = JSON.parse(frame);
    } catch {
      return frame;
    }
    if (!isObject(msg) || !('result' in msg || 'error' in msg)) return frame;
    const k = key(msg.id);
    const at = this.batches.findIndex(b => b.order.includes(k) && !b.replies.has(k));
    if (at < 0) return frame;
    const batch = this.batches[at]!;
    batch.replies.set(k, frame.replace(/\n$/, ''));
    const done = this.complete(batch);
    if (done === undefined) return '';
    this.batches.splice(at, 1);
    return done;
  }
}
