/**
 * The userscript broker's protocol (docs/userscript-connection.md, "The protocol"; seed 001's browser protocol with
 * tabwright's names), driven by a raw client in Node over the long-poll transport, against the broker served by
 * an HTTP server of the test: hello and welcome with revisions, the 15 s hello deadline, 1002 on a malformed
 * frame, calls guarded by instance id, cancel then a late reply, oversized replies, navigate mode, quit.
 */
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ToolError } from '../../src/errors.js';
import { UserscriptBroker } from '../../src/browser/userscript/broker.js';

const TOKEN = 'A'.repeat(43);
let server: Server;
let broker: UserscriptBroker;
let base: string;

before(async () => {
  broker = new UserscriptBroker(() => TOKEN);
  server = createServer((req, res) => {
    if (!broker.handle(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/userscript/${TOKEN}`;
});

after(async () => {
  broker.close();
  server.closeAllConnections();
  await new Promise(resolve => server.close(resolve));
});

async function post(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const r = await fetch(url, { method: 'POST', body: body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

/** A companion played by the test: one channel of tab `target`. */
class RawTab {
  conn = '';
  received: unknown[] = [];
  closed: { code: number; reason: string } | undefined;
  private polling = true;
  constructor(readonly target: string) {}

  async open(): Promise<this> {
    this.conn = (await post(`${base}/${this.target}/open`)).json.conn;
    void this.pollLoop();
    return this;
  }

  async send(...frames: unknown[]): Promise<any> {
    return (await post(`${base}/${this.target}/${this.conn}/send`, frames)).json;
  }

  async hello(instanceId: string, meta = { url: 'http://127.0.0.1/x', title: 'X' }): Promise<unknown[]> {
    await this.send(['tabwright-userscript', 1, 0, instanceId, meta]);
    return await this.next(f => f[0] === 'welcome');
  }

  /** Waits for a frame that `match` accepts (received before or after the call). */
  async next(match: (f: any[]) => boolean, ms = 5000): Promise<any[]> {
    const deadline = Date.now() + ms;
    for (;;) {
      const at = this.received.findIndex(f => match(f as any[]));
      if (at >= 0) return this.received.splice(at, 1)[0] as any[];
      if (Date.now() > deadline) throw new Error(`no such frame within ${ms} ms; got ${JSON.stringify(this.received)}, closed ${JSON.stringify(this.closed)}`);
      await new Promise(resolve => setTimeout(resolve, 20));
    }
  }

  stop(): void {
    this.polling = false;
  }

  private async pollLoop(): Promise<void> {
    while (this.polling && !this.closed) {
      const answer = (await post(`${base}/${this.target}/${this.conn}/poll`).catch(() => undefined))?.json;
      if (!answer) return;
      this.received.push(...answer.frames);
      if (answer.close) this.closed = answer.close;
    }
  }
}

const limits = (extra: Partial<Parameters<UserscriptBroker['call']>[3]> = {}) => ({ timeoutMs: 5000, maxBytes: 16 * 1024, ...extra });

async function rejects(promise: Promise<unknown>, type: string): Promise<ToolError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ToolError, `expected a ToolError ${type}, got ${String(error)}`);
  assert.equal(error.type, type);
  return error;
}

describe('the handshake', () => {
  test('a hello gets welcome with revision 1; a reconnect of the same document keeps it; another document is +1', async () => {
    const a = await new RawTab('t-rev').open();
    assert.deepEqual(await a.hello('doc-1'), ['welcome', 't-rev', 'doc-1', 1]);
    assert.deepEqual(broker.tabs().find(t => t.target === 't-rev'), { target: 't-rev', instanceId: 'doc-1', revision: 1, url: 'http://127.0.0.1/x', title: 'X' });
    const again = await new RawTab('t-rev').open();
    assert.deepEqual(await again.hello('doc-1'), ['welcome', 't-rev', 'doc-1', 1]);
    await until(() => a.closed?.code === 4000);
    const next = await new RawTab('t-rev').open();
    assert.deepEqual(await next.hello('doc-2', { url: 'http://127.0.0.1/y', title: 'Y' }), ['welcome', 't-rev', 'doc-2', 2]);
    assert.equal(broker.tabs().find(t => t.target === 't-rev')?.revision, 2);
    for (const t of [a, again, next]) t.stop();
  });

  test('a channel with no hello is not a tab, and is closed with 1008 after 15 s', { timeout: 25_000 }, async () => {
    const silent = await new RawTab('t-silent').open();
    await new Promise(resolve => setTimeout(resolve, 1000));
    assert.equal(broker.tabs().some(t => t.target === 't-silent'), false);
    const started = Date.now();
    await until(() => silent.closed !== undefined, 20_000);
    assert.equal(silent.closed?.code, 1008);
    assert.ok(Date.now() - started > 12_000, 'closed at the deadline, not before');
  });

  test('a malformed frame closes the channel with 1002, before and after the hello', async () => {
    const before = await new RawTab('t-bad1').open();
    assert.deepEqual(await before.send(['hello?']), { close: { code: 1002, reason: 'the first frame must be a hello' } });
    const afterHello = await new RawTab('t-bad2').open();
    await afterHello.hello('d');
    assert.equal((await afterHello.send(['reply', 'one', true, 1])).close.code, 1002);
    await until(() => afterHello.closed?.code === 1002);
    const notJson = await new RawTab('t-bad3').open();
    assert.equal((await post(`${base}/t-bad3/${notJson.conn}/send`, '{not json')).json.close.code, 1002);
  });

  test('a wrong token, a web page Origin or a foreign Host is refused', async () => {
    assert.equal((await post(`${base.replace(TOKEN, 'B'.repeat(43))}/t/open`)).status, 403);
    assert.equal((await post(`${base}/t/open`, undefined, { origin: 'http://evil.example' })).status, 403);
    assert.equal((await post(`${base}/t/open`, undefined, { origin: 'null' })).status, 403);
    assert.equal((await post(`${base}/%E0%A4%A/open`)).status, 404, 'a target that is not valid percent-encoding');
    assert.equal((await post(`${base}/t/open`, undefined, { origin: 'moz-extension://1234' })).status, 200);
    const port = new URL(base).port;
    const r = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: `/userscript/${TOKEN}/t/open`, method: 'POST', headers: { host: `evil.example:${port}` } }, res => resolve(res.statusCode ?? 0));
      req.on('error', reject);
      req.end();
    }).catch(async () => 0);
    assert.equal(r, 403);
  });
});

describe('calls', () => {
  test('execute: the reply resolves the call; a guard naming the old document fails with revision_mismatch', async () => {
    const tab = await new RawTab('t-call').open();
    await tab.hello('doc-a');
    const call = broker.call('t-call', 'execute', { code: '1 + 1' }, limits());
    const frame = await tab.next(f => f[0] === 'call');
    assert.deepEqual(frame.slice(2), ['execute', { code: '1 + 1', max_bytes: 16 * 1024 }]);
    await tab.send(['reply', frame[1], true, 2]);
    assert.equal(await call, 2);
    const next = await new RawTab('t-call').open();
    await next.hello('doc-b');
    await rejects(broker.call('t-call', 'execute', { code: '1' }, limits({ instanceId: 'doc-a' })), 'revision_mismatch');
    await rejects(broker.call('t-call', 'execute', { code: '1' }, limits({ revision: 1 })), 'revision_mismatch');
    tab.stop();
    next.stop();
  });

  test('cancel sends cancel; a late reply after it is ignored, and the next call is answered by its own reply', async () => {
    const tab = await new RawTab('t-cancel').open();
    await tab.hello('doc');
    const abort = new AbortController();
    const call = broker.call('t-cancel', 'execute', { code: 'slow()' }, limits({ signal: abort.signal }));
    const frame = await tab.next(f => f[0] === 'call');
    abort.abort();
    await rejects(call, 'cancelled');
    assert.deepEqual(await tab.next(f => f[0] === 'cancel'), ['cancel', frame[1]]);
    assert.deepEqual(await tab.send(['reply', frame[1], true, 'late']), { ok: true });
    const second = broker.call('t-cancel', 'execute', { code: 'fast()' }, limits());
    const frame2 = await tab.next(f => f[0] === 'call');
    await tab.send(['reply', frame[1], true, 'late again'], ['reply', frame2[1], true, 'mine']);
    assert.equal(await second, 'mine');
    tab.stop();
  });

  test('a timeout fails with timeout and sends cancel; an error reply is evaluation_failed; an oversized one result_too_large', async () => {
    const tab = await new RawTab('t-limits').open();
    await tab.hello('doc');
    await rejects(broker.call('t-limits', 'execute', { code: 'x' }, limits({ timeoutMs: 300 })), 'timeout');
    const timedOut = await tab.next(f => f[0] === 'call');
    assert.deepEqual(await tab.next(f => f[0] === 'cancel'), ['cancel', timedOut[1]]);
    const failing = rejects(broker.call('t-limits', 'execute', { code: 'x' }, limits()), 'evaluation_failed');
    let frame = await tab.next(f => f[0] === 'call' && f[3].code === 'x');
    await tab.send(['reply', frame[1], false, 'ReferenceError: x is not defined']);
    assert.match((await failing).message, /ReferenceError/);
    const big = rejects(broker.call('t-limits', 'execute', { code: 'big' }, limits({ maxBytes: 1024 })), 'result_too_large');
    frame = await tab.next(f => f[0] === 'call' && f[3].code === 'big');
    await tab.send(['reply', frame[1], true, 'x'.repeat(2000)]);
    await big;
    const said = rejects(broker.call('t-limits', 'execute', { code: 'big2' }, limits({ maxBytes: 1024 })), 'result_too_large');
    frame = await tab.next(f => f[0] === 'call' && f[3].code === 'big2');
    await tab.send(['reply', frame[1], false, 'result_too_large: 5000 bytes of JSON, over max_bytes 1024']);
    await said;
    tab.stop();
  });

  test('a disconnect fails the calls in flight with browser_disconnected; the identity is kept for the next hello', async () => {
    const tab = await new RawTab('t-drop').open();
    await tab.hello('doc');
    const failed = rejects(broker.call('t-drop', 'execute', { code: '1' }, limits()), 'browser_disconnected');
    await tab.next(f => f[0] === 'call');
    const replacement = await new RawTab('t-drop').open();
    await replacement.hello('doc');
    await failed;
    assert.equal(broker.tabs().find(t => t.target === 't-drop')?.revision, 1);
    tab.stop();
    replacement.stop();
  });

  test('quit forgets the tab at once', async () => {
    const tab = await new RawTab('t-quit').open();
    await tab.hello('doc');
    assert.ok(broker.tabs().some(t => t.target === 't-quit'));
    await tab.send(['quit']);
    assert.equal(broker.tabs().some(t => t.target === 't-quit'), false);
    await rejects(broker.call('t-quit', 'execute', { code: '1' }, limits()), 'tab_not_found');
  });
});

describe('navigate mode', () => {
  test('ready, then proceed; a new document completes it with the next revision', async () => {
    const tab = await new RawTab('t-nav').open();
    await tab.hello('doc-1');
    const nav = broker.navigate('t-nav', 'location.href = "/next"', limits());
    const frame = await tab.next(f => f[0] === 'call');
    assert.equal(frame[2], 'navigate');
    await tab.send(['ready', frame[1]]);
    assert.deepEqual(await tab.next(f => f[0] === 'proceed'), ['proceed', frame[1]]);
    await assert.rejects(() => broker.navigate('t-nav', 'x', limits()), (e: ToolError) => e.type === 'conflict');
    tab.stop();
    const next = await new RawTab('t-nav').open();
    await next.hello('doc-2', { url: 'http://127.0.0.1/next', title: 'Next' });
    assert.deepEqual(await nav, { navigation: 'document', revision: 2, instanceId: 'doc-2', url: 'http://127.0.0.1/next', title: 'Next' });
    next.stop();
  });

  test('a same-document navigation completes it; nothing observed answers navigation "timeout" with what is known', async () => {
    const tab = await new RawTab('t-nav2').open();
    await tab.hello('doc-1');
    const nav = broker.navigate('t-nav2', 'history.pushState(null, "", "#a")', limits());
    let frame = await tab.next(f => f[0] === 'call');
    await tab.send(['ready', frame[1]]);
    await tab.next(f => f[0] === 'proceed');
    await tab.send(['reply', frame[1], true, null], ['navigated', frame[1], { url: 'http://127.0.0.1/x#a', title: 'X' }]);
    assert.deepEqual(await nav, { navigation: 'same-document', revision: 1, instanceId: 'doc-1', url: 'http://127.0.0.1/x#a', title: 'X', value: null });
    const idle = broker.navigate('t-nav2', 'void 0', limits({ timeoutMs: 500 }));
    frame = await tab.next(f => f[0] === 'call');
    await tab.send(['ready', frame[1]]);
    const outcome = await idle;
    assert.equal(outcome.navigation, 'timeout');
    assert.equal(outcome.revision, 1);
    assert.match(outcome.reason!, /no new document/);
    tab.stop();
  });
});

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise(resolve => setTimeout(resolve, 20));
  }
}
