// The bounded waits of src/util/wait.ts: raceTimeout (a promise against a
// timer and/or an AbortSignal) and pollUntil. Real timers, short delays; no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pollUntil, raceTimeout, sleep } from '../../src/util/wait.js';

const later = <T>(ms: number, value: T) => new Promise<T>(resolve => setTimeout(() => resolve(value), ms));
const failLater = (ms: number, error: Error) => new Promise<never>((_, reject) => setTimeout(() => reject(error), ms));
const never = () => new Promise<never>(() => undefined);

test('raceTimeout: the promise first gives its value or its error', async () => {
  assert.equal(await raceTimeout(later(5, 'v'), { ms: 1_000, onTimeout: 'undefined' }), 'v');
  assert.equal(await raceTimeout(later(5, 'v'), { ms: 1_000, onTimeout: () => new Error('late') }), 'v');
  const own = new Error('own');
  await assert.rejects(raceTimeout(failLater(5, own), { ms: 1_000, onTimeout: () => new Error('late') }), error => error === own);
  await assert.rejects(raceTimeout(failLater(5, own), { ms: 1_000, onTimeout: 'undefined' }), error => error === own);
});

test('raceTimeout: the timer first resolves undefined or rejects with the factory\'s error', async () => {
  const started = Date.now();
  assert.equal(await raceTimeout(never(), { ms: 30, onTimeout: 'undefined' }), undefined);
  assert.ok(Date.now() - started >= 25, 'waited about ms');
  const timeout = new Error('timed out');
  await assert.rejects(raceTimeout(never(), { ms: 10, onTimeout: () => timeout }), error => error === timeout);
  // 0 and negative durations time out at once; an infinite one sets no timer.
  assert.equal(await raceTimeout(never(), { ms: -5, onTimeout: 'undefined' }), undefined);
  assert.equal(await raceTimeout(later(20, 'v'), { ms: Infinity, onTimeout: () => timeout }), 'v');
});

test('raceTimeout: a promise that rejects after the timeout is handled (no unhandled rejection)', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    assert.equal(await raceTimeout(failLater(20, new Error('late failure')), { ms: 5, onTimeout: 'undefined' }), undefined);
    await sleep(40);
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('raceTimeout: an abort rejects with onAbort() or the signal\'s reason; an aborted signal at once', async () => {
  const controller = new AbortController();
  const cancelled = new Error('cancelled');
  const waiting = raceTimeout(never(), { ms: 1_000, signal: controller.signal, onTimeout: () => new Error('late'), onAbort: () => cancelled });
  setTimeout(() => controller.abort(new Error('reason')), 5);
  await assert.rejects(waiting, error => error === cancelled);
  const reason = new Error('the reason');
  const other = new AbortController();
  other.abort(reason);
  const started = Date.now();
  await assert.rejects(raceTimeout(later(200, 'v'), { signal: other.signal }), error => error === reason);
  assert.ok(Date.now() - started < 150, 'an aborted signal does not wait');
});

test('raceTimeout: a settled race leaves no abort listener behind', async () => {
  const controller = new AbortController();
  let added = 0;
  let removed = 0;
  const signal = controller.signal;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => (added++, add(...args))) as AbortSignal['addEventListener'];
  signal.removeEventListener = ((...args: Parameters<AbortSignal['removeEventListener']>) => (removed++, remove(...args))) as AbortSignal['removeEventListener'];
  assert.equal(await raceTimeout(later(5, 'a'), { signal }), 'a');
  assert.equal(await raceTimeout(never(), { ms: 5, signal, onTimeout: 'undefined' }), undefined);
  assert.deepEqual({ added, removed }, { added: 2, removed: 2 });
  controller.abort(); // nobody listens any more: nothing throws
});

test('sleep: waits ms; an abort rejects with the reason', async () => {
  const started = Date.now();
  await sleep(30);
  assert.ok(Date.now() - started >= 25);
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('stop')), 5);
  await assert.rejects(sleep(1_000, controller.signal), /stop/);
});

test('pollUntil: resolves the first truthy value, probing at once and then every intervalMs', async () => {
  let calls = 0;
  const started = Date.now();
  assert.equal(await pollUntil(() => (++calls >= 3 ? `after ${calls}` : undefined), { ms: 1_000, intervalMs: 10 }), 'after 3');
  assert.equal(calls, 3);
  assert.ok(Date.now() - started >= 18, 'two pauses between three probes');
  let first = 0;
  assert.equal(await pollUntil(() => ++first, { ms: 0, intervalMs: 1_000 }), 1, 'a probe true at once returns at once');
  assert.equal(await pollUntil(async () => later(5, { ok: true }), { ms: 100, intervalMs: 10 }).then(v => v?.ok), true, 'async probes');
});

test('pollUntil: undefined once the deadline passed, the last probe at or after it', async () => {
  const times: number[] = [];
  const started = Date.now();
  assert.equal(await pollUntil(() => {
    times.push(Date.now() - started);
    return false;
  }, { ms: 50, intervalMs: 15 }), undefined);
  assert.ok(times.length >= 2 && times.length <= 6, `probed ${times.length} times`);
  assert.ok(times.at(-1)! >= 50, `last probe at ${times.at(-1)} ms`);
  assert.ok(times.at(-2)! < 60, `only one probe after the deadline (the one before at ${times.at(-2)} ms)`);
});

test('pollUntil: a probe that throws ends the polling with its error; an abort with the reason', async () => {
  let calls = 0;
  await assert.rejects(pollUntil(() => {
    if (++calls === 2) throw new Error('probe broke');
    return false;
  }, { ms: 1_000, intervalMs: 5 }), /probe broke/);
  assert.equal(calls, 2);
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('aborted')), 20);
  await assert.rejects(pollUntil(() => false, { ms: 10_000, intervalMs: 5, signal: controller.signal }), /aborted/);
});
