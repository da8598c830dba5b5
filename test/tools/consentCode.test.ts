// Consent for code end to end (docs/policy.md, "Consent for code"): the built server over stdio, the SDK client
// answering elicitation as the human, a rules file that makes execute and add_element ask. The form offers the
// three grants; "this exact code" lets that code through unasked and asks about other code; "any code on this site"
// covers the origin and that tool only; "every site" reaches another origin; what is saved is version 2 of the
// overrides file, a version 1 answer in it kept; `tabwright permissions list` shows the grants. Without a rule,
// execute and add_element run unasked as before (every other test file relies on it).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ElicitResult } from '@modelcontextprotocol/client';
import { call, callError, CLI, connect, type Connected, evaluate, unlessConnection } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';

/** With the extension connected a prompt goes to its consent window first (test/extension/consent.test.ts). */
const ASKS_ELSEWHERE = unlessConnection(['extension'], 'with the extension connected, the question goes to its consent window, not to elicitation');

let site: Site;
let configDir: string;
let server: Connected;
/** What the human was asked: the message and the choices the form offered. */
const asked: Array<{ message: string; choices: string[] }> = [];
const answers: string[] = [];

async function human(params: { message: string; requestedSchema?: unknown }): Promise<ElicitResult> {
  const schema = params.requestedSchema as { properties: { decision: { oneOf: Array<{ const: string }> } } };
  asked.push({ message: params.message, choices: schema.properties.decision.oneOf.map(o => o.const) });
  const decision = answers.shift();
  return decision ? { action: 'accept', content: { decision } } : { action: 'decline' };
}

const LEGACY = { origin: 'http://127.0.0.1:1', tool: 'buy', permission: 'deny', created: '2026-01-01T00:00:00.000Z' };

before(async () => {
  site = await startSite();
  site.page('/page', '<!doctype html><title>Code</title><div id="box">Box</div>');
  configDir = mkdtempSync(join(tmpdir(), 'tabwright-code-consent-'));
  // A WebMCP answer saved by an earlier tabwright (version 1 of the file).
  writeFileSync(join(configDir, 'permission-overrides.json'), JSON.stringify({ version: 1, overrides: [LEGACY] }), { mode: 0o600 });
  server = await connect({ elicit: human, args: ['--browser-arg', '--host-resolver-rules=MAP other.test 127.0.0.1'], env: { TABWRIGHT_CONFIG_DIR: configDir, TABWRIGHT_CONSENT_TTY: '0' } });
  await call(server.client, 'navigate', { url: `${site.origin}/page` });
});
after(async () => {
  await server?.close();
  await site?.close();
  rmSync(configDir, { recursive: true, force: true });
});

test('without a rule execute and add_element run unasked, and nothing is logged', async () => {
  assert.equal(await evaluate(server.client, '6 * 7'), 42);
  await call(server.client, 'add_element', { tag: 'p', attributes: { id: 'free' } });
  assert.deepEqual(asked, []);
  assert.throws(() => readFileSync(join(server.dataDir, 'consent-audit.jsonl')), /ENOENT/);
});

test('this exact code: that code runs unasked after, other code is asked about', ASKS_ELSEWHERE, async () => {
  writeFileSync(join(configDir, 'permissions.json'), JSON.stringify({ rules: [{ tool: '*', source: 'tabwright', permission: 'prompt' }] }));
  answers.push('code');
  assert.equal(await evaluate(server.client, 'document.title'), 'Code');
  assert.equal(asked.length, 1);
  assert.deepEqual(asked[0]!.choices, ['once', 'code', 'always', 'everywhere', 'deny', 'never']);
  assert.match(asked[0]!.message, new RegExp(`tabwright's execute in ${site.origin.replace(/[.]/g, '\\.')} \\(tab \\d+\\): code the agent wrote`));
  assert.match(asked[0]!.message, /Code: "document\.title"/);
  assert.equal(await evaluate(server.client, 'document.title'), 'Code');
  assert.equal(asked.length, 1, 'the same code is not asked about again');
  const denied = await callError(server.client, 'execute', { code: 'document.title = "Changed"' }); // declined
  assert.equal(denied.type, 'consent_denied');
  assert.match(denied.message, /tabwright tool execute/);
  assert.equal(asked.length, 2);
  assert.equal(await evaluate(server.client, 'document.title'), 'Code', 'the granted code still runs');
  assert.equal(asked.length, 2);
});

test('any code on this site: add_element is asked once, then runs with other content; execute still asks', ASKS_ELSEWHERE, async () => {
  answers.push('always');
  await call(server.client, 'add_element', { tag: 'p', attributes: { id: 'one' }, properties: { textContent: 'one' } });
  assert.equal(asked.length, 3);
  assert.match(asked[2]!.message, /tabwright's add_element/);
  assert.match(asked[2]!.message, /"tag":"p"/);
  await call(server.client, 'add_element', { tag: 'style', properties: { textContent: '#box { color: rgb(1, 2, 3) }' } });
  assert.equal(asked.length, 3, 'any element on this origin');
  answers.push('once');
  assert.equal(await evaluate(server.client, 'getComputedStyle(document.getElementById("box")).color + " " + document.querySelectorAll("p").length'), 'rgb(1, 2, 3) 2');
  assert.equal(asked.length, 4, 'a grant for add_element is not one for execute');
});

test('every site: an execute grant reaches another origin; the saved file is version 2 with the old answer kept', ASKS_ELSEWHERE, async () => {
  answers.push('everywhere');
  assert.equal(await evaluate(server.client, '1 + 1'), 2);
  assert.equal(asked.length, 5);
  const other = site.origin.replace('127.0.0.1', 'other.test');
  await call(server.client, 'navigate', { url: `${other}/page` });
  assert.equal(await evaluate(server.client, 'location.origin'), other);
  assert.equal(asked.length, 5, 'any code on every origin');

  const file = JSON.parse(readFileSync(join(configDir, 'permission-overrides.json'), 'utf8')) as { version: number; overrides: Array<Record<string, unknown>> };
  assert.equal(file.version, 2);
  assert.deepEqual(file.overrides.map(o => [o.origin, o.tool, o.builtin ?? false, typeof o.codeHash === 'string' ? 'code' : 'any', o.permission]), [
    [LEGACY.origin, 'buy', false, 'any', 'deny'],
    [site.origin, 'execute', true, 'code', 'allow'],
    [site.origin, 'add_element', true, 'any', 'allow'],
    ['*', 'execute', true, 'any', 'allow'],
  ]);
  const listed = JSON.parse(execFileSync(process.execPath, [CLI, 'permissions', 'list', '--tool', 'execute'], { env: { ...process.env, TABWRIGHT_CONFIG_DIR: configDir } }).toString()) as { result: { overrides: unknown[] } };
  assert.equal(listed.result.overrides.length, 2);
  const audit = readFileSync(join(server.dataDir, 'consent-audit.jsonl'), 'utf8').trim().split('\n').map(l => JSON.parse(l) as { tool: string; answer?: string; channel: string });
  assert.deepEqual(audit.map(a => `${a.tool}:${a.answer ?? a.channel}`), [
    'execute:code', 'execute:override', 'execute:deny', 'execute:override', 'add_element:always', 'add_element:override', 'execute:once', 'execute:everywhere', 'execute:override',
  ]);
  assert.equal(JSON.stringify(audit).includes('document.title'), false, 'the audit log never holds the code');
});

test('2026-07-28: the code question rides an input_required result; a "this exact code" answer is saved and holds', ASKS_ELSEWHERE, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-code-modern-'));
  writeFileSync(join(dir, 'permissions.json'), JSON.stringify({ rules: [{ tool: 'execute', source: 'tabwright', permission: 'prompt' }] }));
  const seen: string[][] = [];
  const modern = await connect({
    mode: 'auto',
    elicit: async params => {
      seen.push((params.requestedSchema as { properties: { decision: { oneOf: Array<{ const: string }> } } }).properties.decision.oneOf.map(o => o.const));
      return { action: 'accept', content: { decision: 'code' } };
    },
    env: { TABWRIGHT_CONFIG_DIR: dir, TABWRIGHT_CONSENT_TTY: '0' },
  });
  try {
    assert.equal(modern.client.getProtocolEra(), 'modern');
    await call(modern.client, 'navigate', { url: `${site.origin}/page` });
    assert.equal(await evaluate(modern.client, 'document.title'), 'Code');
    assert.deepEqual(seen, [['once', 'code', 'always', 'everywhere', 'deny', 'never']]);
    assert.equal(await evaluate(modern.client, 'document.title'), 'Code');
    assert.equal(seen.length, 1, 'the saved grant holds');
    assert.equal(await evaluate(modern.client, 'location.pathname'), '/page');
    assert.equal(seen.length, 2, 'other code is asked about');
    const file = JSON.parse(readFileSync(join(dir, 'permission-overrides.json'), 'utf8')) as { overrides: Array<{ codeHash?: string }> };
    assert.equal(file.overrides.filter(o => o.codeHash).length, 2);
  } finally {
    await modern.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
