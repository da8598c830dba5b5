/**
 * Issue #6 "Validation": validateScript reports syntax errors, header
 * problems, invalid match patterns, unprovided grants, @webmcp/registerTool
 * disagreements, a missing @match/@include and oversize code, each with a
 * 1-based line and column; ok is false exactly when an error is present.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findRegisterToolCalls, MAX_SCRIPT_BYTES, PROVIDED_GRANTS, validateScript } from '../../src/userscripts/validate.js';
import { parse } from 'acorn';

const user = (header: string[], body: string) => ['// ==UserScript==', '// @name t', ...header, '// ==/UserScript==', body].join('\n');
const agent = (header: string[], body: string) => ['// ==AgentScript==', '// @name t', '// @match http://127.0.0.1/*', ...header, '// ==/AgentScript==', body].join('\n');
const brief = (code: string, opts?: { maxBytes?: number }) => validateScript(code, opts).diagnostics.map(d => `${d.severity} ${d.code} ${d.line}:${d.column}`);

test('PROVIDED_GRANTS is exactly the GM API docs/userscripts.md documents', () => {
  assert.deepEqual([...PROVIDED_GRANTS].sort(), [
    'GM.addElement', 'GM.addStyle', 'GM.addValueChangeListener', 'GM.deleteValue', 'GM.download', 'GM.getResourceText', 'GM.getResourceUrl', 'GM.getValue', 'GM.info', 'GM.listValues', 'GM.log',
    'GM.notification', 'GM.openInTab', 'GM.registerMenuCommand', 'GM.removeValueChangeListener', 'GM.setClipboard', 'GM.setValue', 'GM.xmlHttpRequest',
    'GM_addElement', 'GM_addStyle', 'GM_addValueChangeListener', 'GM_deleteValue', 'GM_download', 'GM_getResourceText', 'GM_getResourceURL', 'GM_getValue', 'GM_info', 'GM_listValues', 'GM_log',
    'GM_notification', 'GM_openInTab', 'GM_registerMenuCommand', 'GM_removeValueChangeListener', 'GM_setClipboard', 'GM_setValue', 'GM_xmlhttpRequest',
    'unsafeWindow',
  ]);
});

test('a clean userscript is ok with no diagnostics', () => {
  const code = user(['// @match http://127.0.0.1/*', '// @grant GM_getValue', '// @grant GM.setValue'],
    "(async () => { const n = GM_getValue('n', 0); await GM.setValue('n', n + 1); if (!n) return; })();\nreturn;");
  const r = validateScript(code);
  assert.deepEqual(r.diagnostics, []);
  assert.equal(r.ok, true);
  assert.equal(r.kind, 'userscript');
  assert.deepEqual(r.metadata!.grant, ['GM_getValue', 'GM.setValue']);
});

test('syntax errors carry acorn\'s position, 1-based, after a BOM and CRLF', () => {
  const code = '\uFEFF' + user(['// @match http://127.0.0.1/*'], 'let a = ;').replace(/\n/g, '\r\n');
  assert.deepEqual(validateScript(code).diagnostics, [{ severity: 'error', code: 'syntax_error', message: 'Unexpected token', line: 5, column: 9 }]);
  const r = validateScript(user(['// @match http://127.0.0.1/*'], 'await fetch("/");'));
  assert.equal(r.ok, false);
  assert.equal(r.diagnostics[0]!.code, 'syntax_error');
  assert.match(r.diagnostics[0]!.message, /async IIFE/);
  assert.deepEqual(brief(user(['// @match http://127.0.0.1/*'], '#!/usr/bin/env node\nvoid 0;')), ['error syntax_error 5:2'], 'a hashbang is only allowed on line 1');
});

test('patterns: invalid ones are errors at the key line, compat forms warnings', () => {
  assert.deepEqual(brief(user(['// @match example.com', '// @include /[x/', '// @exclude-match https://a.*/*', '// @match http*://a.com/*', '// @include *a.com*', '// @exclude *b.com*'], '')), [
    'error invalid_match_pattern 3:11',
    'error invalid_match_pattern 4:13',
    'warning tld_wildcard 5:19',
    'warning match_pattern_compat 6:11',
    'warning unanchored_glob 7:13',
  ]);
  const r = validateScript(user(['// @match example.com'], ''));
  assert.equal(r.diagnostics[0]!.message, '@match "example.com" is not <scheme>://<host><path> (e.g. https://example.com/*) or <all_urls>.');
});

test('no @match or @include is an error; @exclude alone does not count', () => {
  assert.deepEqual(brief(user(['// @exclude *'], '')), ['error no_match 1:1']);
  assert.deepEqual(brief(user(['// @include *'], '')), []);
});

test('unprovided grants: the provided ones are listed once, in the first diagnostic; the others point to its line', () => {
  const result = validateScript(user(['// @match http://127.0.0.1/*', '// @grant GM_cookie', '// @grant GM_webRequest', '// @grant GM_saveTab'], ''));
  const messages = result.diagnostics.filter(d => d.code === 'unsupported_grant').map(d => d.message);
  assert.equal(messages.length, 3);
  assert.equal(messages[0], `\`@grant GM_cookie\` is not provided by tabwright. Provided: ${PROVIDED_GRANTS.join(', ')}.`);
  assert.deepEqual(messages.slice(1), [
    '`@grant GM_webRequest` is not provided by tabwright. The grants provided are listed at line 4.',
    '`@grant GM_saveTab` is not provided by tabwright. The grants provided are listed at line 4.',
  ]);
});

test('grants: unprovided, conflicting with none, and used without a grant', () => {
  assert.deepEqual(brief(user(['// @match http://127.0.0.1/*', '// @grant GM_cookie', '// @grant GM_getValue'], '')), ['error unsupported_grant 4:11']);
  assert.deepEqual(brief(user(['// @match http://127.0.0.1/*', '// @grant none', '// @grant GM_log'], '')), ['error conflicting_grants 4:11']);
  assert.deepEqual(brief(user(['// @match http://127.0.0.1/*', '// @grant none'],
    "GM_addStyle('a{}');\nGM.setValue('k', 1);\nconst o = { GM_log: 1 }; o.GM_log; GM_info; unsafeWindow.x = 1;")), [
    'warning ungranted_api 6:1',
    'warning ungranted_api 7:1',
    'warning ungranted_api 8:45',
  ]);
  const msg = validateScript(user(['// @match http://127.0.0.1/*', '// @grant GM_webRequest'], '')).diagnostics[0]!.message;
  assert.equal(msg, `\`@grant GM_webRequest\` is not provided by tabwright. Provided: ${PROVIDED_GRANTS.join(', ')}.`);
});

test('AgentScript: @webmcp and registerTool literals must agree both ways', () => {
  const body = [
    'const mc = document.modelContext;',
    "mc.registerTool({ name: 'search', description: 'd', inputSchema: {}, execute() {} });",
    "document.modelContext?.registerTool({ name: `extra`, description: 'd', execute() {} });",
  ].join('\n');
  assert.deepEqual(brief(agent(['// @webmcp search allow', '// @webmcp missing prompt'], body)), [
    'error webmcp_mismatch 5:12',
    'error webmcp_mismatch 9:45',
  ]);
  assert.deepEqual(brief(agent(['// @webmcp search allow', '// @webmcp extra deny'], body)), []);
  const dyn = agent(['// @webmcp a prompt', '// @webmcp b prompt'], "for (const n of ['a', 'b']) navigator.modelContext.registerTool({ name: n, execute() {} });");
  assert.deepEqual(brief(dyn), ['warning webmcp_dynamic_name 7:73']);
  assert.equal(validateScript(dyn).ok, true);
  assert.deepEqual(brief(user(['// @match http://127.0.0.1/*'], "document.modelContext.registerTool({ name: 'x', execute() {} });")), ['warning registertool_in_userscript 5:44']);
});

test('findRegisterToolCalls finds computed and optional forms', () => {
  const program = parse("a['registerTool']({ 'name': 'one' }); b?.c.registerTool({ name: 'two' }); d.registerTool(tool); e.register({ name: 'no' });", { ecmaVersion: 'latest', locations: true });
  assert.deepEqual(findRegisterToolCalls(program), [
    { name: 'one', line: 1, column: 29 },
    { name: 'two', line: 1, column: 65 },
    { line: 1, column: 75 },
  ]);
});

test('size: over maxBytes (UTF-8 bytes) is too_large and the code is not parsed', () => {
  const small = user(['// @match http://127.0.0.1/*'], '');
  const code = small + '// ' + 'é'.repeat(100);
  const bytes = Buffer.byteLength(code);
  assert.deepEqual(brief(code, { maxBytes: bytes }), []);
  assert.deepEqual(brief(code, { maxBytes: bytes - 1 }), ['error too_large 1:1']);
  assert.equal(MAX_SCRIPT_BYTES, 1048576);
  const big = small + '\nlet = ;//' + 'x'.repeat(MAX_SCRIPT_BYTES);
  assert.deepEqual(brief(big), ['error too_large 1:1']);
});

test('no header: not ok, no kind', () => {
  const r = validateScript('alert(1)');
  assert.equal(r.ok, false);
  assert.equal(r.kind, undefined);
  assert.deepEqual(brief('alert(1)'), ['error no_header 1:1']);
});
