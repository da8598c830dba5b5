// route, unroute and list_routes end to end, on a page that shows what its API answers: fulfill changes what the
// page shows and list_network_requests marks the request as mocked; abort makes the page show its fetch error;
// continue adds a header the server echoes; times; a tab's routes against every tab's (context scope) and a tab
// route ending with its tab; unroute; and each failure (a bad pattern, an unknown route id, misplaced fields).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError, callRaw } from '../fixtures/mcp.js';

interface Route { id: string; scope: string; tabId?: number; pattern: string; action: string; hits: number; times?: number; usedUp?: boolean }
interface Entry { id: number; url: string; status?: number; state: string; failure?: string; route?: { routeId: string; action: string } }

const SHOP = `<!doctype html><title>Shop</title><p id="items">loading</p><p id="echo">loading</p>
<script>
  fetch('/api/items').then(r => r.json()).then(d => { document.getElementById('items').textContent = 'items: ' + d.items.join(', '); },
    e => { document.getElementById('items').textContent = 'error: ' + e.message; });
  fetch('/api/echo').then(r => r.json()).then(d => { document.getElementById('echo').textContent = 'echo: ' + d.header; });
</script>`;

const tw = useSession({
  args: ['--toolsets', 'all'],
  pages: { '/shop': SHOP },
  setup({ site }) {
    site.route('/api/items', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":["server-a","server-b"]}'));
    site.route('/api/echo', (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ header: req.headers['x-test'] ?? 'none' })));
  },
});

/** Loads /shop in the tab (navigate, or reload) and returns what it shows once both fetches settled. */
async function shop(tabId?: number): Promise<{ items: string; echo: string }> {
  await call(tw.client, 'navigate', { url: `${tw.origin}/shop`, ...(tabId ? { tabId } : {}) });
  const read = async () => (await call<{ value: { items: string; echo: string } }>(tw.client, 'execute', { code: '({ items: document.getElementById("items").textContent, echo: document.getElementById("echo").textContent })', ...(tabId ? { tabId } : {}) })).value;
  for (let i = 0; i < 50; i++) {
    const shown = await read();
    if (shown.items !== 'loading' && shown.echo !== 'loading') return shown;
    await new Promise(r => setTimeout(r, 100));
  }
  return await read();
}

async function routes(): Promise<Route[]> {
  return (await call<{ routes: Route[] }>(tw.client, 'list_routes')).routes;
}

async function requestTo(path: string): Promise<{ entry: Entry; line: string }> {
  const raw = await callRaw(tw.client, 'list_network_requests', { filter: path });
  const entries = (raw.structuredContent as unknown as { requests: Entry[] }).requests;
  assert.equal(entries.length, 1, JSON.stringify(entries));
  const line = raw.content.map(c => c.text).join('\n').split('\n').find(l => l.startsWith(`#${entries[0]!.id} `))!;
  return { entry: entries[0]!, line };
}

test('fulfill mocks the API (the network list says by which route); times; unroute; list_routes counts hits', async () => {
  assert.deepEqual(await shop(), { items: 'items: server-a, server-b', echo: 'echo: none' });
  const raw = await callRaw(tw.client, 'route', { pattern: '**/api/items', action: 'fulfill', body: '{"items":["mock-1"]}' });
  assert.equal(raw.isError, undefined, JSON.stringify(raw.content));
  const { routeId } = raw.structuredContent as { routeId: string };
  assert.equal(routeId, 'r1');
  assert.match(raw.content[0]!.text!.split("\n")[0]!, /^Added route r1 tab 1 "\*\*\/api\/items" → fulfill 200: 0 hits\.$/);
  assert.equal((await shop()).items, 'items: mock-1');
  const { entry, line } = await requestTo('/api/items');
  assert.deepEqual([entry.status, entry.state, entry.route], [200, 'finished', { routeId: 'r1', action: 'fulfill' }]);
  assert.match(line, /→ 200 .*mocked by route r1$/);
  // The echo went to the server untouched: no route on it.
  assert.equal((await requestTo('/api/echo')).entry.route, undefined);

  // A newer route with times: 1 answers first, once; then r1 again.
  await call(tw.client, 'route', { pattern: '/\\/api\\/items$/', action: 'fulfill', status: 201, body: '{"items":["once"]}', times: 1 });
  assert.equal((await shop()).items, 'items: once');
  assert.equal((await shop()).items, 'items: mock-1');
  const listed = await routes();
  assert.deepEqual(listed.map(r => [r.id, r.scope, r.tabId, r.action, r.hits, r.times, r.usedUp]), [['r1', 'tab', 1, 'fulfill', 2, undefined, undefined], ['r2', 'tab', 1, 'fulfill', 1, 1, true]]);
  const text = (await callRaw(tw.client, 'list_routes')).content.map(c => c.text).join('\n');
  assert.match(text, /r2 tab 1 "\/\\\/api\\\/items\$\/" → fulfill 201: 1 hit of 1, used up/);

  await call(tw.client, 'unroute', { routeId: 'r1' });
  assert.equal((await shop()).items, 'items: server-a, server-b');
  assert.deepEqual((await call<{ removed: string[] }>(tw.client, 'unroute', { all: true })).removed, ['r2']);
  assert.deepEqual(await routes(), []);
});

test('abort makes the page show its fetch error; continue sends a header the server echoes', async () => {
  await call(tw.client, 'route', { pattern: '**/api/items', action: 'abort', errorCode: 'connectionrefused' });
  await call(tw.client, 'route', { pattern: '**/api/echo', action: 'continue', headers: { 'X-Test': 'from-route' } });
  const shown = await shop();
  assert.match(shown.items, /^error: (Failed to fetch|NetworkError)/);
  assert.equal(shown.echo, 'echo: from-route');
  const aborted = await requestTo('/api/items');
  assert.deepEqual([aborted.entry.state, aborted.entry.failure, aborted.entry.route], ['failed', 'net::ERR_CONNECTION_REFUSED', { routeId: 'r1', action: 'abort' }]);
  assert.match(aborted.line, /failed: net::ERR_CONNECTION_REFUSED .*aborted by route r1$/);
  const changed = await requestTo('/api/echo');
  assert.deepEqual([changed.entry.status, changed.entry.route], [200, { routeId: 'r2', action: 'continue' }]);
  assert.deepEqual((await routes()).map(r => r.hits), [1, 1]);
});

test('a context route applies to new tabs, a tab route to its tab only and ends with it', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/shop` });
  await call(tw.client, 'route', { pattern: '**/api/items', action: 'fulfill', body: '{"items":["everywhere"]}', scope: 'context' });
  const second = (await call<{ tabId: number }>(tw.client, 'open_tab', { url: 'about:blank' })).tabId;
  await call(tw.client, 'route', { pattern: '**/api/items', action: 'fulfill', body: '{"items":["tab-only"]}', tabId: second });
  assert.equal((await shop(1)).items, 'items: everywhere');
  assert.equal((await shop(second)).items, 'items: tab-only');
  const third = (await call<{ tabId: number }>(tw.client, 'open_tab', { url: 'about:blank' })).tabId;
  assert.equal((await shop(third)).items, 'items: everywhere');
  assert.deepEqual((await routes()).map(r => [r.id, r.scope, r.tabId, r.hits]), [['r1', 'context', undefined, 2], ['r2', 'tab', second, 1]]);
  await call(tw.client, 'close_tab', { tabId: second });
  assert.deepEqual((await routes()).map(r => r.id), ['r1']);
  const gone = await callError(tw.client, 'unroute', { routeId: 'r2' });
  assert.deepEqual([gone.type, gone.message], ['route_not_found', 'No route r2; the routes are r1.']);
});

test('errors: a bad pattern, fields of another action, an unknown route id; nothing is added', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/shop` });
  const badRegex = await callError(tw.client, 'route', { pattern: '/api(/', action: 'abort' });
  assert.equal(badRegex.type, 'invalid_arguments');
  assert.match(badRegex.message, /^pattern is not a valid regular expression: /);
  const relative = await callError(tw.client, 'route', { pattern: 'api/items', action: 'abort' });
  assert.deepEqual([relative.type, relative.message], ['invalid_arguments', 'pattern "api/items" is neither an absolute URL nor a glob starting with *: it would match no request.']);
  const misplaced = await callError(tw.client, 'route', { pattern: '**/x', action: 'abort', body: 'x', status: 200 });
  assert.deepEqual([misplaced.type, misplaced.message], ['invalid_arguments', 'status, body do not apply to action abort.']);
  const both = await callError(tw.client, 'route', { pattern: '**/x', action: 'abort', scope: 'context', tabId: 1 });
  assert.equal(both.type, 'invalid_arguments');
  const unknown = await callError(tw.client, 'unroute', { routeId: 'r9' });
  assert.deepEqual([unknown.type, unknown.message], ['route_not_found', 'No route r9; there are no routes.']);
  assert.equal((await callError(tw.client, 'unroute', {})).type, 'invalid_arguments');
  assert.deepEqual(await routes(), []);
});

test('a JSON body given as a value is served as JSON; a navigation a route aborts names that route', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/shop` });
  const json = await call<{ routeId: string }>(tw.client, 'route', { pattern: '**/api/items', action: 'fulfill', body: { items: ['as-value'] } });
  assert.equal((await shop()).items, 'items: as-value');
  const blocked = await call<{ routeId: string }>(tw.client, 'route', { pattern: '**/account', action: 'abort' });
  const raw = await callRaw(tw.client, 'navigate', { url: `${tw.origin}/account` });
  assert.equal(raw.isError, true);
  const error = (raw.structuredContent as { error: { type: string; message: string; hint: string }; routeId?: string });
  assert.equal(error.error.type, 'navigation_failed');
  assert.match(error.error.message, new RegExp(`^Could not load ${tw.origin.replace(/\./g, '\\.')}/account: net::ERR_FAILED: route ${blocked.routeId} aborts it\\.`));
  assert.equal(error.error.hint, `That route was set through tabwright: list_routes shows it, unroute {routeId: "${blocked.routeId}"} removes it.`);
  assert.equal(error.routeId, blocked.routeId);
  await call(tw.client, 'unroute', { all: true });
  assert.notEqual(json.routeId, blocked.routeId);
});
