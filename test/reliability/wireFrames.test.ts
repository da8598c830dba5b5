/**
 * Fuzzes the frames tabwright's processes and companions send each other:
 * the relay's follower frames (src/relay/protocol.ts, what a leader reads),
 * the userscript companion's frames (src/browser/userscript/protocol.ts),
 * and the extension's frames, over real WebSockets in this process: the
 * bridge's handshake (src/browser/extension/bridge.ts) and a paired link
 * (src/browser/extension/link.ts). Every frame is taken or refused with the
 * protocol's answer (a close code, an ExtensionError), none throws out of a
 * socket's handler (which would end the server), and the link still answers
 * a good request afterwards.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { WebSocket, WebSocketServer } from 'ws';
import { compareVersions, parseFollowerFrame } from '../../src/relay/protocol.js';
import { parseCompanionFrame, parseHello } from '../../src/browser/userscript/protocol.js';
import { ExtensionBridge } from '../../src/browser/extension/bridge.js';
import { ExtensionError, ExtensionLink } from '../../src/browser/extension/link.js';
import { CLOSE, EXTENSION_ID } from '../../src/browser/extension/protocol.js';
import { fuzz } from './fuzz.js';

/** JSON values shaped like frames: right kinds with wrong field types, arrays, null, deep nesting. */
function frameLike(kinds: string[], fields: string[]): fc.Arbitrary<unknown> {
  const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(null, -1, 0, 1, 2 ** 53, 1.5, '', 'x', true, [], {}));
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...kinds), fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: fields.length })).map(([t, rest]) => ({ t, ...rest })) },
    { weight: 2, arbitrary: fc.array(fc.oneof(fc.constantFrom(...kinds), value), { maxLength: 6 }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 50_000 }).map(d => '['.repeat(d) + ']'.repeat(d)) },
  );
}
const text = (v: unknown) => (typeof v === 'string' && v.startsWith('[[') ? v : JSON.stringify(v));

test('relay: any follower frame is a well-typed frame or nothing', async () => {
  const frames = frameLike(['hello', 'call', 'cancel', 'end_session', 'answer', 'other'], ['token', 'version', 'relayProtocol', 'pid', 'profile', 'id', 'tool', 'args', 'client', 'workspace', 'consent', 'sessionKey', 'isolate', 'prompt', 'budget', 'promptId', 'answer', 'pending', 'error']);
  await fuzz('relay-frames', 'Follower frames as a leader reads them (each kind with fields of every JSON type, arrays, deep nesting, not JSON): parseFollowerFrame returns a frame whose fields have their types, or nothing; a hello it returns compares versions without a throw',
    fc.property(fc.oneof(frames.map(text), fc.string({ maxLength: 40 })), data => {
      const f = parseFollowerFrame(data) as Record<string, unknown> | undefined;
      if (!f) return;
      assert.equal(typeof f.t, 'string');
      const kind = (k: string, type: string) => assert.equal(typeof f[k], type, `${String(f.t)}.${k}`);
      if (f.t === 'hello') {
        ['token', 'version', 'profile'].forEach(k => kind(k, 'string'));
        ['relayProtocol', 'pid'].forEach(k => kind(k, 'number'));
        assert.equal(typeof compareVersions(f.version as string, '0.1.0'), 'number');
      } else if (f.t === 'call') {
        kind('id', 'number');
        kind('tool', 'string');
        kind('consent', 'object');
        assert.ok(f.consent !== null);
      } else if (f.t === 'cancel') kind('id', 'number');
      else if (f.t === 'end_session') kind('sessionKey', 'string');
      else if (f.t === 'answer') {
        kind('promptId', 'number');
        if (f.error !== undefined) assert.ok(typeof f.error === 'object' && f.error !== null && typeof (f.error as { type: unknown }).type === 'string');
      }
    }));
});

test('a relay hello whose version is not a string is refused, not compared (it crashed the leader)', () => {
  const hello = { t: 'hello', token: 'x', version: 5, relayProtocol: 1, pid: 1, profile: '/p' };
  assert.equal(parseFollowerFrame(JSON.stringify(hello)), undefined);
  assert.deepEqual(parseFollowerFrame(JSON.stringify({ ...hello, version: '0.1.0' })), { ...hello, version: '0.1.0' });
});

test('userscript companion: any frame is a well-typed hello or frame, or nothing', async () => {
  const frames = fc.oneof(
    fc.tuple(fc.constantFrom('tabwright-userscript', 'x'), fc.jsonValue({ maxDepth: 1 }), fc.jsonValue({ maxDepth: 1 }), fc.string({ maxLength: 140 }), fc.oneof(fc.record({ url: fc.jsonValue({ maxDepth: 1 }), title: fc.jsonValue({ maxDepth: 1 }) }), fc.jsonValue({ maxDepth: 2 }))),
    fc.tuple(fc.constantFrom('reply', 'ready', 'navigated', 'state', 'quit', 'x'), fc.array(fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(1, 0, -1, true, false, 2 ** 60, { url: 'u', title: 't' })), { maxLength: 4 })).map(([k, rest]) => [k, ...rest]),
    fc.jsonValue({ maxDepth: 3 }),
  );
  await fuzz('userscript-frames', 'Companion frames as the broker reads them (hello and each kind with values of every JSON type and arity): parseHello and parseCompanionFrame return a frame of the right types, or nothing',
    fc.property(frames, frame => {
      const hello = parseHello(frame);
      if (hello) {
        assert.ok(typeof hello[3] === 'string' && hello[3].length >= 1 && hello[3].length <= 128);
        assert.ok(typeof hello[4].url === 'string' && typeof hello[4].title === 'string');
      }
      const f = parseCompanionFrame(frame);
      if (!f) return;
      if (f[0] !== 'quit' && f[0] !== 'state') assert.ok(Number.isSafeInteger(f[1]) && (f[1] as number) > 0);
      if (f[0] === 'reply' && f[2] === false) assert.equal(typeof f[3], 'string');
      if (f[0] === 'navigated') assert.equal(typeof f[2].url, 'string');
      if (f[0] === 'state') assert.equal(typeof f[1].title, 'string');
    }));
});

let configDir: string;
let server: Server;
let port: number;
let bridge: ExtensionBridge;

before(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'tw-fuzz-bridge-'));
  bridge = new ExtensionBridge({ configDir, env: { TABWRIGHT_PAIRING_KEY: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRST' } });
  server = createServer((_req, res) => res.writeHead(426).end());
  server.on('upgrade', (req, socket, head) => bridge.handleUpgrade(req, socket, head));
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(async () => {
  bridge?.close();
  await new Promise(resolve => server?.close(resolve));
  rmSync(configDir, { recursive: true, force: true });
});

/** Opens an extension socket to the bridge (our extension's Origin); resolves once open. */
function dial(): Promise<{ ws: WebSocket; closed: Promise<number>; frames: unknown[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/extension`, { origin: `chrome-extension://${EXTENSION_ID}` });
    const frames: unknown[] = [];
    const closed = new Promise<number>(res => ws.once('close', code => res(code)));
    ws.on('message', data => frames.push(JSON.parse(String(data))));
    ws.once('open', () => resolve({ ws, closed, frames }));
    ws.once('error', reject);
  });
}

test('extension bridge: any first frame but a valid hello is refused with close 4001 or 4002', async () => {
  const hello = frameLike(['hello', 'auth'], ['v', 'extId', 'extVersion', 'bootId', 'clientNonce', 'userAgent', 'features', 'proof']);
  const first = fc.oneof(hello.map(text), fc.string({ maxLength: 30 }), fc.constantFrom('null', '0', '"hello"', '[]', 'true', '{"t":"hello","clientNonce":null}'));
  await fuzz('extension-handshake', 'First frames on the extension link (hellos with fields of every JSON type, null, numbers, strings, arrays, not JSON) over a real socket: each refused with close 4001 (unauthorized) or 4002 (version), within 5 s, and the bridge keeps serving',
    fc.asyncProperty(first.filter(t => !/^\{"t":"hello".*"clientNonce":"[0-9a-f]{64}"/.test(t)), async data => {
      const { ws, closed } = await dial();
      ws.send(data);
      const code = await Promise.race([closed, new Promise<number>(resolve => setTimeout(() => resolve(-1), 5000))]);
      if (code === -1) ws.terminate();
      assert.ok(code === CLOSE.unauthorized || code === CLOSE.version, `close ${code} for ${data.slice(0, 100)}`);
    }), { kind: 'live' });
});

test('extension bridge: a "null" first frame is refused (it threw in the socket handler and ended the server)', async () => {
  const { ws, closed } = await dial();
  ws.send('null');
  assert.equal(await closed, CLOSE.unauthorized);
});

test('extension link: any frame from the extension is taken or ignored, requests end in a result or an ExtensionError', async () => {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise(resolve => wss.once('listening', resolve));
  const serverSide = new Promise<WebSocket>(resolve => wss.once('connection', resolve));
  const ext = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  await new Promise(resolve => ext.once('open', resolve));
  const link = new ExtensionLink(await serverSide, { extId: EXTENSION_ID, extVersion: '1', bootId: 'b', userAgent: 'ua', features: [] }, 60_000);
  // The extension's side: each request of the server is answered with the next fuzzed answer, which names its id.
  const answers: Array<(id: number) => string[]> = [];
  ext.on('message', data => {
    const request = JSON.parse(String(data)) as { id: number; m: string };
    const answer = answers.shift();
    for (const frame of answer ? answer(request.id) : [JSON.stringify({ id: request.id, r: { ok: request.m } })]) ext.send(frame);
  });
  const events: unknown[] = [];
  link.onEvent((ev, p) => events.push([ev, typeof p]));
  const errorField = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.record({ code: fc.jsonValue({ maxDepth: 1 }), message: fc.jsonValue({ maxDepth: 1 }) }));
  const answer = fc.oneof(
    fc.record({ r: fc.jsonValue({ maxDepth: 2 }) }).map(a => (id: number) => [JSON.stringify({ id, ...a })]),
    errorField.map(e => (id: number) => [JSON.stringify({ id, e })]),
    // Frames the link cannot match to the request, then its answer: the request ends with that answer.
    fc.constantFrom('null', '[]', '"x"', '{', '{"id":"1"}', '{"id":null,"e":null}').map(t => (id: number) => [t, JSON.stringify({ id, r: 'late' })]),
  );
  const unsolicited = frameLike(['x'], ['id', 'm', 'p', 'ev', 'r', 'e']).map(text);
  try {
    await fuzz('extension-link-frames', 'Frames from a paired extension over a real socket (answers with malformed r/e, events and requests with params of every JSON type, null, arrays, deep nesting, not JSON): no throw; each request of the server ends in its result or an ExtensionError with a string code within 5 s; a good request answers afterwards',
      fc.asyncProperty(answer, fc.array(unsolicited, { maxLength: 3 }), async (reply, noise) => {
        for (const frame of noise) ext.send(frame);
        answers.push(reply);
        const outcome = await Promise.race([
          link.request('fuzz').then(r => ({ r }), (e: unknown) => ({ e })),
          new Promise<{ timeout: true }>(resolve => setTimeout(() => resolve({ timeout: true }), 5000)),
        ]);
        assert.ok(!('timeout' in outcome), 'the request got no answer within 5 s');
        if ('e' in outcome) assert.ok(outcome.e instanceof ExtensionError && typeof outcome.e.code === 'string' && typeof outcome.e.message === 'string', String(outcome.e));
      }), { kind: 'live' });
    answers.length = 0;
    assert.deepEqual(await link.request('probe'), { ok: 'probe' });
    assert.ok(link.open);
  } finally {
    link.close(1000, 'done');
    ext.terminate();
    wss.close();
  }
});
