// The own-Chrome fixture (test/fixtures/ownChrome.ts) against the real thing, with raw WebSocket and TCP
// clients and no tabwright code: a headed Chromium under Xvfb with approval-mode remote debugging, and
// xdotool answering "Allow remote debugging?". What these tests pin down is what tabwright's --own-chrome
// meets: the port from DevToolsActivePort, one dialog per upgrade, what Allow and Cancel look like on the
// wire, a pending upgrade that gets no byte, 403 with no dialog for an Origin header or a page path.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { eventually, until } from '../fixtures/harness.js';
import { ownChromeMissing, startOwnChrome, type OwnChrome } from '../fixtures/ownChrome.js';
import { isAlive } from '../fixtures/processes.js';
import { startSite, type Site } from '../fixtures/site.js';

/** A WebSocket to the browser endpoint, and how its handshake ended. */
interface Dial {
  ws: WebSocket;
  startedAt: number;
  /** 'open', or the HTTP answer that refused the upgrade (status, body), or a socket error. */
  outcome: Promise<{ open: true } | { open: false; status?: number; body?: string; error?: string }>;
}

function dial(url: string, headers: Record<string, string> = {}): Dial {
  const startedAt = Date.now();
  const ws = new WebSocket(url, { headers, perMessageDeflate: false });
  const outcome = new Promise<Awaited<Dial['outcome']>>(resolve => {
    ws.once('open', () => resolve({ open: true }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ open: false, status: res.statusCode, body }));
    });
    ws.once('error', error => resolve({ open: false, error: error.message }));
  });
  return { ws, startedAt, outcome };
}

/** Sends one CDP command on an open socket and resolves with its result. @throws on a CDP error. */
async function cdp(ws: WebSocket, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const id = Math.floor(Math.random() * 1e9);
  return await new Promise((resolve, reject) => {
    const onMessage = (data: WebSocket.RawData) => {
      const msg = JSON.parse(String(data)) as { id?: number; result?: Record<string, unknown>; error?: { message: string } };
      if (msg.id !== id) return;
      ws.off('message', onMessage);
      if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
      else resolve(msg.result ?? {});
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id, method, params }));
  });
}

/** A WebSocket upgrade request written by hand on a TCP socket, to see every byte the server sends back. */
function rawUpgrade(port: number, path: string, headers: string[] = []): { socket: Socket; received: () => string; ended: () => boolean } {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  let ended = false;
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('close', () => (ended = true));
  socket.on('error', () => undefined);
  socket.write([
    `GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Upgrade: websocket', 'Connection: Upgrade',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`, 'Sec-WebSocket-Version: 13', ...headers, '', '',
  ].join('\r\n'));
  return { socket, received: () => received, ended: () => ended };
}

describe('own-Chrome fixture: approval-mode Chromium under Xvfb', { skip: ownChromeMissing() }, () => {
  let site: Site;
  let chrome: OwnChrome;

  before(async () => {
    site = await startSite();
    for (const name of ['a', 'b', 'c', 'd']) site.page(`/${name}`, `<!doctype html><title>page ${name}</title><h1>${name}</h1>`);
    chrome = await startOwnChrome({ urls: [`${site.origin}/a`, `${site.origin}/b`] });
  });
  // A failed test can leave its dialog up; the next one starts with none.
  afterEach(async () => {
    chrome?.autoApprove(false);
    if (chrome && !chrome.stopped) await chrome.dismissAll();
  });
  after(async () => {
    await chrome?.stop();
    await site?.close();
  });

  test('the server listens on the port pre-written into DevToolsActivePort, with no HTTP discovery', async () => {
    assert.equal(chrome.port, chrome.requestedPort, 'Chromium kept the port of the DevToolsActivePort the fixture wrote');
    const [port, path] = readFileSync(`${chrome.userDataDir}/DevToolsActivePort`, 'utf8').split('\n');
    assert.equal(Number(port), chrome.port);
    assert.match(path!, /^\/devtools\/browser\/[0-9a-f-]{36}$/);
    assert.equal((await fetch(`http://127.0.0.1:${chrome.port}/json/version`)).status, 404);
    assert.equal((await fetch(`http://127.0.0.1:${chrome.port}/json/list`)).status, 404);
    assert.equal(chrome.dialogsShown(), 0, 'HTTP requests raise no dialog');
  });

  test('an upgrade with an Origin header, or to a page path, gets 403 at once and raises no dialog', async () => {
    const before = chrome.dialogsShown();
    const web = dial(chrome.wsUrl, { Origin: 'http://127.0.0.1:1' });
    assert.deepEqual(await web.outcome, { open: false, status: 403, body: 'Rejected an incoming WebSocket connection from the http://127.0.0.1:1 origin. Use the command line flag --remote-allow-origins=http://127.0.0.1:1 to allow connections from this origin or --remote-allow-origins=* to allow all origins.' });
    const page = dial(`ws://127.0.0.1:${chrome.port}/devtools/page/0123456789ABCDEF0123456789ABCDEF`);
    const refused = await page.outcome;
    assert.equal(refused.open, false);
    assert.equal(!refused.open && refused.status, 403);
    // A dialog shows within a few hundred ms of an upgrade that raises one (the tests below): none in 1.5 s.
    assert.equal(await eventually(() => chrome.dialogsShown() > before, 1_500), false, 'no dialog for either');
  });

  test('Allow by keys: the handshake completes and Browser.getVersion answers', async t => {
    const before = chrome.dialogsShown();
    const client = dial(chrome.wsUrl);
    const dialog = await chrome.dialogs.waitForDialog();
    // On screen, not only in the Views tree: the Allow button's pixel changes when the dialog goes.
    const allow = await chrome.dialogs.buttonCentre(dialog.id, 'allow');
    const drawn = await until('the dialog to be painted', () => {
      const px = chrome.display.pixel(allow.x, allow.y);
      return px[2] > px[0] + 20 ? px : undefined; // the tonal (blue) Allow button, not the grey scrim or a white page
    }, 5_000, { every: 10 });
    const paintedAt = Date.now();
    const answered = await chrome.approveNext();
    assert.equal(answered.dialog.id, dialog.id);
    assert.deepEqual(await client.outcome, { open: true });
    const version = await cdp(client.ws, 'Browser.getVersion');
    assert.match(String(version.product), /^Chrome\/\d+\./);
    assert.equal(chrome.dialogsShown(), before + 1);
    // Painted away a frame or two after the Widget left the tree.
    assert.ok(await eventually(() => chrome.display.pixel(allow.x, allow.y).join() !== drawn.join(), 2_000, { every: 10 }), 'the dialog is gone from the screen');
    t.diagnostic(`upgrade sent → dialog in the Views tree ${dialog.seenAt - client.startedAt} ms, on screen by ${paintedAt - client.startedAt} ms; ${version.product}`);
    client.ws.close();
  });

  test('Allow by a click on the button', async () => {
    const client = dial(chrome.wsUrl);
    await chrome.approveNext({ by: 'click' });
    assert.deepEqual(await client.outcome, { open: true });
    assert.equal(typeof (await cdp(client.ws, 'Browser.getVersion')).protocolVersion, 'string');
    client.ws.close();
  });

  test('Cancel by keys: the upgrade gets HTTP 403 "Connection rejected" (the bytes on the wire)', async t => {
    const raw = rawUpgrade(chrome.port, chrome.browserPath);
    await chrome.dialogs.waitForDialog();
    assert.equal(raw.received(), '', 'no byte while the dialog is up');
    await chrome.denyNext();
    const response = await until('the refusal', () => /\r\n\r\nConnection rejected$/.test(raw.received()) && raw.received(), 5_000, { every: 20 });
    assert.equal(response, 'HTTP/1.1 403 Forbidden\r\nContent-Length:19\r\nContent-Type:text/html\r\n\r\nConnection rejected');
    const closed = await eventually(() => raw.ended(), 1_000);
    t.diagnostic(`denial: ${JSON.stringify(response)}; server closed the TCP connection within 1 s: ${closed}`);
    raw.socket.destroy();
  });

  test('Cancel by a click: ws reports an unexpected 403 response', async () => {
    const client = dial(chrome.wsUrl);
    await chrome.denyNext({ by: 'click' });
    assert.deepEqual(await client.outcome, { open: false, status: 403, body: 'Connection rejected' });
  });

  test('two pending upgrades stack two dialogs, the newest on top; the auto-approver answers and counts them', async () => {
    const before = chrome.dialogsShown();
    const first = dial(chrome.wsUrl);
    let firstAnswered = false;
    void first.outcome.then(() => (firstAnswered = true));
    await until('the first dialog', () => chrome.openDialogs().length === 1, 10_000);
    const second = dial(chrome.wsUrl);
    await until('two dialogs on screen at once', () => chrome.openDialogs().length === 2, 10_000);
    assert.equal(chrome.dialogsShown(), before + 2);
    // The keys go to the newest dialog: the second upgrade's.
    await chrome.approveNext();
    assert.deepEqual(await second.outcome, { open: true });
    assert.equal(firstAnswered, false, 'the first upgrade still waits');
    assert.equal(chrome.openDialogs().length, 1);
    chrome.autoApprove();
    try {
      assert.deepEqual(await first.outcome, { open: true });
      await until('no dialog left', () => chrome.openDialogs().length === 0, 5_000);
      // Open sockets raise nothing more: commands on them are not connections.
      for (const client of [first, second]) for (let i = 0; i < 3; i++) await cdp(client.ws, 'Browser.getVersion');
      const third = dial(chrome.wsUrl);
      assert.deepEqual(await third.outcome, { open: true });
      assert.equal(chrome.dialogsShown(), before + 3, 'three sockets, three dialogs');
      for (const client of [first, second, third]) client.ws.close();
    } finally {
      chrome.autoApprove(false);
    }
  });

  test('an unanswered upgrade gets no byte; its dialog stays up after the client leaves', async () => {
    const raw = rawUpgrade(chrome.port, chrome.browserPath);
    await chrome.dialogs.waitForDialog();
    await sleep(2_000);
    assert.equal(raw.received(), '', 'nothing answers the handshake while the dialog waits');
    assert.equal(raw.ended(), false);
    raw.socket.destroy();
    await sleep(1_000);
    assert.equal(chrome.openDialogs().length, 1, 'the abandoned dialog is still on screen');
    assert.equal(await chrome.dismissAll(), 1);
    assert.equal(chrome.openDialogs().length, 0);
  });

  test('the start URLs are tabs, and tabs the user opens (relaunch, Ctrl+T) appear', async () => {
    const client = dial(chrome.wsUrl);
    await chrome.approveNext();
    assert.deepEqual(await client.outcome, { open: true });
    const pages = async () => ((await cdp(client.ws, 'Target.getTargets')).targetInfos as Array<{ type: string; url: string }>)
      .filter(target => target.type === 'page').map(target => target.url);
    let seen: string[] = [];
    // A start tab still loading under load may show no URL yet: wait for both rather than read once.
    await until(() => `start tabs a and b (pages: ${seen.join(', ')})`, async () => {
      seen = await pages();
      return seen.includes(`${site.origin}/a`) && seen.includes(`${site.origin}/b`);
    }, 15_000);
    assert.deepEqual(seen.filter(url => url.startsWith(site.origin)).sort(), [`${site.origin}/a`, `${site.origin}/b`]);
    await chrome.openTab(`${site.origin}/c`);
    await chrome.openTab(`${site.origin}/d`, { via: 'keys' });
    await until(() => `tabs c and d (pages: ${seen.join(', ')})`, async () => {
      seen = await pages();
      return seen.includes(`${site.origin}/c`) && seen.includes(`${site.origin}/d`);
    }, 15_000);
    assert.equal(chrome.openDialogs().length, 0, 'opening tabs raises no dialog');
    client.ws.close();
  });

  test('stop() ends Chromium and Xvfb and removes the profile', async () => {
    const { pid, userDataDir } = chrome;
    const xvfb = chrome.display.pid;
    await chrome.stop();
    assert.equal(isAlive(pid), false, 'Chromium');
    assert.equal(isAlive(xvfb), false, 'Xvfb');
    assert.equal(existsSync(userDataDir), false, 'profile removed');
  });
});
