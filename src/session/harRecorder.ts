/**
 * A HAR recording of one tab (start_har / stop_har, docs/network.md "HAR"): built from Playwright's page events
 * (`requestfinished`, `requestfailed`), since Playwright's own `recordHar` is a context-creation option an attached
 * context never had. Each finished request's headers, timing, sizes and (unless off) body are read when it
 * finishes, bounded per body (`maxBodyBytes`), over all bodies (`maxTotalBytes`) and in entries (`maxEntries`); the
 * HAR is built only at stop (or when the tab closes), so nothing is written half.
 */
import type { Page, Request } from 'playwright-core';
import { raceTimeout } from '../util/wait.js';
import { buildHar, type CapturedExchange, type HarLeftOut } from './harFormat.js';

/** Bounds of one recording. */
export interface HarOptions {
  /** Whether response bodies go in (default true). */
  bodies: boolean;
  /** A body larger than this is left out (its size kept), in bytes. */
  maxBodyBytes: number;
  /** Body bytes kept over the whole recording; later bodies are left out. */
  maxTotalBytes: number;
  /** Entries kept; later requests are left out. */
  maxEntries: number;
}

/** How long reading one request's details may take at its end, in ms. */
const READ_MS = 5000;
/** How long stop waits for the reads of requests that just finished, in ms. */
const DRAIN_MS = 3000;

export class HarRecorder {
  readonly startedAt = Date.now();
  private readonly exchanges: CapturedExchange[] = [];
  private readonly seen = new Set<Request>();
  private readonly reads = new Set<Promise<void>>();
  private keptBytes = 0;
  private stopped = false;
  readonly leftOut: HarLeftOut = { failed: 0, pending: 0, overEntryCap: 0, bodiesOverMax: 0, bodiesOverTotal: 0, bodiesUnavailable: 0 };
  private readonly onRequest = (request: Request) => {
    this.seen.add(request);
  };
  private readonly onFinished = (request: Request) => {
    if (!this.seen.delete(request)) return;
    const read = this.capture(request).finally(() => this.reads.delete(read));
    this.reads.add(read);
  };
  private readonly onFailed = (request: Request) => {
    if (this.seen.delete(request)) this.leftOut.failed++;
  };

  constructor(readonly page: Page, readonly options: HarOptions) {
    page.on('request', this.onRequest);
    page.on('requestfinished', this.onFinished);
    page.on('requestfailed', this.onFailed);
  }

  /** Entries captured so far. */
  get entryCount(): number {
    return this.exchanges.length;
  }

  private async capture(request: Request): Promise<void> {
    if (this.exchanges.length >= this.options.maxEntries) {
      this.leftOut.overEntryCap++;
      return;
    }
    const read = async (): Promise<CapturedExchange | undefined> => {
      const response = await request.response();
      if (!response) return undefined;
      const [requestHeaders, responseHeaders, sizes] = await Promise.all([
        request.headersArray(),
        response.headersArray(),
        request.sizes().catch(() => undefined),
      ]);
      const x: CapturedExchange = {
        startedAt: Date.now(),
        method: request.method(),
        url: request.url(),
        resourceType: request.resourceType(),
        requestHeaders,
        status: response.status(),
        statusText: response.statusText(),
        responseHeaders,
        timing: request.timing(),
        ...(sizes ? { sizes } : {}),
        ...(response.fromServiceWorker() ? { fromServiceWorker: true } : {}),
      };
      const post = request.postDataBuffer();
      if (post) x.postData = { mimeType: (await request.headerValue('content-type')) ?? 'application/octet-stream', buffer: post };
      if (!this.options.bodies) {
        x.bodyLeftOut = 'off';
        return x;
      }
      const body = await response.body().catch(() => undefined);
      if (!body) {
        // A redirect has no body to read; neither has a 204 or a HEAD: nothing is missing then.
        if (!(response.status() >= 300 && response.status() < 400) && response.status() !== 204 && request.method() !== 'HEAD') {
          x.bodyLeftOut = 'unavailable';
          this.leftOut.bodiesUnavailable++;
        }
      } else if (body.length > this.options.maxBodyBytes) {
        x.bodyLeftOut = 'over_max_body_bytes';
        x.bodyBytes = body.length;
        this.leftOut.bodiesOverMax++;
      } else if (this.keptBytes + body.length > this.options.maxTotalBytes) {
        x.bodyLeftOut = 'over_total_cap';
        x.bodyBytes = body.length;
        this.leftOut.bodiesOverTotal++;
      } else {
        this.keptBytes += body.length;
        x.body = body;
      }
      return x;
    };
    const x = await raceTimeout(read(), { ms: READ_MS, onTimeout: 'undefined' }).catch(() => undefined);
    if (!x) {
      // The page closed or the browser gave no answer: the request has nothing to record.
      this.leftOut.bodiesUnavailable++;
      return;
    }
    if (this.stopped) return;
    this.exchanges.push(x);
  }

  /**
   * Ends the recording: stops listening, waits (at most 3 s) for the requests that just finished, and returns the
   * HAR document and what was left out. Idempotent in effect: a second call returns an equal document.
   */
  async stop(creator: { name: string; version: string }, pageInfo?: { title: string; url: string }): Promise<{ har: Record<string, unknown>; entries: number; keptBodyBytes: number; leftOut: HarLeftOut }> {
    this.page.off('request', this.onRequest);
    this.page.off('requestfinished', this.onFinished);
    this.page.off('requestfailed', this.onFailed);
    await raceTimeout(Promise.all([...this.reads]), { ms: DRAIN_MS, onTimeout: 'undefined' }).catch(() => undefined);
    this.stopped = true;
    this.leftOut.pending = this.seen.size + this.reads.size;
    const info = pageInfo ?? { title: '', url: '' };
    const har = buildHar(this.exchanges, { startedAt: this.startedAt, title: info.title, url: info.url }, creator, this.leftOut);
    return { har, entries: this.exchanges.length, keptBodyBytes: this.keptBytes, leftOut: { ...this.leftOut } };
  }
}
