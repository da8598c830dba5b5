// Consent for code (docs/policy.md, "Consent for code"): execute and add_element judged as tabwright's own tools,
// their default (allow), the rules that apply to them (source "tabwright" only), the three grants a prompt offers
// (this exact code on this origin, any code on this origin, any code on every origin) saved and matched in that
// order, kept apart from WebMCP tools of the same name, and overrides files of version 1 still read and migrated.
// In process: the gate with real files and a channel the test answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CODE_ANSWERS, parseTerminalAnswer, questionText, type ConsentAnswer, type ConsentQuestion, type PromptChannel } from '../../src/consent/channel.js';
import { codeHash } from '../../src/consent/codeGrant.js';
import { consentGate, savedAnswer, type GateCall, type GatedCall } from '../../src/consent/gate.js';
import { ConsentHub } from '../../src/consent/hub.js';
import { overridesPath, readOverrides, resetOverrides, saveOverride } from '../../src/consent/overrides.js';
import { ConsentPolicy, rulesPath, type ConsentSubject } from '../../src/consent/rules.js';
import type { Config } from '../../src/config.js';
import { ToolError } from '../../src/errors.js';
import { answerOf, requestedSchema } from '../../src/mcp/consentChannel.js';

const SHOP = 'https://shop.example.com';
const BLOG = 'https://blog.example.com';

function exec(origin: string, code: string): GatedCall {
  return { origin, name: 'execute', source: 'tabwright', builtin: true, codeHash: codeHash('execute', code), description: 'Runs JavaScript', tabId: 1, arguments: code };
}

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-code-'));
  const config = { configDir: dir, dataDir: dir, consent: { timeoutMs: 30_000, terminal: false } } as unknown as Config;
  const asked: ConsentQuestion[] = [];
  let next: ConsentAnswer = 'deny';
  const channel: PromptChannel = { name: 'elicitation', ask: async question => (asked.push(question), next) };
  const call: GateCall = { config, signal: new AbortController().signal, client: { era: 'legacy' }, prompt: channel, progress: async () => undefined };
  const gate = (gated: GatedCall, answer: ConsentAnswer = 'deny') => {
    next = answer;
    return consentGate(call, gated, new ConsentHub());
  };
  const prompting = () => writeFileSync(rulesPath(dir), JSON.stringify({ rules: [{ tool: 'execute', source: 'tabwright', permission: 'prompt' }] }));
  return { dir, asked, gate, prompting, done: () => rmSync(dir, { recursive: true, force: true }) };
}

test('codeHash: the code as it is for execute, the element in canonical JSON for add_element, the tool in it', () => {
  assert.match(codeHash('execute', 'document.title'), /^[0-9a-f]{64}$/);
  assert.notEqual(codeHash('execute', 'document.title'), codeHash('execute', 'document.title '));
  assert.notEqual(codeHash('execute', 'x'), codeHash('add_element', 'x'));
  assert.equal(
    codeHash('add_element', { tag: 'style', attributes: { id: 'a', media: 'all' }, properties: { textContent: 'a{}' } }),
    codeHash('add_element', { properties: { textContent: 'a{}' }, attributes: { media: 'all', id: 'a' }, tag: 'style' }));
  assert.notEqual(codeHash('add_element', { tag: 'style', attributes: {}, properties: { textContent: 'a{}' } }), codeHash('add_element', { tag: 'style', attributes: {}, properties: { textContent: 'b{}' } }));
});

test('resolve: a code tool is allowed by default, WebMCP rules do not reach it, a tabwright rule does', () => {
  const subject: ConsentSubject = exec(SHOP, '1');
  assert.deepEqual(new ConsentPolicy([], []).resolve(subject), { permission: 'allow', source: 'default' });
  // A catch-all rule about WebMCP tools (no source) leaves execute as it was, and a page tool named execute too.
  const catchAll = [{ origin: '*', permission: 'deny' as const }];
  assert.equal(new ConsentPolicy([], catchAll).resolve(subject).permission, 'allow');
  assert.equal(new ConsentPolicy([], catchAll).resolve({ origin: SHOP, name: 'execute', source: 'native' }).permission, 'deny');
  const rules = [{ tool: 'execute', source: 'tabwright' as const, origin: 'https://*.example.com', permission: 'prompt' as const }];
  assert.deepEqual(new ConsentPolicy([], rules).resolve(subject), { permission: 'prompt', source: 'rules', rule: 0 });
  assert.equal(new ConsentPolicy([], rules).resolve({ origin: SHOP, name: 'execute', source: 'native' }).permission, 'prompt', 'a page tool named execute keeps its own default');
  assert.equal(new ConsentPolicy([], rules).resolve({ origin: SHOP, name: 'execute', source: 'native', annotations: { readOnlyHint: true } }).permission, 'allow');
  assert.equal(new ConsentPolicy([], [], 'broken').resolve(subject).permission, 'prompt', 'a broken rules file never turns into a silent allow');
});

test('resolve: this code on this origin, then any code on this origin, then any code everywhere; WebMCP answers apart', () => {
  const at = '2026-01-01T00:00:00.000Z';
  const a = exec(SHOP, 'a');
  const overrides = [
    { origin: '*', tool: 'execute', builtin: true as const, permission: 'allow' as const, created: at },
    { origin: SHOP, tool: 'execute', builtin: true as const, permission: 'deny' as const, created: at },
    { origin: SHOP, tool: 'execute', builtin: true as const, codeHash: a.codeHash, permission: 'allow' as const, created: at },
    { origin: BLOG, tool: 'add_element', permission: 'allow' as const, created: at }, // a WebMCP tool named add_element
  ];
  const policy = new ConsentPolicy(overrides, [{ tool: '*', source: 'tabwright', permission: 'deny' }]);
  assert.equal(policy.resolve(a).permission, 'allow', 'this exact code');
  assert.equal(policy.resolve(exec(SHOP, 'b')).permission, 'deny', 'other code on this origin');
  assert.equal(policy.resolve(exec(BLOG, 'b')).permission, 'allow', 'any code everywhere');
  const element = { origin: BLOG, name: 'add_element', source: 'tabwright', builtin: true as const, codeHash: codeHash('add_element', {}) };
  assert.deepEqual(policy.resolve(element), { permission: 'deny', source: 'rules', rule: 0 }, 'the page tool\'s answer is not the code tool\'s');
  assert.equal(new ConsentPolicy([overrides[2]!], []).resolve({ origin: SHOP, name: 'execute', source: 'native' }).permission, 'prompt', 'the code tool\'s answer is not the page tool\'s');
});

test('savedAnswer: what each answer saves', () => {
  const g = exec(SHOP, 'a');
  assert.equal(savedAnswer(g, 'once'), undefined);
  assert.equal(savedAnswer(g, 'deny'), undefined);
  assert.deepEqual(savedAnswer(g, 'code'), { origin: SHOP, tool: 'execute', builtin: true, codeHash: g.codeHash, permission: 'allow' });
  assert.deepEqual(savedAnswer(g, 'always'), { origin: SHOP, tool: 'execute', builtin: true, permission: 'allow' });
  assert.deepEqual(savedAnswer(g, 'everywhere'), { origin: '*', tool: 'execute', builtin: true, permission: 'allow' });
  assert.deepEqual(savedAnswer(g, 'never'), { origin: SHOP, tool: 'execute', builtin: true, permission: 'deny' });
  assert.deepEqual(savedAnswer({ origin: SHOP, name: 'buy', source: 'native', description: '', arguments: {} }, 'always'), { origin: SHOP, tool: 'buy', scriptId: undefined, permission: 'allow' });
});

test('the gate: a code grant lets that code through unasked, other code asks again; everywhere reaches other origins', async () => {
  const s = setup();
  try {
    // Without a rule nothing asks and nothing is logged (as before execute was gated).
    await s.gate(exec(SHOP, 'a'));
    assert.equal(s.asked.length, 0);
    s.prompting();
    await s.gate(exec(SHOP, 'a'), 'code');
    assert.equal(s.asked.length, 1);
    assert.deepEqual(s.asked[0]!.offers, CODE_ANSWERS);
    assert.equal(s.asked[0]!.codeHash, codeHash('execute', 'a'));
    assert.match(questionText(s.asked[0]!), /tabwright's execute in https:\/\/shop\.example\.com \(tab 1\): code the agent wrote/);
    assert.match(questionText(s.asked[0]!), /Code: "a"/);
    await s.gate(exec(SHOP, 'a'));
    assert.equal(s.asked.length, 1, 'the same code on the same origin is not asked about again');
    await assert.rejects(s.gate(exec(SHOP, 'b'), 'deny'), (e: unknown) => e instanceof ToolError && e.type === 'consent_denied' && /tabwright tool execute/.test(e.message));
    await assert.rejects(s.gate(exec(BLOG, 'a'), 'deny'), (e: unknown) => e instanceof ToolError && e.type === 'consent_denied');
    assert.equal(s.asked.length, 3, 'other code, and the same code on another origin, are asked about');
    await s.gate(exec(SHOP, 'c'), 'always');
    await s.gate(exec(SHOP, 'd'));
    assert.equal(s.asked.length, 4, 'always: any code on this origin');
    await s.gate(exec(BLOG, 'e'), 'everywhere');
    await s.gate(exec('http://127.0.0.1:9', 'f'));
    assert.equal(s.asked.length, 5, 'everywhere: any code on every origin');
    assert.deepEqual(readOverrides(s.dir).map(o => [o.origin, o.tool, o.codeHash === undefined ? 'any' : 'code', o.permission]), [
      [SHOP, 'execute', 'code', 'allow'], [SHOP, 'execute', 'any', 'allow'], ['*', 'execute', 'any', 'allow'],
    ]);
    const audit = readFileSync(join(s.dir, 'consent-audit.jsonl'), 'utf8').trim().split('\n').map(l => JSON.parse(l) as { answer?: string; channel: string });
    assert.deepEqual(audit.map(a => a.answer ?? a.channel), ['code', 'override', 'deny', 'deny', 'always', 'override', 'everywhere', 'override']);
  } finally {
    s.done();
  }
});

test('the gate: an answer the question does not offer is a refusal (code to a WebMCP prompt)', async () => {
  const s = setup();
  try {
    const buy: GatedCall = { origin: SHOP, name: 'buy', source: 'native', description: 'Buys', arguments: {} };
    await assert.rejects(s.gate(buy, 'everywhere'), (e: unknown) => e instanceof ToolError && e.type === 'consent_denied');
    assert.equal(s.asked[0]!.offers, undefined);
    assert.deepEqual(readOverrides(s.dir), []);
  } finally {
    s.done();
  }
});

test('surfaces: the elicitation form and the terminal offer what the question offers', () => {
  const code = { source: 'tabwright', offers: CODE_ANSWERS } as unknown as ConsentQuestion;
  const page = { source: 'native' } as unknown as ConsentQuestion;
  assert.deepEqual(requestedSchema(code).properties.decision.oneOf.map(o => o.const), ['once', 'code', 'always', 'everywhere', 'deny', 'never']);
  assert.deepEqual(requestedSchema(code).properties.decision.oneOf.map(o => o.title)[1], 'Always allow this exact code on this site');
  assert.deepEqual(requestedSchema(page).properties.decision.oneOf.map(o => o.const), ['once', 'always', 'deny', 'never']);
  assert.equal(answerOf('accept', { decision: 'code' }, CODE_ANSWERS), 'code');
  assert.equal(answerOf('accept', { decision: 'code' }), 'deny', 'not offered to a WebMCP prompt');
  assert.equal(parseTerminalAnswer('c', CODE_ANSWERS), 'code');
  assert.equal(parseTerminalAnswer('e', CODE_ANSWERS), 'everywhere');
  assert.equal(parseTerminalAnswer('c'), undefined, 'a WebMCP prompt asks again');
});

test('overrides file: version 1 reads as it is, the next save writes version 2 with it; reset by codeHash', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-code-'));
  try {
    const legacy = { origin: SHOP, tool: 'buy', permission: 'allow', created: '2026-01-01T00:00:00.000Z' };
    writeFileSync(overridesPath(dir), JSON.stringify({ version: 1, overrides: [legacy, { ...legacy, tool: 'execute', builtin: true }] }));
    assert.deepEqual(readOverrides(dir), [legacy], 'code fields in a version 1 file were not written by tabwright');
    assert.equal(ConsentPolicy.load({ configDir: dir }).resolve({ origin: SHOP, name: 'buy', source: 'native' }).source, 'override');
    const g = exec(SHOP, 'a');
    saveOverride(dir, savedAnswer(g, 'code')!);
    saveOverride(dir, savedAnswer(g, 'always')!);
    const file = JSON.parse(readFileSync(overridesPath(dir), 'utf8')) as { version: number; overrides: unknown[] };
    assert.equal(file.version, 2);
    assert.equal(file.overrides.length, 3, 'the WebMCP answer kept, the code and origin grants side by side');
    assert.deepEqual(resetOverrides(dir, { codeHash: g.codeHash }).map(o => o.tool), ['execute']);
    assert.deepEqual(readOverrides(dir).map(o => [o.tool, o.codeHash]), [['buy', undefined], ['execute', undefined]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
