/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) from the exchanges a recording captured
 * (src/session/harRecorder.ts): no browser here, so it is unit-tested on its own (test/session/harFormat.test.ts).
 */

export interface HarHeader {
  name: string;
  value: string;
}

/** Playwright's `Request.timing()`: epoch ms `startTime`, the rest ms relative to it, -1 when not available. */
export interface CapturedTiming {
  startTime: number;
  domainLookupStart: number;
  domainLookupEnd: number;
  connectStart: number;
  secureConnectionStart: number;
  connectEnd: number;
  requestStart: number;
  responseStart: number;
  responseEnd: number;
}

/** Playwright's `Request.sizes()`, in bytes. */
export interface CapturedSizes {
  requestHeadersSize: number;
  requestBodySize: number;
  responseHeadersSize: number;
  responseBodySize: number;
}

/** Why a response body is not in the HAR. */
export type BodyLeftOut = 'off' | 'over_max_body_bytes' | 'over_total_cap' | 'unavailable';

/** One finished request and its response, as a recording captured it. */
export interface CapturedExchange {
  /** ms since the epoch, when the request was seen (used when timing has no startTime). */
  startedAt: number;
  method: string;
  url: string;
  resourceType: string;
  requestHeaders: HarHeader[];
  postData?: { mimeType: string; buffer: Buffer };
  status: number;
  statusText: string;
  responseHeaders: HarHeader[];
  /** The response body, when kept. */
  body?: Buffer;
  /** Why the body is not kept (with `body` undefined). */
  bodyLeftOut?: BodyLeftOut;
  /** The body's length when it was read but left out. */
  bodyBytes?: number;
  timing?: CapturedTiming;
  sizes?: CapturedSizes;
  fromServiceWorker?: boolean;
}

/** What the recording left out of the HAR, by reason (counts). */
export interface HarLeftOut {
  /** Requests that failed (no response to record: a HAR entry needs one). */
  failed: number;
  /** Requests still loading when the recording stopped. */
  pending: number;
  /** Requests over the entry cap. */
  overEntryCap: number;
  /** Bodies larger than maxBodyBytes. */
  bodiesOverMax: number;
  /** Bodies that would have passed the total cap on kept body bytes. */
  bodiesOverTotal: number;
  /** Bodies the browser no longer had (a redirect has none; bodies of documents that are gone). */
  bodiesUnavailable: number;
}

/** MIME types whose bodies go into the HAR as text; the rest as base64. */
const TEXTUAL = /^text\/|[/+](json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql)$|^image\/svg\+xml$/i;

/** The MIME type of a Content-Type value (parameters dropped), or the fallback. */
export function mimeTypeOf(contentType: string | undefined, fallback = 'x-unknown'): string {
  return contentType?.split(';')[0]!.trim().toLowerCase() || fallback;
}

function header(headers: HarHeader[], name: string): string | undefined {
  return headers.find(h => h.name.toLowerCase() === name)?.value;
}

/** `content` of a HAR response: the body as text (textual types that decode as UTF-8) or base64, or the reason it was left out. */
export function harContent(body: Buffer | undefined, mimeType: string, leftOut?: BodyLeftOut, bytes?: number): Record<string, unknown> {
  if (!body) {
    const why = leftOut === 'off' ? 'bodies were not recorded' : leftOut === 'over_max_body_bytes' ? 'larger than maxBodyBytes'
      : leftOut === 'over_total_cap' ? 'over the total cap on body bytes' : 'the browser had no body to read';
    return { size: bytes ?? 0, mimeType, ...(leftOut ? { comment: `body left out: ${why}` } : {}) };
  }
  const text = TEXTUAL.test(mimeType) ? body.toString('utf8') : undefined;
  if (text !== undefined && !text.includes('\uFFFD')) return { size: body.length, mimeType, text };
  return { size: body.length, mimeType, text: body.toString('base64'), encoding: 'base64' };
}

/** HAR timings (ms; -1 where not known) and their total, from Playwright's resource timing. */
export function harTimings(t: CapturedTiming | undefined): { timings: Record<string, number>; time: number } {
  if (!t) return { timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 0, receive: 0 }, time: 0 };
  const span = (from: number, to: number) => (from >= 0 && to >= 0 && to >= from ? round(to - from) : -1);
  const dns = span(t.domainLookupStart, t.domainLookupEnd);
  const connect = span(t.connectStart, t.connectEnd);
  const ssl = span(t.secureConnectionStart, t.connectEnd);
  const sent = t.requestStart >= 0 ? t.requestStart : 0;
  const wait = Math.max(0, span(sent, t.responseStart));
  const receive = Math.max(0, span(t.responseStart, t.responseEnd));
  // blocked: from the start to the first phase that has a time (queueing, proxy negotiation).
  const first = [t.domainLookupStart, t.connectStart, t.requestStart].find(v => v >= 0);
  const blocked = first !== undefined ? round(first) : -1;
  const timings = { blocked, dns, connect, ssl, send: 0, wait, receive };
  // ssl is part of connect (HAR 1.2, "timings").
  const time = [blocked, dns, connect, wait, receive].filter(v => v > 0).reduce((a, b) => a + b, 0);
  return { timings, time: round(time) };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function cookiesOf(value: string | undefined): Array<{ name: string; value: string }> {
  if (!value) return [];
  return value.split(/;\s*/).filter(Boolean).map(pair => {
    const eq = pair.indexOf('=');
    return eq < 0 ? { name: pair, value: '' } : { name: pair.slice(0, eq), value: pair.slice(eq + 1) };
  });
}

function setCookiesOf(headers: HarHeader[]): Array<{ name: string; value: string }> {
  return headers.filter(h => h.name.toLowerCase() === 'set-cookie').flatMap(h => h.value.split('\n')).map(line => cookiesOf(line.split(';')[0])[0]!).filter(Boolean);
}

function queryOf(url: string): HarHeader[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

/** One HAR entry of a captured exchange. */
export function harEntry(x: CapturedExchange, pageref: string): Record<string, unknown> {
  const { timings, time } = harTimings(x.timing);
  const started = x.timing && x.timing.startTime > 0 ? x.timing.startTime : x.startedAt;
  const mimeType = mimeTypeOf(header(x.responseHeaders, 'content-type'));
  const postData = x.postData && {
    mimeType: x.postData.mimeType,
    text: x.postData.buffer.toString('utf8'),
    params: [],
  };
  return {
    pageref,
    startedDateTime: new Date(started).toISOString(),
    time,
    request: {
      method: x.method,
      url: x.url,
      httpVersion: 'HTTP/1.1',
      cookies: cookiesOf(header(x.requestHeaders, 'cookie')),
      headers: x.requestHeaders,
      queryString: queryOf(x.url),
      ...(postData ? { postData } : {}),
      headersSize: x.sizes?.requestHeadersSize ?? -1,
      bodySize: x.sizes?.requestBodySize ?? (x.postData ? x.postData.buffer.length : 0),
    },
    response: {
      status: x.status,
      statusText: x.statusText,
      httpVersion: 'HTTP/1.1',
      cookies: setCookiesOf(x.responseHeaders),
      headers: x.responseHeaders,
      content: harContent(x.body, mimeType, x.bodyLeftOut, x.bodyBytes ?? x.sizes?.responseBodySize),
      redirectURL: header(x.responseHeaders, 'location') ?? '',
      headersSize: x.sizes?.responseHeadersSize ?? -1,
      bodySize: x.sizes?.responseBodySize ?? -1,
    },
    cache: {},
    timings,
    _resourceType: x.resourceType,
    ...(x.fromServiceWorker ? { _fromServiceWorker: true } : {}),
  };
}

/** The HAR 1.2 document of a recording: one page (the tab), its entries in the order they started. */
export function buildHar(exchanges: readonly CapturedExchange[], page: { startedAt: number; title: string; url: string }, creator: { name: string; version: string }, leftOut?: HarLeftOut): Record<string, unknown> {
  const pageref = 'page_1';
  const entries = [...exchanges].sort((a, b) => (a.timing?.startTime || a.startedAt) - (b.timing?.startTime || b.startedAt)).map(x => harEntry(x, pageref));
  const comment = leftOut ? leftOutText(leftOut) : '';
  return {
    log: {
      version: '1.2',
      creator,
      pages: [{ startedDateTime: new Date(page.startedAt).toISOString(), id: pageref, title: page.title || page.url, pageTimings: { onContentLoad: -1, onLoad: -1 } }],
      entries,
      ...(comment ? { comment: `Left out: ${comment}.` } : {}),
    },
  };
}

/** What was left out, in words (empty when nothing was): `2 failed requests, 1 body over maxBodyBytes`. */
export function leftOutText(l: HarLeftOut): string {
  const n = (count: number, one: string, many = `${one}s`) => (count ? `${count} ${count === 1 ? one : many}` : '');
  return [
    n(l.failed, 'failed request (no response to record)', 'failed requests (no response to record)'),
    n(l.pending, 'request still loading', 'requests still loading'),
    n(l.overEntryCap, 'request over the entry cap', 'requests over the entry cap'),
    n(l.bodiesOverMax, 'body over maxBodyBytes', 'bodies over maxBodyBytes'),
    n(l.bodiesOverTotal, 'body over the total cap', 'bodies over the total cap'),
    n(l.bodiesUnavailable, 'body the browser no longer had', 'bodies the browser no longer had'),
  ].filter(Boolean).join(', ');
}
