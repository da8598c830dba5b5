// Pending calls (docs/pending.md), end to end over
// stdio with a short max-wait (--max-wait 2): a page tool, a long execute, a
// declarative form waiting for its submit and a consent prompt answered late
// all answer pending within the max-wait, with text that names the callId
// and the next call; wait_for_call returns the real outcome once (then
// call_not_found), answers pending again when its own wait runs out (capped
// at the max-wait), and abandons a call with cancel: true (the page tool's
// signal aborts). Progress arrives while a call runs, while a form waits and
// while wait_for_call waits; at the default max-wait the heartbeat keeps
// gaps under 10 s. Cancelling the original request after it answered
// pending does nothing. On a 2026-07-28 connection the consent question
// still rides input_required, and the retry's long call goes pending.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client, ElicitResult } from '@modelcontextprotocol/client';
import { LENSES, seenBy } from '../fixtures/clientLens.js';
import { useServer } from '../fixtures/harness.js';
import { call, callRaw, connect, evaluate, type RawResult, serverArgs, unlessConnection } from '../fixtures/mcp.js';
import { RawSession } from '../fixtures/raw.js';

/** The max-wait of the test servers, in seconds; their heartbeat is then half of it. */
const MAX_WAIT = 2;

interface Pending {
  pending: true;
  callId: string;
  tool: string;
  elapsedSec: number;
  waitingFor: { kind: string; tool?: string; origin?: string; tabId?: number; text: string };
}

const PAGE = `<!doctype html><title>Slow shop</title><h1>Slow shop</h1>
<form id="ask" toolname="ask" tooldescription="Ask the shop a question"
  onsubmit="event.preventDefault(); if (event.respondWith) event.respondWith(Promise.resolve('asked: ' + this.q.value))">
  <label>Question <input name="q"></label><button>Send</button>
</form>
<script>
  window.log = { started: 0, aborted: 0, buys: 0 };
  const mc = document.modelContext;
  mc.registerTool({
    name: 'sleep', description: 'Sleeps for ms milliseconds', annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
    execute: async ({ ms }, { signal } = {}) => {
      log.started++;
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        signal?.addEventListener('abort', () => { log.aborted++; clearTimeout(timer); reject(new DOMException('stopped', 'AbortError')); });
      });
      return { content: [{ type: 'text', text: 'slept ' + ms }] };
    },
  });
  mc.registerTool({
    name: 'buy', description: 'Buy an item', annotations: { consequentialHint: true },
    inputSchema: { type: 'object', properties: { item: { type: 'string' } } },
    execute: async ({ item }) => { log.buys++; await new Promise(r => setTimeout(r, Number(new URL(location.href).searchParams.get('buyMs') || 0))); return { content: [{ type: 'text', text: 'bought ' + item }] }; },
  });
</script>`;

/** The human at the client: answers consent questions from a queue, each after a delay. */
const answers: Array<{ decision: string; delayMs: number }> = [];
const asked: string[] = [];
async function human(params: { message: string }): Promise<ElicitResult> {
  asked.push(params.message);
  const next = answers.shift();
  if (!next) return { action: 'decline' };
  await new Promise(resolve => setTimeout(resolve, next.delayMs));
  return { action: 'accept', content: { decision: next.decision } };
}

let tabId: number;

/** With the extension connected, consent questions go to its consent window, not to this file's elicitation handler. */
const ASKS_ELSEWHERE = unlessConnection(['extension'], 'with the extension connected, the consent question goes to its consent window, not to elicitation (test/extension/consent.test.ts)');

const tw = useServer({
  args: ['--max-wait', String(MAX_WAIT), '--webmcp', 'polyfill'], elicit: human, env: { TABWRIGHT_CONSENT_TTY: '0' },
  setup: async tw => {
    tw.site.page('/shop', PAGE);
    // The polyfill passes the page's execute an AbortSignal on every Chromium (native WebMCP does from Chromium 156 on,
    // docs/webmcp.md "Cancellation"), which the cancel test reads back. The other servers here use native WebMCP.
    tabId = (await settled<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.site.origin}/shop` })).tabId;
  },
});

/** The fields of a call's outcome, waiting it out when it answers pending (a cold browser start takes longer than 2 s). */
async function settled<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const first = await callRaw(client, name, args);
  const pending = (first.structuredContent as { pending?: boolean; callId?: string } | undefined);
  const res = pending?.pending ? await outcomeOf(client, pending.callId!, 10) : first;
  assert.equal(res.isError, undefined, JSON.stringify(res));
  return res.structuredContent as T;
}

/** A call that must answer pending: its fields, its text as a content-only client's model reads it, and how long it took. */
async function pendingCall(client: Client, name: string, args: Record<string, unknown>, opts?: { onprogress?: (p: { progress: number; message?: string }) => void }): Promise<{ p: Pending; text: string; ms: number; raw: RawResult }> {
  const started = Date.now();
  const raw = await client.callTool({ name, arguments: args }, opts) as RawResult;
  const ms = Date.now() - started;
  assert.equal(raw.isError, undefined, JSON.stringify(raw));
  const p = raw.structuredContent as unknown as Pending;
  assert.equal(p.pending, true, `${name} did not answer pending: ${JSON.stringify(raw)}`);
  return { p, text: seenBy('cursor', raw).text, ms, raw };
}

/** Asserts what every pending text must tell the model: that it is pending, the callId and the exact next call. */
function assertTellsNextCall(text: string, p: Pending): void {
  assert.match(text, new RegExp(`^Pending: ${p.tool} is still running after \\d+ s, waiting for `));
  assert.ok(text.includes(`callId: ${p.callId}`), text);
  assert.ok(text.includes(`Next call: wait_for_call {"callId":"${p.callId}"}`), text);
  assert.ok(text.includes(`wait_for_call {"callId":"${p.callId}","cancel":true}`), text);
}

/**
 * Every client's model reads the callId and the next call from a pending result: as sent (this suite runs in
 * structured mode) and as the default mode sends it (the same content, no structuredContent: src/mcp/clientResult.ts).
 */
function assertEveryLensReads(raw: RawResult, p: Pending): void {
  for (const result of [raw, { content: raw.content }]) {
    for (const lens of LENSES) {
      const text = seenBy(lens, result).text;
      const label = `${lens} (${result === raw ? 'structured' : 'default'})`;
      assert.ok(text.includes(p.callId), `${label} does not read the callId:\n${text}`);
      assert.match(text, /wait_for_call \{\\?"callId\\?":\\?"/, `${label} does not read the next call:\n${text}`);
      assert.match(text, /Pending: /, label);
    }
  }
}

/** wait_for_call until the call's outcome comes back (at most `rounds` pending answers first). */
async function outcomeOf(client: Client, callId: string, rounds = 3): Promise<RawResult> {
  for (let i = 0; ; i++) {
    const res = await callRaw(client, 'wait_for_call', { callId });
    if ((res.structuredContent as { pending?: boolean } | undefined)?.pending !== true) return res;
    assert.ok(i < rounds, `still pending after ${rounds + 1} wait_for_call rounds`);
    assert.equal((res.structuredContent as unknown as Pending).callId, callId);
  }
}

async function callNotFound(client: Client, callId: string): Promise<void> {
  const again = await callRaw(client, 'wait_for_call', { callId });
  assert.equal(again.isError, true);
  assert.equal((again.structuredContent as { error: { type: string } }).error.type, 'call_not_found');
  const text = seenBy('cursor', again).text;
  assert.match(text, /^Error \[call_not_found\]: Call ".+" is not a pending call of this server\.\nHint: .*returned once/);
}

test('a page tool that runs longer than max-wait answers pending within it; wait_for_call returns its real result once', async () => {
  const direct = await callRaw(tw.client, 'call_webmcp_tool', { tabId, name: 'sleep', arguments: { ms: 10 } });
  const { p, text, ms, raw } = await pendingCall(tw.client, 'call_webmcp_tool', { tabId, name: 'sleep', arguments: { ms: 3500 } });
  assertEveryLensReads(raw, p);
  assert.ok(ms >= MAX_WAIT * 1000 - 100 && ms < MAX_WAIT * 1000 + 1000, `answered after ${ms} ms`);
  assert.equal(p.tool, 'call_webmcp_tool');
  assert.deepEqual({ ...p.waitingFor, text: undefined }, { kind: 'page_tool', tool: 'sleep', origin: tw.origin, tabId, text: undefined });
  assertTellsNextCall(text, p);
  assert.ok(text.includes(`waiting for WebMCP tool "sleep" of ${tw.origin} (tab ${tabId}) to finish`), text);
  assert.ok(text.includes('do not call call_webmcp_tool again for this'), text);

  const outcome = await outcomeOf(tw.client, p.callId);
  assert.equal(outcome.isError, undefined);
  // The same result the call gives when it fits in the max-wait: same text shape, same fields.
  assert.equal(seenBy('cursor', outcome).text, 'slept 3500');
  assert.equal(seenBy('cursor', direct).text, 'slept 10');
  assert.deepEqual(Object.keys(outcome.structuredContent!).sort(), Object.keys(direct.structuredContent!).sort());
  assert.deepEqual(outcome.structuredContent!.result, { content: [{ type: 'text', text: 'slept 3500' }] });
  await callNotFound(tw.client, p.callId);
  assert.equal(await evaluate(tw.client, 'log.started', tabId), 2);
});

test('a wait_for_call that runs out answers pending again with the same callId; timeoutSec is capped at max-wait', async () => {
  const { p } = await pendingCall(tw.client, 'call_webmcp_tool', { tabId, name: 'sleep', arguments: { ms: 5500 } });
  let started = Date.now();
  const short = await pendingCall(tw.client, 'wait_for_call', { callId: p.callId, timeoutSec: 0.5 });
  assert.ok(Date.now() - started < 1500, `timeoutSec 0.5 waited ${Date.now() - started} ms`);
  assert.equal(short.p.callId, p.callId);
  assert.equal(short.p.tool, 'call_webmcp_tool');
  assertTellsNextCall(short.text, short.p);
  started = Date.now();
  const capped = await pendingCall(tw.client, 'wait_for_call', { callId: p.callId, timeoutSec: 120 });
  const waited = Date.now() - started;
  assert.ok(waited >= MAX_WAIT * 1000 - 100 && waited < MAX_WAIT * 1000 + 1000, `timeoutSec 120 waited ${waited} ms, not the ${MAX_WAIT} s max-wait`);
  assert.equal(capped.p.callId, p.callId);
  const outcome = await outcomeOf(tw.client, p.callId);
  assert.equal(seenBy('cursor', outcome).text, 'slept 5500');
});

test('wait_for_call {cancel: true} aborts the page tool\'s signal; the outcome is the cancellation, then the callId is gone', async () => {
  const before = await evaluate<number>(tw.client, 'log.aborted', tabId);
  const { p } = await pendingCall(tw.client, 'call_webmcp_tool', { tabId, name: 'sleep', arguments: { ms: 120_000 }, timeoutSec: 300 });
  const res = await callRaw(tw.client, 'wait_for_call', { callId: p.callId, cancel: true });
  assert.equal(res.isError, true, JSON.stringify(res));
  assert.equal((res.structuredContent as { error: { type: string } }).error.type, 'cancelled');
  assert.match(seenBy('cursor', res).text, /^Error \[cancelled\]: /);
  const end = Date.now() + 10_000;
  while ((await evaluate<number>(tw.client, 'log.aborted', tabId)) < before + 1) {
    assert.ok(Date.now() < end, 'the page tool\'s signal was never aborted');
    await new Promise(resolve => setTimeout(resolve, 100));
  }
  await callNotFound(tw.client, p.callId);
});

test('a long execute answers pending, and wait_for_call returns its value', async () => {
  const { p, text } = await pendingCall(tw.client, 'execute', { tabId, code: 'await new Promise(r => setTimeout(r, 3000)); return 6 * 7' });
  assert.equal(p.tool, 'execute');
  assert.equal(p.waitingFor.kind, 'execute');
  assert.equal(p.waitingFor.tabId, tabId);
  assertTellsNextCall(text, p);
  assert.ok(text.includes(`waiting for the code given to execute in tab ${tabId} to finish`), text);
  const outcome = await outcomeOf(tw.client, p.callId);
  assert.equal((outcome.structuredContent as { value: number }).value, 42);
  assert.equal(seenBy('cursor', outcome).text, '42');
});

test('a declarative form waiting for its submit: pending says so; progress arrives while it waits and while wait_for_call waits', ASKS_ELSEWHERE, async () => {
  answers.push({ decision: 'once', delayMs: 0 }); // a form is not read-only: the human allows it at once
  const ticks: Array<{ at: number; message?: string }> = [];
  const started = Date.now();
  const { p, text } = await pendingCall(tw.client, 'call_webmcp_tool', { tabId, name: 'ask', arguments: { q: 'why' }, timeoutSec: 60 }, { onprogress: t => ticks.push({ at: Date.now(), message: t.message }) });
  assert.equal(p.waitingFor.kind, 'form_submit');
  assertTellsNextCall(text, p);
  assert.ok(text.includes(`waiting for the person at the browser to submit the declarative form "ask" of ${tw.origin} (tab ${tabId})`), text);
  assert.ok(text.includes('Tell the user the form is filled in and waits for them to submit it in the browser.'), text);
  // The heartbeat: half the max-wait (1 s) after the call started, before it answered pending.
  assert.ok(ticks.length >= 1, `no progress while the form waited: ${JSON.stringify(ticks)}`);
  assert.ok(ticks[0]!.at - started <= MAX_WAIT * 500 + 700, `first progress after ${ticks[0]!.at - started} ms`);
  assert.match(ticks.at(-1)!.message ?? '', /^(Waiting for the person at the browser to submit the form "ask"|WebMCP tool "ask" is running) \(\d+ s\)$/);
  assert.equal(await evaluate(tw.client, 'document.querySelector("[name=q]").value', tabId), 'why');

  // wait_for_call hears the call's progress; the person submits while it waits.
  const waiting: Array<{ at: number; message?: string }> = [];
  const waitStarted = Date.now();
  const submit = new Promise(resolve => setTimeout(resolve, 1500)).then(() => evaluate(tw.client, 'document.querySelector("#ask").requestSubmit(); true', tabId));
  const outcome = await tw.client.callTool({ name: 'wait_for_call', arguments: { callId: p.callId } }, { onprogress: t => waiting.push({ at: Date.now(), message: t.message }) }) as RawResult;
  await submit;
  assert.equal(outcome.isError, undefined, JSON.stringify(outcome));
  assert.equal((outcome.structuredContent as { pending?: boolean }).pending, undefined, JSON.stringify(outcome));
  assert.match(seenBy('cursor', outcome).text, /asked: why/);
  assert.ok(waiting.length >= 1, 'no progress while wait_for_call waited');
  assert.ok(waiting[0]!.at - waitStarted <= MAX_WAIT * 500 + 700, `first progress of wait_for_call after ${waiting[0]!.at - waitStarted} ms`);
  assert.match(waiting[0]!.message ?? '', /^Waiting for the person at the browser to submit the form "ask" \(\d+ s\)$/);
});

test('a consent prompt answered after the call went pending: the answer reaches the gate, and wait_for_call returns the outcome', ASKS_ELSEWHERE, async () => {
  const buysBefore = await evaluate<number>(tw.client, 'log.buys', tabId);
  answers.push({ decision: 'once', delayMs: 3500 });
  const { p, text, ms } = await pendingCall(tw.client, 'call_webmcp_tool', { tabId, name: 'buy', arguments: { item: 'tea' } });
  assert.ok(ms < MAX_WAIT * 1000 + 1000, `answered after ${ms} ms`);
  assert.deepEqual({ kind: p.waitingFor.kind, tool: p.waitingFor.tool, origin: p.waitingFor.origin, tabId: p.waitingFor.tabId }, { kind: 'consent', tool: 'buy', origin: tw.origin, tabId });
  assertTellsNextCall(text, p);
  assert.ok(text.includes(`waiting for the user's answer to the consent prompt for WebMCP tool "buy" of ${tw.origin} (tab ${tabId})`), text);
  assert.ok(text.includes('Tell the user a consent prompt is waiting for their answer.'), text);
  assert.equal(await evaluate(tw.client, 'log.buys', tabId), buysBefore, 'the tool ran before the human answered');
  const outcome = await outcomeOf(tw.client, p.callId);
  assert.equal(outcome.isError, undefined, JSON.stringify(outcome));
  assert.equal(seenBy('cursor', outcome).text, 'bought tea');
  assert.equal(await evaluate(tw.client, 'log.buys', tabId), buysBefore + 1);
  assert.match(asked.at(-1)!, /WebMCP tool "buy"/);
  const audit = readFileSync(join(tw.dataDir, 'consent-audit.jsonl'), 'utf8').trim().split('\n').map(l => JSON.parse(l) as { tool: string; decision: string; channel: string; answer?: string });
  assert.deepEqual(audit.at(-1) && [audit.at(-1)!.tool, audit.at(-1)!.decision, audit.at(-1)!.channel, audit.at(-1)!.answer], ['buy', 'allowed', 'elicitation', 'once']);
});

test('cancelling the original request after it answered pending does nothing: the call goes on, its progress stops, wait_for_call gets the result', ASKS_ELSEWHERE, async () => {
  const raw = new RawSession(serverArgs(['--max-wait', String(MAX_WAIT)]), { env: { TABWRIGHT_WORKSPACE: tw.workspace, TABWRIGHT_CONFIG_DIR: join(tw.dataDir, 'raw-config'), TABWRIGHT_DATA_DIR: join(tw.dataDir, 'raw-data') } });
  try {
    await raw.initialize('2025-11-25');
    let nav = await raw.callTool('navigate', { url: `${tw.origin}/shop` });
    for (let i = 0; (nav.structuredContent as { pending?: boolean }).pending && i < 10; i++) nav = await raw.callTool('wait_for_call', { callId: (nav.structuredContent as { callId: string }).callId });
    const tab = nav.structuredContent as { tabId: number };
    await raw.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'call_webmcp_tool', arguments: { tabId: tab.tabId, name: 'sleep', arguments: { ms: 3500 } }, _meta: { progressToken: 'tok' } } })}\n`);
    const answered = await raw.response('slow');
    const p = (answered.result as { structuredContent: Pending }).structuredContent;
    assert.equal(p.pending, true);
    const linesAtPending = raw.lines.length;
    await raw.notify('notifications/cancelled', { requestId: 'slow', reason: 'the client gave up' });
    // wait_for_call waits at most the max-wait: on a loaded machine the 3.5 s call may outlast the first one (pending again, same callId).
    let outcome = await raw.callTool('wait_for_call', { callId: p.callId });
    for (let i = 0; (outcome.structuredContent as { pending?: boolean }).pending && i < 10; i++) {
      assert.equal((outcome.structuredContent as { callId: string }).callId, p.callId);
      outcome = await raw.callTool('wait_for_call', { callId: p.callId });
    }
    assert.equal(outcome.isError, undefined, JSON.stringify(outcome));
    assert.deepEqual((outcome.structuredContent as { result: unknown }).result, { content: [{ type: 'text', text: 'slept 3500' }] });
    const late = raw.lines.slice(linesAtPending).map(l => JSON.parse(l) as { method?: string; params?: { progressToken?: string } });
    assert.deepEqual(late.filter(m => m.method === 'notifications/progress' && m.params?.progressToken === 'tok'), [], 'progress for the answered request');
    const log = await raw.callTool('execute', { tabId: tab.tabId, code: 'log' });
    assert.deepEqual((log.structuredContent as { value: { started: number; aborted: number } }).value, { started: 1, aborted: 0, buys: 0 });
  } finally {
    await raw.close();
  }
});

test('2026-07-28: the consent question still rides input_required; the retry\'s long call goes pending and wait_for_call returns it', ASKS_ELSEWHERE, async () => {
  const modern = await connect({ mode: 'auto', args: ['--max-wait', String(MAX_WAIT)], elicit: human, env: { TABWRIGHT_CONSENT_TTY: '0' } });
  try {
    assert.equal(modern.client.getProtocolEra(), 'modern');
    const tab = (await settled<{ tabId: number }>(modern.client, 'navigate', { url: `${tw.origin}/shop?buyMs=3000` })).tabId;
    const askedBefore = asked.length;
    // The human answers after more than the max-wait: nothing waits on the server meanwhile, so nothing goes pending.
    answers.push({ decision: 'once', delayMs: MAX_WAIT * 1000 + 500 });
    const { p, text } = await pendingCall(modern.client, 'call_webmcp_tool', { tabId: tab, name: 'buy', arguments: { item: 'pen' } });
    assert.equal(asked.length, askedBefore + 1);
    assert.equal(p.waitingFor.kind, 'page_tool');
    assertTellsNextCall(text, p);
    const outcome = await outcomeOf(modern.client, p.callId);
    assert.equal(seenBy('cursor', outcome).text, 'bought pen');
    assert.equal(await evaluate(modern.client, 'log.buys', tab), 1);
  } finally {
    await modern.close();
  }
});

test('at the default max-wait (45 s) a long call hears progress at least every 10 s', async () => {
  const plain = await connect({ env: { TABWRIGHT_CONSENT_TTY: '0' } });
  try {
    const tab = (await call<{ tabId: number }>(plain.client, 'navigate', { url: `${tw.origin}/shop` })).tabId;
    const ticks: number[] = [];
    const started = Date.now();
    const res = await plain.client.callTool({ name: 'call_webmcp_tool', arguments: { tabId: tab, name: 'sleep', arguments: { ms: 9000 } } }, { onprogress: () => ticks.push(Date.now()) }) as RawResult;
    const ended = Date.now();
    assert.equal(seenBy('cursor', res).text, 'slept 9000');
    assert.ok(ticks.length >= 1, 'no progress during a 9 s call');
    const gaps = [started, ...ticks, ended].slice(1).map((t, i) => t - [started, ...ticks][i]!);
    assert.ok(Math.max(...gaps) <= 10_000, `gaps ${gaps.join(', ')} ms`);
  } finally {
    await plain.close();
  }
});
