// The HAR builder (src/session/harFormat.ts) without a browser: entries of captured exchanges (headers, query,
// cookies, post data, redirects), bodies as text or base64 or left out with the reason, timings from Playwright's
// resource timing, and what was left out in words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildHar, harContent, harTimings, leftOutText, type CapturedExchange } from '../../src/session/harFormat.js';

const TIMING = { startTime: Date.UTC(2026, 0, 2, 3, 4, 5, 600), domainLookupStart: 1, domainLookupEnd: 3, connectStart: 3, secureConnectionStart: 5, connectEnd: 9, requestStart: 10, responseStart: 30.5, responseEnd: 42 };

function exchange(over: Partial<CapturedExchange> = {}): CapturedExchange {
  return {
    startedAt: Date.UTC(2026, 0, 2, 3, 4, 5, 0),
    method: 'GET',
    url: 'http://127.0.0.1:9/api/items?page=2&q=shoes',
    resourceType: 'fetch',
    requestHeaders: [{ name: 'accept', value: '*/*' }, { name: 'cookie', value: 'sid=abc; theme=dark' }],
    status: 200,
    statusText: 'OK',
    responseHeaders: [{ name: 'Content-Type', value: 'application/json; charset=utf-8' }, { name: 'set-cookie', value: 'sid=new; HttpOnly' }],
    body: Buffer.from('{"items":[1]}'),
    timing: TIMING,
    sizes: { requestHeadersSize: 120, requestBodySize: 0, responseHeadersSize: 80, responseBodySize: 13 },
    ...over,
  };
}

test('an entry has the request and response as HAR 1.2 names them', () => {
  const har = buildHar([exchange()], { startedAt: Date.UTC(2026, 0, 2, 3, 4, 5, 0), title: 'Shop', url: 'http://127.0.0.1:9/shop' }, { name: 'tabwright', version: '1.2.3' }) as { log: Record<string, unknown> & { entries: Array<Record<string, any>> } };
  assert.equal(har.log.version, '1.2');
  assert.deepEqual(har.log.creator, { name: 'tabwright', version: '1.2.3' });
  assert.deepEqual(har.log.pages, [{ startedDateTime: '2026-01-02T03:04:05.000Z', id: 'page_1', title: 'Shop', pageTimings: { onContentLoad: -1, onLoad: -1 } }]);
  assert.equal(har.log.comment, undefined);
  const [e] = har.log.entries;
  assert.equal(e!.startedDateTime, '2026-01-02T03:04:05.600Z');
  assert.equal(e!.pageref, 'page_1');
  assert.deepEqual(e!.request, {
    method: 'GET', url: 'http://127.0.0.1:9/api/items?page=2&q=shoes', httpVersion: 'HTTP/1.1',
    cookies: [{ name: 'sid', value: 'abc' }, { name: 'theme', value: 'dark' }],
    headers: [{ name: 'accept', value: '*/*' }, { name: 'cookie', value: 'sid=abc; theme=dark' }],
    queryString: [{ name: 'page', value: '2' }, { name: 'q', value: 'shoes' }],
    headersSize: 120, bodySize: 0,
  });
  assert.deepEqual(e!.response, {
    status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1',
    cookies: [{ name: 'sid', value: 'new' }],
    headers: [{ name: 'Content-Type', value: 'application/json; charset=utf-8' }, { name: 'set-cookie', value: 'sid=new; HttpOnly' }],
    content: { size: 13, mimeType: 'application/json', text: '{"items":[1]}' },
    redirectURL: '', headersSize: 80, bodySize: 13,
  });
  assert.deepEqual(e!.timings, { blocked: 1, dns: 2, connect: 6, ssl: 4, send: 0, wait: 20.5, receive: 11.5 });
  assert.equal(e!.time, 41);
  assert.equal(e!._resourceType, 'fetch');
});

test('entries in start order; a POST body; a redirect; what was left out goes in the log comment', () => {
  const post = exchange({ method: 'POST', url: 'http://x/login', timing: { ...TIMING, startTime: TIMING.startTime - 1000 }, postData: { mimeType: 'application/json', buffer: Buffer.from('{"u":1}') }, sizes: undefined });
  const redirect = exchange({ url: 'http://x/old', status: 302, statusText: 'Found', responseHeaders: [{ name: 'location', value: '/new' }], body: undefined });
  const har = buildHar([redirect, post], { startedAt: 0, title: '', url: 'http://x/' }, { name: 't', version: '0' },
    { failed: 2, pending: 1, overEntryCap: 0, bodiesOverMax: 1, bodiesOverTotal: 0, bodiesUnavailable: 0 }) as { log: { comment: string; pages: Array<{ title: string }>; entries: Array<Record<string, any>> } };
  assert.deepEqual(har.log.entries.map(e => e.request.url), ['http://x/login', 'http://x/old']);
  assert.deepEqual(har.log.entries[0]!.request.postData, { mimeType: 'application/json', text: '{"u":1}', params: [] });
  assert.equal(har.log.entries[0]!.request.bodySize, 7);
  assert.equal(har.log.entries[0]!.request.headersSize, -1);
  assert.equal(har.log.entries[1]!.response.redirectURL, '/new');
  assert.deepEqual(har.log.entries[1]!.response.content, { size: 13, mimeType: 'x-unknown' });
  assert.equal(har.log.pages[0]!.title, 'http://x/');
  assert.equal(har.log.comment, 'Left out: 2 failed requests (no response to record), 1 request still loading, 1 body over maxBodyBytes.');
});

test('bodies: textual types as text, binary or undecodable ones as base64, left-out ones with the reason and size', () => {
  assert.deepEqual(harContent(Buffer.from('<p>é</p>'), 'text/html'), { size: 9, mimeType: 'text/html', text: '<p>é</p>' });
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00]);
  assert.deepEqual(harContent(png, 'image/png'), { size: 5, mimeType: 'image/png', text: 'iVBORwA=', encoding: 'base64' });
  assert.deepEqual(harContent(Buffer.from([0xff, 0xfe]), 'text/plain'), { size: 2, mimeType: 'text/plain', text: '//4=', encoding: 'base64' });
  assert.deepEqual(harContent(undefined, 'text/plain', 'over_max_body_bytes', 5000), { size: 5000, mimeType: 'text/plain', comment: 'body left out: larger than maxBodyBytes' });
  assert.deepEqual(harContent(undefined, 'text/plain', 'over_total_cap', 7), { size: 7, mimeType: 'text/plain', comment: 'body left out: over the total cap on body bytes' });
  assert.deepEqual(harContent(undefined, 'text/plain', 'off', 3), { size: 3, mimeType: 'text/plain', comment: 'body left out: bodies were not recorded' });
});

test('timings: unknown phases are -1, send/wait/receive never negative; no timing at all', () => {
  const t = harTimings({ startTime: 1, domainLookupStart: -1, domainLookupEnd: -1, connectStart: -1, secureConnectionStart: -1, connectEnd: -1, requestStart: 2, responseStart: 5, responseEnd: -1 });
  assert.deepEqual(t, { timings: { blocked: 2, dns: -1, connect: -1, ssl: -1, send: 0, wait: 3, receive: 0 }, time: 5 });
  assert.deepEqual(harTimings(undefined), { timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 0, receive: 0 }, time: 0 });
  assert.equal(leftOutText({ failed: 0, pending: 0, overEntryCap: 1, bodiesOverMax: 0, bodiesOverTotal: 2, bodiesUnavailable: 1 }), '1 request over the entry cap, 2 bodies over the total cap, 1 body the browser no longer had');
});
