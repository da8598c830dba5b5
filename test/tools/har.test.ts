// start_har / stop_har and route_from_har end to end: a recorded page load has its entries with the right statuses,
// headers and bodies (text, base64, one over maxBodyBytes left out and counted), written 0600 inside the workspace;
// replaying it answers from the HAR while the server has moved on (the page shows the recorded answer, the network
// list says which route); a tab closing mid-recording still leaves a whole file; bad paths and calls are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSession } from '../fixtures/harness.js';
import { call, callError, callRaw } from '../fixtures/mcp.js';

interface HarEntry { request: { method: string; url: string; headers: Array<{ name: string; value: string }> }; response: { status: number; content: { size: number; mimeType: string; text?: string; encoding?: string; comment?: string } }; timings: Record<string, number>; time: number }
interface Stopped { tabId: number; path: string; entries: number; bytes: number; leftOut: Record<string, number>; endedBy?: string }

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082', 'hex');
let version = 'server-1';

const tw = useSession({
  args: ['--toolsets', 'all'],
  pages: {
    '/app': `<!doctype html><title>App</title><p id="items">loading</p><img src="/pixel.png" alt="">
<script>
  Promise.all([fetch('/api/items').then(r => r.json()), fetch('/api/big').then(r => r.text())])
    .then(([d]) => { document.getElementById('items').textContent = 'items: ' + d.items.join(', '); },
      e => { document.getElementById('items').textContent = 'error: ' + e.message; });
</script>`,
  },
  setup({ site }) {
    site.route('/api/items', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: [version] })));
    site.route('/api/big', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(20_000)));
    site.route('/pixel.png', (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG));
  },
});

async function shown(tabId?: number): Promise<string> {
  const code = 'document.getElementById("items").textContent';
  for (let i = 0; i < 50; i++) {
    const text = (await call<{ value: string }>(tw.client, 'execute', { code, ...(tabId ? { tabId } : {}) })).value;
    if (text !== 'loading') return text;
    await new Promise(r => setTimeout(r, 100));
  }
  return 'loading';
}

const pathOf = (url: string) => new URL(url).pathname;

test('a recorded page load: entries, statuses, bodies within the caps, a 0600 file; replayed while the server answers differently', async () => {
  version = 'server-1';
  const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: 'about:blank' });
  const started = await call<{ path: string }>(tw.client, 'start_har', { path: 'hars/app.har', maxBodyBytes: 10_000 });
  assert.equal(started.path, join(tw.workspace, 'hars', 'app.har'));
  await call(tw.client, 'navigate', { url: `${tw.origin}/app`, waitUntil: 'load' });
  assert.equal(await shown(), 'items: server-1');
  const raw = await callRaw(tw.client, 'stop_har', {});
  assert.equal(raw.isError, undefined, JSON.stringify(raw.content));
  const stopped = raw.structuredContent as unknown as Stopped;
  const text = raw.content.map(c => c.text).join('\n');
  assert.equal(stopped.tabId, tabId);
  assert.equal(stopped.path, started.path);
  assert.match(text, /^Stopped recording tab \d+: .*app\.har \(\d entries, [\d.]+ KB, [\d.]+ KB of bodies\)\.\nLeft out: 1 body over maxBodyBytes\./);
  assert.equal(stopped.leftOut.bodiesOverMax, 1);
  assert.equal(statSync(stopped.path).mode & 0o777, 0o600);
  const har = JSON.parse(readFileSync(stopped.path, 'utf8')) as { log: { version: string; entries: HarEntry[]; comment?: string } };
  assert.equal(har.log.version, '1.2');
  const byPath = new Map(har.log.entries.map(e => [pathOf(e.request.url), e]));
  assert.deepEqual([...byPath.keys()].filter(p => p !== '/favicon.ico').sort(), ['/api/big', '/api/items', '/app', '/pixel.png']);
  const app = byPath.get('/app')!;
  assert.deepEqual([app.request.method, app.response.status, app.response.content.mimeType], ['GET', 200, 'text/html']);
  assert.match(app.response.content.text!, /<title>App<\/title>/);
  assert.deepEqual(byPath.get('/api/items')!.response.content, { size: 22, mimeType: 'application/json', text: '{"items":["server-1"]}' });
  assert.deepEqual(byPath.get('/pixel.png')!.response.content, { size: PNG.length, mimeType: 'image/png', text: PNG.toString('base64'), encoding: 'base64' });
  assert.deepEqual(byPath.get('/api/big')!.response.content, { size: 20_000, mimeType: 'text/plain', comment: 'body left out: larger than maxBodyBytes' });
  assert.ok(byPath.get('/api/items')!.request.headers.some(h => h.name.toLowerCase() === 'accept'));
  for (const e of har.log.entries) assert.ok(e.timings.wait >= 0 && e.timings.receive >= 0 && e.time >= 0, JSON.stringify(e.timings));
  assert.equal(har.log.comment, 'Left out: 1 body over maxBodyBytes.');

  // The server moves on; the HAR still answers /api/items as recorded.
  version = 'server-2';
  const replay = await call<{ routeId: string }>(tw.client, 'route_from_har', { path: 'hars/app.har', url: '**/api/items', notFound: 'fallback' });
  await call(tw.client, 'navigate', { url: `${tw.origin}/app`, waitUntil: 'load' });
  assert.equal(await shown(), 'items: server-1');
  const listed = await callRaw(tw.client, 'list_network_requests', { filter: '/api/' });
  const entries = (listed.structuredContent as unknown as { requests: Array<{ url: string; status: number; route?: unknown }> }).requests;
  assert.deepEqual(entries.map(e => [pathOf(e.url), e.status, e.route]), [['/api/items', 200, { routeId: replay.routeId, action: 'from_har', har: true }], ['/api/big', 200, undefined]]);
  assert.match(listed.content.map(c => c.text).join('\n'), /\/api\/items → 200 .*answered from a HAR by route r1/);
  const routes = (await call<{ routes: Array<{ id: string; action: string; hits: number; har: string }> }>(tw.client, 'list_routes')).routes;
  assert.deepEqual(routes.map(r => [r.id, r.action, r.hits, r.har]), [['r1', 'from_har', 1, stopped.path]]);
  await call(tw.client, 'unroute', { routeId: 'r1' });
  await call(tw.client, 'navigate', { url: `${tw.origin}/app`, waitUntil: 'load' });
  assert.equal(await shown(), 'items: server-2');
});

test('a tab that closes while recording leaves a whole HAR, which stop_har then reports', async () => {
  version = 'server-3';
  const { tabId } = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/app` });
  await call(tw.client, 'start_har', { tabId, bodies: false });
  await call(tw.client, 'reload_tab', { tabId });
  assert.equal(await shown(tabId), 'items: server-3');
  await call(tw.client, 'close_tab', { tabId });
  const stopped = await call<Stopped>(tw.client, 'stop_har', { tabId });
  assert.equal(stopped.endedBy, 'closed');
  assert.match(stopped.path, /\.tabwright\/har\/tab\d+-[\d-]+\.har$/);
  const har = JSON.parse(readFileSync(stopped.path, 'utf8')) as { log: { entries: HarEntry[] } };
  assert.equal(har.log.entries.length, stopped.entries);
  const items = har.log.entries.find(e => pathOf(e.request.url) === '/api/items')! as HarEntry & { response: { bodySize: number } };
  // Without the body read, its size is what came over the wire (chunked here: more than its 22 bytes).
  assert.ok(items.response.bodySize >= 22, String(items.response.bodySize));
  assert.deepEqual(items.response.content, { size: items.response.bodySize, mimeType: 'application/json', comment: 'body left out: bodies were not recorded' });
  assert.equal((await callError(tw.client, 'stop_har', { tabId })).type, 'recording_not_running');
});

test('errors: a path outside the workspace, not .har, recording twice, stopping none; a HAR to replay that is missing or not a HAR', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/app` });
  const outside = await callError(tw.client, 'start_har', { path: '../elsewhere.har' });
  assert.equal(outside.type, 'path_not_allowed');
  assert.equal((await callError(tw.client, 'start_har', { path: 'x.json' })).type, 'invalid_arguments');
  assert.equal(existsSync(join(tw.workspace, '..', 'elsewhere.har')), false);
  const none = await callError(tw.client, 'stop_har', {});
  assert.deepEqual([none.type, none.message, none.hint], ['recording_not_running', `Tab ${(await call<{ tabs: Array<{ tabId: number; active: boolean }> }>(tw.client, 'list_tabs')).tabs.find(t => t.active)!.tabId} has no HAR recording.`, 'start_har starts a recording.']);
  await call(tw.client, 'start_har', {});
  const twice = await callError(tw.client, 'start_har', {});
  assert.equal(twice.type, 'recording_active');
  assert.match(twice.message, /^Tab \d+ is already being recorded/);
  await call(tw.client, 'stop_har', {});
  assert.equal((await callError(tw.client, 'route_from_har', { path: 'missing.har' })).type, 'file_not_found');
  assert.equal((await callError(tw.client, 'route_from_har', { path: '/etc/hostname' })).type, 'path_not_allowed');
  assert.equal((await callError(tw.client, 'route_from_har', { path: '.tabwright' })).type, 'invalid_arguments');
  writeFileSync(join(tw.workspace, 'not.har'), '{"log":{}}');
  const notHar = await callError(tw.client, 'route_from_har', { path: 'not.har' });
  assert.deepEqual([notHar.type, notHar.message], ['invalid_arguments', 'not.har cannot be replayed: it is not a HAR file (no log.entries)']);
  assert.deepEqual((await call<{ routes: unknown[] }>(tw.client, 'list_routes')).routes, []);
});
