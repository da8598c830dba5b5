/**
 * The stdio transport's bounds (docs/mcp.md, "The stream"; src/mcp/stdioLimits.ts):
 * oversized and malformed input is answered and skipped without holding it, with
 * the connection kept open; `Content-Length` frames are read (and answered in kind);
 * 8 requests run at once, 8 more wait, the rest are told the server is busy, and a
 * cancellation frees a slot; a client that stops reading stops the server reading;
 * an oversized response becomes a small result_too_large.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { FrameReader, leadingId, type FrameError } from '../../src/mcp/frameReader.js';
import { RequestGate, type Message } from '../../src/mcp/requestGate.js';
import { serializeCapped } from '../../src/mcp/responseCap.js';
import { MAX_ACTIVE_REQUESTS, MAX_REQUEST_BYTES, MAX_RESPONSE_BYTES, MAX_WAITING_REQUESTS, maxResponseBytes } from '../../src/mcp/stdioLimits.js';
import { ROOT, serverArgs } from '../fixtures/mcp.js';
import { RawSession, type JsonRpcMessage } from '../fixtures/raw.js';

/** A FrameReader whose sink records what it got. */
function reader(limits?: { header: number; request: number }) {
  const messages: string[] = [];
  const rejected: Array<{ id: string | number | null; error: FrameError }> = [];
  const r = new FrameReader({ message: b => messages.push(b.toString('utf8')), reject: (id, error) => rejected.push({ id, error }), full: () => false }, limits);
  const feed = (...chunks: string[]) => chunks.forEach(c => r.write(Buffer.from(c), () => undefined));
  return { r, messages, rejected, feed };
}

test('leadingId reads a top-level id from the start of a message, and nothing else', () => {
  assert.equal(leadingId('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"'), 7);
  assert.equal(leadingId('{"id":"a\\"b","method"'), 'a"b');
  assert.equal(leadingId('{"method":"tools/call","params":{"id":5,"a":[1,{"id":6}]},"id":9}'), 9);
  assert.equal(leadingId('{"method":"x","params":{"id":5,"big":"xxxx'), null, 'a nested id is not the message id');
  assert.equal(leadingId('{"jsonrpc":"2.0","id":12'), null, 'a number cut at the end may be longer');
  assert.equal(leadingId('[{"id":1}]'), null);
  assert.equal(leadingId('not json'), null);
});

test('FrameReader: newline lines, Content-Length frames, and every rejection', () => {
  const { r, messages, rejected, feed } = reader({ header: 64, request: 100 });
  feed('{"a":1}\n', '  \r\n{"b":', '2}\r\n', 'Content-Length: 7\r\n\r\n{"c":3}', 'content-length:  8 \nContent-Type: application/json\n\n{"d":\n4}\n');
  assert.deepEqual(messages, ['{"a":1}', '{"b":2}\r', '{"c":3}', '{"d":\n4}']);
  assert.equal(r.framing, 'newline', 'the first message sets the framing');
  assert.deepEqual(rejected, []);
  // A line over the limit, split across chunks: answered with its id, skipped, and the next line read.
  feed(`{"jsonrpc":"2.0","id":"big","p":"${'x'.repeat(60)}`, `${'y'.repeat(60)}"}\n{"e":5}\n`);
  assert.equal(messages.at(-1), '{"e":5}');
  assert.equal(rejected.length, 1);
  assert.equal(rejected[0]!.id, 'big');
  assert.equal(rejected[0]!.error.code, -32600);
  assert.deepEqual(rejected[0]!.error.data, { type: 'request_too_large', bytes: 155, limit: 100 });
  // A declared body over the limit is answered once its start is read, and counted off without being stored.
  feed('Content-Length: 1000\r\n\r\n{"id":3,', 'x'.repeat(992), '{"f":6}\n');
  assert.equal(messages.at(-1), '{"f":6}');
  assert.equal(rejected[1]!.id, 3);
  assert.deepEqual(rejected[1]!.error.data, { type: 'request_too_large', bytes: 1000, limit: 100 });
  // Malformed framing: a line that is neither JSON nor a header, a header block over the limit,
  // no Content-Length, a bad Content-Length. Each is answered with id null; reading goes on.
  feed('hello world\n', `X-Pad: ${'p'.repeat(100)}\n`, 'Content-Type: x\r\n\r\n', 'Content-Length: -3\r\n', '{"g":7}\n');
  assert.equal(messages.at(-1), '{"g":7}');
  assert.deepEqual(rejected.slice(2).map(x => [x.id, x.error.code, x.error.data?.type]), [
    [null, -32700, undefined],
    [null, -32700, 'header_too_large'],
    [null, -32600, undefined],
    [null, -32600, undefined],
  ]);
});

test('FrameReader stops reading while the sink is full and goes on from the same byte', () => {
  let isFull = false;
  const messages: string[] = [];
  let done = 0;
  const r = new FrameReader({ message: b => ((messages.push(b.toString()), (isFull = true))), reject: () => undefined, full: () => isFull });
  r.write(Buffer.from('{"a":1}\n{"b":2}\n{"c":3}\n'), () => done++);
  assert.deepEqual(messages, ['{"a":1}']);
  assert.equal(r.isPaused, true);
  assert.equal(done, 0, 'the chunk is not consumed while reading is stopped');
  isFull = false;
  r.resume();
  assert.deepEqual(messages, ['{"a":1}', '{"b":2}']);
  isFull = false;
  r.resume();
  isFull = false;
  r.resume();
  assert.deepEqual(messages, ['{"a":1}', '{"b":2}', '{"c":3}']);
  assert.equal(done, 1);
});

test('RequestGate: 8 active, 8 waiting, then busy; an answer or a cancellation frees a slot', () => {
  const delivered: unknown[] = [];
  const rejected: Array<{ id: unknown; error: FrameError }> = [];
  const gate = new RequestGate(m => delivered.push(m.id ?? m.method), (id, error) => rejected.push({ id, error }));
  const req = (id: number): Message => ({ jsonrpc: '2.0', id, method: 'tools/call', params: {} });
  for (let i = 1; i <= MAX_ACTIVE_REQUESTS + MAX_WAITING_REQUESTS + 2; i++) gate.admit(req(i));
  assert.deepEqual(delivered, [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.equal(gate.waitingCount, MAX_WAITING_REQUESTS);
  assert.deepEqual(rejected.map(r => [r.id, r.error.code, r.error.data]), [
    [17, -32000, { type: 'server_busy', limit: 8, waitingLimit: 8 }],
    [18, -32000, { type: 'server_busy', limit: 8, waitingLimit: 8 }],
  ]);
  assert.equal(gate.answered(3), 'tools/call');
  assert.deepEqual(delivered.slice(8), [9]);
  gate.admit({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } });
  assert.deepEqual(delivered.slice(9), ['notifications/cancelled', 10], 'the cancellation reaches the SDK and frees the slot');
  gate.admit({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 12 } });
  assert.equal(delivered.length, 11, 'a waiting request that is cancelled is dropped unseen');
  assert.equal(gate.waitingCount, 5);
  assert.equal(gate.answered(99), undefined);
  assert.equal(gate.activeCount, 8);
});

test('serializeCapped: a response over 32 MiB becomes a small result_too_large with the same id', () => {
  assert.equal(maxResponseBytes({}), MAX_RESPONSE_BYTES);
  assert.equal(maxResponseBytes({ TABWRIGHT_STDIO_MAX_RESPONSE_BYTES: '1000' }), 1000);
  assert.equal(maxResponseBytes({ TABWRIGHT_STDIO_MAX_RESPONSE_BYTES: String(MAX_RESPONSE_BYTES * 2) }), MAX_RESPONSE_BYTES, 'never raised');
  const big = 'x'.repeat(MAX_RESPONSE_BYTES);
  const tool = serializeCapped({ jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: big }] } }, 'tools/call', MAX_RESPONSE_BYTES)!;
  assert.ok(tool.json.length < 2000, tool.json);
  const parsed = JSON.parse(tool.json) as { id: number; result: { isError: boolean; content: Array<{ text: string }>; structuredContent: { error: { type: string; bytes: number } } } };
  assert.equal(parsed.id, 4);
  assert.equal(parsed.result.isError, true);
  assert.match(parsed.result.content[0]!.text, /^Error \[result_too_large\]: The response is 33554\d{3} bytes, over the stdio transport's 33554432-byte \(32 MiB\) limit/);
  assert.equal(parsed.result.structuredContent.error.type, 'result_too_large');
  const other = JSON.parse(serializeCapped({ jsonrpc: '2.0', id: 'r', result: { contents: [{ text: big }] } }, 'resources/read', MAX_RESPONSE_BYTES)!.json) as JsonRpcMessage;
  assert.equal(other.id, 'r');
  assert.equal(other.error!.code, -32603);
  assert.equal((other.error!.data as { type: string }).type, 'result_too_large');
  assert.equal(serializeCapped({ jsonrpc: '2.0', method: 'notifications/message', params: { data: big } }, undefined, MAX_RESPONSE_BYTES), undefined, 'a notification is dropped');
  const small = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'é'.repeat(1000) }] } };
  assert.deepEqual(serializeCapped(small, 'tools/call', MAX_RESPONSE_BYTES), { json: JSON.stringify(small) });
});

/** The server's resident memory, in bytes (Linux /proc). */
function rss(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
  return Number(kb) * 1024;
}

test('an oversized or malformed line is answered and skipped; the server stays up without holding it', async () => {
  const raw = new RawSession(serverArgs());
  try {
    await raw.initialize('2025-06-18');
    // Over 4 MiB by one byte, with its id at the start: answered with that id.
    const hugeLine = `{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"execute","arguments":{"code":"${'x'.repeat(MAX_REQUEST_BYTES)}"}}}`;
    await raw.write(`${hugeLine}\n`);
    const huge = await raw.response('huge');
    assert.equal(huge.error?.code, -32600, JSON.stringify(huge));
    assert.deepEqual(huge.error?.data, { type: 'request_too_large', bytes: hugeLine.length, limit: MAX_REQUEST_BYTES });
    // 50 MiB with no newline until the end, in 1 MiB writes: counted through, not held.
    const before = rss(raw.pid);
    let peak = before;
    await raw.write('{"jsonrpc":"2.0","method":"x","params":{"pad":"');
    for (let i = 0; i < 50; i++) {
      await raw.write('y'.repeat(1024 * 1024));
      peak = Math.max(peak, rss(raw.pid));
    }
    await raw.write('"}}\n{"jsonrpc":"2.0","id":"after","method":"tools/list"}\n');
    const after = await raw.response('after');
    assert.ok(Array.isArray(after.result?.tools), JSON.stringify(after).slice(0, 300));
    assert.ok(peak - before < 30 * 1024 * 1024, `RSS grew by ${peak - before} bytes while a 50 MiB line went by`);
    const tooBig = raw.lines.map(l => JSON.parse(l) as JsonRpcMessage).filter(m => (m.error?.data as { type?: string })?.type === 'request_too_large');
    assert.deepEqual(tooBig.map(m => m.id), ['huge', null]);
    // Garbage and a JSON line that is no JSON-RPC message: answered with errors; the connection goes on.
    await raw.write('hello world\n{"broken": \n[1,2]\n');
    const ping = await raw.request('ping');
    assert.deepEqual(ping.result, {});
    const errors = raw.lines.map(l => JSON.parse(l) as JsonRpcMessage | JsonRpcMessage[]).filter(m => !Array.isArray(m) && m.id === null && m.error).map(m => (m as JsonRpcMessage).error!.code);
    assert.deepEqual(errors.slice(1), [-32700, -32700], 'garbage and broken JSON are parse errors');
    assert.deepEqual(raw.batches.at(-1)!.map(m => m.error?.code), [-32600, -32600], 'a batch of non-messages: one Invalid Request each');
    assert.equal(raw.child.exitCode, null, 'the server is still running');
    assert.deepEqual(raw.junk, []);
  } finally {
    raw.kill('SIGKILL');
  }
});

/** A client speaking Content-Length frames, reading them back. */
function contentLengthClient() {
  const child = spawn(process.execPath, serverArgs(), { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let buf = Buffer.alloc(0);
  const got: JsonRpcMessage[] = [];
  const waiters: Array<() => void> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) break;
      const length = Number(/Content-Length: (\d+)/.exec(buf.subarray(0, end).toString())![1]);
      if (buf.length < end + 4 + length) break;
      got.push(JSON.parse(buf.subarray(end + 4, end + 4 + length).toString()) as JsonRpcMessage);
      buf = buf.subarray(end + 4 + length);
      waiters.splice(0).forEach(w => w());
    }
  });
  const send = (body: string) => new Promise<void>(resolve => child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`, () => resolve()));
  const response = async (id: unknown) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const found = got.find(m => m.id === id);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no response to ${String(id)}; got ${JSON.stringify(got).slice(0, 500)}; unparsed ${buf.toString().slice(0, 200)}`);
      await new Promise<void>(resolve => {
        waiters.push(resolve);
        setTimeout(resolve, 500);
      });
    }
  };
  return { child, send, response, got, rest: () => buf };
}

test('Content-Length frames are read and answered in kind; oversized or bad headers are answered and skipped', async () => {
  const c = contentLengthClient();
  try {
    await c.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lsp-style', version: '1' } } }));
    assert.equal((await c.response(1)).result?.protocolVersion, '2025-06-18');
    // Pretty-printed body (newlines inside the frame).
    await c.send('{\n  "jsonrpc": "2.0",\n  "method": "notifications/initialized"\n}');
    await c.send('{\n  "jsonrpc": "2.0",\n  "id": 2,\n  "method": "tools/list"\n}');
    assert.ok(Array.isArray((await c.response(2)).result?.tools));
    // A declared 1 GB body: answered once its start has arrived (it is never stored), with its id.
    c.child.stdin.write(`Content-Length: 1000000000\r\n\r\n{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"pad":"${'z'.repeat(9000)}`);
    const big = await c.response(3);
    assert.equal(big.error?.code, -32600);
    assert.deepEqual(big.error?.data, { type: 'request_too_large', bytes: 1_000_000_000, limit: MAX_REQUEST_BYTES });
    assert.equal(c.child.exitCode, null);
    c.child.kill('SIGKILL');

    // A fresh server: a header block over 8 KiB, then a good frame.
    const d = contentLengthClient();
    try {
      await d.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lsp-style', version: '1' } } }));
      await d.response(1);
      d.child.stdin.write(`X-Pad: ${'p'.repeat(9000)}\r\n`);
      await d.send('{"jsonrpc":"2.0","id":"next","method":"ping"}');
      assert.deepEqual((await d.response('next')).result, {});
      const header = d.got.find(m => m.id === null)!;
      assert.equal(header.error?.code, -32700);
      assert.deepEqual(header.error?.data, { type: 'header_too_large', limit: 8192 });
      assert.equal(d.rest().length, 0);
    } finally {
      d.child.kill('SIGKILL');
    }
  } finally {
    c.child.kill('SIGKILL');
  }
});

test('8 requests run at once, 8 wait, the rest are told the server is busy; a cancellation frees a slot', async () => {
  const raw = new RawSession(serverArgs());
  try {
    await raw.initialize('2025-06-18');
    const wait = (id: string, sec: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait_for', arguments: { timeSec: sec } } });
    // 8 long waits hold every slot; 8 pings wait behind them; 2 more are turned away.
    const longs = Array.from({ length: 8 }, (_, i) => `long${i}`);
    const pings = Array.from({ length: 10 }, (_, i) => `ping${i}`);
    await raw.write(`${longs.map(id => wait(id, 60)).join('\n')}\n${pings.map(id => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })).join('\n')}\n`);
    for (const id of ['ping8', 'ping9']) {
      const busy = await raw.response(id);
      assert.equal(busy.error?.code, -32000, JSON.stringify(busy));
      assert.deepEqual(busy.error?.data, { type: 'server_busy', limit: 8, waitingLimit: 8 });
    }
    // A waiting request that is cancelled is dropped; cancelling one long wait frees a slot, through which
    // every waiting ping then goes in turn.
    await raw.notify('notifications/cancelled', { requestId: 'ping3' });
    await raw.notify('notifications/cancelled', { requestId: 'long0' });
    for (const id of ['ping0', 'ping1', 'ping2', 'ping4', 'ping5', 'ping6', 'ping7']) assert.deepEqual((await raw.response(id, 30_000)).result, {});
    for (let i = 1; i < 8; i++) await raw.notify('notifications/cancelled', { requestId: `long${i}` });
    assert.deepEqual((await raw.request('tools/list')).result?.tools !== undefined, true);
    const ids = raw.lines.map(l => (JSON.parse(l) as JsonRpcMessage).id);
    assert.ok(!ids.includes('ping3'), 'a cancelled waiting request gets no response');
    assert.ok(!longs.some(id => ids.includes(id)), 'cancelled requests get no response');
  } finally {
    raw.kill('SIGKILL');
  }
});

test('a client that stops reading stdout stops the server reading stdin; nothing is lost once it reads again', async () => {
  const raw = new RawSession(serverArgs(), { env: { TABWRIGHT_LOG: 'debug' } });
  try {
    await raw.initialize('2025-06-18');
    raw.child.stdout.pause();
    // 400 tools/list, about 24 KB of response each: far more than the pipe holds.
    const ids = Array.from({ length: 400 }, (_, i) => `l${i}`);
    raw.child.stdin.write(ids.map(id => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' })).join('\n') + '\n');
    const deadline = Date.now() + 30_000;
    while (!/frames wait for the client to read stdout: not reading stdin/.test(raw.stderr)) {
      assert.ok(Date.now() < deadline, `the server never stopped reading; stderr:\n${raw.stderr.slice(-2000)}`);
      await new Promise(resolve => setTimeout(resolve, 100));
    }
    raw.child.stdout.resume();
    const answers = await Promise.all(ids.map(id => raw.response(id, 60_000)));
    for (const a of answers) assert.ok(Array.isArray(a.result?.tools) || a.error?.code === -32000, JSON.stringify(a).slice(0, 300));
    assert.ok(answers.filter(a => a.result).length >= 16, 'most were answered');
    assert.match(raw.stderr, /reading stdin again/);
    const counted = new Map<unknown, number>();
    for (const l of raw.lines) {
      const id = (JSON.parse(l) as JsonRpcMessage).id;
      counted.set(id, (counted.get(id) ?? 0) + 1);
    }
    assert.ok(ids.every(id => counted.get(id) === 1), 'each request answered exactly once');
  } finally {
    raw.kill('SIGKILL');
  }
});

test('a response over the (lowered) size limit becomes result_too_large; the next call works', async () => {
  const raw = new RawSession(serverArgs(), { env: { TABWRIGHT_STDIO_MAX_RESPONSE_BYTES: '10000' } });
  try {
    await raw.initialize('2025-06-18');
    const list = await raw.request('tools/list');
    assert.equal(list.error?.code, -32603, JSON.stringify(list).slice(0, 300));
    assert.equal((list.error?.data as { type: string }).type, 'result_too_large');
    const exec = await raw.callTool('execute', { code: "'x'.repeat(20000)", maxBytes: 100000 });
    assert.equal(exec.isError, true, JSON.stringify(exec).slice(0, 300));
    const text = (exec.content as Array<{ text: string }>)[0]!.text;
    assert.match(text, /^Error \[result_too_large\]: The response is \d+ bytes, over the stdio transport's 10000-byte/);
    assert.match(text, /Hint: .*the call did run/);
    const small = await raw.callTool('execute', { code: '1 + 1' });
    assert.notEqual(small.isError, true, JSON.stringify(small));
  } finally {
    raw.kill('SIGKILL');
  }
});
