// list_network_requests and get_network_request end to end: a page's requests (its document, a fetch with a query
// and a credential header, a 404, a refused connection, a POST), what the model reads (query values, secret headers
// and request bodies kept out unless asked), filters, the log across documents (the current one by default,
// allDocuments, since), bodies cut at maxBytes, and each failure kind (an unknown id, a bad pattern).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, until, useSession } from '../fixtures/harness.js';
import { call, callError, callRaw } from '../fixtures/mcp.js';

interface Entry { id: number; method: string; url: string; resourceType: string; status?: number; state: string; failure?: string; mimeType?: string; size?: number; durationMs?: number; navigation: boolean }
interface Listed { tabId: number; requests: Entry[]; lastId: number; omitted: number }

const LONG = 'x'.repeat(3000);
const tw = useSession({ setup: async ({ site }) => {
  // A port nothing listens on (freePort closes it again): the fetch to it is refused.
  const closed = await freePort();
  site.page('/net', `<!doctype html><title>Net</title><p id="state">loading</p>
<img src="/missing.png" alt="missing">
<script>
  window.done = (async () => {
    await fetch('/api/items?token=abc123&q=shoes', { headers: { authorization: 'Bearer sekrit-value' } });
    await fetch('http://127.0.0.1:${closed}/refused').catch(() => undefined);
    await fetch('/api/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: 'ann', password: 'hunter2' }) });
    await fetch('/api/long');
    document.getElementById('state').textContent = 'done';
  })();
</script>`);
  site.page('/from-query', '<!doctype html><title>Q</title><p id="state">loading</p><script>fetch("/api/items").then(() => { document.getElementById("state").textContent = "done"; })</script>');
  site.page('/other', '<!doctype html><title>Other</title><p>other</p>');
  site.page('/bin', '<!doctype html><title>Bin</title><p id="state">loading</p><script>Promise.all(["/api/octet", "/api/blob"].map(u => fetch(u).then(r => r.arrayBuffer()))).then(() => { document.getElementById("state").textContent = "done"; })</script>');
  site.route('/api/octet', (_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end('{"ok":"héllo"}'));
  site.route('/api/blob', (_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02])));
  site.route('/api/items', (_req, res) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': '17', 'set-cookie': 'sid=cookie-value; HttpOnly' }).end('{"items":[1,2,3]}'));
  site.route('/api/login', (_req, res) => res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}'));
  site.route('/api/long', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`é${LONG}`));
} });

/** Opens /net and waits until its fetches are done. */
async function openNet(): Promise<number> {
  const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/net`, waitUntil: 'load' });
  await call(tw.client, 'wait_for', { text: 'done', timeoutSec: 10 });
  return tabId;
}

async function listed(args: Record<string, unknown> = {}): Promise<{ text: string; fields: Listed }> {
  const raw = await callRaw(tw.client, 'list_network_requests', args);
  assert.equal(raw.isError, undefined, JSON.stringify(raw.content));
  return { text: raw.content.map(c => c.text).join('\n'), fields: raw.structuredContent as unknown as Listed };
}

test('the page\'s requests are listed from its document on, with status, type and failures; query values hidden', async () => {
  const tabId = await openNet();
  const { text, fields } = await listed();
  assert.equal(fields.tabId, tabId);
  const paths = fields.requests.map(r => `${r.method} ${new URL(r.url).pathname}`);
  assert.deepEqual(paths.filter(p => !p.endsWith('/favicon.ico')), ['GET /net', 'GET /missing.png', 'GET /api/items', 'GET /refused', 'POST /api/login', 'GET /api/long']);
  const byPath = (p: string) => fields.requests.find(r => new URL(r.url).pathname === p)!;
  assert.equal(byPath('/net').navigation, true);
  assert.equal(byPath('/net').resourceType, 'document');
  assert.equal(byPath('/missing.png').status, 404);
  assert.deepEqual([byPath('/api/items').status, byPath('/api/items').resourceType, byPath('/api/items').mimeType, byPath('/api/items').state], [200, 'fetch', 'application/json', 'finished']);
  assert.equal(byPath('/api/items').url, `${tw.origin}/api/items?token=…&q=…`);
  assert.equal(byPath('/refused').state, 'failed');
  assert.match(byPath('/refused').failure!, /ERR_CONNECTION_REFUSED/);
  assert.equal(fields.lastId, Math.max(...fields.requests.map(r => r.id)));
  // What the model reads: one line per request, complete without the structured fields.
  const items = byPath('/api/items');
  assert.match(text, new RegExp(`^\\d+ requests of the current document in tab ${tabId}; lastId ${fields.lastId}\\.`));
  assert.ok(text.includes(`#${items.id} GET ${tw.origin}/api/items?token=…&q=… → 200 OK fetch application/json 17 B`), text);
  assert.match(text, /#\d+ GET http:\/\/127\.0\.0\.1:\d+\/refused → failed: net::ERR_CONNECTION_REFUSED fetch/);
  assert.match(text, /#\d+ GET \S+\/missing\.png → 404 Not Found image/);
  assert.ok(!text.includes('abc123') && !text.includes('shoes'), 'query values stay out');
  // Asked for, the query values are shown.
  const full = await listed({ filter: '/api/items', includeQuery: true });
  assert.deepEqual(full.fields.requests.map(r => r.url), [`${tw.origin}/api/items?token=abc123&q=shoes`]);
});

test('filters: a URL pattern, resource types, failures only; limit keeps the newest and says how many are left out', async () => {
  await openNet();
  const api = await listed({ filter: '**/api/*' });
  assert.deepEqual(api.fields.requests.map(r => new URL(r.url).pathname), ['/api/items', '/api/login', '/api/long']);
  assert.match(api.text, /^3 matching requests of the current document/);
  const docs = await listed({ resourceType: ['document'] });
  assert.deepEqual(docs.fields.requests.map(r => new URL(r.url).pathname), ['/net']);
  const failed = await listed({ failedOnly: true });
  assert.deepEqual(failed.fields.requests.map(r => new URL(r.url).pathname).filter(p => p !== '/favicon.ico'), ['/missing.png', '/refused']);
  const newest = await listed({ filter: '/api/', limit: 1 });
  assert.deepEqual(newest.fields.requests.map(r => new URL(r.url).pathname), ['/api/long']);
  assert.equal(newest.fields.omitted, 2);
  assert.match(newest.text, /\(2 older ones omitted; raise limit or narrow the filter\)/);
});

test('a new document starts the list again; allDocuments and since reach back', async () => {
  await openNet();
  const before = await listed();
  await call(tw.client, 'navigate', { url: `${tw.origin}/other`, waitUntil: 'load' });
  const now = await listed();
  assert.deepEqual(now.fields.requests.map(r => new URL(r.url).pathname).filter(p => p !== '/favicon.ico'), ['/other']);
  assert.equal(now.fields.requests[0]!.navigation, true);
  const all = await listed({ allDocuments: true, filter: '/api/items' });
  assert.ok(all.fields.requests.length >= 1, 'the earlier document\'s requests are still kept');
  const since = await listed({ since: before.fields.lastId });
  assert.deepEqual(since.fields.requests.map(r => new URL(r.url).pathname).filter(p => p !== '/favicon.ico'), ['/other']);
  // A same-document change keeps the list.
  await call(tw.client, 'execute', { code: 'history.pushState({}, "", "/other#moved"); true' });
  assert.deepEqual((await listed()).fields.requests.map(r => r.id), now.fields.requests.map(r => r.id));
});

test('one request: headers with credentials redacted, the response body, the request body only when asked', async () => {
  await openNet();
  // The page has read the body; the browser's "finished" for that response may come a moment later on a loaded machine
  // (get_network_request waits 2 s for it, then says the body is still loading).
  const items = await until('the /api/items response to finish', async () => (await listed({ filter: '/api/items' })).fields.requests.find(r => r.state === 'finished'), 15_000);
  const raw = await callRaw(tw.client, 'get_network_request', { id: items.id });
  assert.equal(raw.isError, undefined, JSON.stringify(raw.content));
  const text = raw.content.map(c => c.text).join('\n');
  const fields = raw.structuredContent as { requestHeaders: Record<string, string>; responseHeaders: Record<string, string>; responseBody: { text: string; bytes: number; mimeType: string } };
  // Each message carries what the model read, so that a failure on a loaded machine shows which part was missing.
  assert.equal(fields.requestHeaders.authorization, '[redacted]', text);
  assert.equal(fields.responseHeaders['set-cookie'], '[redacted]', text);
  assert.equal(fields.responseHeaders['content-type'], 'application/json; charset=utf-8', text);
  assert.deepEqual(fields.responseBody, { bytes: 17, mimeType: 'application/json', text: '{"items":[1,2,3]}', note: '17 B of application/json' }, text);
  assert.ok(text.includes('Response body (17 B of application/json):\n{"items":[1,2,3]}'), text);
  assert.ok(text.includes('  authorization: [redacted]') && text.includes('  set-cookie: [redacted]'), text);
  for (const secret of ['sekrit-value', 'cookie-value', 'abc123']) assert.ok(!text.includes(secret) && !JSON.stringify(raw.structuredContent).includes(secret), secret);

  const login = (await listed({ filter: '/api/login' })).fields.requests[0]!;
  const quiet = await callRaw(tw.client, 'get_network_request', { id: login.id });
  assert.ok(!JSON.stringify(quiet).includes('hunter2'), `the request body stays out by default: ${JSON.stringify(quiet.content)}`);
  const asked = await call<{ requestBody: { text: string } }>(tw.client, 'get_network_request', { id: login.id, requestBody: true });
  assert.equal(asked.requestBody.text, '{"user":"ann","password":"hunter2"}');

  // A body over maxBytes is cut on a character boundary and says so.
  const long = (await listed({ filter: '/api/long' })).fields.requests[0]!;
  const cut = await callRaw(tw.client, 'get_network_request', { id: long.id, maxBytes: 2 });
  const body = (cut.structuredContent as { responseBody: { text: string; truncated: boolean; bytes: number } }).responseBody;
  assert.deepEqual({ text: body.text, truncated: body.truncated, bytes: body.bytes }, { text: 'é', truncated: true, bytes: 3002 });
  const cutOdd = await call<{ responseBody: { text: string } }>(tw.client, 'get_network_request', { id: long.id, maxBytes: 1 });
  assert.equal(cutOdd.responseBody.text, '', 'half of a two-byte character is dropped');
  assert.ok(cut.content.map(c => c.text).join('\n').includes('Response body (first 2 of 3002 bytes; raise maxBytes for more):\né'));
});

test('errors: an id the log does not hold is request_not_found; a bad pattern is invalid_arguments', async () => {
  const tabId = await openNet();
  const { fields } = await listed();
  const unknown = await callError(tw.client, 'get_network_request', { id: fields.lastId + 100 });
  assert.equal(unknown.type, 'request_not_found');
  assert.equal(unknown.message, `Tab ${tabId} has no request #${fields.lastId + 100}: its newest is #${fields.lastId}.`);
  assert.match(unknown.hint, /list_network_requests/);
  const bad = await callError(tw.client, 'list_network_requests', { filter: '/(unclosed/' });
  assert.equal(bad.type, 'invalid_arguments');
  assert.match(bad.message, /^filter is not a valid regular expression/);
});

test('a referer carrying the page\'s query shows its values only with includeQuery', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/from-query?token=pagesecret&q=x`, waitUntil: 'load' });
  await call(tw.client, 'wait_for', { text: 'done', timeoutSec: 10 });
  const items = (await listed({ filter: '/api/items' })).fields.requests[0]!;
  const hidden = await callRaw(tw.client, 'get_network_request', { id: items.id });
  assert.equal((hidden.structuredContent as { requestHeaders: Record<string, string> }).requestHeaders.referer, `${tw.origin}/from-query?token=…&q=…`);
  assert.ok(!JSON.stringify(hidden).includes('pagesecret'), 'no query value anywhere in the result');
  const shown = await call<{ requestHeaders: Record<string, string> }>(tw.client, 'get_network_request', { id: items.id, includeQuery: true });
  assert.equal(shown.requestHeaders.referer, `${tw.origin}/from-query?token=pagesecret&q=x`);
});

test('a body served as a binary type is shown when it reads as UTF-8 text, and only then', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/bin`, waitUntil: 'load' });
  await call(tw.client, 'wait_for', { text: 'done', timeoutSec: 10 });
  const octet = (await listed({ filter: '/api/octet' })).fields.requests[0]!;
  const shown = await callRaw(tw.client, 'get_network_request', { id: octet.id });
  assert.deepEqual((shown.structuredContent as { responseBody: unknown }).responseBody, { bytes: 15, mimeType: 'application/octet-stream', text: '{"ok":"héllo"}', note: '15 B of application/octet-stream (served as application/octet-stream; it reads as text)' });
  const blob = (await listed({ filter: '/api/blob' })).fields.requests[0]!;
  const hidden = await call<{ responseBody: { text?: string; note: string } }>(tw.client, 'get_network_request', { id: blob.id });
  assert.deepEqual([hidden.responseBody.text, hidden.responseBody.note], [undefined, '7 B of application/octet-stream, not text: not shown']);
});
