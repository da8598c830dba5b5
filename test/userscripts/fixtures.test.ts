/**
 * Issue #6 "Tests (real input)": the userscripts in test/fixtures/userscripts
 * (written in the styles of public collections; README.md there lists each
 * one's observable effect) all pass validateScript with exactly the expected
 * warnings, parse to the expected kind / @run-at / @noframes / grants, and
 * match exactly the expected fixture pages when those are served from
 * http://127.0.0.1:<port>/us/<page>.html (any port: no port in @match = any port).
 * The injection tests run the same files in a real page.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptMatchesUrl } from '../../src/userscripts/match.js';
import { validateScript } from '../../src/userscripts/validate.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'userscripts');
const PAGES = ['basic', 'table', 'form', 'frame', 'orders'] as const;
type Page = typeof PAGES[number];

interface Expect {
  pages: Page[];
  runAt?: string;
  noframes?: boolean;
  grant: string[];
  warnings?: string[];
  webmcp?: string[];
}

const ALL: Page[] = [...PAGES];
const EXPECTED: Record<string, Expect> = {
  'banner-element.user.js': { pages: ['basic', 'table', 'form', 'orders'], grant: ['GM.addElement', 'GM.addStyle', 'GM.log'] },
  'bom-header.user.js': { pages: ALL, grant: ['none'] },
  'crlf-line-endings.user.js': { pages: ALL, runAt: 'document-end', grant: ['GM_addStyle'] },
  'dark-mode.user.js': { pages: ALL, grant: ['GM_addStyle'] },
  'document-end.user.js': { pages: ['basic'], runAt: 'document-end', grant: ['none'] },
  'document-start.user.js': { pages: ['basic'], runAt: 'document-start', grant: ['none'] },
  'early-return.user.js': { pages: ALL, grant: ['none'], warnings: [] },
  'every-frame.user.js': { pages: ALL, grant: ['none'] },
  'exclude-rules.user.js': { pages: ['basic', 'table', 'form', 'frame'], grant: ['none'] },
  'form-autofill.user.js': { pages: ['form'], grant: ['GM_getValue', 'GM_setValue', 'GM_registerMenuCommand'] },
  'include-glob.user.js': { pages: ['form'], grant: ['none'] },
  'include-regex.user.js': { pages: ['table'], grant: ['GM_addStyle'] },
  'keyboard-shortcuts.user.js': { pages: ALL, grant: ['none'] },
  'localized-names.user.js': { pages: ['basic'], grant: ['none'] },
  'noframes.user.js': { pages: ALL, noframes: true, grant: ['none'] },
  'order-actions.agent.js': { pages: ['orders'], grant: ['none'], webmcp: ['count_orders allow', 'cancel_order prompt', 'delete_all_orders deny'] },
  'order-search.agent.js': { pages: ['orders'], grant: ['none'], webmcp: ['search_orders allow'] },
  'page-notes.agent.js': { pages: ['basic', 'table', 'form', 'orders'], runAt: 'document-end', noframes: true, grant: ['GM_getValue', 'GM_setValue'], webmcp: ['list_notes allow', 'add_note prompt'] },
  'page-world.user.js': { pages: ['basic'], grant: ['none'] },
  'require-local.user.js': { pages: ALL, grant: ['none'] },
  'table-to-csv.user.js': { pages: ['table'], grant: ['GM_setClipboard', 'GM_addElement'] },
  'throws-error.user.js': { pages: ['basic'], grant: ['none'] },
  'unsafe-window.user.js': { pages: ['basic'], grant: ['unsafeWindow', 'GM_log', 'GM_info'] },
  'visit-counter-promises.user.js': { pages: ['basic'], grant: ['GM.getValue', 'GM.setValue', 'GM.listValues', 'GM.deleteValue', 'GM.info'] },
  'visit-counter.user.js': { pages: ['basic'], grant: ['GM_getValue', 'GM_setValue', 'GM_listValues', 'GM_deleteValue'] },
  'предпросмотр-ссылок.user.js': { pages: ALL, grant: ['none'] },
};

const files = readdirSync(DIR).filter(f => f.endsWith('.user.js') || f.endsWith('.agent.js')).sort();

test('at least 20 fixtures, every one listed here and in the README', () => {
  assert.ok(files.length >= 20, `${files.length} fixtures`);
  assert.deepEqual(files, Object.keys(EXPECTED).sort());
  const readme = readFileSync(join(DIR, 'README.md'), 'utf8');
  for (const f of files) assert.ok(readme.includes(`\`${f}\``), `README lists ${f}`);
  for (const p of PAGES) assert.ok(existsSync(join(DIR, 'pages', `${p}.html`)), `pages/${p}.html`);
  assert.ok(files.filter(f => f.endsWith('.agent.js')).length >= 3);
});

for (const file of files) {
  test(`${file}: valid, expected header, runs on the expected pages`, () => {
    const code = readFileSync(join(DIR, file), 'utf8');
    const exp = EXPECTED[file]!;
    const r = validateScript(code);
    assert.deepEqual(r.diagnostics.filter(d => d.severity === 'error'), []);
    assert.equal(r.ok, true);
    assert.deepEqual(r.diagnostics.map(d => `${d.code} ${d.line}:${d.column}`), exp.warnings ?? []);
    const meta = r.metadata!;
    assert.equal(meta.kind, file.endsWith('.agent.js') ? 'agentscript' : 'userscript');
    assert.equal(meta.runAt, exp.runAt ?? 'document-idle');
    assert.equal(meta.noframes, exp.noframes ?? false);
    assert.deepEqual(meta.grant, exp.grant);
    assert.deepEqual(meta.webmcp.map(w => `${w.tool} ${w.permission}`), exp.webmcp ?? []);
    assert.equal(meta.namespace, 'https://tabwright.test/fixtures');
    // The test site listens on a random port; the @include globs and regexes spell the port out (`:*`, `:\d+`).
    for (const port of [43117, 8080]) {
      const runs = PAGES.filter(p => scriptMatchesUrl(meta, `http://127.0.0.1:${port}/us/${p}.html`));
      assert.deepEqual(runs, exp.pages, `port ${port}`);
    }
    for (const req of meta.require) assert.ok(existsSync(join(DIR, req)), `@require ${req} exists beside the script`);
  });
}

test('special forms: BOM, CRLF, localized and non-English names, query exclusion', () => {
  const raw = (f: string) => readFileSync(join(DIR, f));
  assert.deepEqual([...raw('bom-header.user.js').subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  const crlf = raw('crlf-line-endings.user.js').toString('utf8');
  assert.equal(crlf.split('\r\n').length, crlf.split('\n').length);
  assert.equal(validateScript(crlf).metadata!.description, 'Saved on Windows: every line ends in CR LF, values must not keep the CR.');
  const loc = validateScript(raw('localized-names.user.js').toString('utf8')).metadata!;
  assert.deepEqual(loc.localized.name, { de: 'Lesezeit', ja: '読了時間', 'zh-CN': '阅读时间' });
  assert.equal(validateScript(raw('предпросмотр-ссылок.user.js').toString('utf8')).metadata!.name, 'Предпросмотр ссылок');
  const ex = validateScript(raw('exclude-rules.user.js').toString('utf8')).metadata!;
  assert.equal(scriptMatchesUrl(ex, 'http://127.0.0.1:43117/us/basic.html?private=1'), false);
  assert.deepEqual(validateScript(raw('require-local.user.js').toString('utf8')).metadata!.require, ['lib/dom-helpers.js']);
});
