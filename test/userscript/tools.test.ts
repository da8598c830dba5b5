/**
 * The tools on the userscript connection (docs/userscript-connection.md, "Tools"), end to end: a tabwright MCP
 * server with `--connection userscript`, the official MCP client, and the companion under the GM shim
 * (test/fixtures/userscriptBrowser.ts) in each browser it is tested in, headless Chromium and Firefox, opted in by
 * the "user" from its menu with the broker URL that `tabwright userscript url` printed. list_tabs shows only
 * connected tabs; execute keeps its contract (async body, errors, maxBytes, never cut) and has navigate mode; what
 * needs a browser to drive answers capability_unavailable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cli, cliHome, type CliHome } from '../fixtures/cli.js';
import { until } from '../fixtures/harness.js';
import { call, callError, callRaw, connect, type Connected } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { MENU, startUserscriptBrowser, USERSCRIPT_BROWSERS, userscriptBrowserMissing, type UserscriptBrowser, type UserscriptBrowserKind, type UserscriptTab } from '../fixtures/userscriptBrowser.js';

interface Listed { tabId: number; url: string; title: string; instanceId: string; revision: number }

for (const kind of USERSCRIPT_BROWSERS) describe(`in ${kind}`, { skip: userscriptBrowserMissing(kind) }, () => suite(kind));

/** The whole suite in browser `kind`: its own server, site and browser. */
function suite(kind: UserscriptBrowserKind): void {
  let home: CliHome;
  let server: Connected;
  let site: Site;
  let browser: UserscriptBrowser;
  let page: UserscriptTab;

  const listed = async () => (await call<{ tabs: Listed[] }>(server.client, 'list_tabs')).tabs;

  before(async () => {
    home = await cliHome();
    server = await connect({ args: ['--connection', 'userscript'], env: { TABWRIGHT_CONFIG_DIR: home.configDir, TABWRIGHT_WS_PORT: home.env.TABWRIGHT_WS_PORT! } });
    site = await startSite();
    site.page('/page', '<title>Tools page</title><h1>Hello</h1><a id="next" href="/next">next</a>');
    site.page('/next', '<title>Next page</title><p>next</p>');
    browser = await startUserscriptBrowser(kind);
    const { url } = (await cli(home, ['userscript', 'url'])).json!.result as { url: string };
    await browser.setValue('brokerUrl', url);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await site?.close();
    await home?.cleanup();
  });

  describe('on an opted-in tab', () => {
    test('list_tabs shows nothing before "Allow", then the connected tab with its instance id and revision', async () => {
      page = await browser.open(`${site.origin}/page`);
      await until('the companion menu', async () => (await browser.menu(`${site.origin}/page`)).length > 0);
      const none = await server.client.callTool({ name: 'list_tabs', arguments: {} });
      assert.deepEqual((none.structuredContent as { tabs: unknown[] }).tabs, []);
      assert.match((none.content as Array<{ text: string }>)[0]!.text, /Allow agent access to this tab/);
      await browser.click(`${site.origin}/page`, MENU.allow);
      const [tab] = await until('the tab in list_tabs', async () => (await listed()).length === 1 && await listed());
      assert.equal(tab!.url, `${site.origin}/page`);
      assert.equal(tab!.title, 'Tools page');
      assert.equal(tab!.revision, 1);
      assert.match(tab!.instanceId, /^[0-9a-f]{32}$/);
    });

    test('execute: an expression, a body with return, await; the value as JSON', async () => {
      const [tab] = await listed();
      assert.deepEqual(await call(server.client, 'execute', { tabId: tab!.tabId, code: 'document.querySelector("h1").textContent' }), { tabId: tab!.tabId, value: 'Hello', bytes: 7 });
      assert.deepEqual((await call<{ value: unknown }>(server.client, 'execute', { code: 'const n = await Promise.resolve(20);\nreturn { n: n + 1 };' })).value, { n: 21 });
      assert.deepEqual((await call<{ value: unknown }>(server.client, 'execute', { code: '({ a: [1, 2] })' })).value, { a: [1, 2] });
    });

    test('execute errors: a throw is evaluation_failed, over maxBytes is result_too_large, truncate and ref are refused', async () => {
      assert.equal((await callError(server.client, 'execute', { code: 'throw new Error("boom")' })).type, 'evaluation_failed');
      assert.equal((await callError(server.client, 'execute', { code: '"x".repeat(3000)', maxBytes: 1024 })).type, 'result_too_large');
      assert.equal((await callError(server.client, 'execute', { code: '"x".repeat(3000)', maxBytes: 1024, truncate: true })).type, 'invalid_arguments');
      assert.equal((await callError(server.client, 'execute', { code: 'element.id', ref: 'e1' })).type, 'invalid_arguments');
      assert.equal((await callError(server.client, 'execute', { code: '1', maxBytes: 100 })).type, 'invalid_arguments');
      assert.equal((await callError(server.client, 'execute', { code: '1', timeoutSec: 301 })).type, 'invalid_arguments');
      assert.equal((await callError(server.client, 'execute', { code: 'new Promise(() => {})', timeoutSec: 1 })).type, 'timeout');
    });

    test('execute with navigate: a same-document navigation, then a new document with the next revision', async () => {
      const [tab] = await listed();
      const same = await call<{ navigation: string; url: string; revision: number }>(server.client, 'execute', { code: 'location.hash = "part"', navigate: true });
      assert.equal(same.navigation, 'same-document');
      assert.equal(same.url, `${site.origin}/page#part`);
      assert.equal(same.revision, tab!.revision);
      const next = await call<{ navigation: string; url: string; title: string; revision: number }>(server.client, 'execute', { code: 'document.getElementById("next").click()', navigate: true });
      assert.deepEqual([next.navigation, next.url, next.title, next.revision], ['document', `${site.origin}/next`, 'Next page', tab!.revision + 1]);
      const idle = await call<{ navigation: string; reason: string }>(server.client, 'execute', { code: '1', navigate: true, timeoutSec: 1 });
      assert.equal(idle.navigation, 'timeout');
      assert.match(idle.reason, /no new document/);
    });

    test('get_page_context: the in-page walker\'s format with refs, a selector scope, levels; get_bridge_status', async () => {
      await call(server.client, 'execute', { code: `document.body.insertAdjacentHTML("beforeend", '<nav><ul>' + Array.from({ length: 120 }, (_, i) => '<li><a href="#i' + i + '">Item ' + i + '</a></li>').join('') + '</ul></nav><button>Go</button>')` });
      const [tab] = await listed();
      const full = await call<{ snapshot: string; revision: number; instanceId: string; refCount: number }>(server.client, 'get_page_context', {});
      assert.equal(full.revision, tab!.revision);
      assert.equal(full.instanceId, tab!.instanceId);
      assert.match(full.snapshot, /- button "Go" \[ref=e\d+\]/);
      assert.match(full.snapshot, /- link "Item 0" \[ref=e\d+\]/);
      assert.ok(full.refCount > 100);
      const scoped = await call<{ snapshot: string }>(server.client, 'get_page_context', { selector: 'nav', limit: 10 });
      assert.match(scoped.snapshot, /Item 9/);
      assert.doesNotMatch(scoped.snapshot, /Item 10"/);
      const paging = /get_page_context \{ref: "(e\d+)", offset: 10\}/.exec(scoped.snapshot);
      assert.ok(paging, scoped.snapshot.slice(-400));
      const next = await call<{ snapshot: string }>(server.client, 'get_page_context', { ref: paging[1], offset: 10, limit: 5 });
      assert.match(next.snapshot, /Item 10"/);
      assert.doesNotMatch(next.snapshot, /Item 9"/);
      const interactive = await call<{ snapshot: string; level: string }>(server.client, 'get_page_context', { level: 'interactive' });
      assert.equal(interactive.level, 'interactive');
      assert.equal((await callError(server.client, 'get_page_context', { selector: '#missing' })).type, 'invalid_arguments');
      const status = await call<{ connection: string; capabilityManifest: Record<string, { status: string }> }>(server.client, 'get_bridge_status');
      assert.equal(status.connection, 'userscript');
      assert.equal(status.capabilityManifest.screenshot!.status, 'unavailable');
      assert.equal(status.capabilityManifest.snapshot!.status, 'available');
    });

    test('click, type and fill_form dispatch synthetic events on refs of get_page_context, and say so', async () => {
      await call(server.client, 'execute', { code: `document.body.insertAdjacentHTML("beforeend", '<form id="f" onsubmit="event.preventDefault(); window.submitted = document.getElementById(\\'q\\').value"><input id="q" aria-label="Query"><input type="checkbox" id="c" aria-label="Agree"><select id="s" aria-label="Size"><option value="s">Small</option><option value="l">Large</option></select><button type="button" onclick="window.clicked = (window.clicked || 0) + 1">Press</button></form>'); window.inputs = 0; document.getElementById('q').addEventListener('input', () => window.inputs++); true` });
      const { snapshot } = await call<{ snapshot: string }>(server.client, 'get_page_context', { selector: '#f' });
      const ref = (role: string, name: string) => new RegExp(`- ${role} "${name}"[^\\n]*\\[ref=(e\\d+)\\]`).exec(snapshot)?.[1] ?? assert.fail(`no ${role} "${name}" in ${snapshot}`);
      const clicked = await callRaw(server.client, 'click', { ref: ref('button', 'Press') });
      assert.equal((clicked.structuredContent as { synthetic: boolean }).synthetic, true);
      assert.match(clicked.content.map(c => c.text).join('\n'), /Synthetic events \(isTrusted false\)/);
      assert.equal((await call<{ value: unknown }>(server.client, 'execute', { code: 'window.clicked' })).value, 1);
      const typed = await call<{ element: { value: string } }>(server.client, 'type', { ref: ref('textbox', 'Query'), text: 'hello', submit: true });
      assert.equal(typed.element.value, 'hello');
      assert.deepEqual((await call<{ value: unknown }>(server.client, 'execute', { code: '[window.inputs, window.submitted]' })).value, [1, 'hello']);
      const filled = await call<{ fields: Array<{ ref: string; value?: string; checked?: boolean }> }>(server.client, 'fill_form', { fields: [
        { ref: ref('textbox', 'Query'), value: 'again' }, { ref: ref('checkbox', 'Agree'), value: true }, { ref: ref('combobox', 'Size'), value: ['Large'] },
      ] });
      assert.deepEqual(filled.fields.map(f => f.checked ?? f.value), ['again', true, 'l']);
      assert.equal((await callError(server.client, 'fill_form', { fields: [{ ref: ref('checkbox', 'Agree'), value: 'yes' }] })).type, 'invalid_arguments');
      assert.equal((await callError(server.client, 'click', { ref: ref('button', 'Press'), doubleClick: true })).type, 'capability_unavailable');
    });

    test('a guard on an old revision is revision_mismatch; nothing runs', async () => {
      const [tab] = await listed();
      const error = await callError(server.client, 'execute', { code: 'window.ran = true', expectRevision: tab!.revision - 1 });
      assert.equal(error.type, 'revision_mismatch');
      assert.equal((await call<{ value: unknown }>(server.client, 'execute', { code: 'window.ran ?? false' })).value, false);
    });

    test('add_element goes through the userscript manager\'s GM_addElement: {tag, id}; a parent that matches nothing is an error', async () => {
      const [tab] = await listed();
      const added = await call<{ tabId: number; tag: string; id: string | null }>(server.client, 'add_element', { tag: 'div', parent: 'body', attributes: { id: 'from-agent' }, properties: { textContent: 'added' } });
      assert.deepEqual(added, { tabId: tab!.tabId, tag: 'div', id: 'from-agent' });
      assert.equal((await call<{ value: unknown }>(server.client, 'execute', { code: 'document.getElementById("from-agent").textContent' })).value, 'added');
      const nowhere = await callError(server.client, 'add_element', { tag: 'div', parent: '#nowhere' });
      assert.deepEqual([nowhere.type, nowhere.message], ['invalid_arguments', `No element matches the parent selector "#nowhere" in tab ${tab!.tabId}.`]);
      const styled = await call<{ tag: string }>(server.client, 'add_element', { tag: 'style', properties: { textContent: '#from-agent { color: rgb(1, 2, 3); }' } });
      assert.equal(styled.tag, 'style');
      assert.deepEqual((await call<{ value: unknown }>(server.client, 'execute', { code: '[[...document.head.children].some(e => e.localName === "style" && e.textContent.includes("rgb(1, 2, 3)")), getComputedStyle(document.getElementById("from-agent")).color]' })).value, [true, 'rgb(1, 2, 3)']);
      assert.equal((await callError(server.client, 'add_element', { tag: 'div', ref: 'e1' })).type, 'invalid_arguments');
    });

    test('what needs a browser to drive answers capability_unavailable, naming the kinds that have it', async () => {
      for (const [name, args] of [['take_screenshot', {}], ['find', { text: 'Hello' }], ['hover', { ref: 'e1' }], ['list_webmcp_tools', {}], ['navigate', { url: `${site.origin}/page` }], ['open_tab', {}]] as const) {
        const error = await callError(server.client, name, args);
        assert.equal(error.type, 'capability_unavailable', `${name}: ${error.message}`);
      }
      assert.match((await callError(server.client, 'take_screenshot')).hint, /--connection launch/);
    });

    test('"Disconnect" takes the tab out of list_tabs within a second', async () => {
      await browser.click(await page.url(), MENU.disconnect);
      const started = Date.now();
      await until('the tab to leave list_tabs', async () => (await listed()).length === 0, 2000, { every: 50 });
      assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
    });
  });
}
