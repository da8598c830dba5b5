/**
 * The active-request bound of the stdio transport (docs/mcp.md, "The
 * stream"): at most MAX_ACTIVE_REQUESTS requests are handed to the SDK at
 * once; later ones wait in arrival order (at most MAX_WAITING_REQUESTS) and
 * are handed on as slots free; past that a request is answered at once with
 * -32000 "server busy". A slot frees when its response is sent, or when the
 * client cancels the request (notifications/cancelled: MCP "Cancellation";
 * the SDK then sends no response). A waiting request that is cancelled is
 * dropped unseen. `subscriptions/listen` (revision 2026-07-28) stays open
 * for the connection's life and is bounded by the SDK's own subscription
 * limit, so it takes no slot.
 */
import { MAX_ACTIVE_REQUESTS, MAX_WAITING_REQUESTS, SERVER_BUSY } from './stdioLimits.js';
import type { FrameError } from './frameReader.js';

type Id = string | number;
/** A validated JSON-RPC message (requests carry `method` and `id`). */
export type Message = { jsonrpc: '2.0'; id?: Id; method?: string; params?: Record<string, unknown> } & Record<string, unknown>;

const key = (id: unknown) => JSON.stringify(id) ?? 'undefined';
const isRequest = (m: Message): m is Message & { id: Id; method: string } => typeof m.method === 'string' && m.id !== undefined;

/** Bounds of one gate (tests lower them). */
export interface GateLimits {
  active: number;
  waiting: number;
}

export class RequestGate {
  private readonly active: Array<{ key: string; method: string }> = [];
  private readonly waiting: Array<{ key: string; message: Message & { id: Id; method: string } }> = [];

  /**
   * @param deliver hands a message to the SDK.
   * @param reject answers a request the gate turns away.
   */
  constructor(
    private readonly deliver: (message: Message) => void,
    private readonly reject: (id: Id, error: FrameError) => void,
    private readonly limits: GateLimits = { active: MAX_ACTIVE_REQUESTS, waiting: MAX_WAITING_REQUESTS },
  ) {}

  /** Requests handed to the SDK and not answered yet. */
  get activeCount(): number {
    return this.active.length;
  }

  /** Requests waiting for a slot. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /** Takes one incoming message. */
  admit(message: Message): void {
    if (isRequest(message) && message.method !== 'subscriptions/listen') {
      const k = key(message.id);
      if (this.active.length < this.limits.active) {
        this.active.push({ key: k, method: message.method });
        this.deliver(message);
      } else if (this.waiting.length < this.limits.waiting) {
        this.waiting.push({ key: k, message });
      } else {
        this.reject(message.id, {
          code: SERVER_BUSY,
          message: `Server busy: ${this.limits.active} requests are being handled and ${this.limits.waiting} more wait; send it again once one is answered.`,
          data: { type: 'server_busy', limit: this.limits.active, waitingLimit: this.limits.waiting },
        });
      }
      return;
    }
    if (message.method === 'notifications/cancelled' && message.id === undefined) {
      const k = key(message.params?.requestId);
      const at = this.waiting.findIndex(w => w.key === k);
      if (at >= 0) {
        this.waiting.splice(at, 1);
        return;
      }
      const freed = this.release(k);
      this.deliver(message);
      if (freed !== undefined) this.next();
      return;
    }
    this.deliver(message);
  }

  /**
   * An outgoing response to `id`: frees its request's slot and hands on the
   * next waiting request. Returns the method it answers (undefined when it
   * answers no request the gate holds).
   */
  answered(id: unknown): string | undefined {
    const method = this.release(key(id));
    if (method !== undefined) this.next();
    return method;
  }

  private release(k: string): string | undefined {
    const at = this.active.findIndex(a => a.key === k);
    if (at < 0) return undefined;
    return this.active.splice(at, 1)[0]!.method;
  }

  private next(): void {
    while (this.active.length < this.limits.active && this.waiting.length) {
      const { key: k, message } = this.waiting.shift()!;
      this.active.push({ key: k, method: message.method });
      this.deliver(message);
    }
  }
}
