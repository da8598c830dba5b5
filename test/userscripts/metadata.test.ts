/**
 * Issue #6 "Script format" and case 020: parseMetadata reads userscript and
 * AgentScript headers as Tampermonkey/Violentmonkey do (BOM, CRLF, tabs,
 * trailing whitespace, localized keys, NFC), keeps unknown keys, and reports
 * header problems with 1-based positions. Case 020's files are read from
 * ../shared at test time (skipped outside CI when absent); the inline copies
 * below restate them so the test stands alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { displayName, parseMetadata, scriptIdentity } from '../../src/userscripts/metadata.js';
import { validateScript } from '../../src/userscripts/validate.js';
import { SHARED, sharedMissing } from '../fixtures/site.js';

const CASE_020 = join(SHARED, 'cases', '020-userscript-metadata-crlf-nonascii');

const PRICE_TRACKER_LF = [
  '// ==UserScript==',
  '// @name         价格追踪 🛒 / Price: tracker',
  '// @name:en      Price tracker',
  '// @name:zh-CN   价格追踪',
  '// @namespace    https://scout.invalid/userscripts',
  '// @version      2.3.1',
  '// @description\tWatches prices and notes drops\t',
  '// @description:zh-CN 监视价格并记录降价',
  '// @match        https://shop.example.com/*   ',
  '// @match        https://*.example.org/item/*',
  '// @exclude      https://shop.example.com/cart*',
  '// @grant        GM_getValue',
  '// @grant        GM_setValue',
  '// @run-at       document-idle',
  '// @antifeature  tracking  Sends nothing; key kept to test unknown-key passthrough',
  '// ==/UserScript==',
  '',
  '(function () {',
  "  'use strict';",
  "  const last = GM_getValue('last-price', null);",
  '  document.documentElement.dataset.priceTracker = String(last);',
  '})();',
  '',
].join('\n');

const EXPECTED_PRICE_TRACKER = {
  kind: 'userscript',
  name: '价格追踪 🛒 / Price: tracker',
  namespace: 'https://scout.invalid/userscripts',
  version: '2.3.1',
  description: 'Watches prices and notes drops',
  localized: { name: { en: 'Price tracker', 'zh-CN': '价格追踪' }, description: { 'zh-CN': '监视价格并记录降价' } },
  match: ['https://shop.example.com/*', 'https://*.example.org/item/*'],
  include: [],
  exclude: ['https://shop.example.com/cart*'],
  excludeMatch: [],
  grant: ['GM_getValue', 'GM_setValue'],
  runAt: 'document-idle',
  noframes: false,
  require: [],
  resource: [],
  connect: [],
  webmcp: [],
  extra: { antifeature: ['tracking  Sends nothing; key kept to test unknown-key passthrough'] },
};
const ANTIFEATURE_WARNING = { severity: 'warning', code: 'unknown_key', message: '`@antifeature` is not a key tabwright reads; it is kept but has no effect.', line: 15, column: 18 };

test('case 020 inline: BOM + CRLF and LF parse to identical metadata, values trimmed, spacing kept', () => {
  const crlf = '\uFEFF' + PRICE_TRACKER_LF.replace(/\n/g, '\r\n');
  for (const code of [PRICE_TRACKER_LF, crlf]) {
    const r = parseMetadata(code);
    assert.deepEqual(r.metadata, EXPECTED_PRICE_TRACKER);
    assert.deepEqual(r.diagnostics, [ANTIFEATURE_WARNING]);
    assert.deepEqual(r.header, { startLine: 1, endLine: 16 });
  }
  const meta = parseMetadata(crlf).metadata!;
  assert.equal(scriptIdentity(meta), 'https://scout.invalid/userscripts :: 价格追踪 🛒 / Price: tracker');
  assert.equal(displayName(meta), '价格追踪 🛒 / Price: tracker');
  assert.equal(displayName(meta, 'en'), 'Price tracker');
  assert.equal(displayName(meta, 'en-GB'), 'Price tracker');
  assert.equal(displayName(meta, 'zh-cn'), '价格追踪');
  assert.equal(displayName(meta, 'fr'), '价格追踪 🛒 / Price: tracker');
});

test('case 020 files from ../shared', { skip: sharedMissing(CASE_020) }, () => {
  const crlf = readFileSync(join(CASE_020, 'price-tracker.crlf.user.js'), 'utf8');
  const lf = readFileSync(join(CASE_020, 'price-tracker.lf.user.js'), 'utf8');
  assert.equal(crlf.charCodeAt(0), 0xfeff);
  assert.ok(crlf.includes('\r\n'));
  assert.deepEqual(parseMetadata(crlf).metadata, EXPECTED_PRICE_TRACKER);
  assert.deepEqual(parseMetadata(lf).metadata, EXPECTED_PRICE_TRACKER);
  const expected = JSON.parse(readFileSync(join(CASE_020, 'expected.json'), 'utf8'));
  assert.equal(scriptIdentity(parseMetadata(crlf).metadata!), expected['price-tracker.crlf.user.js'].identity);
  const nfd = readFileSync(join(CASE_020, 'cafe-helper.nfd.user.js'), 'utf8');
  assert.ok(nfd.includes('Cafe\u0301'));
  const cafe = parseMetadata(nfd).metadata!;
  assert.equal(cafe.name, 'Caf\u00e9 helper');
  assert.deepEqual([...Buffer.from(cafe.name)].slice(0, 5), [0x43, 0x61, 0x66, 0xc3, 0xa9]);
  const nfc = parseMetadata(nfd.normalize('NFC')).metadata!;
  assert.equal(scriptIdentity(cafe), scriptIdentity(nfc));
});

test('NFD and NFC copies of one script have one identity', () => {
  const head = (name: string) => `// ==UserScript==\n// @name ${name}\n// @namespace https://scout.invalid/userscripts\n// @match https://cafe.example.com/*\n// ==/UserScript==\n`;
  const a = parseMetadata(head('Cafe\u0301 helper')).metadata!;
  const b = parseMetadata(head('Caf\u00e9 helper')).metadata!;
  assert.equal(a.name, 'Caf\u00e9 helper');
  assert.equal(scriptIdentity(a), scriptIdentity(b));
  assert.equal(scriptIdentity({ namespace: '', name: 'x' }), ' :: x');
});

test('an AgentScript header with every key', () => {
  const code = [
    '/* leading comment */',
    '// ==AgentScript==',
    '// @name          Order tools',
    '// @name:de       Bestellwerkzeuge',
    '// @name:ja       注文ツール',
    '// @namespace     tabwright.test',
    '// @version       1.0',
    '// @description   Tools for orders',
    '// @author        Someone',
    '//                (a plain comment line is ignored)',
    '// @match         http://127.0.0.1/*',
    '// @include       /orders/',
    '// @exclude       *logout*',
    '// @exclude-match http://127.0.0.1/admin/*',
    '// @grant         GM_getValue',
    '// @grant         GM.setValue',
    '// @run-at        document-end',
    '// @noframes',
    '// @require       lib/helpers.js',
    '// @require       data:text/javascript,window.x=1',
    '// @resource      css  styles/app.css',
    '// @resource      icon data:image/png;base64,AAAA',
    '// @webmcp        search_orders allow',
    '// @webmcp        cancel_order  prompt',
    '// @webmcp        delete_all    deny',
    '// ==/AgentScript==',
    'void 0;',
  ].join('\n');
  const r = parseMetadata(code);
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.header, { startLine: 2, endLine: 26 });
  assert.deepEqual(r.metadata, {
    kind: 'agentscript', name: 'Order tools', namespace: 'tabwright.test', version: '1.0', description: 'Tools for orders',
    localized: { name: { de: 'Bestellwerkzeuge', ja: '注文ツール' } },
    match: ['http://127.0.0.1/*'], include: ['/orders/'], exclude: ['*logout*'], excludeMatch: ['http://127.0.0.1/admin/*'],
    grant: ['GM_getValue', 'GM.setValue'], runAt: 'document-end', noframes: true,
    require: ['lib/helpers.js', 'data:text/javascript,window.x=1'],
    resource: [{ name: 'css', value: 'styles/app.css' }, { name: 'icon', value: 'data:image/png;base64,AAAA' }],
    connect: [],
    webmcp: [
      { tool: 'search_orders', permission: 'allow', line: 23 },
      { tool: 'cancel_order', permission: 'prompt', line: 24 },
      { tool: 'delete_all', permission: 'deny', line: 25 },
    ],
    extra: { author: ['Someone'] },
  });
  assert.deepEqual(r.entries[0], { key: 'name', value: 'Order tools', line: 3, column: 19 });
  assert.deepEqual(r.entries[1], { key: 'name', locale: 'de', value: 'Bestellwerkzeuge', line: 4, column: 19 });
});

const head = (...lines: string[]) => ['// ==UserScript==', '// @name t', ...lines, '// ==/UserScript=='].join('\n');

test('header problems are diagnostics with 1-based line and column', () => {
  const cases: [string, { severity: string; code: string; line: number; column: number }[]][] = [
    ['alert(1)', [{ severity: 'error', code: 'no_header', line: 1, column: 1 }]],
    ['// ==UserScript==\n// @name t\nalert(1)', [{ severity: 'error', code: 'unterminated_header', line: 1, column: 1 }]],
    ['// ==UserScript==\n// @name t\n// ==/AgentScript==', [{ severity: 'error', code: 'header_mismatch', line: 3, column: 1 }]],
    ['// ==UserScript==\n// @match http://127.0.0.1/*\n// ==/UserScript==', [{ severity: 'error', code: 'missing_name', line: 1, column: 1 }]],
    [head('var x = 1;'), [{ severity: 'warning', code: 'malformed_header_line', line: 3, column: 1 }]],
    [head('// @version'), [{ severity: 'warning', code: 'empty_value', line: 3, column: 4 }]],
    [head('// @namespace'), [{ severity: 'error', code: 'malformed_key', line: 3, column: 4 }]],
    [head('// @name again'), [{ severity: 'warning', code: 'duplicate_key', line: 3, column: 10 }]],
    [head('// @run-at document-body'), [{ severity: 'warning', code: 'unsupported_run_at', line: 3, column: 12 }]],
    [head('// @run-at whenever'), [{ severity: 'error', code: 'malformed_key', line: 3, column: 12 }]],
    [head('// @grant GM_getValue GM_setValue'), [{ severity: 'error', code: 'malformed_key', line: 3, column: 11 }]],
    // Remote libraries are fetched at save time (src/userscripts/remoteFetch.ts): no diagnostic.
    [head('// @require https://cdn.example.com/jquery.js'), []],
    [head('// @require //cdn.example.com/jquery.js'), []],
    [head('// @require file:///etc/passwd'), [{ severity: 'error', code: 'malformed_key', line: 3, column: 13 }]],
    // So are remote resources; other schemes are refused.
    [head('// @resource logo http://example.com/logo.png'), []],
    [head('// @resource css //cdn.example.com/style.css'), []],
    [head('// @resource logo file:///etc/logo.png'), [{ severity: 'error', code: 'malformed_key', line: 3, column: 14 }]],
    [head('// @resource logo'), [{ severity: 'error', code: 'malformed_key', line: 3, column: 14 }]],
    [head('// @webmcp search allow'), [{ severity: 'error', code: 'webmcp_in_userscript', line: 3, column: 12 }]],
    [head('// @connect example.com', '// @connect self', '// @connect *'), []],
    [head('// @connect https://api.example.com/v1'), [{ severity: 'warning', code: 'malformed_key', line: 3, column: 13 }]],
    [head('// @connect a.example b.example'), [{ severity: 'warning', code: 'malformed_key', line: 3, column: 13 }]],
    [head('// @antifeature ads'), [{ severity: 'warning', code: 'unknown_key', line: 3, column: 17 }]],
    [head('// @match:de http://x/*'), [{ severity: 'warning', code: 'unknown_key', line: 3, column: 14 }]],
    [head('// @noframes yes'), [{ severity: 'warning', code: 'malformed_key', line: 3, column: 14 }]],
    [head('// @homepageURL https://example.com', '// @license MIT'), []],
  ];
  for (const [code, expected] of cases) {
    const got = parseMetadata(code).diagnostics.map(({ severity, code, line, column }) => ({ severity, code, line, column }));
    assert.deepEqual(got, expected, code);
  }
  assert.equal(parseMetadata('alert(1)').metadata, undefined);
  assert.equal(parseMetadata(head('// @run-at document-body')).metadata!.runAt, 'document-end');
  assert.deepEqual(parseMetadata(head('// @connect API.Example.com', '// @connect https://cdn.example.net/x', '// @connect a b')).metadata!.connect, ['api.example.com', 'cdn.example.net']);
});

test('@webmcp problems in an AgentScript', () => {
  const agent = (...lines: string[]) => ['// ==AgentScript==', '// @name t', ...lines, '// ==/AgentScript=='].join('\n');
  const codes = (code: string) => parseMetadata(code).diagnostics.map(d => `${d.code}@${d.line}:${d.column}`);
  assert.deepEqual(codes(agent('// @webmcp search')), ['malformed_key@3:12']);
  assert.deepEqual(codes(agent('// @webmcp search always')), ['invalid_permission@3:12']);
  assert.deepEqual(codes(agent('// @webmcp bad/name allow')), ['invalid_tool_name@3:12']);
  assert.deepEqual(codes(agent('// @webmcp a allow', '// @webmcp a deny')), ['duplicate_webmcp@4:12']);
});

test('header markers with extra = are found, opening and closing', () => {
  const r = parseMetadata(['// ==UserScript======', '// @name wide', '// @match https://example.com/*', '// ==/UserScript=====', 'void 0;'].join('\n'));
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.header, { startLine: 1, endLine: 4 });
  assert.equal(r.metadata!.name, 'wide');
  assert.deepEqual(r.metadata!.match, ['https://example.com/*']);
  const a = parseMetadata(['// ==AgentScript===', '// @name a', '// ==/AgentScript==', ''].join('\n'));
  assert.deepEqual(a.diagnostics, []);
  assert.equal(a.metadata!.kind, 'agentscript');
  // a closing marker with extra = still closes the block it matches, and a mismatch is still reported
  const m = parseMetadata(['// ==UserScript====', '// @name t', '// ==/AgentScript====', ''].join('\n'));
  assert.deepEqual(m.diagnostics.map(d => `${d.code}@${d.line}`), ['header_mismatch@3']);
  // one = is not a marker
  assert.deepEqual(parseMetadata('// ==UserScript=\n// @name t\n// ==/UserScript=\n').diagnostics.map(d => d.code), ['no_header']);
});

test('a non-comment line inside the header is ignored with a warning; the keys around it are read', () => {
  const r = parseMetadata(head('var x = 1;', '// @match https://example.com/*'));
  assert.deepEqual(r.diagnostics, [{ severity: 'warning', code: 'malformed_header_line', message: 'Line 3 inside the metadata block is not a `// @key value` comment; it is ignored.', line: 3, column: 1 }]);
  assert.equal(r.metadata!.name, 't');
  assert.deepEqual(r.metadata!.match, ['https://example.com/*']);
  assert.deepEqual(r.header, { startLine: 1, endLine: 5 });
});

test('empty @version, @description and @grant lines are accepted with an empty_value warning', () => {
  const r = parseMetadata(head('// @version', '// @description', '// @description:de', '// @grant', '// @grant GM_getValue'));
  assert.deepEqual(r.diagnostics, [
    { severity: 'warning', code: 'empty_value', message: '`@version` has no value; it is read as empty.', line: 3, column: 4 },
    { severity: 'warning', code: 'empty_value', message: '`@description` has no value; it is read as empty.', line: 4, column: 4 },
    { severity: 'warning', code: 'empty_value', message: '`@description:de` has no value; it is read as empty.', line: 5, column: 4 },
    { severity: 'warning', code: 'empty_value', message: '`@grant` has no value; the line is ignored.', line: 6, column: 4 },
  ]);
  const meta = r.metadata!;
  assert.equal(meta.version, '');
  assert.equal(meta.description, '');
  assert.deepEqual(meta.localized, { description: { de: '' } });
  assert.deepEqual(meta.grant, ['GM_getValue']);
  // trailing whitespace after the key is still empty
  assert.equal(parseMetadata(head('// @version   \t')).metadata!.version, '');
  // an empty line does not take the first-value slot: a later value is used, without duplicate_key
  const later = parseMetadata(head('// @version', '// @version 1.2', '// @description', '// @description Does things'));
  assert.equal(later.metadata!.version, '1.2');
  assert.equal(later.metadata!.description, 'Does things');
  assert.deepEqual(later.diagnostics.map(d => `${d.code}@${d.line}`), ['empty_value@3', 'empty_value@5']);
  // a value then an empty line: the value stays
  assert.equal(parseMetadata(head('// @version 2.0', '// @version')).metadata!.version, '2.0');
  // the whole script still validates
  const code = ['// ==UserScript==', '// @name t', '// @version', '// @description', '// @grant', '// @match https://example.com/*', '// ==/UserScript==', 'void 0;'].join('\n');
  const v = validateScript(code);
  assert.equal(v.ok, true);
  assert.deepEqual(v.diagnostics.map(d => `${d.severity} ${d.code}@${d.line}`), ['warning empty_value@3', 'warning empty_value@4', 'warning empty_value@5']);
  assert.deepEqual(v.metadata!.grant, []);
});
