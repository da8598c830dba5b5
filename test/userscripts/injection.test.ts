// Userscript injection end to end (and "GM API"): the
// built server over stdio with `--toolsets all`, real headless Chromium,
// every fixture userscript of test/fixtures/userscripts installed through
// export_script and observed working on the pages of the loopback site.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, connect, type Connected, evaluate, refOf, ROOT, snapshot } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'userscripts');

let site: Site;
let dirs: string;
let server: Connected;
/** scriptId by fixture file name. */
const ids = new Map<string, string>();

async function start(): Promise<Connected> {
  return await connect({ args: ['--toolsets', 'all'], env: { TABWRIGHT_CONFIG_DIR: join(dirs, 'config'), TABWRIGHT_DATA_DIR: join(dirs, 'data') } });
}

/** `<html>`'s data-tw-* attributes of a tab (camelCase keys without the `tw` prefix, as dataset spells them). */
async function marks(tabId: number): Promise<Record<string, string>> {
  return await evaluate(server.client, 'Object.fromEntries(Object.entries(document.documentElement.dataset).filter(([k]) => k.startsWith("tw")))', tabId);
}

/** Polls a tab's marks until `ready(marks)` holds (bounded: 10 s), and returns them. */
async function marksWhen(tabId: number, ready: (m: Record<string, string>) => boolean): Promise<Record<string, string>> {
  const end = Date.now() + 10_000;
  for (;;) {
    const m = await marks(tabId);
    if (ready(m) || Date.now() > end) return m;
    await new Promise(r => setTimeout(r, 100));
  }
}

async function open(page: string): Promise<number> {
  return (await call<{ tabId: number }>(server.client, 'open_tab', { url: `${site.origin}/us/${page}` })).tabId;
}

before(async () => {
  site = await startSite();
  for (const file of readdirSync(join(FIXTURES, 'pages'))) site.page(`/us/${file}`, readFileSync(join(FIXTURES, 'pages', file), 'utf8'));
  dirs = mkdtempSync(join(tmpdir(), 'tabwright-usinject-'));
  server = await start();
  // The scripts are saved from workspace files, so @require lib/... resolves beside them.
  cpSync(FIXTURES, join(server.workspace, 'scripts'), { recursive: true });
  for (const file of readdirSync(FIXTURES).filter(f => f.endsWith('.user.js')).sort()) {
    const saved = await call<{ scriptId: string; enabled: boolean }>(server.client, 'export_script', { path: join('scripts', file) });
    assert.equal(saved.enabled, true, file);
    ids.set(file, saved.scriptId);
  }
});

after(async () => {
  await server?.close();
  await site?.close();
  rmSync(dirs, { recursive: true, force: true });
});

test('every fixture userscript is installed, injected into a real page and observed working', async () => {
  assert.ok(ids.size >= 20, `only ${ids.size} fixture userscripts`);
  const basic = await open('basic.html');
  const b = await marksWhen(basic, m => m.twVisits !== undefined && m.twAsyncVisits !== undefined && m.twBanner !== undefined && m.twReadingTime !== undefined);
  assert.deepEqual(
    {
      darkMode: b.twDarkMode, shortcuts: b.twShortcuts, visits: b.twVisits, visitKeys: b.twVisitKeys, asyncVisits: b.twAsyncVisits,
      asyncKeys: b.twAsyncKeys, asyncScript: b.twAsyncScript, required: b.twRequired, readingTime: b.twReadingTime, linkPreview: b.twLinkPreview,
      crlf: b.twCrlf, bom: b.twBom, startState: b.twStartState, startBody: b.twStartBody, startPageGlobal: b.twStartPageGlobal,
      endState: b.twEndState, endBody: b.twEndBody, noframes: b.twNoframes, frameRun: b.twFrameRun, excludeRules: b.twExcludeRules,
      pageWorld: b.twPageWorld, unsafeWindow: b.twUnsafeWindow, banner: b.twBanner, throws: b.twThrows, earlyReturn: b.twEarlyReturn,
    },
    {
      darkMode: 'on', shortcuts: 'ready', visits: '1', visitKeys: 'lastPath,visits', asyncVisits: '1',
      asyncKeys: 'visits', asyncScript: 'Visit counter (GM.* promises)', required: 'dom-helpers 1.0', readingTime: '1', linkPreview: '4',
      crlf: 'yes', bom: 'yes', startState: 'loading', startBody: 'absent', startPageGlobal: 'undefined',
      endState: 'parsed', endBody: 'present', noframes: 'top', frameRun: 'top', excludeRules: 'ran',
      pageWorld: '3.1.4', unsafeWindow: '3.1.4', banner: 'shown', throws: 'before-throw', earlyReturn: 'returned',
    },
  );
  assert.deepEqual(await evaluate(server.client, `({
    darkStyle: !!document.querySelector('style#tw-dark-mode-style'),
    background: getComputedStyle(document.body).backgroundColor,
    requiredNote: !!document.querySelector('p#tw-required-note'),
    readingTime: document.querySelector('p#tw-reading-time')?.textContent,
    linkTitles: [...document.links].every(a => a.title.startsWith('Ссылка: ')),
    banner: document.body.firstElementChild?.id + ' ' + document.getElementById('tw-banner')?.textContent,
    pageSawPageWorld: window.twPageWorldSeen === true,
  })`, basic), {
    darkStyle: true, background: 'rgb(17, 17, 17)', requiredNote: true, readingTime: '1 min read', linkTitles: true,
    banner: 'tw-banner Hello from GM.addElement', pageSawPageWorld: true,
  });
  // keyboard-shortcuts: a real key press shows the help.
  await call(server.client, 'press_key', { tabId: basic, key: '?' });
  assert.equal(await evaluate(server.client, 'document.getElementById("tw-shortcut-help")?.hidden === false', basic), true);

  const table = await open('table.html');
  const t = await marksWhen(table, m => m.twCsvTables !== undefined && m.twOutOfStock !== undefined && m.twEarlyReturn !== undefined);
  assert.deepEqual([t.twCsvTables, t.twOutOfStock, t.twEarlyReturn, t.twExcludeRules], ['1', '1', 'continued', 'ran']);
  assert.deepEqual(await evaluate(server.client, '[...document.querySelectorAll("#prices tr.tw-out-of-stock")].map(r => r.cells[0].textContent.split(" ")[0])', table), ['Anchor']);
  // table-to-csv: the button writes the CSV to the page and to the clipboard (GM_setClipboard).
  const { snapshot: tableSnapshot } = await snapshot(server.client, { tabId: table });
  await call(server.client, 'click', { ref: refOf(tableSnapshot, 'button', 'Export CSV') });
  const csv = await evaluate<string>(server.client, 'document.getElementById("tw-csv-output")?.textContent', table);
  assert.equal(csv, 'Item,Price,Stock\n"Rope, 10 m",12.50,4\n"Anchor ""Small""",89.00,0\nLantern,23.75,11');
  const clipboard = await (async () => {
    const end = Date.now() + 10_000;
    for (;;) {
      const text = await evaluate<string>(server.client, 'navigator.clipboard.readText().catch(e => "error: " + e.message)', table);
      if (text === csv || Date.now() > end) return text;
      await new Promise(r => setTimeout(r, 100));
    }
  })();
  assert.equal(clipboard, csv);

  const form = await open('form.html');
  const f = await marksWhen(form, m => m.twAutofill !== undefined && m.twIncludeGlob !== undefined);
  assert.deepEqual([f.twAutofill, f.twIncludeGlob], ['filled', 'form']);
  assert.deepEqual(await evaluate(server.client, '[document.getElementById("name").value, document.getElementById("email").value, document.getElementById("tw-message-count")?.textContent]', form), ['Ada Lovelace', 'ada@example.test', '0 characters']);

  const excluded = await open('basic.html?private=1');
  const e = await marksWhen(excluded, m => m.twBanner !== undefined);
  assert.equal(e.twExcludeRules, undefined);
  const orders = await open('orders.html');
  const o = await marksWhen(orders, m => m.twBanner !== undefined);
  assert.equal(o.twExcludeRules, undefined);
});

test('frames: scripts run inside iframe#inner unless @noframes; run-at document-start ran before the page\'s inline script', async () => {
  const tab = await open('frame.html');
  await marksWhen(tab, m => m.twFrameRun !== undefined);
  const inner = async () => await evaluate<Record<string, string>>(server.client, 'Object.fromEntries(Object.entries(document.getElementById("inner").contentDocument?.documentElement.dataset ?? {}))', tab);
  const end = Date.now() + 10_000;
  let frame = await inner();
  while (frame.twBanner === undefined && Date.now() < end) {
    await new Promise(r => setTimeout(r, 100));
    frame = await inner();
  }
  assert.deepEqual([frame.twFrameRun, frame.twNoframes, frame.twBanner, frame.twStartPageGlobal], ['frame', undefined, 'shown', 'undefined']);
  const top = await marks(tab);
  assert.deepEqual([top.twFrameRun, top.twNoframes, top.twBanner], ['top', 'top', undefined]);
});

test('worlds: a granted script\'s GM functions are invisible to page scripts', async () => {
  const tab = await open('basic.html');
  await marksWhen(tab, m => m.twVisits !== undefined);
  assert.deepEqual(await evaluate(server.client, '[typeof GM_getValue, typeof GM_setValue, typeof GM, typeof GM_info, typeof unsafeWindow, Object.getOwnPropertyNames(window).filter(n => /^(GM|__tabwright_us$)/.test(n))]', tab), ['undefined', 'undefined', 'undefined', 'undefined', 'undefined', []]);
});

test('GM_log and a throwing script show in get_console_context with the script name', async () => {
  const tab = await open('basic.html');
  await marksWhen(tab, m => m.twUnsafeWindow !== undefined && m.twThrows !== undefined && m.twBanner !== undefined);
  const end = Date.now() + 10_000;
  let entries: Array<{ level: string; kind: string; text: string; script?: { id: string; name: string } }> = [];
  while (Date.now() < end) {
    entries = (await call<{ entries: typeof entries }>(server.client, 'get_console_context', { tabId: tab })).entries.filter(x => x.script);
    if (entries.length >= 3) break;
    await new Promise(r => setTimeout(r, 100));
  }
  const byName = (name: string) => entries.filter(x => x.script?.name === name).map(x => [x.level, x.kind, x.text.split('\n')[0], x.script?.id]);
  assert.deepEqual(byName('Reads the page through unsafeWindow'), [['log', 'console', '[Reads the page through unsafeWindow] page app version 3.1.4 seen by Reads the page through unsafeWindow', ids.get('unsafe-window.user.js')]]);
  assert.deepEqual(byName('Throws after marking'), [['error', 'exception', '[Throws after marking] Error: fixture error from "Throws after marking"', ids.get('throws-error.user.js')]]);
  assert.deepEqual(byName('Announcement banner'), [['log', 'console', '[Announcement banner] banner added', ids.get('banner-element.user.js')]]);
});

test('list_tabs says which scripts ran in each tab; menu commands are listed and run', async () => {
  const tab = await open('form.html');
  await marksWhen(tab, m => m.twAutofill !== undefined && m.twIncludeGlob !== undefined && m.twBanner !== undefined);
  const { tabs } = await call<{ tabs: Array<{ tabId: number; scripts?: Array<{ id: string; name: string }>; menuCommands?: Array<{ commandId: string; caption: string; scriptId: string }> }> }>(server.client, 'list_tabs');
  const info = tabs.find(x => x.tabId === tab)!;
  const ran = new Set(info.scripts!.map(s => s.id));
  for (const file of ['form-autofill.user.js', 'include-glob.user.js', 'banner-element.user.js', 'dark-mode.user.js']) assert.ok(ran.has(ids.get(file)!), `${file} not listed`);
  for (const file of ['visit-counter.user.js', 'include-regex.user.js', 'page-world.user.js']) assert.ok(!ran.has(ids.get(file)!), `${file} listed but does not match form.html`);
  assert.deepEqual(info.menuCommands!.map(c => [c.caption, c.scriptId]), [['Use Grace Hopper', ids.get('form-autofill.user.js')]]);
  await call(server.client, 'run_menu_command', { tabId: tab, commandId: info.menuCommands![0]!.commandId });
  assert.equal((await marks(tab)).twAutofill, 'changed');
  // The command stored new defaults: the next form page fills them in.
  const next = await open('form.html');
  await marksWhen(next, m => m.twAutofill !== undefined);
  assert.deepEqual(await evaluate(server.client, '[document.getElementById("name").value, document.getElementById("email").value]', next), ['Grace Hopper', 'grace@example.test']);
});

test('a disabled script does not run; toggled on, reload_tab injects it', async () => {
  const id = ids.get('dark-mode.user.js')!;
  await call(server.client, 'toggle_script', { scriptId: id, enabled: false });
  const tab = await open('orders.html');
  await marksWhen(tab, m => m.twBanner !== undefined);
  assert.equal((await marks(tab)).twDarkMode, undefined);
  await call(server.client, 'toggle_script', { scriptId: id, enabled: true });
  assert.equal((await marks(tab)).twDarkMode, undefined, 'an open document keeps what ran until reloaded');
  await call(server.client, 'reload_tab', { tabId: tab });
  assert.equal((await marksWhen(tab, m => m.twDarkMode !== undefined)).twDarkMode, 'on');
  const { tabs } = await call<{ tabs: Array<{ tabId: number; scripts?: Array<{ id: string }> }> }>(server.client, 'list_tabs');
  assert.ok(tabs.find(x => x.tabId === tab)!.scripts!.some(s => s.id === id));
});

test('GM values persist in the store: shared across tabs and across a server restart', async () => {
  // Earlier tests visited basic.html; count from what the store holds now.
  const first = await open('basic.html?values');
  const n = Number((await marksWhen(first, m => m.twVisits !== undefined)).twVisits);
  assert.ok(n >= 1);
  const second = await open('basic.html?values');
  assert.equal((await marksWhen(second, m => m.twVisits !== undefined)).twVisits, String(n + 1));
  await server.close();
  server = await start();
  const again = (await call<{ tabId: number }>(server.client, 'open_tab', { url: `${site.origin}/us/basic.html?restart` })).tabId;
  assert.equal((await marksWhen(again, m => m.twVisits !== undefined)).twVisits, String(n + 2));
});

test('GM grants over MCP: a script saved with export_script reaches its @connect host as a permissions.json rule allows (other hosts refused), notifies, downloads and opens a tab', async () => {
  site.route('/us/api/price', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"price":9.99}');
  });
  site.page('/us/xhr.html', '<!doctype html><title>xhr</title><p>prices</p>');
  mkdirSync(join(dirs, 'config'), { recursive: true });
  writeFileSync(join(dirs, 'config', 'permissions.json'), JSON.stringify({ rules: [{ source: 'userscript', tool: '@connect 127.0.0.1', permission: 'allow' }] }));
  const code = ['// ==UserScript==', '// @name Price check', '// @namespace test.gm', '// @match http://127.0.0.1/us/xhr.html', '// @grant GM.xmlHttpRequest',
    '// @grant GM_notification', '// @grant GM.download', '// @grant GM_openInTab', '// @connect self', '// ==/UserScript==',
    '(async () => {',
    '  const r = await GM.xmlHttpRequest({url: "/us/api/price", responseType: "json"});',
    '  document.documentElement.dataset.twPrice = String(r.response.price);',
    '  GM_notification("Price is " + r.response.price, "Price check");',
    `  const other = await GM.xmlHttpRequest({url: ${JSON.stringify(site.origin.replace('127.0.0.1', 'localhost'))} + "/us/api/price"}).catch(e => e.error);`,
    '  document.documentElement.dataset.twOther = other;',
    '  const saved = await GM.download(URL.createObjectURL(new Blob(["price,9.99"])), "prices.csv");',
    '  document.documentElement.dataset.twSaved = saved.name;',
    '  GM_openInTab("/us/xhr.html?opened", {active: false});',
    '})();'].join('\n');
  const saved = await call<{ scriptId: string }>(server.client, 'export_script', { code });
  const tab = (await call<{ tabId: number }>(server.client, 'open_tab', { url: `${site.origin}/us/xhr.html` })).tabId;
  const m = await marksWhen(tab, x => x.twOther !== undefined);
  assert.equal(m.twPrice, '9.99');
  assert.equal((await marksWhen(tab, x => x.twSaved !== undefined)).twSaved, 'prices.csv');
  const { downloads } = await call<{ downloads: Array<{ name: string; state: string; path: string; tabId: number }> }>(server.client, 'list_downloads');
  const file = downloads.find(d => d.name === 'prices.csv' && d.tabId === tab)!;
  assert.equal(file.state, 'completed');
  assert.equal(readFileSync(file.path, 'utf8'), 'price,9.99');
  const opened = await (async () => {
    for (const end = Date.now() + 10_000; Date.now() < end; await new Promise(r => setTimeout(r, 100))) {
      const { tabs } = await call<{ tabs: Array<{ tabId: number; url: string; openerTabId?: number }> }>(server.client, 'list_tabs');
      const found = tabs.find(t => t.url.endsWith('/us/xhr.html?opened'));
      if (found) return found;
    }
    return undefined;
  })();
  assert.equal(opened?.openerTabId, tab);
  assert.equal(m.twOther, 'GM_xmlhttpRequest: localhost is not in the script\'s @connect list (self); add "// @connect localhost" to its header.');
  const { entries } = await call<{ entries: Array<{ text: string; level: string; script?: { id: string } }> }>(server.client, 'get_console_context', { tabId: tab });
  const note = entries.find(e => e.text.includes('Notification'))!;
  assert.deepEqual([note.text, note.level, note.script?.id], ['[Price check] Notification: Price check: Price is 9.99', 'info', saved.scriptId]);
});
