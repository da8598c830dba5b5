/**
 * Fuzzes the daemon's HTTP front (docs/daemon.md): in process, the parts
 * that read a request (src/daemon/body.ts parseArguments, src/daemon/guard.ts
 * Host, Origin and token checks); live, the built daemon on 127.0.0.1 over
 * raw TCP, so that every header and byte is the input's: methods, routes,
 * Host, Origin, token and workspace headers, Content-Length that lies or
 * repeats, bodies of any bytes, deep JSON. Every request gets an HTTP status
 * within 10 s, never 500; an answer with a JSON body names an error type of
 * docs/daemon.md; the daemon stays up, answers GET /v1/status afterwards,
 * and its RSS stays within DAEMON_RSS_BOUND_MB of where it started. No input
 * runs a tool that exists (none launches the browser) or asks the daemon to stop.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { parseArguments } from '../../src/daemon/body.js';
import { checkHostAndOrigin, checkToken } from '../../src/daemon/guard.js';
import { DAEMON_ERROR_TYPES, DaemonError } from '../../src/daemon/httpErrors.js';
import { startDaemon, type Daemon } from '../fixtures/daemon.js';
import { LIVE_RUNS, fuzz, rssMb } from './fuzz.js';

/** How far the daemon's RSS may grow over the whole run, in MB. */
const DAEMON_RSS_BOUND_MB = 150;
const TYPES = new Set<string>(DAEMON_ERROR_TYPES);

test('daemon: any body is a tool call\'s arguments or 400 bad_request', async () => {
  const body = fc.oneof(
    { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 4 }).map(v => Buffer.from(JSON.stringify(v) ?? '')) },
    { weight: 6, arbitrary: fc.uint8Array({ maxLength: 100 }).map(b => Buffer.from(b)) },
    { weight: 6, arbitrary: fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', ' ', '\u2028', '\ufeff', 'a', '1'), maxLength: 40 }).map(s => Buffer.from(s)) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 20_000 }).map(d => Buffer.from(`{"a":${'['.repeat(d)}${']'.repeat(d)}}`)) },
  );
  await fuzz('daemon-body', 'Request bodies of a tool call (JSON of every type, any bytes, invalid UTF-8, BOM, U+2028, nesting to 20,000 levels): parseArguments returns a plain object or throws DaemonError 400 bad_request',
    fc.property(body, bytes => {
      try {
        const args = parseArguments(bytes);
        assert.ok(typeof args === 'object' && args !== null && !Array.isArray(args));
      } catch (error) {
        assert.ok(error instanceof DaemonError && error.status === 400 && error.type === 'bad_request', String(error));
      }
    }));
});

test('daemon: any Host, Origin and token headers pass or get 401/403 with a type', async () => {
  const port = 19681;
  const header = fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, '127.0.0.1', `[::1]:${port}`, `evil.test:${port}`, `127.0.0.1:${port}.evil.test`, 'http://127.0.0.1', 'http://localhost:1', 'null', 'http://127.0.0.1:99999', 'http://127.0.0.1.evil.test', 'https://127.0.0.1', ''),
    fc.string({ maxLength: 30 }),
  );
  const token = fc.oneof(fc.constant(undefined), fc.constantFrom('secret', 'Secret', 'secre', 'secret ', ''), fc.string({ maxLength: 10 }));
  const bearer = fc.oneof(fc.constant(undefined), fc.constantFrom('Bearer secret', 'bearer  secret ', 'Bearer', 'Basic secret'), fc.string({ maxLength: 20 }));
  await fuzz('daemon-guard', 'Host, Origin, x-tabwright-token and Authorization header values (loopback look-alikes, ports, case, empty, any text): the guard passes or throws DaemonError 401 unauthorized, 403 forbidden_host or forbidden_origin; it passes a foreign Host or Origin never',
    fc.property(header, header, token, bearer, fc.boolean(), (host, origin, tok, auth, isMcp) => {
      const req = { headers: { host, origin, 'x-tabwright-token': tok, authorization: auth } } as unknown as IncomingMessage;
      try {
        checkHostAndOrigin(req, port);
        assert.ok(/^(127\.0\.0\.1|localhost):19681$/i.test(host ?? ''), `passed Host ${host}`);
        if (origin !== undefined) assert.ok(/^http:\/\/(127\.0\.0\.1|localhost)(:\d{1,5})?$/i.test(origin), `passed Origin ${origin}`);
        checkToken(req, 'secret', isMcp);
        assert.ok(tok === 'secret' || (tok === undefined && isMcp && /^Bearer\s+secret\s*$/i.test(auth ?? '')), `passed token ${tok} / ${auth}`);
      } catch (error) {
        assert.ok(error instanceof DaemonError && [401, 403].includes(error.status) && TYPES.has(error.type), String(error));
      }
    }));
});

let daemon: Daemon;
before(async () => {
  daemon = await startDaemon({ env: { TABWRIGHT_DAEMON_BODY_TIMEOUT_MS: '1000' } });
});
after(async () => {
  await daemon?.stop();
});

/** Sends `bytes` on a fresh connection; resolves with everything the daemon sent back before it closed (10 s at most). */
function exchange(port: number, bytes: Buffer): Promise<Buffer> {
  return new Promise(resolve => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 10_000);
    socket.on('data', c => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.write(bytes);
  });
}

/**
 * A header value: mostly printable text (what reaches the daemon's own checks), sometimes any characters but CR and
 * LF (Node's parser refuses control characters with a bare 400 before the daemon sees the request).
 */
const headerText = fc.oneof(
  { weight: 20, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), maxLength: 30 }).map(s => s.replace(/[\r\n]/g, '')) },
);

test('daemon: any HTTP request gets a status within 10 s, never 500, and a JSON error names its type; the daemon stays up', async () => {
  const { port, token } = daemon.endpoint;
  const request = fc.record({
    method: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH') }, { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{1,8}$/) }),
    path: fc.oneof(
      fc.constantFrom('/v1/status', '/v1/tools/no_such_tool', '/v1/tools/Nope', '/v1/tools/', '/v1/consent/0123456789abcdef0123456789abcdef', '/v1/consent', '/v1/consent/x', '/mcp', '/', '/v1/status?x=1', '//v1/status', '/v1/tools/no_such_tool/../status', '/%00', '*'),
      fc.webPath().map(p => (p.startsWith('/') ? p : `/${p}`)),
    ),
    host: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(`127.0.0.1:${port}`, `localhost:${port}`) }, { weight: 1, arbitrary: fc.constantFrom(undefined, 'evil.test', `127.0.0.1:${port + 1}`) }, { weight: 1, arbitrary: headerText }),
    origin: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('null', 'http://evil.test', `http://127.0.0.1:${port}`) }, { weight: 1, arbitrary: headerText }),
    token: fc.oneof({ weight: 4, arbitrary: fc.constant(token) }, { weight: 1, arbitrary: fc.constantFrom(undefined, 'wrong') }, { weight: 1, arbitrary: headerText }),
    workspace: fc.oneof({ weight: 3, arbitrary: fc.constant(daemon.workspace) }, { weight: 1, arbitrary: fc.constantFrom(undefined, 'relative', '/no/such/dir', '') }, { weight: 1, arbitrary: headerText }),
    body: fc.oneof(
      fc.constant(Buffer.alloc(0)),
      fc.jsonValue({ maxDepth: 3 }).map(v => Buffer.from(JSON.stringify(v) ?? '')),
      fc.uint8Array({ maxLength: 300 }).map(b => Buffer.from(b)),
      fc.constantFrom('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}', '[{"jsonrpc":"2.0"}]', '{"answer":"once"}', '{"answer":1}').map(s => Buffer.from(s)),
      fc.integer({ min: 1000, max: 50_000 }).map(d => Buffer.from(`{"a":${'['.repeat(d)}${']'.repeat(d)}}`)),
    ),
    length: fc.constantFrom('exact', 'exact', 'exact', 'none', 'short', 'long', 'junk', 'twice', 'chunked'),
    extra: fc.array(fc.tuple(fc.constantFrom('accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'x-tabwright-progress', 'authorization', 'expect'), headerText), { maxLength: 2 }),
  }).filter(r => !(r.path.startsWith('/v1/shutdown')));
  const rssBefore = rssMb(daemon.proc.pid);
  let rssAfter = rssBefore;
  // RSS halfway too: growth that goes on in the second half is a leak, growth that stops there is warm-up.
  let rssMid = rssBefore;
  let tried = 0;
  const statuses = new Map<string, number>();
  await fuzz('daemon-http-live', 'Raw HTTP requests to a real daemon on 127.0.0.1 (any method, routes and web paths, Host/Origin/token/workspace headers of any text, Content-Length exact, missing, short, long, junk or twice, chunked, bodies of any bytes and nesting to 50,000 levels): a status within 10 s, never 500, a JSON error body naming a docs/daemon.md type, the daemon up afterwards',
    fc.asyncProperty(request, async r => {
      if (++tried === Math.ceil(LIVE_RUNS / 2)) rssMid = rssMb(daemon.proc.pid);
      const head = [`${r.method} ${r.path} HTTP/1.1`];
      if (r.host !== undefined) head.push(`Host: ${r.host}`);
      if (r.origin !== undefined) head.push(`Origin: ${r.origin}`);
      if (r.token !== undefined) head.push(`x-tabwright-token: ${r.token}`);
      if (r.workspace !== undefined) head.push(`x-tabwright-workspace: ${r.workspace}`);
      for (const [k, v] of r.extra) head.push(`${k}: ${v}`);
      let body = r.body;
      const n = body.length;
      if (r.length === 'exact') head.push(`Content-Length: ${n}`);
      else if (r.length === 'short') head.push(`Content-Length: ${Math.max(0, n - 1)}`);
      else if (r.length === 'long') head.push(`Content-Length: ${n + 10}`); // the rest never comes: 408 after 1 s
      else if (r.length === 'junk') head.push('Content-Length: 12abc');
      else if (r.length === 'twice') head.push(`Content-Length: ${n}`, `Content-Length: ${n + 1}`);
      else if (r.length === 'chunked') {
        head.push('Transfer-Encoding: chunked');
        body = Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), body, Buffer.from(n ? '\r\n0\r\n\r\n' : '\r\n')]);
      }
      head.push('Connection: close');
      const reply = await exchange(port, Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
      const text = reply.toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1]);
      assert.ok(status >= 100 && status < 600, `no status line within 10 s for ${head.join(' | ').slice(0, 300)}: ${JSON.stringify(text.slice(0, 200))}`);
      assert.notEqual(status, 500, text.slice(0, 500));
      const split = text.indexOf('\r\n\r\n');
      let type = '';
      if (/^content-type: application\/json/im.test(text.slice(0, split)) && status >= 400 && !r.path.startsWith('/mcp') && r.method !== 'HEAD') {
        const json = JSON.parse(Buffer.from(text.slice(split + 4), 'latin1').toString('utf8')) as { error?: { type?: string } };
        type = json.error?.type ?? '';
        assert.ok(TYPES.has(type), `HTTP ${status} with ${JSON.stringify(json).slice(0, 200)}`);
      }
      const seen = `${status}${type ? ` ${type}` : ''}`;
      statuses.set(seen, (statuses.get(seen) ?? 0) + 1);
      assert.equal(daemon.proc.exitCode, null, `the daemon exited: ${daemon.stderr().slice(-2000)}`);
    }), {
      kind: 'live',
      notes: () => {
        rssAfter = rssMb(daemon.proc.pid);
        return { rssBeforeMb: Math.round(rssBefore), rssMidMb: Math.round(rssMid), rssAfterMb: Math.round(rssAfter), rssBoundMb: DAEMON_RSS_BOUND_MB, answers: [...statuses].sort((a, b) => a[0].localeCompare(b[0])).map(([s, c]) => `${s} ×${c}`).join('; ') };
      },
    });
  assert.equal((await daemon.request({ method: 'GET', path: '/v1/status', workspace: null })).status, 200);
  assert.ok(rssAfter - rssBefore < DAEMON_RSS_BOUND_MB, `RSS grew from ${rssBefore.toFixed(0)} to ${rssAfter.toFixed(0)} MB`);
});
