/**
 * The tools on the userscript connection (docs/userscript-connection.md, "Tools"), end to end: a tabwright MCP
 * server with `--connection userscript`, the official MCP client, and the companion under the GM shim
 * (test/fixtures/userscriptBrowser.ts) in each browser it is tested in, headless Chromium and Firefox, opted in by
 * the "user" from its menu with the broker URL that `tabwright userscript url` printed. list_tabs shows only
 * connected tabs; execute keeps its contract (async body, errors, maxBytes, never cut) and has navigate mode; the
 * page's WebMCP tools answer through document.modelContext, native in Chromium with its WebMCP feature, else
 * tabwright's polyfill that the companion installs (a second Chromium without the feature; Firefox itself); what
 * needs a browser to drive answers capability_unavailable.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli, cliHome, type CliHome } from '../fixtures/cli.js';
import { until } from '../fixtures/harness.js';
import { call, callError, callRaw, connect, type Connected } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { MENU, startUserscriptBrowser, USERSCRIPT_BROWSERS, userscriptBrowserMissing, type UserscriptBrowser, type UserscriptBrowserKind, type UserscriptTab } from '../fixtures/userscriptBrowser.js';

interface Listed { tabId: number; url: string; title: string; instanceId: string; revision: number }

interface ListedTool { tabId: number; origin: string; name: string; description: string; inputSchema?: unknown; annotations?: Record<string, true>; form?: { autosubmit: boolean }; source: string; permission: string }

const ADD_SCHEMA = {
  type: 'object',
  properties: { a: { type: 'number', description: 'First addend' }, b: { type: 'number', description: 'Second addend' } },
  required: ['a', 'b'],
  additionalProperties: false,
};

/** The page's WebMCP tools: a declarative form, and imperative ones that answer, throw, never answer, or need consent. */
const WEBMCP_TOOLS = `<form id="note" toolname="add_note" tooldescription="Add a note to the board" toolautosubmit>
  <label>Text <input name="text" required toolparamdescription="What the note says"></label>
  <button>Add</button>
</form>
<ul id="board"></ul>
<script>
  window.calls = { add: 0, wipe: 0 };
  const mc = document.modelContext;
  mc.registerTool({ name: 'add', description: 'Add two numbers', inputSchema: ${JSON.stringify(ADD_SCHEMA)}, annotations: { readOnlyHint: true },
    execute: async ({ a, b }) => { calls.add++; return { content: [{ type: 'text', text: String(a + b) }] }; } });
  mc.registerTool({ name: 'boom', description: 'Always fails', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true },
    execute: async () => { throw new Error('the calculator caught fire'); } });
  mc.registerTool({ name: 'stall', description: 'Never answers', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true },
    execute: (_input, { signal }) => { window.stalls = (window.stalls || 0) + 1; return new Promise(() => signal.addEventListener('abort', () => { window.stallAborted = true; })); } });
  mc.registerTool({ name: 'wipe', description: 'Wipes the board', inputSchema: { type: 'object', properties: {} },
    execute: async () => { calls.wipe++; return 'wiped'; } });
  document.getElementById('note').addEventListener('submit', event => {
    event.preventDefault();
    const li = document.createElement('li');
    li.textContent = new FormData(event.target).get('text');
    document.getElementById('board').append(li);
    if (event.agentInvoked) event.respondWith(Promise.resolve('Added note "' + li.textContent + '"'));
  });
</script>`;

for (const kind of USERSCRIPT_BROWSERS) describe(`in ${kind}`, { skip: userscriptBrowserMissing(kind) }, () => suite(kind));

/** The whole suite in browser `kind`: its own server, site and browser. */
function suite(kind: UserscriptBrowserKind): void {
  let home: CliHome;
  let server: Connected;
  let site: Site;
  let browser: UserscriptBrowser;
  let page: UserscriptTab;
  /** Sends the rest of /webmcp-stream, its tools' script. */
  let releaseTools: (() => void) | undefined;

  /** The native WebMCP tests' skip reason: Firefox has none (the polyfill describe below covers its tabs). */
  const noNativeWebMCP = kind === 'firefox' && 'Firefox has no native WebMCP: its tabs get the polyfill, tested below';

  const listed = async () => (await call<{ tabs: Listed[] }>(server.client, 'list_tabs')).tabs;

  before(async () => {
    home = await cliHome();
    server = await connect({ args: ['--connection', 'userscript'], env: { TABWRIGHT_CONFIG_DIR: home.configDir, TABWRIGHT_WS_PORT: home.env.TABWRIGHT_WS_PORT! } });
    site = await startSite();
    site.page('/page', '<title>Tools page</title><h1>Hello</h1><a id="next" href="/next">next</a>');
    site.page('/next', '<title>Next page</title><p>next</p>');
    site.page('/webmcp', `<title>WebMCP page</title>${WEBMCP_TOOLS}`);
    // The tools' script comes once the test releases it, after the companion's hello: the GM shim starts the
    // companion once its values are loaded, a moment after document start, where a real manager runs it before any
    // page script.
    site.route('/webmcp-stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.write(`<!doctype html><title>Streamed tools</title>${' '.repeat(2048)}`);
      releaseTools = () => res.end(WEBMCP_TOOLS);
    });
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
      assert.equal(status.capabilityManifest.webmcp!.status, 'experimental');
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
      for (const [name, args] of [['take_screenshot', {}], ['find', { text: 'Hello' }], ['hover', { ref: 'e1' }], ['navigate', { url: `${site.origin}/page` }], ['open_tab', {}]] as const) {
        const error = await callError(server.client, name, args);
        assert.equal(error.type, 'capability_unavailable', `${name}: ${error.message}`);
      }
      assert.match((await callError(server.client, 'take_screenshot')).hint, /--connection launch/);
    });

    test('list_webmcp_tools lists the page\'s native WebMCP tools (imperative and a <form toolname>) with schemas and permissions', { skip: noNativeWebMCP }, async () => {
      writeFileSync(join(home.configDir, 'permissions.json'), JSON.stringify({ rules: [{ tool: 'wipe', permission: 'deny' }] }));
      const moved = await call<{ navigation: string; revision: number }>(server.client, 'execute', { code: 'location.href = "/webmcp"', navigate: true });
      assert.equal(moved.navigation, 'document');
      const [tab] = await listed();
      const { tools } = await call<{ tools: ListedTool[] }>(server.client, 'list_webmcp_tools', {});
      assert.deepEqual(tools.map(t => [t.name, t.source, t.permission]), [['add', 'native', 'allow'], ['add_note', 'native', 'prompt'], ['boom', 'native', 'allow'], ['stall', 'native', 'allow'], ['wipe', 'native', 'deny']]);
      const add = tools.find(t => t.name === 'add')!;
      assert.deepEqual([add.tabId, add.origin, add.description, add.annotations], [tab!.tabId, site.origin, 'Add two numbers', { readOnlyHint: true }]);
      assert.deepEqual(add.inputSchema, ADD_SCHEMA);
      const note = tools.find(t => t.name === 'add_note')!;
      assert.deepEqual(note.form, { autosubmit: true });
      assert.deepEqual((note.inputSchema as { required: string[] }).required, ['text']);
      const raw = await callRaw(server.client, 'list_webmcp_tools', { tabId: tab!.tabId });
      assert.match(raw.content.map(c => c.text).join('\n'), /^- \[tab \d+\] add \[allow\]: Add two numbers \(readOnlyHint\)$/m);
    });

    test('call_webmcp_tool calls a native tool with arguments checked by ajv; the gate, a throw, a timeout and an unknown name fail as on the other kinds', { skip: noNativeWebMCP }, async () => {
      const added = await callRaw(server.client, 'call_webmcp_tool', { name: 'add', arguments: { a: 2, b: 40 } });
      assert.equal(added.isError, undefined);
      assert.equal(added.content[0]!.text, '42');
      assert.deepEqual((added.structuredContent as { result: unknown }).result, { content: [{ type: 'text', text: '42' }] });
      assert.equal((await callError(server.client, 'call_webmcp_tool', { name: 'add', arguments: { a: 'two', b: 40 } })).type, 'invalid_arguments');
      assert.equal((await callError(server.client, 'call_webmcp_tool', { name: 'add', arguments: { a: 1 } })).type, 'invalid_arguments');
      assert.equal((await call<{ value: unknown }>(server.client, 'execute', { code: 'calls.add' })).value, 1);
      const unknown = await callError(server.client, 'call_webmcp_tool', { name: 'nope' });
      assert.equal(unknown.type, 'webmcp_tool_not_found');
      const boom = await callError(server.client, 'call_webmcp_tool', { name: 'boom' });
      assert.equal(boom.type, 'evaluation_failed');
      assert.match(boom.message, /^WebMCP tool "boom" failed: /);
      const started = Date.now();
      const stalled = await callError(server.client, 'call_webmcp_tool', { name: 'stall', timeoutSec: 1 });
      assert.deepEqual([stalled.type, stalled.message], ['timeout', 'WebMCP tool "stall" did not answer within 1 s.']);
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
      await until('the tool\'s signal to abort', async () => (await call<{ value: unknown }>(server.client, 'execute', { code: 'window.stallAborted === true' })).value === true);
      // The MCP client cancels: the page's execute signal aborts too.
      await call(server.client, 'execute', { code: 'window.stallAborted = false; window.stalls = 0' });
      const controller = new AbortController();
      const pending = server.client.callTool({ name: 'call_webmcp_tool', arguments: { name: 'stall' } }, { signal: controller.signal });
      await until('the stalled call in the page', async () => (await call<{ value: unknown }>(server.client, 'execute', { code: 'window.stalls' })).value === 1);
      controller.abort();
      await assert.rejects(pending);
      await until('the tool\'s signal to abort after the cancel', async () => (await call<{ value: unknown }>(server.client, 'execute', { code: 'window.stallAborted === true' })).value === true);
      const denied = await callError(server.client, 'call_webmcp_tool', { name: 'wipe' });
      assert.equal(denied.type, 'consent_denied');
      assert.equal((await call<{ value: unknown }>(server.client, 'execute', { code: 'calls.wipe' })).value, 0);
    });

    test('call_webmcp_tool fills and submits a native <form toolname> and returns what the page responded', { skip: noNativeWebMCP }, async () => {
      writeFileSync(join(home.configDir, 'permissions.json'), JSON.stringify({ rules: [{ tool: 'add_note', permission: 'allow' }] }));
      const note = await callRaw(server.client, 'call_webmcp_tool', { name: 'add_note', arguments: { text: 'milk' } });
      assert.equal(note.isError, undefined, JSON.stringify(note.content));
      assert.equal(note.content[0]!.text, 'Added note "milk"');
      assert.equal((await call<{ value: unknown }>(server.client, 'execute', { code: 'document.getElementById("board").textContent' })).value, 'milk');
      assert.equal((await callError(server.client, 'call_webmcp_tool', { name: 'add_note', arguments: {} })).type, 'invalid_arguments');
      rmSync(join(home.configDir, 'permissions.json'));
    });

    test('"Disconnect" takes the tab out of list_tabs within a second', async () => {
      await browser.click(await page.url(), MENU.disconnect);
      const started = Date.now();
      await until('the tab to leave list_tabs', async () => (await listed()).length === 0, 2000, { every: 50 });
      assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
    });
  });

  describe('in a browser without native WebMCP: tabwright\'s polyfill, from the companion', () => {
    let plain: UserscriptBrowser;

    // Chromium: a second one, without its WebMCP feature. Firefox has no WebMCP of its own: the suite's browser.
    before(async () => {
      if (kind === 'firefox') {
        plain = browser;
        return;
      }
      plain = await startUserscriptBrowser(kind, { webmcp: false });
      const { url } = (await cli(home, ['userscript', 'url'])).json!.result as { url: string };
      await plain.setValue('brokerUrl', url);
    });

    after(async () => {
      if (plain !== browser) await plain?.close();
    });

    test('a tab allowed after it loaded: the tools registered since are listed, the listing says it may miss earlier ones', async () => {
      const tab = await plain.open(`${site.origin}/page`);
      await until('the companion menu', async () => (await plain.menu(`${site.origin}/page`)).length > 0);
      // Not allowed yet: the companion left the page alone.
      assert.deepEqual(await tab.evaluate('["modelContext" in document, "__tabwright" in window]'), [false, false]);
      await plain.click(`${site.origin}/page`, MENU.allow);
      await until('the tab in list_tabs', async () => (await listed()).length === 1);
      const raw = await callRaw(server.client, 'list_webmcp_tools', {});
      assert.deepEqual((raw.structuredContent as { tools: unknown[] }).tools, []);
      assert.deepEqual((raw.structuredContent as { partial: unknown[] }).partial, [{ tabId: (await listed())[0]!.tabId, reason: 'late' }]);
      assert.match(raw.content.map(c => c.text).join('\n'), /the tab was allowed after this page loaded/);
      await call(server.client, 'execute', { code: `document.modelContext.registerTool({ name: 'later', description: 'Registered after the polyfill', annotations: { readOnlyHint: true }, execute: () => 'late but here' })` });
      assert.equal((await callRaw(server.client, 'call_webmcp_tool', { name: 'later' })).content[0]!.text, 'late but here');
    });

    test('after a reload, tools the page registers while it loads are in the polyfill: listed, called, errors as on the other kinds', async () => {
      const moved = await call<{ navigation: string }>(server.client, 'execute', { code: 'location.href = "/webmcp-stream"', navigate: true });
      assert.equal(moved.navigation, 'document');
      // The document is still loading, its tools' script not yet sent: the companion's hello came first.
      assert.equal((await call<{ value: unknown }>(server.client, 'execute', { code: 'document.readyState' })).value, 'loading');
      releaseTools!();
      await until('the page\'s tools script', async () => (await call<{ value: unknown }>(server.client, 'execute', { code: 'document.readyState === "complete"' })).value === true);
      const raw = await callRaw(server.client, 'list_webmcp_tools', {});
      const { tools, partial } = raw.structuredContent as { tools: ListedTool[]; partial?: unknown };
      assert.equal(partial, undefined, raw.content.map(c => c.text).join('\n'));
      assert.deepEqual(tools.map(t => [t.name, t.source]), [['add', 'polyfill'], ['add_note', 'polyfill'], ['boom', 'polyfill'], ['stall', 'polyfill'], ['wipe', 'polyfill']]);
      assert.deepEqual(tools.find(t => t.name === 'add')!.inputSchema, ADD_SCHEMA);
      assert.deepEqual(tools.find(t => t.name === 'add_note')!.form, { autosubmit: true });
      assert.equal((await callRaw(server.client, 'call_webmcp_tool', { name: 'add', arguments: { a: 1, b: 2 } })).content[0]!.text, '3');
      assert.equal((await callError(server.client, 'call_webmcp_tool', { name: 'add', arguments: { a: 1, b: 2, c: 3 } })).type, 'invalid_arguments');
      assert.equal((await callError(server.client, 'call_webmcp_tool', { name: 'nope' })).type, 'webmcp_tool_not_found');
      const boom = await callError(server.client, 'call_webmcp_tool', { name: 'boom' });
      assert.deepEqual([boom.type, boom.message], ['evaluation_failed', 'WebMCP tool "boom" failed: Error: the calculator caught fire']);
      const stalled = await callError(server.client, 'call_webmcp_tool', { name: 'stall', timeoutSec: 1 });
      assert.equal(stalled.type, 'timeout');
      await until('the tool\'s signal to abort', async () => (await call<{ value: unknown }>(server.client, 'execute', { code: 'window.stallAborted === true' })).value === true);
      writeFileSync(join(home.configDir, 'permissions.json'), JSON.stringify({ rules: [{ tool: 'wipe', permission: 'deny' }, { tool: 'add_note', permission: 'allow' }] }));
      assert.equal((await callError(server.client, 'call_webmcp_tool', { name: 'wipe' })).type, 'consent_denied');
      assert.equal((await call<{ value: unknown }>(server.client, 'execute', { code: 'calls.wipe' })).value, 0);
      assert.equal((await callRaw(server.client, 'call_webmcp_tool', { name: 'add_note', arguments: { text: 'eggs' } })).content[0]!.text, 'Added note "eggs"');
      rmSync(join(home.configDir, 'permissions.json'));
    });
  });
}
