// The bookkeeping of PendingCalls (src/dispatch/pending.ts) in process, with
// bounds shortened through its constructor: nothing grows without bound (at
// most maxCalls kept, unclaimed outcomes dropped after keepMs), an outcome is
// delivered to one waiter only, shutdown aborts the calls still running; and
// the heartbeat's pace and the progress values it sends. The end-to-end
// behaviour over stdio with a real browser is test/tools/pending.test.ts; the
// calls here are a Dispatcher whose calls end when the test says, so the
// bounds can be driven exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallWatch, heartbeatMs, HEARTBEAT_MAX_MS } from '../../src/dispatch/callWatch.js';
import type { CallHooks, Dispatcher } from '../../src/dispatch/dispatcher.js';
import { PendingCalls } from '../../src/dispatch/pending.js';
import { resolveConfig } from '../../src/config.js';
import { ToolError } from '../../src/errors.js';
import { ToolResponse, type ToolResult } from '../../src/tools/response.js';

/** Calls that end when `finish(i)` is called, with the text `done <i>`; their signals are kept. */
class ManualDispatcher implements Dispatcher {
  readonly signals: AbortSignal[] = [];
  private readonly ends: Array<() => void> = [];
  call(_tool: string, _args: unknown, hooks: CallHooks): Promise<ToolResult> {
    const i = this.signals.length;
    this.signals.push(hooks.signal);
    return new Promise(resolve => this.ends.push(() => resolve(new ToolResponse().text(`done ${i}`).build())));
  }
  finish(i: number): void {
    this.ends[i]!();
  }
  async close(): Promise<void> {}
}

const hooks = (): CallHooks => ({ signal: new AbortController().signal, client: {}, progress: async () => undefined });
const MAX_WAIT = 30;

async function pendingId(calls: PendingCalls, d: Dispatcher): Promise<string> {
  const res = await calls.call(d, 'execute', {}, hooks(), MAX_WAIT);
  const fields = res.structuredContent as { pending?: boolean; callId?: string };
  assert.equal(fields.pending, true, JSON.stringify(res));
  return fields.callId!;
}

function errorType(res: ToolResult): string | undefined {
  return (res.structuredContent as { error?: { type: string } } | undefined)?.error?.type;
}

test('at most maxCalls are kept: a full registry drops the oldest ended outcome, and with all running the next call just waits', async () => {
  const d = new ManualDispatcher();
  const calls = new PendingCalls({ keepMs: 60_000, maxCalls: 2 });
  const a = await pendingId(calls, d);
  const b = await pendingId(calls, d);
  assert.equal(calls.size, 2);
  // All kept calls run: the third one keeps its caller waiting for the real result.
  const third = calls.call(d, 'execute', {}, hooks(), MAX_WAIT);
  await new Promise(resolve => setTimeout(resolve, MAX_WAIT * 3));
  d.finish(2);
  assert.deepEqual((await third).content, [{ type: 'text', text: 'done 2' }]);
  assert.equal(calls.size, 2);
  d.finish(0); // a ended, unclaimed
  await new Promise(resolve => setImmediate(resolve));
  const c = await pendingId(calls, d);
  assert.equal(calls.size, 2);
  assert.equal(errorType(await calls.call(d, 'wait_for_call', { callId: a }, hooks(), MAX_WAIT)), 'call_not_found', 'the oldest ended outcome was dropped');
  d.finish(1);
  d.finish(3);
  assert.deepEqual((await calls.call(d, 'wait_for_call', { callId: b }, hooks(), MAX_WAIT)).content, [{ type: 'text', text: 'done 1' }]);
  assert.deepEqual((await calls.call(d, 'wait_for_call', { callId: c }, hooks(), MAX_WAIT)).content, [{ type: 'text', text: 'done 3' }]);
  assert.equal(calls.size, 0);
});

test('an unclaimed outcome is dropped keepMs after its call ended', async () => {
  const d = new ManualDispatcher();
  const calls = new PendingCalls({ keepMs: 100, maxCalls: 8 });
  const id = await pendingId(calls, d);
  await new Promise(resolve => setTimeout(resolve, 200));
  assert.equal(calls.size, 1, 'a running call is kept past keepMs');
  d.finish(0);
  await new Promise(resolve => setTimeout(resolve, 200));
  assert.equal(calls.size, 0);
  assert.equal(errorType(await calls.call(d, 'wait_for_call', { callId: id }, hooks(), MAX_WAIT)), 'call_not_found');
});

test('two waiters at once: one gets the outcome, the other call_not_found', async () => {
  const d = new ManualDispatcher();
  const calls = new PendingCalls();
  const id = await pendingId(calls, d);
  const first = calls.call(d, 'wait_for_call', { callId: id, timeoutSec: 5 }, hooks(), 10_000);
  const second = calls.call(d, 'wait_for_call', { callId: id, timeoutSec: 5 }, hooks(), 10_000);
  d.finish(0);
  const results = await Promise.all([first, second]);
  assert.deepEqual(results.map(r => errorType(r) ?? (r.content[0] as { text: string }).text).sort(), ['call_not_found', 'done 0']);
});

test('close() aborts the calls still running; invalid wait_for_call arguments are invalid_arguments', async () => {
  const d = new ManualDispatcher();
  const calls = new PendingCalls();
  await pendingId(calls, d);
  assert.equal(d.signals[0]!.aborted, false);
  calls.close();
  assert.equal(d.signals[0]!.aborted, true);
  assert.equal(calls.size, 0);
  assert.equal(errorType(await calls.call(d, 'wait_for_call', { callId: 7 }, hooks(), MAX_WAIT)), 'invalid_arguments');
});

test('the heartbeat: 8 s, or half a shorter max-wait; values only increase; a tool\'s own report resets it', async () => {
  assert.equal(heartbeatMs(45_000), HEARTBEAT_MAX_MS);
  assert.equal(HEARTBEAT_MAX_MS, 8_000);
  assert.equal(heartbeatMs(2_000), 1_000);
  assert.equal(heartbeatMs(0), HEARTBEAT_MAX_MS);
  const sent: Array<{ done: number; total?: number; message?: string; at: number }> = [];
  const watch = new CallWatch('execute');
  const started = Date.now();
  watch.listen(async (done, total, message) => void sent.push({ done, total, message, at: Date.now() - started }), 100);
  await watch.progress(0, 4, 'validate');
  await watch.progress(0, 4, 'again'); // not above the last value: raised
  await new Promise(resolve => setTimeout(resolve, 250));
  watch.setWaiting({ kind: 'execute', tabId: 3 });
  await new Promise(resolve => setTimeout(resolve, 150));
  watch.close();
  const count = sent.length;
  await new Promise(resolve => setTimeout(resolve, 250));
  assert.equal(sent.length, count, 'a closed watch sends nothing');
  assert.deepEqual(sent.slice(0, 2).map(s => [s.done, s.total, s.message]), [[0, 4, 'validate'], [1, 4, 'again']]);
  const beats = sent.slice(2);
  assert.ok(beats.length >= 3, JSON.stringify(sent));
  assert.deepEqual(beats.map(b => b.done), beats.map((_, i) => i + 2));
  assert.match(beats[0]!.message!, /^execute is running \(0 s\)$/);
  assert.match(beats.at(-1)!.message!, /^execute is running in tab 3 \(\d+ s\)$/);
  // One interval after the last notification, whoever sent it: never sooner, never much later.
  assert.ok(beats[0]!.at - sent[1]!.at >= 95, `first heartbeat ${beats[0]!.at - sent[1]!.at} ms after the tool's report`);
  for (let i = 1; i < sent.length; i++) assert.ok(sent[i]!.at - sent[i - 1]!.at < 100 + 150, `gap ${sent[i]!.at - sent[i - 1]!.at} ms`);
});

test('--max-wait / TABWRIGHT_MAX_WAIT: seconds, default 45, flag over env, 0 = every call waits for its outcome', async () => {
  assert.equal(resolveConfig({}, {}).maxWaitMs, 45_000);
  assert.equal(resolveConfig({}, { TABWRIGHT_MAX_WAIT: '2.5' }).maxWaitMs, 2_500);
  assert.equal(resolveConfig({ maxWait: '10' }, { TABWRIGHT_MAX_WAIT: '2' }).maxWaitMs, 10_000);
  for (const bad of ['', 'soon', '-1', '3601']) {
    assert.throws(() => resolveConfig({ maxWait: bad }, {}), (e: unknown) => e instanceof ToolError && e.type === 'invalid_arguments', bad);
  }
  const d = new ManualDispatcher();
  const calls = new PendingCalls();
  const res = calls.call(d, 'execute', {}, hooks(), resolveConfig({ maxWait: '0' }, {}).maxWaitMs);
  await new Promise(resolve => setTimeout(resolve, 100));
  d.finish(0);
  assert.deepEqual((await res).content, [{ type: 'text', text: 'done 0' }]);
  assert.equal(calls.size, 0);
});
