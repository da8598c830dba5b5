// The daemon's limits: 17 concurrent slow requests get
// exactly one 429; an 8 MiB + 1 upload 413 (declared and streamed); a
// stalled upload 408; a bad token 401; a relative workspace 400; a foreign
// Host or Origin 403. In every rejection nothing is dispatched: the daemon's
// dispatch counter stays put and the page-side side effect never happens.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { startDaemon, type Daemon } from '../fixtures/daemon.js';
import { until } from '../fixtures/harness.js';
import { startSite, type Site } from '../fixtures/site.js';

let daemon: Daemon;
let site: Site;
let gateOpen = false;
let hits = 0;

/** Body timeout shortened for the stalled-upload case. */
const BODY_TIMEOUT_MS = 1500;

before(async () => {
  site = await startSite();
  site.page('/', '<title>Limits</title><h1>limits</h1>');
  site.route('/gate', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ open: gateOpen }));
  });
  site.route('/hit', (_req, res) => {
    hits++;
    res.end('ok');
  });
  daemon = await startDaemon({ env: { TABWRIGHT_DAEMON_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) } });
  const nav = await daemon.request({ path: '/v1/tools/navigate', body: { url: `${site.origin}/` } });
  assert.equal(nav.status, 200, nav.text);
  assert.equal(nav.json.result.isError, undefined, nav.text);
});

after(async () => {
  await daemon?.stop();
  await site?.close();
});

/** An execute whose page-side effect is a request to /hit: counted by the site if it ever runs. */
const SIDE_EFFECT = { code: `await fetch('/hit'); return 'ran'` };

async function dispatched(): Promise<number> {
  return (await daemon.status()).dispatched;
}

function assertNotDispatched(reply: { status: number; json: any; text: string }, status: number, type: string): void {
  assert.equal(reply.status, status, reply.text);
  assert.equal(reply.json.outcome, 'not_dispatched');
  assert.equal(reply.json.error.type, type);
  assert.equal(typeof reply.json.error.hint, 'string');
}

test('17 concurrent slow requests: 16 complete, exactly one 429, nothing dispatched for it', async () => {
  const base = await dispatched();
  // Each call counts itself at the site (/hit), then waits in the page until the site opens the gate, so every
  // admitted call stays in flight until the test says so; the rejected one would have counted itself too.
  const code = `await fetch('/hit'); while (!(await (await fetch('/gate')).json()).open) await new Promise(r => setTimeout(r, 100)); return 'done'`;
  const replies: Array<{ status: number; json: any; text: string }> = [];
  const calls = Array.from({ length: 17 }, () => daemon.request({ path: '/v1/tools/execute', body: { code, timeoutSec: 120 } }).then(r => {
    replies.push(r);
    return r;
  }));
  await until('16 calls dispatched and one answered', async () => (await dispatched()) === base + 16 && replies.length === 1, 60_000);
  assertNotDispatched(replies[0]!, 429, 'too_many_requests');
  assert.equal((await daemon.status()).activeRequests, 16);
  // (Calls on one tab may run one at a time, per-tab serialization: they are still admitted and dispatched.)
  gateOpen = true;
  const all = await Promise.all(calls);
  assert.equal(all.filter(r => r.status === 429).length, 1);
  const completed = all.filter(r => r.status === 200);
  assert.equal(completed.length, 16);
  for (const reply of completed) {
    assert.equal(reply.json.outcome, 'completed');
    assert.equal(reply.json.result.structuredContent.value, 'done', reply.text);
  }
  assert.equal(await dispatched(), base + 16);
  assert.equal(hits, 16);
  hits = 0;
  await until('slots released', async () => (await daemon.status()).activeRequests === 0);
});

/** Sends headers with `contentLength` (or chunked when undefined), writes `send` bytes, and resolves with the answer. */
function upload(contentLength: number | undefined, send: number): Promise<{ status: number; json: any; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'x-tabwright-token': daemon.endpoint.token, 'x-tabwright-workspace': daemon.workspace, 'content-type': 'application/json' };
    if (contentLength !== undefined) headers['content-length'] = contentLength;
    const req = httpRequest({ host: '127.0.0.1', port: daemon.endpoint.port, method: 'POST', path: '/v1/tools/execute', headers });
    let answered = false;
    req.on('response', res => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', c => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text), text }));
    });
    req.on('error', error => {
      if (!answered) reject(error);
    });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let left = send;
    const pump = () => {
      while (left > 0 && !answered && !req.destroyed) {
        const piece = chunk.subarray(0, Math.min(chunk.length, left));
        left -= piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
    };
    pump();
    // Never end(): the daemon must answer on its own (413 from the count, 408 from the clock).
  });
}

test('an 8 MiB + 1 upload is refused with 413 before dispatch (declared, and streamed)', async () => {
  const base = await dispatched();
  const limit = 8 * 1024 * 1024;
  assertNotDispatched(await upload(limit + 1, 1024), 413, 'payload_too_large');
  assertNotDispatched(await upload(undefined, limit + 1), 413, 'payload_too_large');
  assert.equal(await dispatched(), base);
  assert.equal(hits, 0);
});

test('a stalled upload is answered 408 before dispatch', async () => {
  const base = await dispatched();
  const started = Date.now();
  const reply = await upload(100, 10);
  assertNotDispatched(reply, 408, 'request_timeout');
  // The shortened timeout (1.5 s) applies; generous bound on a loaded machine.
  assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
  assert.equal(await dispatched(), base);
});

test('a bad or missing token is 401, a relative or missing workspace 400, before dispatch', async () => {
  const base = await dispatched();
  assertNotDispatched(await daemon.request({ path: '/v1/tools/execute', body: SIDE_EFFECT, token: 'f'.repeat(64) }), 401, 'unauthorized');
  assertNotDispatched(await daemon.request({ path: '/v1/tools/execute', body: SIDE_EFFECT, token: null }), 401, 'unauthorized');
  assertNotDispatched(await daemon.request({ method: 'GET', path: '/v1/status', token: 'nope' }), 401, 'unauthorized');
  assertNotDispatched(await daemon.request({ path: '/v1/tools/execute', body: SIDE_EFFECT, workspace: 'relative/dir' }), 400, 'bad_workspace');
  assertNotDispatched(await daemon.request({ path: '/v1/tools/execute', body: SIDE_EFFECT, workspace: null }), 400, 'bad_workspace');
  assertNotDispatched(await daemon.request({ path: '/v1/tools/execute', body: SIDE_EFFECT, workspace: '%2Fnot%ZZ', headers: { 'x-tabwright-workspace-encoding': 'uri' } }), 400, 'bad_workspace');
  assert.equal(await dispatched(), base);
  assert.equal(hits, 0);
});

test('a Host header of another name, or a foreign Origin, is 403 before dispatch', async () => {
  const base = await dispatched();
  const port = daemon.endpoint.port;
  assertNotDispatched(await daemon.request({ path: '/v1/tools/execute', body: SIDE_EFFECT, headers: { host: `attacker.example:${port}` } }), 403, 'forbidden_host');
  assertNotDispatched(await daemon.request({ path: '/v1/tools/execute', body: SIDE_EFFECT, headers: { host: `127.0.0.1:${port + 1}` } }), 403, 'forbidden_host');
  assertNotDispatched(await daemon.request({ path: '/mcp', body: {}, headers: { host: `attacker.example:${port}` } }), 403, 'forbidden_host');
  assertNotDispatched(await daemon.request({ path: '/v1/tools/execute', body: SIDE_EFFECT, headers: { origin: 'http://attacker.example' } }), 403, 'forbidden_origin');
  assert.equal(await dispatched(), base);
  assert.equal(hits, 0);
  // The same call with loopback Host and Origin does run: the rejections above were the checks, not a broken call.
  const ok = await daemon.request({ path: '/v1/tools/execute', body: SIDE_EFFECT, headers: { host: `localhost:${port}`, origin: `http://127.0.0.1:${port}` } });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.json.result.structuredContent.value, 'ran');
  assert.equal(hits, 1);
  assert.equal(await dispatched(), base + 1);
});
