// The consent gate asking through every surface at once (src/consent/gate.ts, src/consent/hub.ts): the hub (what the
// dashboard and `tabwright consent answer` answer through) races the caller's channel; the first answer wins, the
// others are withdrawn; the audit log names the surface that answered; the wait's wording names the dashboard.
// In process: the gate with a real hub, config and audit file; the caller's channels are small PromptChannels
// that answer when the test says (the end-to-end runs with real clients are in test/dashboard/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnsweredElsewhere, ConsentPending, type ConsentAnswer, type ConsentQuestion, type PromptChannel } from '../../src/consent/channel.js';
import { consentGate, type ConsentWaiting, type GateCall } from '../../src/consent/gate.js';
import { ConsentHub } from '../../src/consent/hub.js';
import { readOverrides } from '../../src/consent/overrides.js';
import type { Config } from '../../src/config.js';
import { ToolError } from '../../src/errors.js';
import { waitingAdvice, waitingPhrase, waitingProgress } from '../../src/tools/waiting.js';

const URL_ = 'http://127.0.0.1:19682/';

function setup(timeoutMs = 30_000) {
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-hub-'));
  const config = { configDir: dir, dataDir: dir, consent: { timeoutMs, terminal: false } } as unknown as Config;
  const progress: string[] = [];
  const waits: Array<ConsentWaiting | undefined> = [];
  const call = (prompt?: PromptChannel, era?: 'legacy' | 'modern'): GateCall => ({
    config, signal: new AbortController().signal, client: { era }, prompt,
    progress: async (_d, _t, message) => void progress.push(message ?? ''),
    waiting: w => void waits.push(w),
  });
  const audit = () => readFileSync(join(dir, 'consent-audit.jsonl'), 'utf8').trim().split('\n').map(l => JSON.parse(l) as Record<string, unknown>);
  return { dir, config, call, progress, waits, audit, done: () => rmSync(dir, { recursive: true, force: true }) };
}

const gated = { origin: 'http://127.0.0.1:8080', name: 'buy', annotations: {}, source: 'native' as const, description: 'Buys it', tabId: 3, arguments: { sku: 'a1' } };

/** A caller's channel the test answers by hand; it remembers why it was withdrawn. */
function manual(name: PromptChannel['name']) {
  let answer!: (a: ConsentAnswer) => void;
  let fail!: (e: unknown) => void;
  const seen: { question?: ConsentQuestion; withdrawn?: unknown } = {};
  const channel: PromptChannel = {
    name,
    ask: (question, signal) => new Promise<ConsentAnswer>((resolve, reject) => {
      seen.question = question;
      answer = resolve;
      fail = reject;
      signal.addEventListener('abort', () => {
        seen.withdrawn = signal.reason;
        reject(signal.reason);
      }, { once: true });
    }),
  };
  return { channel, seen, answer: (a: ConsentAnswer) => answer(a), fail: (e: unknown) => fail(e) };
}

async function until<T>(probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise(r => setTimeout(r, 5));
  }
  throw new Error('never happened');
}

test('with no caller channel the hub asks alone; its answer lets the call through and the audit names the dashboard', async () => {
  const s = setup();
  const hub = new ConsentHub();
  const detach = hub.attach({ url: URL_ });
  try {
    const gate = consentGate(s.call(), gated, hub);
    const prompt = await until(() => hub.list()[0]);
    assert.equal(prompt.question.tool, 'buy');
    assert.equal(prompt.question.tabId, 3);
    assert.match(prompt.id, /^[0-9a-f]{32}$/);
    assert.deepEqual(prompt.alsoAskedBy, []);
    assert.equal(hub.answer(prompt.id, 'once', 'dashboard'), true);
    assert.deepEqual(await gate, { channel: 'dashboard', answer: 'once' });
    assert.equal(hub.answer(prompt.id, 'once', 'dashboard'), false, 'a prompt is answered once');
    assert.deepEqual(hub.list(), []);
    const last = s.audit().at(-1)!;
    assert.deepEqual([last.decision, last.channel, last.answer, last.tool], ['allowed', 'dashboard', 'once', 'buy']);
    // The wait named the dashboard: in the progress message, the pending phrase and the advice.
    const wait = s.waits.find(w => w)!;
    assert.deepEqual([wait.askedIn, wait.dashboardUrl], [['dashboard'], URL_]);
    assert.match(s.progress[0]!, /^Waiting for the user to allow buy \(\d+ s left\); answer in the tabwright dashboard: http:\/\/127\.0\.0\.1:19682\/$/);
    assert.match(waitingProgress('call_webmcp_tool', wait), /answer in the tabwright dashboard: http:\/\/127\.0\.0\.1:19682\/$/);
    assert.match(waitingPhrase('call_webmcp_tool', wait), /shown in the tabwright dashboard \(http:\/\/127\.0\.0\.1:19682\/\) \(it expires in \d+ s\)$/);
    assert.match(waitingAdvice(wait)!, /answer it in the tabwright dashboard at http:\/\/127\.0\.0\.1:19682\/ \(`tabwright dashboard` prints the address with its key\)/);
  } finally {
    detach();
    s.done();
  }
});

test('the hub and the caller\'s channel ask at once: a dashboard answer withdraws the channel\'s question', async () => {
  const s = setup();
  const hub = new ConsentHub();
  const detach = hub.attach({ url: URL_ });
  const terminal = manual('terminal');
  try {
    const gate = consentGate(s.call(terminal.channel), gated, hub);
    const prompt = await until(() => hub.list()[0]);
    assert.deepEqual(prompt.alsoAskedBy, ['terminal']);
    assert.ok(terminal.seen.question, 'the terminal was asked too');
    hub.answer(prompt.id, 'never', 'consent_cli');
    const error = await gate.then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ToolError && error.type === 'consent_denied', String(error));
    assert.ok(terminal.seen.withdrawn instanceof AnsweredElsewhere);
    assert.equal((terminal.seen.withdrawn as AnsweredElsewhere).by, 'consent_cli');
    assert.match((terminal.seen.withdrawn as AnsweredElsewhere).message, /answered through `tabwright consent answer`/);
    // "always deny" was saved as an override; the audit names the CLI surface.
    assert.deepEqual(readOverrides(s.dir).map(o => [o.tool, o.permission]), [['buy', 'deny']]);
    assert.deepEqual([s.audit().at(-1)!.channel, s.audit().at(-1)!.answer], ['consent_cli', 'never']);
    // The progress names the terminal and the dashboard (no MCP client asks: the URL is in the message).
    assert.deepEqual(s.waits.find(w => w)!.askedIn, ['terminal', 'dashboard']);
    assert.match(s.progress[0]!, /answer in the tabwright dashboard/);
  } finally {
    detach();
    s.done();
  }
});

test('the caller\'s channel answering first withdraws the hub\'s prompt; an elicitation wait does not add the URL to progress', async () => {
  const s = setup();
  const hub = new ConsentHub();
  const detach = hub.attach({ url: URL_ });
  const elicitation = manual('elicitation');
  let changes = 0;
  hub.on('change', () => changes++);
  try {
    const gate = consentGate(s.call(elicitation.channel, 'legacy'), gated, hub);
    await until(() => hub.list()[0]);
    elicitation.answer('once');
    assert.deepEqual(await gate, { channel: 'elicitation', answer: 'once' });
    assert.deepEqual(hub.list(), [], 'the hub\'s prompt is withdrawn');
    assert.equal(changes, 2, 'added, then withdrawn');
    assert.match(s.progress[0]!, /^Waiting for the user to allow buy \(\d+ s left\)$/);
    assert.match(waitingPhrase('call_webmcp_tool', s.waits.find(w => w)), /shown in the MCP client and the tabwright dashboard \(http:\/\/127\.0\.0\.1:19682\/\)/);
  } finally {
    detach();
    s.done();
  }
});

test('a channel that fails leaves the hub asking; expiry withdraws every question and is audited', async () => {
  const s = setup(400);
  const hub = new ConsentHub();
  const detach = hub.attach({ url: URL_ });
  const follower = manual('elicitation');
  try {
    const gate = consentGate(s.call(follower.channel, 'legacy'), gated, hub);
    await until(() => hub.list()[0]);
    follower.fail(new ToolError('consent_unavailable', 'The follower could not ask its user.', 'Retry the call.'));
    const error = await gate.then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ToolError && error.type === 'consent_expired', String(error));
    assert.deepEqual(hub.list(), []);
    assert.deepEqual([s.audit().at(-1)!.decision, s.audit().at(-1)!.channel], ['expired', 'elicitation']);
  } finally {
    detach();
    s.done();
  }
});

test('without a surface attached and no channel the call fails at once with consent_unavailable naming the dashboard', async () => {
  const s = setup();
  const hub = new ConsentHub();
  try {
    const error = await consentGate(s.call(), gated, hub).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ToolError && error.type === 'consent_unavailable', String(error));
    assert.match(error.message, /no dashboard runs \(TABWRIGHT_DASHBOARD_PORT=off\)/);
    assert.deepEqual(hub.list(), []);
    // Detached surfaces stop counting.
    hub.attach({ url: URL_ })();
    assert.equal(hub.available, false);
  } finally {
    s.done();
  }
});

test('a channel that asks only in the call\'s result (2026-07-28) asks alone: the hub never shows its question', async () => {
  const s = setup();
  const hub = new ConsentHub();
  const detach = hub.attach({ url: URL_ });
  const inResult: PromptChannel = { name: 'elicitation', inResult: true, ask: () => Promise.reject(new ConsentPending()) };
  let changes = 0;
  hub.on('change', () => changes++);
  try {
    const error = await consentGate(s.call(inResult, 'modern'), gated, hub).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ConsentPending);
    assert.equal(changes, 0);
    assert.deepEqual(s.progress, [], 'nothing waits: nothing to report');
  } finally {
    detach();
    s.done();
  }
});
