/**
 * Server-Sent Events for streaming tool calls (docs/daemon.md, "Streaming"):
 * `event: <name>\ndata: <JSON>\n\n`, written with backpressure (a write that
 * returns false waits for 'drain'), a keep-alive comment every 15 s of
 * silence, and a cap on the bytes of the whole stream.
 */
import type { ServerResponse } from 'node:http';

export class SseStream {
  /** Bytes written so far, headers excluded. */
  bytes = 0;
  private keepAlive?: NodeJS.Timeout;
  private lastWrite = Date.now();
  /** Serializes writes: one waits for the previous one's drain. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly res: ServerResponse, readonly maxBytes: number, keepAliveMs: number) {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    if (keepAliveMs > 0) {
      this.keepAlive = setInterval(() => {
        if (Date.now() - this.lastWrite >= keepAliveMs && !res.writableNeedDrain) void this.write(': keepalive\n\n');
      }, Math.max(100, Math.floor(keepAliveMs / 3)));
      this.keepAlive.unref();
    }
  }

  /** True while the client can still receive events. */
  get open(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }

  /** The frame of one event. */
  static frame(event: string, data: unknown): string {
    return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  }

  /**
   * Sends one event; resolves once the socket took it (after 'drain' when the
   * client reads slowly). Resolves false, sending nothing, when the stream is
   * closed or the frame would pass `maxBytes`.
   */
  send(event: string, data: unknown): Promise<boolean> {
    const frame = SseStream.frame(event, data);
    if (this.bytes + Buffer.byteLength(frame) > this.maxBytes) return Promise.resolve(false);
    return this.write(frame);
  }

  /** Whether a frame of `bytes` more still fits under the cap. */
  fits(bytes: number): boolean {
    return this.bytes + bytes <= this.maxBytes;
  }

  private write(text: string): Promise<boolean> {
    const size = Buffer.byteLength(text);
    const turn = this.queue.then(() => new Promise<boolean>(resolve => {
      if (!this.open) return resolve(false);
      this.bytes += size;
      this.lastWrite = Date.now();
      if (this.res.write(text)) return resolve(true);
      const done = (ok: boolean) => {
        this.res.off('drain', onDrain);
        this.res.off('close', onClose);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      this.res.on('drain', onDrain);
      this.res.on('close', onClose);
    }));
    this.queue = turn.then(() => undefined);
    return turn;
  }

  /** Sends the last event and ends the stream. */
  async end(event: string, data: unknown): Promise<void> {
    await this.send(event, data);
    this.close();
  }

  /** Ends the stream (and its keep-alive). */
  close(): void {
    clearInterval(this.keepAlive);
    if (this.open) this.res.end();
  }
}
