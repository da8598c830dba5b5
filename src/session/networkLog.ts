/**
 * A per-tab ring buffer of the tab's network requests (`list_network_requests`, `get_network_request`), fed by
 * Playwright's page events `request`, `response`, `requestfinished` and `requestfailed` from the tab's first
 * document on. Each entry keeps Playwright's Request so that headers and bodies are read only when asked for.
 */
import type { Frame, Page, Request } from 'playwright-core';
import { raceTimeout } from '../util/wait.js';
import { blockedBy } from './requestPolicy.js';
import { routedBy, type RouteMark } from './routes.js';

export interface NetworkEntry {
  /** Increasing per tab from 1; `get_network_request {id}` takes it, `since` counts on it. */
  id: number;
  method: string;
  /** The full URL (callers redact the query: src/util/urlPattern.ts `redactQuery`). */
  url: string;
  /** Playwright's resource type: document, stylesheet, image, media, font, script, fetch, xhr, websocket, … */
  resourceType: string;
  /** The HTTP status once the response arrived. */
  status?: number;
  statusText?: string;
  /** The response's MIME type (its Content-Type without parameters). */
  mimeType?: string;
  /** Bytes the response body took on the wire: its Content-Length, else measured when listed (`query`). */
  size?: number;
  /** Milliseconds since the epoch when the request was sent. */
  startedAt: number;
  /** Milliseconds from sending to the end of the response (finished) or the failure. */
  durationMs?: number;
  /** The network error when the request failed (`net::ERR_…`), or `aborted`. */
  failure?: string;
  /**
   * The server policy's rule that blocked the request (`--deny-host *.evil.test`, or `--allow-host` when no allow
   * pattern matched; docs/policy.md); its failure is then `net::ERR_BLOCKED_BY_CLIENT`.
   */
  blockedBy?: string;
  /** pending → finished | failed. */
  state: 'pending' | 'finished' | 'failed';
  /** Whether the request was made by a frame other than the top one. */
  inFrame: boolean;
  /** The top document's navigation request (a new document of the tab starts with it). */
  navigation: boolean;
  /** Answered by the page's service worker (Playwright's `Response.fromServiceWorker()`). */
  fromServiceWorker?: boolean;
  /** The route (route, route_from_har; src/session/routes.ts) that mocked, aborted, changed or answered it from a HAR. */
  route?: RouteMark;
}

/** Playwright's Request of an entry, for headers and bodies. */
type Tracked = NetworkEntry & { request: Request };

export class NetworkLog {
  private readonly entries: Tracked[] = [];
  private readonly byRequest = new WeakMap<Request, Tracked>();
  private seq = 0;
  /** The id of the current top document's navigation request: the list starts there by default. 0: the tab's first. */
  private documentStart = 0;
  /** The newest top-document navigation request seen (its document commits later, or never: a download, a 204). */
  private pendingNavigation: Tracked | undefined;
  /** Entries dropped from the front since the tab opened (the ring is full). */
  dropped = 0;

  /** `capacity`: entries kept per tab; older ones are dropped first. */
  constructor(page: Page, readonly capacity = 500) {
    page.on('request', request => this.onRequest(page, request));
    page.on('response', response => {
      const entry = this.byRequest.get(response.request());
      if (!entry) return;
      entry.status = response.status();
      entry.statusText = response.statusText();
      const headers = response.headers();
      const type = headers['content-type'];
      if (type) entry.mimeType = type.split(';')[0]!.trim();
      const length = Number(headers['content-length']);
      if (headers['content-length'] !== undefined && Number.isFinite(length)) entry.size = length;
      if (response.fromServiceWorker()) entry.fromServiceWorker = true;
    });
    page.on('requestfinished', request => this.settle(request, 'finished'));
    page.on('requestfailed', request => {
      this.settle(request, 'failed', request.failure()?.errorText ?? 'failed');
      const denial = blockedBy(request);
      const entry = this.byRequest.get(request);
      if (denial && entry) {
        entry.blockedBy = denial.rule;
        // Chromium words a route's abort `net::ERR_BLOCKED_BY_CLIENT.Inspector` for some requests: one stable text.
        entry.failure = 'net::ERR_BLOCKED_BY_CLIENT';
      }
    });
    page.on('framenavigated', frame => this.onNavigated(page, frame));
  }

  private onRequest(page: Page, request: Request): void {
    let frame: Frame | undefined;
    try {
      frame = request.frame();
    } catch {
      // A service worker's request has no frame.
    }
    const navigation = request.isNavigationRequest() && frame === page.mainFrame();
    const entry: Tracked = {
      id: ++this.seq,
      method: request.method(),
      url: request.url(),
      resourceType: request.resourceType(),
      startedAt: Date.now(),
      state: 'pending',
      inFrame: frame !== undefined && frame !== page.mainFrame(),
      navigation,
      request,
    };
    // A redirect is a new Request of Playwright's: its predecessor finished with its 3xx response.
    this.entries.push(entry);
    this.byRequest.set(request, entry);
    if (navigation) this.pendingNavigation = entry;
    while (this.entries.length > this.capacity) {
      this.entries.shift();
      this.dropped++;
    }
  }

  private settle(request: Request, state: 'finished' | 'failed', failure?: string): void {
    const entry = this.byRequest.get(request);
    if (!entry || entry.state !== 'pending') return;
    entry.state = state;
    entry.durationMs = Date.now() - entry.startedAt;
    if (failure !== undefined) entry.failure = failure;
  }

  private onNavigated(page: Page, frame: Frame): void {
    if (frame !== page.mainFrame() || !this.pendingNavigation) return;
    // A same-document change (history.pushState, a #hash) has no navigation request of its URL: it keeps the list.
    // So does one while a navigation is pending that never commits (a download, a 204).
    if (withoutHash(frame.url()) !== withoutHash(this.pendingNavigation.url)) return;
    let first = this.pendingNavigation;
    // The chain of redirects that led here belongs to the new document too.
    for (let r = first.request.redirectedFrom(); r; r = r.redirectedFrom()) first = this.byRequest.get(r) ?? first;
    this.documentStart = first.id;
    this.pendingNavigation = undefined;
  }

  /** The id of the newest entry (0 when none). */
  get lastId(): number {
    return this.seq;
  }

  /**
   * Entries, oldest first: those of the current document (from its navigation request on), or all kept with
   * `since` (ids greater than it) or `allDocuments`; `match` filters; the newest `limit` of them. The body size of
   * finished ones that sent no Content-Length is measured first (Playwright's `Request.sizes()`, one round trip each,
   * in parallel, bounded at 2 s; a failure leaves it unknown).
   */
  async query(opts: { since?: number; allDocuments?: boolean; match?: (entry: NetworkEntry) => boolean; limit?: number } = {}): Promise<{ entries: NetworkEntry[]; omitted: number }> {
    const from = opts.since !== undefined ? opts.since + 1 : opts.allDocuments ? 0 : this.documentStart;
    // `match` sees what callers see, the route that handled the request included (publicEntry).
    const matching = this.entries.filter(e => e.id >= from && (!opts.match || opts.match(publicEntry(e))));
    const limit = opts.limit ?? 50;
    const chosen = matching.slice(-limit);
    await Promise.all(chosen.filter(e => e.state === 'finished' && e.size === undefined).map(async e => {
      const sizes = await raceTimeout(e.request.sizes(), { ms: 2000, onTimeout: 'undefined' }).catch(() => undefined);
      // Chromium reports -1 (or less) when it did not count the body: unknown.
      if (sizes && sizes.responseBodySize >= 0) e.size = sizes.responseBodySize;
    }));
    return { entries: chosen.map(publicEntry), omitted: Math.max(0, matching.length - limit) };
  }

  /** The entry with `id` and its Playwright Request, or undefined when it was never seen or was dropped. */
  get(id: number): { entry: NetworkEntry; request: Request } | undefined {
    const tracked = this.entries.find(e => e.id === id);
    return tracked && { entry: publicEntry(tracked), request: tracked.request };
  }
}

function publicEntry({ request, ...entry }: Tracked): NetworkEntry {
  const route = routedBy(request);
  return route ? { ...entry, route } : entry;
}

function withoutHash(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}
