/**
 * The extension link's contract (docs/own-browser.md, "Extension"; EXTENSION-DESIGN.md §4.3): the stable ID, the
 * pairing key file, and the guard of the built server's /extension upgrade: only our extension's Origin, a mutual
 * HMAC proof over fresh nonces, close 4001 on a wrong proof or silence, a recorded proof useless on the next
 * socket, web pages refused. A Node client plays the extension's side of the handshake (the protocol is computed
 * here from its definition, not imported), and the real extension in a headless Chromium pairs for real.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { WebSocket } from 'ws';
import { EXTENSION_ID, startExtensionBrowser, TEST_PAIRING_CODE, type ExtensionBrowser } from '../fixtures/extension.js';
import { eventually, freePort, until } from '../fixtures/harness.js';
import { connect, ROOT, type Connected } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { cli, cliHome } from '../fixtures/cli.js';

const ORIGIN = `chrome-extension://${EXTENSION_ID}`;

/** The 32 key bytes of a base32 pairing code (RFC 4648). */
function keyBytes(code: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of code) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)!.slice(0, 32).map(b => parseInt(b, 2)));
}

const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest('hex');

interface Socket {
  ws: WebSocket;
  /** Resolves with the close code. */
  closed: Promise<number>;
  /** The next frame, parsed. */
  next(): Promise<Record<string, unknown>>;
}

/** Opens a socket to the bridge with `origin` (undefined: none). Rejects with the HTTP status when the upgrade is refused. */
function open(port: number, origin: string | undefined): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/extension`, origin ? { origin } : {});
    const frames: Array<Record<string, unknown>> = [];
    const waiters: Array<(f: Record<string, unknown>) => void> = [];
    ws.on('message', data => {
      const frame = JSON.parse(data.toString()) as Record<string, unknown>;
      const waiter = waiters.shift();
      if (waiter) waiter(frame);
      else frames.push(frame);
    });
    const closed = new Promise<number>(res => ws.on('close', code => res(code)));
    ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.on('error', error => reject(error));
    ws.on('open', () => resolve({
      ws,
      closed,
      next: () => new Promise(res => {
        const frame = frames.shift();
        if (frame) res(frame);
        else waiters.push(res);
      }),
    }));
  });
}

/** Sends a hello and returns the challenge and the nonce it sent. */
async function hello(socket: Socket, extId = EXTENSION_ID): Promise<{ clientNonce: string; challenge: Record<string, unknown> }> {
  const clientNonce = randomBytes(32).toString('hex');
  socket.ws.send(JSON.stringify({ t: 'hello', v: [1, 1], extId, extVersion: 'test', bootId: 'test', clientNonce }));
  return { clientNonce, challenge: await socket.next() };
}

const extProof = (key: Buffer, serverNonce: string, clientNonce: string) => hmac(key, `tw-pair-v1|ext|${serverNonce}|${clientNonce}|${EXTENSION_ID}`);

test('the manifest key gives the pinned extension ID (sha256 of the SPKI, first 32 hex digits mapped to a-p)', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'extension', 'manifest.json'), 'utf8')) as { key: string };
  const digest = createHash('sha256').update(Buffer.from(manifest.key, 'base64')).digest('hex').slice(0, 32);
  const id = [...digest].map(c => String.fromCharCode(97 + parseInt(c, 16))).join('');
  assert.equal(id, EXTENSION_ID);
  const protocol = readFileSync(join(ROOT, 'src', 'browser', 'extension', 'protocol.ts'), 'utf8');
  assert.match(protocol, new RegExp(`EXTENSION_ID = '${id}'`));
  const built = JSON.parse(readFileSync(join(ROOT, 'dist', 'extension', 'manifest.json'), 'utf8')) as { key: string; manifest_version: number };
  assert.equal(built.key, manifest.key);
  assert.equal(built.manifest_version, 3);
});

test('tabwright pairing-key creates a 0600 key file once, prints the same code again, and a deleted file rotates it', async () => {
  const home = await cliHome();
  const runCli = (args: string[], opts: { env?: Record<string, string> } = {}) => cli(home, args, opts);
  const env = { TABWRIGHT_CONFIG_DIR: home.configDir };
  try {
    const first = await runCli(['pairing-key'], { env });
    const code = (first.json as { result: { code: string; source: string } }).result.code;
    assert.match(code, /^[A-Z2-7]{52}$/);
    const file = join(env.TABWRIGHT_CONFIG_DIR, 'pairing-key');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const again = await runCli(['pairing-key'], { env });
    assert.equal((again.json as { result: { code: string } }).result.code, code);
    rmSync(file);
    const rotated = await runCli(['pairing-key'], { env });
    assert.notEqual((rotated.json as { result: { code: string } }).result.code, code);
    const override = await runCli(['pairing-key'], { env: { ...env, TABWRIGHT_PAIRING_KEY: TEST_PAIRING_CODE } });
    assert.equal((override.json as { result: { code: string } }).result.code, TEST_PAIRING_CODE);
    const doctor = await runCli(['doctor'], { env });
    const { userScripts, ...extension } = (doctor.json as { result: { extension: { userScripts: { enable: string } } } }).result.extension;
    assert.deepEqual(extension, { path: join(ROOT, 'dist', 'extension'), id: EXTENSION_ID, built: true, pairingKey: 'file' });
    // Doctor explains the "Allow User Scripts" toggle (it does not ask the browser).
    assert.match(userScripts.enable, /chrome:\/\/extensions → tabwright → Details → Allow User Scripts/);
    const path = await runCli(['extension', 'path'], { env });
    assert.deepEqual((path.json as { result: unknown }).result, { path: join(ROOT, 'dist', 'extension'), id: EXTENSION_ID, built: true });
  } finally {
    await home.cleanup();
  }
});

describe('the /extension upgrade of a server on --connection extension', () => {
  let port = 0;
  let server: Connected | undefined;
  const key = keyBytes(TEST_PAIRING_CODE);
  before(async () => {
    port = await freePort();
    server = await connect({ args: ['--connection', 'extension'], env: { TABWRIGHT_WS_PORT: String(port), TABWRIGHT_PAIRING_KEY: TEST_PAIRING_CODE } });
    // The relay leader binds the port at start.
    await until('the relay port', () => open(port, ORIGIN).then(s => (s.ws.close(), true), () => false), 20_000);
  });
  after(async () => {
    await server?.close();
  });

  test('the right proof is welcomed; the server proved it holds the key first', async () => {
    const socket = await open(port, ORIGIN);
    const { clientNonce, challenge } = await hello(socket);
    assert.equal(challenge.t, 'challenge');
    const serverNonce = String(challenge.serverNonce);
    assert.match(serverNonce, /^[0-9a-f]{64}$/);
    assert.equal(challenge.serverProof, hmac(key, `tw-pair-v1|server|${clientNonce}|${serverNonce}|${EXTENSION_ID}`));
    socket.ws.send(JSON.stringify({ t: 'auth', proof: extProof(key, serverNonce, clientNonce) }));
    const welcome = await socket.next();
    assert.equal(welcome.t, 'welcome');
    assert.equal(welcome.protocol, 1);
    // Linked: the server's requests follow (a ping, or a tabs.list); answer one.
    socket.ws.close();
    await socket.closed;
  });

  test('a wrong proof is closed with 4001', async () => {
    const socket = await open(port, ORIGIN);
    const { clientNonce, challenge } = await hello(socket);
    socket.ws.send(JSON.stringify({ t: 'auth', proof: extProof(keyBytes('A'.repeat(52)), String(challenge.serverNonce), clientNonce) }));
    assert.equal(await socket.closed, 4001);
  });

  test('a proof recorded on one socket fails on the next (fresh server nonce each time)', async () => {
    const first = await open(port, ORIGIN);
    const one = await hello(first);
    const recorded = extProof(key, String(one.challenge.serverNonce), one.clientNonce);
    first.ws.close();
    const second = await open(port, ORIGIN);
    // The replayer sends the same hello nonce and the recorded proof.
    second.ws.send(JSON.stringify({ t: 'hello', v: [1, 1], extId: EXTENSION_ID, extVersion: 'test', bootId: 'test', clientNonce: one.clientNonce }));
    const challenge = await second.next();
    assert.notEqual(challenge.serverNonce, one.challenge.serverNonce);
    second.ws.send(JSON.stringify({ t: 'auth', proof: recorded }));
    assert.equal(await second.closed, 4001);
  });

  test('a socket that never pairs is closed with 4001 at 10 s, and one that stops after hello too', async () => {
    const started = Date.now();
    const silent = await open(port, ORIGIN);
    const halfway = await open(port, ORIGIN);
    await hello(halfway);
    assert.equal(await silent.closed, 4001);
    assert.equal(await halfway.closed, 4001);
    const waited = Date.now() - started;
    assert.ok(waited >= 9_500, `closed after ${waited} ms, before the 10 s pairing time`);
  });

  test('a hello naming another extension than its Origin is closed with 4001', async () => {
    const socket = await open(port, ORIGIN);
    socket.ws.send(JSON.stringify({ t: 'hello', v: [1, 1], extId: 'a'.repeat(32), extVersion: 'test', bootId: 'test', clientNonce: randomBytes(32).toString('hex') }));
    assert.equal(await socket.closed, 4001);
  });

  test('upgrades without our extension\'s Origin get 403: a web origin, another extension, none', async () => {
    await assert.rejects(open(port, 'http://127.0.0.1:8080'), /HTTP 403/);
    await assert.rejects(open(port, 'https://example.com'), /HTTP 403/);
    await assert.rejects(open(port, `chrome-extension://${'b'.repeat(32)}`), /HTTP 403/);
    await assert.rejects(open(port, undefined), /HTTP 403/);
    assert.match(server!.stderr(), /refused an extension link upgrade: Origin http:\/\/127\.0\.0\.1:8080 is not the tabwright extension/);
  });

  test('TABWRIGHT_EXTRA_EXTENSION_IDS admits a dev build\'s Origin', async () => {
    const devId = 'c'.repeat(32);
    const devPort = await freePort();
    const dev = await connect({ args: ['--connection', 'extension'], env: { TABWRIGHT_WS_PORT: String(devPort), TABWRIGHT_PAIRING_KEY: TEST_PAIRING_CODE, TABWRIGHT_EXTRA_EXTENSION_IDS: devId } });
    try {
      const socket = await until('the dev server port', () => open(devPort, `chrome-extension://${devId}`).catch(() => undefined), 20_000);
      const clientNonce = randomBytes(32).toString('hex');
      socket.ws.send(JSON.stringify({ t: 'hello', v: [1, 1], extId: devId, extVersion: 'test', bootId: 'test', clientNonce }));
      const challenge = await socket.next();
      assert.equal(challenge.serverProof, hmac(key, `tw-pair-v1|server|${clientNonce}|${String(challenge.serverNonce)}|${devId}`));
      socket.ws.close();
    } finally {
      await dev.close();
    }
  });
});

describe('the real extension', () => {
  let browser: ExtensionBrowser | undefined;
  let site: Site | undefined;
  let port = 0;
  before(async () => {
    site = await startSite();
    port = await freePort();
    browser = await startExtensionBrowser();
  });
  after(async () => {
    await browser?.close();
    await site?.close();
  });

  test('a web page\'s WebSocket to the bridge is refused', async () => {
    const server = await connect({ args: ['--connection', 'extension'], env: { TABWRIGHT_WS_PORT: String(port), TABWRIGHT_PAIRING_KEY: TEST_PAIRING_CODE } });
    try {
      site!.page('/ws', '<h1>ws</h1>');
      const page = await browser!.context.newPage();
      await page.goto(`${site!.origin}/ws`);
      const outcome = await page.evaluate(async (url: string) => await new Promise<string>(resolve => {
        const ws = new WebSocket(url);
        ws.onopen = () => resolve('open');
        ws.onclose = event => resolve(`closed ${event.code}`);
      }), `ws://127.0.0.1:${port}/extension`);
      assert.equal(outcome, 'closed 1006');
      assert.ok(await eventually(() => server.stderr().includes(`Origin ${site!.origin} is not the tabwright extension`), 5000), server.stderr());
      await page.close();
    } finally {
      await server.close();
    }
  });

  test('the pairing page keeps a port the person typed while its status refreshes (every second)', async () => {
    const page = await browser!.context.newPage();
    try {
      await page.goto(`${ORIGIN}/pair.html`);
      await until('the first status', async () => (await page.locator('#status').getAttribute('data-state')) !== null, 10_000);
      await page.fill('#port', '23456');
      // Three refreshes pass; each used to set the field back to the stored or default port.
      await new Promise(resolve => setTimeout(resolve, 3_200));
      assert.equal(await page.inputValue('#port'), '23456');
    } finally {
      await page.close();
    }
  });

  test('pairs with the code and connects; a server with another key fails the extension\'s check of the server proof', async () => {
    await browser!.pair(TEST_PAIRING_CODE, port);
    const server = await connect({ args: ['--connection', 'extension'], env: { TABWRIGHT_WS_PORT: String(port), TABWRIGHT_PAIRING_KEY: TEST_PAIRING_CODE, TABWRIGHT_LOG: 'debug' } });
    try {
      await until('the extension to connect', async () => (await browser!.state()) === 'connected', 20_000);
      assert.match(server.stderr(), new RegExp(`the extension ${EXTENSION_ID} \\S+ is connected`));
      assert.doesNotMatch(server.stderr(), new RegExp(TEST_PAIRING_CODE));
    } finally {
      await server.close();
    }
    const other = await connect({ args: ['--connection', 'extension'], env: { TABWRIGHT_WS_PORT: String(port), TABWRIGHT_PAIRING_KEY: 'Q'.repeat(52) } });
    try {
      const page = await browser!.context.newPage();
      await page.goto(`${ORIGIN}/popup.html`);
      await until('the popup to report the foreign server', async () => /does not hold the pairing key/.test(await page.locator('#error').textContent() ?? ''), 30_000);
      assert.doesNotMatch(other.stderr(), /is connected/);
      await page.close();
    } finally {
      await other.close();
    }
  });
});

