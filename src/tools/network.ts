/**
 * list_network_requests and get_network_request: the tab's requests from its network log
 * (src/session/networkLog.ts), with query values, secret headers and request bodies kept out unless asked for
 * (docs/network.md).
 */
import * as z from 'zod';
import { ToolError } from '../errors.js';
import type { NetworkEntry } from '../session/networkLog.js';
import type { RouteMark } from '../session/routes.js';
import { redactQuery, urlPattern } from '../util/urlPattern.js';
import { raceTimeout } from '../util/wait.js';
import { defineTabTool } from './define.js';
import { tabIdField } from './schemas.js';

/** Header names whose values never reach a result: credentials and session material. */
const SECRET_HEADER = /^(cookie|set-cookie|authorization|proxy-authorization)$|api[-_]?key|token|secret|session|csrf|xsrf/i;
/** MIME types read as text (the rest is reported by size). */
const TEXTUAL = /^text\/|[/+](json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql)$|^image\/svg\+xml$/i;
/** How long reading a response body may take, in ms (the browser may have evicted it). */
const BODY_READ_MS = 5000;
/**
 * How long a request whose response headers came waits for its body to end before it is shown as still loading, in
 * ms: the browser's Network.loadingFinished can come a moment after the page's own fetch() resolved with the body.
 */
const FINISH_WAIT_MS = 2000;

const listInput = z.object({
  tabId: tabIdField,
  filter: z.string().min(1).max(2000).optional().describe('Only requests whose URL matches: part of it, a glob ("**/api/*") or /regex/'),
  resourceType: z.array(z.string().min(1).max(40)).max(20).optional().describe('Only these types: document, fetch, xhr, script, stylesheet, image, font, media, websocket, other, …'),
  failedOnly: z.boolean().optional().describe('Only requests that failed or got a status of 400 or more'),
  since: z.number().int().min(0).optional().describe('Only requests with an id greater than this (lastId of an earlier call), across documents'),
  allDocuments: z.boolean().optional().describe('Also the requests of earlier documents of the tab (default: from the current document\'s own request on)'),
  limit: z.number().int().min(1).max(500).optional().describe('At most this many, the newest (default 50)'),
  includeQuery: z.boolean().optional().describe('Show query values in URLs (default: names only, values as …)'),
});

export const listNetworkRequests = defineTabTool({
  name: 'list_network_requests',
  title: 'List network requests',
  description:
    "The tab's network requests, oldest first, from the current document's own request on (the newest 500 per tab kept): " +
    'id, method, URL (query values hidden unless includeQuery), status, type, size, duration, or why it failed. ' +
    'Filter by URL, type or failures; pass lastId as since to read only new ones; get_network_request {id} gives headers and body.',
  needs: ['network'],
  effect: 'observe',
  launchesBrowser: true,
  target: 'tab',
  // The log is read without touching the page, so an open dialog does not stand in the way.
  dialogOk: true,
  input: listInput,
  check(args) {
    if (args.filter) urlPattern(args.filter, 'filter');
  },
  async handle(tab, args, _ctx, res) {
    const pattern = args.filter ? urlPattern(args.filter, 'filter') : undefined;
    const types = args.resourceType && new Set(args.resourceType.map(t => t.toLowerCase()));
    const { entries, omitted } = await tab.network.query({
      since: args.since,
      allDocuments: args.allDocuments,
      limit: args.limit,
      match: e => (!pattern || pattern.test(e.url)) && (!types || types.has(e.resourceType)) && (!args.failedOnly || isFailed(e)),
    });
    const shown = entries.map(e => ({ ...e, url: args.includeQuery ? e.url : redactQuery(e.url) }));
    const lastId = tab.network.lastId;
    res.merge({ tabId: tab.id, requests: shown, lastId, omitted, ...(tab.network.dropped ? { droppedFromLog: tab.network.dropped } : {}) });
    const scope = args.since !== undefined ? `after #${args.since}` : args.allDocuments ? 'kept for the tab' : 'of the current document';
    const filtered = pattern || types || args.failedOnly ? ' matching' : '';
    res.text(`${shown.length}${filtered} request${shown.length === 1 ? '' : 's'} ${scope} in tab ${tab.id}${omitted ? ` (${omitted} older ones omitted; raise limit or narrow the filter)` : ''}; lastId ${lastId}.${tab.network.dropped ? ` The tab's log keeps the newest ${tab.network.capacity}: ${tab.network.dropped} older requests were dropped.` : ''}`);
    for (const e of shown) res.text(requestLine(e));
    if (shown.length) res.text('get_network_request {id} gives one request\'s headers and body.');
  },
});

export const getNetworkRequest = defineTabTool({
  name: 'get_network_request',
  title: 'Get a network request',
  description:
    "One request of the tab's network log by id (from list_network_requests): its URL, status, timing, request and response headers " +
    '(cookies, authorization and tokens shown as [redacted]) and the response body as text, cut at maxBytes. ' +
    'The request body only with requestBody: true (it may hold what a user typed).',
  needs: ['network'],
  effect: 'observe',
  launchesBrowser: true,
  target: 'tab',
  dialogOk: true,
  input: z.object({
    tabId: tabIdField,
    id: z.number().int().min(1).describe('The request id list_network_requests gave'),
    maxBytes: z.number().int().min(0).max(100_000).optional().describe('At most this many bytes of each body (default 4000; 0: no body)'),
    requestBody: z.boolean().optional().describe('Include the request body (POST data), cut at maxBytes (default false)'),
    includeQuery: z.boolean().optional().describe('Show query values in the URL and in referer/location headers (default: names only)'),
  }),
  async handle(tab, args, _ctx, res) {
    const found = tab.network.get(args.id);
    if (!found) {
      const last = tab.network.lastId;
      throw new ToolError('request_not_found',
        args.id > last ? `Tab ${tab.id} has no request #${args.id}: its newest is #${last}.` : `Request #${args.id} of tab ${tab.id} is no longer in the log (the newest 500 are kept).`,
        'Call list_network_requests for the ids there are now.', { tabId: tab.id, lastId: last });
    }
    const { entry, request } = found;
    if (entry.state === 'pending' && entry.status !== undefined) {
      // Playwright's Response.finished() settles with the page's requestfinished / requestfailed, which the log
      // (src/session/networkLog.ts) has handled by then: the entry's state is read again below.
      await raceTimeout(request.response().then(r => r?.finished()), { ms: FINISH_WAIT_MS, onTimeout: 'undefined' }).catch(() => undefined);
    }
    const maxBytes = args.maxBytes ?? 4000;
    const url = args.includeQuery ? entry.url : redactQuery(entry.url);
    const requestHeaders = redactHeaders(await within(request.allHeaders()).catch(() => request.headers()), args.includeQuery);
    const response = entry.state === 'failed' ? null : await within(request.response()).catch(() => null);
    const responseHeaders = response ? redactHeaders(await within(response.allHeaders()).catch(() => response.headers()), args.includeQuery) : undefined;
    const fields: Record<string, unknown> = { tabId: tab.id, request: { ...entry, url }, requestHeaders, ...(responseHeaders ? { responseHeaders } : {}) };
    res.text(requestLine({ ...entry, url }));
    if (entry.state === 'pending') res.text('The response has not finished yet: call again later for its headers and body.');
    res.text(['Request headers:', ...headerLines(requestHeaders)].join('\n'));
    if (args.requestBody && maxBytes > 0) {
      const post = request.postDataBuffer();
      const body = post ? bodyOf(post, request.headers()['content-type'], maxBytes) : undefined;
      fields.requestBody = body ?? null;
      res.text(body ? `Request body (${body.note}):\n${body.text ?? ''}` : 'Request body: none.');
    }
    if (responseHeaders) res.text(['Response headers:', ...headerLines(responseHeaders)].join('\n'));
    if (response && entry.state === 'finished' && maxBytes > 0) {
      const buffer = await within(response.body()).catch((error: Error) => error);
      if (buffer instanceof Error) {
        const unavailable = buffer.message.split('\n')[0]!;
        fields.responseBody = { unavailable };
        res.text(`Response body: unavailable (${unavailable}); a redirect has none, and the browser drops bodies of documents that are gone.`);
      } else {
        const body = bodyOf(buffer, response.headers()['content-type'], maxBytes);
        fields.responseBody = body;
        res.text(`Response body (${body.note}):${body.text !== undefined ? `\n${body.text}` : ''}`);
      }
    }
    res.merge(fields);
  },
});

/** `promise`, or a rejection after BODY_READ_MS. */
function within<T>(promise: Promise<T>): Promise<T> {
  return raceTimeout(promise, { ms: BODY_READ_MS, onTimeout: () => new Error(`no answer within ${BODY_READ_MS / 1000} s`) });
}

function isFailed(e: NetworkEntry): boolean {
  return e.state === 'failed' || (e.status !== undefined && e.status >= 400);
}

/** `#7 GET https://x/api?q=… → 200 fetch application/json 1.2 KB 35 ms` */
function requestLine(e: NetworkEntry): string {
  const status = e.status !== undefined ? `${e.status}${e.statusText ? ` ${e.statusText}` : ''}` : undefined;
  const outcome = e.state === 'failed' ? `failed: ${e.failure}${e.blockedBy ? ` (blocked by the server policy: ${e.blockedBy})` : ''}`
    : e.state === 'pending' ? (status ? `${status}, body still loading` : 'pending')
    : status ?? 'no response';
  const parts = [
    `#${e.id} ${e.method} ${e.url} → ${outcome}`,
    e.resourceType,
    e.mimeType,
    e.size !== undefined ? sizeOf(e.size) : undefined,
    e.durationMs !== undefined ? `${e.durationMs} ms` : undefined,
    e.fromServiceWorker ? 'from the service worker' : undefined,
    e.inFrame ? 'in a frame' : undefined,
    e.route ? routeClause(e.route) : undefined,
  ];
  return parts.filter(Boolean).join(' ');
}

/** `mocked by route r1`, `aborted by route r2`, … (docs/network.md, "Routes"). */
function routeClause({ routeId, action }: RouteMark): string {
  const how = action === 'fulfill' ? 'mocked' : action === 'abort' ? 'aborted' : action === 'continue' ? 'changed' : 'answered from a HAR';
  return `${how} by route ${routeId}`;
}

function sizeOf(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Headers whose value is a URL, whose query values are hidden as the request's own are (unless includeQuery). */
const URL_HEADER = /^(referer|location|content-location)$/i;

/**
 * `headers` with the values of secret ones replaced by `[redacted]`, and, unless `includeQuery`, the query values
 * of URL-valued ones (referer, location) hidden as `redactQuery` hides them.
 */
function redactHeaders(headers: Record<string, string>, includeQuery = false): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name,
    SECRET_HEADER.test(name) ? '[redacted]' : !includeQuery && URL_HEADER.test(name) ? redactQuery(value) : value]));
}

function headerLines(headers: Record<string, string>): string[] {
  const names = Object.keys(headers).sort();
  return names.length ? names.map(n => `  ${n}: ${headers[n]}`) : ['  (none)'];
}

/** A body as text (textual types, cut at `maxBytes` on a character boundary) or as its size and type. */
function bodyOf(buffer: Buffer, contentType: string | undefined, maxBytes: number): { bytes: number; mimeType?: string; text?: string; truncated?: boolean; note: string } {
  const mimeType = contentType?.split(';')[0]!.trim() || undefined;
  const bytes = buffer.length;
  // A body served under a binary type that reads as UTF-8 text (JSON sent as application/octet-stream) is shown.
  const sniffed = mimeType !== undefined && !TEXTUAL.test(mimeType) && readsAsText(buffer);
  if (mimeType && !TEXTUAL.test(mimeType) && !sniffed) return { bytes, mimeType, note: `${sizeOf(bytes)} of ${mimeType}, not text: not shown` };
  const cut = bytes > maxBytes;
  // Dropping a trailing partial UTF-8 sequence: decode, then remove a replacement character the cut made.
  let text = buffer.subarray(0, maxBytes).toString('utf8');
  if (cut && text.endsWith('\uFFFD')) text = text.slice(0, -1);
  const served = sniffed ? ` (served as ${mimeType}; it reads as text)` : '';
  return { bytes, ...(mimeType ? { mimeType } : {}), text, ...(cut ? { truncated: true } : {}), note: cut ? `first ${maxBytes} of ${bytes} bytes${served}; raise maxBytes for more` : `${sizeOf(bytes)}${mimeType ? ` of ${mimeType}` : ''}${served}` };
}

/** Whether the start of `buffer` (4 KiB) is UTF-8 text: it decodes without errors and has no control bytes but tab and newlines. */
function readsAsText(buffer: Buffer): boolean {
  const head = buffer.subarray(0, 4096);
  if (!head.length) return false;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head);
  // A cut in the middle of a character at the 4 KiB mark leaves one replacement character at the end.
  const body = head.length < buffer.length ? text.replace(/\uFFFD$/, '') : text;
  return !/[\uFFFD\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(body);
}
