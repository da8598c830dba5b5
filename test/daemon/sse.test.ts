// SSE backpressure and the stream cap: progress streams as SSE with
// backpressure (docs/daemon.md "Streaming"), on a real loopback socket:
// while the client does not read, the writer waits for 'drain' instead of
// buffering (at most one frame past Node's high-water mark is queued in the
// process); once the client reads, every event arrives, in order. A frame
// that would pass the byte cap is not written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, get, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SseStream } from '../../src/daemon/sse.js';
import { until } from '../fixtures/harness.js';

test('a reader that stops reading makes the writer wait; nothing is lost or reordered', async () => {
  const COUNT = 400;
  const payload = 'x'.repeat(64 * 1024);
  let res!: ServerResponse;
  let resolved = 0;
  let results: boolean[] = [];
  let sending!: Promise<void>;
  const server = createServer((_req, r) => {
    res = r;
    const stream = new SseStream(r, 32 * 1024 * 1024, 0);
    sending = (async () => {
      const all: Promise<boolean>[] = [];
      for (let i = 0; i < COUNT; i++) {
        // The producer awaits each send, as the daemon's progress hook does.
        const sent = await stream.send('progress', { done: i, message: payload });
        all.push(Promise.resolve(sent));
        resolved++;
      }
      results = await Promise.all(all);
      stream.close();
    })();
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const received: number[] = [];
  let buffer = '';
  const client = get({ host: '127.0.0.1', port, path: '/' });
  const response = await new Promise<import('node:http').IncomingMessage>(r => client.on('response', r));
  response.pause();
  response.setEncoding('utf8');
  await until('the writer to wait for drain', () => res?.writableNeedDrain === true);
  // Blocked: far from done, and the process holds at most one frame beyond the high-water mark.
  assert.ok(resolved < COUNT, `resolved ${resolved}`);
  assert.ok(res.writableLength <= res.writableHighWaterMark + payload.length + 1024, `buffered ${res.writableLength}`);
  response.on('data', (chunk: string) => {
    buffer += chunk;
    let at: number;
    while ((at = buffer.indexOf('\n\n')) >= 0) {
      const data = /^data: (.*)$/m.exec(buffer.slice(0, at))![1]!;
      buffer = buffer.slice(at + 2);
      received.push((JSON.parse(data) as { done: number }).done);
    }
  });
  response.resume();
  await new Promise(r => response.on('end', r));
  await sending;
  assert.equal(results.length, COUNT);
  assert.ok(results.every(Boolean));
  assert.deepEqual(received, Array.from({ length: COUNT }, (_, i) => i));
  server.close();
});

test('a frame that would pass the stream cap is not written', async () => {
  let sent: boolean[] = [];
  const server = createServer(async (_req, r) => {
    const stream = new SseStream(r, 1000, 0);
    sent = [await stream.send('progress', { message: 'a'.repeat(500) }), await stream.send('progress', { message: 'b'.repeat(500) }), await stream.send('result', { ok: 1 })];
    stream.close();
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const text = await new Promise<string>(resolve => get({ host: '127.0.0.1', port, path: '/' }, res => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', c => (body += c));
    res.on('end', () => resolve(body));
  }));
  assert.deepEqual(sent, [true, false, true]);
  assert.equal(text, `${SseStream.frame('progress', { message: 'a'.repeat(500) })}${SseStream.frame('result', { ok: 1 })}`);
  server.close();
});
