/**
 * One authenticated link to the companion extension (after the handshake of ./bridge.ts): requests with ids and
 * their answers, events from the extension, and the server's keepalive ping (EXTENSION-DESIGN.md §4.2: an MV3
 * worker whose socket is silent for 30 s is stopped; the server pings so that it never is).
 */
import type { WebSocket } from 'ws';
import { logger } from '../../log.js';
import { CACHE_FEATURE, CACHE_MISS, CacheEncoder } from './frameCache.js';
import type { EventFrame, RequestFrame, ResponseFrame } from './protocol.js';

const log = logger('extension');

/** A request the extension refused or failed: `code` is one of DENIAL_CODES, or 'failed' (a Chrome error). */
export class ExtensionError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ExtensionError';
  }
}

/** What the extension said about itself in its hello. */
export interface ExtensionPeer {
  extId: string;
  extVersion: string;
  /** Changes whenever the extension's worker restarted: everything it had attached is gone. */
  bootId: string;
  /** The browser's user agent. */
  userAgent: string;
  /** What the extension understands beyond the protocol version (hello `features`; `cache`: ./frameCache.ts). */
  features: readonly string[];
}

/** A CDP command for the extension's `cdp.send`: shared tab `tabId`, and a child session of it if `sessionId`. */
export interface CdpSend {
  tabId: number;
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

/** What the link's string cache did since the link opened (docs/own-browser.md, "Speed"). */
export interface CacheStats {
  /** Strings sent in full and kept by the worker. */
  puts: number;
  /** Strings sent as an id. */
  refs: number;
  /** UTF-16 units not sent thanks to refs. */
  savedChars: number;
  /** Refs the worker did not hold (each command then sent again in full). */
  misses: number;
}

export class ExtensionLink {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  private readonly eventListeners = new Set<(ev: string, p: Record<string, unknown>) => void>();
  private readonly requestHandlers = new Map<string, (p: Record<string, unknown>) => Promise<unknown>>();
  private readonly closeListeners = new Set<() => void>();
  private readonly pinger: NodeJS.Timeout;
  private closed = false;
  /** The worker's string cache as the server knows it; undefined when the extension has none. */
  private readonly encoder: CacheEncoder | undefined;
  readonly cacheStats: CacheStats = { puts: 0, refs: 0, savedChars: 0, misses: 0 };

  /**
   * @param pingMs  how often the server pings, in ms (20 s, or TABWRIGHT_EXTENSION_PING_MS in tests).
   */
  constructor(
    private readonly socket: WebSocket,
    readonly peer: ExtensionPeer,
    pingMs: number,
  ) {
    this.encoder = peer.features.includes(CACHE_FEATURE) ? new CacheEncoder() : undefined;
    socket.on('message', data => this.onFrame(data.toString()));
    socket.on('close', () => this.gone());
    socket.on('error', error => log.debug(`link socket: ${error.message}`));
    this.pinger = setInterval(() => {
      this.request('ping', { at: Date.now() }).catch(() => undefined);
    }, pingMs);
  }

  /** True until the socket closed. */
  get open(): boolean {
    return !this.closed;
  }

  /**
   * Sends request `m` with params `p`.
   * @returns the extension's result.
   * @throws ExtensionError what the extension answered with `e`, or code 'link_closed' when the link closed first.
   */
  request(m: string, p: Record<string, unknown> = {}): Promise<unknown> {
    if (this.closed) return Promise.reject(new ExtensionError('link_closed', 'The extension link is closed.'));
    const id = this.nextId++;
    const frame: RequestFrame = { id, m, p };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify(frame), error => {
        if (!error) return;
        this.pending.delete(id);
        reject(new ExtensionError('link_closed', `The extension link failed: ${error.message}`));
      });
    });
  }

  /**
   * Sends one CDP command through the extension (`cdp.send`), its large scripts as ids once the worker holds them
   * (./frameCache.ts). A ref the worker does not hold is answered `cache_miss`: the command is sent again in full.
   * @returns the command's result.
   * @throws ExtensionError as `request`.
   */
  async cdpSend(command: CdpSend): Promise<unknown> {
    const { tabId, method, sessionId } = command;
    const base = { tabId, method, ...(sessionId ? { sessionId } : {}) };
    if (!this.encoder || this.closed) return await this.request('cdp.send', { ...base, params: command.params });
    // Encoded and sent in the same tick: the mirror's order is the socket's.
    const { params, put, ref } = this.encoder.encode(command.params);
    this.cacheStats.puts += Object.keys(put ?? {}).length;
    for (const name of Object.keys(ref ?? {})) {
      this.cacheStats.refs++;
      this.cacheStats.savedChars += (command.params[name] as string).length;
    }
    try {
      return await this.request('cdp.send', { ...base, params, ...(put ? { put } : {}), ...(ref ? { ref } : {}) });
    } catch (error) {
      if (!(error instanceof ExtensionError) || error.code !== CACHE_MISS) throw error;
      this.cacheStats.misses++;
      log.debug(`cdp.send ${method}: ${error.message}`);
      this.encoder.reset();
      return await this.request('cdp.send', { ...base, params: command.params });
    }
  }

  /** Calls `listener` with each event of the extension. @returns a function that removes it. */
  onEvent(listener: (ev: string, p: Record<string, unknown>) => void): () => void {
    this.eventListeners.add(listener);
    return () => void this.eventListeners.delete(listener);
  }

  /**
   * Answers the extension's requests `m` (frames `{id, m, p}` from its side) with `handler`'s result, or `{e}` when
   * it throws; a request nobody handles is answered `{e: {code: 'failed'}}`. One handler per method (a later one
   * replaces it). @returns a function that removes it.
   */
  onRequest(m: string, handler: (p: Record<string, unknown>) => Promise<unknown>): () => void {
    this.requestHandlers.set(m, handler);
    return () => {
      if (this.requestHandlers.get(m) === handler) this.requestHandlers.delete(m);
    };
  }

  /** Calls `listener` once when the link closes. */
  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.add(listener);
  }

  /** Closes the link with a close code of protocol.ts CLOSE. */
  close(code: number, reason: string): void {
    this.socket.close(code, reason);
    this.gone();
  }

  private onFrame(text: string): void {
    let frame: ResponseFrame & Partial<EventFrame> & { m?: unknown; p?: Record<string, unknown> };
    try {
      frame = JSON.parse(text) as typeof frame;
    } catch {
      log.warn('the extension sent a frame that is not JSON; ignored');
      return;
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
      log.warn('the extension sent a frame that is not a JSON object; ignored');
      return;
    }
    if (typeof frame.ev === 'string') {
      const p = typeof frame.p === 'object' && frame.p !== null ? frame.p : {};
      for (const listener of [...this.eventListeners]) listener(frame.ev, p);
      return;
    }
    if (typeof frame.m === 'string' && typeof frame.id === 'number') {
      this.answer(frame.id, frame.m, typeof frame.p === 'object' && frame.p !== null ? frame.p : {});
      return;
    }
    const waiter = typeof frame.id === 'number' ? this.pending.get(frame.id) : undefined;
    if (!waiter) return;
    this.pending.delete(frame.id);
    // protocol.ts: `e` is {code, message}; anything else still fails the request, with code 'failed'.
    if (frame.e !== undefined && frame.e !== null) waiter.reject(new ExtensionError(typeof frame.e.code === 'string' ? frame.e.code : 'failed', typeof frame.e.message === 'string' ? frame.e.message : 'The extension answered with a malformed error.'));
    else waiter.resolve(frame.r);
  }

  private answer(id: number, m: string, p: Record<string, unknown>): void {
    const handler = this.requestHandlers.get(m);
    const reply = (frame: ResponseFrame) => {
      if (!this.closed) this.socket.send(JSON.stringify(frame), () => undefined);
    };
    if (!handler) return reply({ id, e: { code: 'failed', message: `the server does not handle ${m}` } });
    handler(p).then(
      r => reply({ id, r: r ?? {} }),
      (error: unknown) => reply({ id, e: { code: 'failed', message: error instanceof Error ? error.message : String(error) } }),
    );
  }

  private gone(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pinger);
    for (const waiter of this.pending.values()) waiter.reject(new ExtensionError('link_closed', 'The extension link closed before it answered.'));
    this.pending.clear();
    for (const listener of [...this.closeListeners]) listener();
    this.closeListeners.clear();
  }
}
