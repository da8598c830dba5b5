/**
 * JSON-RPC batches on stdio. Revision 2025-03-26 says a server MUST accept a
 * batch (a JSON array of requests and notifications in one frame); the SDK
 * drops an array without any reply, so such a client waits forever.
 * `incoming()` splits each batch into its messages before the SDK gets
 * them; `outgoing()` holds the responses to a batch's requests and writes
 * them as one array frame once all are there, as JSON-RPC 2.0 asks
 * (docs/mcp.md, "The stream").
 */

interface Batch {
  /** Keys (JSON of the id) of the batch's requests, in batch order; invalid entries get a synthetic key. */
  order: string[];
  replies: Map<string, string>;
}

const key = (id: unknown) => JSON.stringify(id);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const invalidRequest = (message: string) => JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } });

export class BatchFraming {
  private readonly batches: Batch[] = [];
  /** @param write writes a frame to stdout directly (replies that need no SDK: invalid batches). */
  constructor(private readonly write: (frame: string) => void) {}

  /**
   * Takes one parsed incoming message (or batch) and returns the messages to
   * hand to the SDK: a batch's valid members, one by one (its invalid ones
   * are answered in its reply); anything else as it is. A
   * notifications/cancelled for a request of an open batch drops it from
   * that batch's reply.
   */
  incoming(parsed: unknown): unknown[] {
    if (isObject(parsed)) {
      this.cancelled(parsed);
      return [parsed];
    }
    if (!Array.isArray(parsed)) return [parsed];
    if (parsed.length === 0) {
      this.write(`${invalidRequest('Invalid Request: empty batch')}\n`);
      return [];
    }
    const batch: Batch = { order: [], replies: new Map() };
    const messages: unknown[] = [];
    parsed.forEach((msg, i) => {
      // JSON-RPC 2.0 ("4 Request object"): an id is a string, a number or null. A member with another id is answered
      // in the batch's reply: passed on, its rejection would name id null and the batch would wait for it forever.
      if (!isObject(msg) || msg.jsonrpc !== '2.0' || !(msg.id === undefined || msg.id === null || typeof msg.id === 'string' || typeof msg.id === 'number')) {
        const k = `invalid#${i}`;
        batch.order.push(k);
        batch.replies.set(k, invalidRequest('Invalid Request'));
        return;
      }
      if (typeof msg.method === 'string' && msg.id !== undefined && msg.id !== null) batch.order.push(key(msg.id));
      this.cancelled(msg);
      messages.push(msg);
    });
    if (batch.order.length) this.batches.push(batch);
    this.flushComplete();
    return messages;
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
