// Unit tests of the consent gate's pieces: rule matching, the
// order override > rules > defaults, the overrides file, the audit log, and
// the terminal channel over fake streams (tests have no TTY).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { appendAudit, auditPath } from '../../src/consent/audit.js';
import { parseTerminalAnswer, questionText, TerminalChannel, type ConsentQuestion } from '../../src/consent/channel.js';
import { overridesPath, readOverrides, resetOverrides, saveOverride } from '../../src/consent/overrides.js';
import { ConsentPolicy, defaultPermission, globToRegExp, permissionFor, ruleMatches, rulesPath, type ConsentSubject } from '../../src/consent/rules.js';
import { ToolError } from '../../src/errors.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'tabwright-consent-'));
}

const shop: ConsentSubject = { origin: 'https://shop.example.com', name: 'checkout', annotations: { consequentialHint: true }, source: 'native' };
const search: ConsentSubject = { origin: 'https://shop.example.com', name: 'search', annotations: { readOnlyHint: true }, source: 'native' };

test('globs: * matches any run, everything else is literal, anchored', () => {
  assert.equal(globToRegExp('https://*.example.com').test('https://shop.example.com'), true);
  assert.equal(globToRegExp('https://*.example.com').test('https://shop.example.com.evil.test'), false);
  assert.equal(globToRegExp('http://127.0.0.1:*').test('http://127.0.0.1:8080'), true);
  assert.equal(globToRegExp('a.b').test('axb'), false);
  assert.equal(globToRegExp('check(out)?').test('checkout'), false);
  assert.equal(globToRegExp('check(out)?').test('check(out)?'), true);
});

test('rules match every field they set; a missing hint counts as false', () => {
  assert.equal(ruleMatches({ permission: 'deny' }, shop), true);
  assert.equal(ruleMatches({ origin: 'https://*.example.com', tool: 'check*', permission: 'deny' }, shop), true);
  assert.equal(ruleMatches({ origin: 'https://other.example.org', permission: 'deny' }, shop), false);
  assert.equal(ruleMatches({ annotations: { consequentialHint: true }, permission: 'deny' }, shop), true);
  assert.equal(ruleMatches({ annotations: { readOnlyHint: false }, permission: 'deny' }, shop), true);
  assert.equal(ruleMatches({ annotations: { readOnlyHint: true }, permission: 'allow' }, shop), false);
  assert.equal(ruleMatches({ source: 'agentscript', permission: 'allow' }, shop), false);
  assert.equal(ruleMatches({ scriptId: 'abc', permission: 'allow' }, shop), false);
  assert.equal(ruleMatches({ scriptId: 'abc', permission: 'allow' }, { ...shop, scriptId: 'abc' }), true);
});

test('rules match the debugging annotation: true only for tools that declare it, false for the others', () => {
  const devTool: ConsentSubject = { origin: 'https://shop.example.com', name: 'dump_state', annotations: { readOnlyHint: true, debugging: true }, source: 'native' };
  assert.equal(ruleMatches({ annotations: { debugging: true }, permission: 'deny' }, devTool), true);
  assert.equal(ruleMatches({ annotations: { debugging: true }, permission: 'deny' }, search), false);
  assert.equal(ruleMatches({ annotations: { debugging: false }, permission: 'allow' }, search), true);
  assert.equal(ruleMatches({ annotations: { debugging: false }, permission: 'allow' }, devTool), false);
  const dir = tempDir();
  try {
    // A deny rule on debugging tools beats the readOnlyHint default; other read-only tools stay allowed.
    writeFileSync(rulesPath(dir), JSON.stringify({ rules: [{ annotations: { debugging: true }, permission: 'deny' }] }));
    const policy = ConsentPolicy.load({ configDir: dir });
    assert.equal(policy.rulesError, undefined);
    assert.deepEqual(policy.resolve(devTool), { permission: 'deny', source: 'rules', rule: 0 });
    assert.deepEqual(policy.resolve(search), { permission: 'allow', source: 'default' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('defaults: readOnlyHint allows, consequentialHint and no hint prompt', () => {
  assert.equal(defaultPermission({ readOnlyHint: true }), 'allow');
  assert.equal(defaultPermission({ consequentialHint: true }), 'prompt');
  assert.equal(defaultPermission({ readOnlyHint: true, consequentialHint: true }), 'prompt');
  assert.equal(defaultPermission({}), 'prompt');
});

test('order: override, then the first matching rule, then defaults', () => {
  const dir = tempDir();
  try {
    assert.deepEqual(permissionFor({ configDir: dir }, shop), { permission: 'prompt', source: 'default' });
    assert.deepEqual(permissionFor({ configDir: dir }, search), { permission: 'allow', source: 'default' });
    writeFileSync(rulesPath(dir), JSON.stringify({ rules: [
      { origin: 'https://shop.example.com', tool: 'search', permission: 'deny' },
      { origin: 'https://*.example.com', permission: 'allow' },
    ] }));
    assert.deepEqual(permissionFor({ configDir: dir }, search), { permission: 'deny', source: 'rules', rule: 0 });
    assert.deepEqual(permissionFor({ configDir: dir }, shop), { permission: 'allow', source: 'rules', rule: 1 });
    saveOverride(dir, { origin: shop.origin, tool: 'checkout', permission: 'deny' });
    assert.deepEqual(permissionFor({ configDir: dir }, shop), { permission: 'deny', source: 'override' });
    // The same tool name on another origin is not covered by the override.
    assert.deepEqual(permissionFor({ configDir: dir }, { ...shop, origin: 'https://evil.example.org' }), { permission: 'prompt', source: 'default' });
    // A script override applies to that script's tool, whatever the origin; an origin override does not apply to a script's tool.
    saveOverride(dir, { origin: 'https://a.test', scriptId: 'script-1', tool: 'checkout', permission: 'allow' });
    assert.deepEqual(permissionFor({ configDir: dir }, { ...shop, origin: 'https://b.test', scriptId: 'script-1' }), { permission: 'allow', source: 'override' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a broken rules file makes every tool prompt, even a readOnlyHint one', () => {
  const dir = tempDir();
  try {
    writeFileSync(rulesPath(dir), '{"rules":[{"origin":"*","permission":"maybe"}]}');
    const policy = ConsentPolicy.load({ configDir: dir });
    assert.match(policy.rulesError ?? '', /rules\.0\.permission/);
    assert.deepEqual(policy.resolve(search), { permission: 'prompt', source: 'rules_invalid' });
    writeFileSync(rulesPath(dir), 'not json');
    assert.deepEqual(permissionFor({ configDir: dir }, search), { permission: 'prompt', source: 'rules_invalid' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('overrides: one per key, file mode 0600, reset by filter', () => {
  const dir = tempDir();
  try {
    saveOverride(dir, { origin: 'https://a.test', tool: 'x', permission: 'allow' });
    saveOverride(dir, { origin: 'https://a.test', tool: 'x', permission: 'deny' }); // replaces
    saveOverride(dir, { origin: 'https://a.test', tool: 'y', permission: 'allow' });
    saveOverride(dir, { origin: 'https://b.test', tool: 'x', permission: 'allow' });
    assert.equal(statSync(overridesPath(dir)).mode & 0o777, 0o600);
    assert.deepEqual(readOverrides(dir).map(o => `${o.origin} ${o.tool} ${o.permission}`), ['https://a.test x deny', 'https://a.test y allow', 'https://b.test x allow']);
    assert.deepEqual(resetOverrides(dir, { tool: 'x' }).map(o => o.origin), ['https://a.test', 'https://b.test']);
    assert.deepEqual(readOverrides(dir).map(o => `${o.origin} ${o.tool}`), ['https://a.test y']);
    assert.equal(resetOverrides(dir).length, 1);
    assert.deepEqual(readOverrides(dir), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('audit log: JSON lines, mode 0600, appended', () => {
  const dir = tempDir();
  try {
    appendAudit(dir, { time: '2026-01-01T00:00:00.000Z', origin: 'https://a.test', tool: 'x', decision: 'allowed', channel: 'default' });
    appendAudit(dir, { time: '2026-01-01T00:00:01.000Z', origin: 'https://a.test', tool: 'y', decision: 'denied', channel: 'terminal', answer: 'deny' });
    assert.equal(statSync(auditPath(dir)).mode & 0o777, 0o600);
    const lines = readFileSync(auditPath(dir), 'utf8').trim().split('\n').map(l => JSON.parse(l));
    assert.deepEqual(lines.map(l => [l.tool, l.decision, l.channel]), [['x', 'allowed', 'default'], ['y', 'denied', 'terminal']]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('terminal answers: y, a, n, d and words; empty is deny; junk is asked again', () => {
  assert.deepEqual(['y', 'YES', 'a', 'always', 'n', '', 'd', 'never', 'maybe'].map(w => parseTerminalAnswer(w)), ['once', 'once', 'always', 'always', 'deny', 'deny', 'never', 'never', undefined]);
});

function question(): ConsentQuestion {
  return { origin: 'https://shop.example.com', tool: 'checkout', description: 'Buys\nthe cart', annotations: { consequentialHint: true }, source: 'native', tabId: 1, argumentsPreview: '{"qty":2}', expiresAt: Date.now() + 60_000 };
}

function fakeTerminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', chunk => { shown += chunk.toString(); });
  let opened = 0;
  let closed = 0;
  const channel = new TerminalChannel(() => {
    opened++;
    return { input, output, close: () => { closed++; } };
  });
  return { channel, input, shown: () => shown, counts: () => ({ opened, closed }) };
}

test('terminal channel: shows the question, re-asks on junk, resolves with the answer', async () => {
  const t = fakeTerminal();
  const answer = t.channel.ask(question(), new AbortController().signal);
  await new Promise(resolve => setImmediate(resolve));
  t.input.write('maybe\n');
  t.input.write('a\n');
  assert.equal(await answer, 'always');
  assert.match(t.shown(), /WebMCP tool "checkout" of https:\/\/shop\.example\.com \(tab 1\)/);
  assert.match(t.shown(), /The page describes it as: "Buys the cart" \[consequentialHint\]/); // page text kept on one line
  assert.match(t.shown(), /Arguments: \{"qty":2\}/);
  assert.match(t.shown(), /Please type y, a, n or d/);
  assert.deepEqual(t.counts(), { opened: 1, closed: 1 });
});

test('terminal channel: an abort rejects with its reason and closes the terminal', async () => {
  const t = fakeTerminal();
  const controller = new AbortController();
  const answer = t.channel.ask(question(), controller.signal);
  await new Promise(resolve => setImmediate(resolve));
  controller.abort(new ToolError('consent_expired', 'too late', 'ask again'));
  await assert.rejects(answer, (error: unknown) => error instanceof ToolError && error.type === 'consent_expired');
  assert.match(t.shown(), /no answer in time/);
  assert.deepEqual(t.counts(), { opened: 1, closed: 1 });
});

test('a userscript\'s host (GM_xmlhttpRequest): prompts by default, a source userscript rule decides, "always" is per script and host; the question names the host', () => {
  const dir = tempDir();
  try {
    const api: ConsentSubject = { origin: 'https://shop.example.com', name: '@connect api.example.com', source: 'userscript', scriptId: 's_1' };
    assert.deepEqual(permissionFor({ configDir: dir }, api), { permission: 'prompt', source: 'default' });
    writeFileSync(rulesPath(dir), JSON.stringify({ rules: [{ source: 'userscript', tool: '@connect *.example.com', permission: 'allow' }] }));
    assert.deepEqual(permissionFor({ configDir: dir }, api), { permission: 'allow', source: 'rules', rule: 0 });
    assert.deepEqual(permissionFor({ configDir: dir }, { ...api, name: '@connect example.com' }), { permission: 'prompt', source: 'default' });
    saveOverride(dir, { origin: api.origin, tool: '@connect example.com', scriptId: 's_1', permission: 'deny' });
    assert.equal(permissionFor({ configDir: dir }, { ...api, name: '@connect example.com' }).permission, 'deny');
    assert.equal(permissionFor({ configDir: dir }, { ...api, name: '@connect example.com', scriptId: 's_2' }).permission, 'prompt');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const text = questionText({ origin: 'https://shop.example.com', tool: '@connect api.example.com', description: 'Userscript "Prices" wants …', annotations: {}, source: 'userscript', scriptId: 's_1', tabId: 3, argumentsPreview: '{"method":"GET","url":"https://api.example.com/p"}', expiresAt: Date.now() + 60_000 });
  assert.match(text, /^A userscript \(script s_1\) running in https:\/\/shop\.example\.com \(tab 3\) asks to reach api\.example\.com\.\n/);
  assert.match(text, /Request: \{"method":"GET","url":"https:\/\/api\.example\.com\/p"\}/);
});
