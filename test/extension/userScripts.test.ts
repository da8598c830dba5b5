/**
 * Userscripts through the extension (docs/userscripts.md, "Through the extension"): with "Allow User Scripts" on,
 * the extension registers tabwright's engine with chrome.userScripts and scripts run in shared tabs only, GM values
 * and menu commands included; with it off, the CDP injector runs them and get_bridge_status says how to turn it
 * on; clicking the real toggle switches the path.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clickAllowUserScripts, startExtensionBrowser, TEST_PAIRING_CODE, type ExtensionBrowser } from '../fixtures/extension.js';
import { freePort, until } from '../fixtures/harness.js';
import { call, connect, evaluate, type Connected } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';

let site: Site;

const SCRIPT = `// ==UserScript==
// @name        Ext path
// @namespace   tabwright-test
// @match       http://127.0.0.1/us/*
// @run-at      document-start
// @grant       GM_getValue
// @grant       GM_setValue
// @grant       GM_registerMenuCommand
// @grant       GM_log
// ==/UserScript==
window.__early = 'set';
const runs = GM_getValue('runs', 0) + 1;
GM_setValue('runs', runs);
document.documentElement.dataset.twRuns = String(runs);
GM_registerMenuCommand('Mark', () => { document.documentElement.dataset.twMenu = 'clicked'; });
GM_log('hello from', location.pathname);
`;

interface Status { userscripts?: { path: string; userScripts?: { available: boolean; reason?: string }; hint?: string } }
interface Tabs { tabs: Array<{ tabId: number; url: string; scripts?: Array<{ name: string }>; menuCommands?: Array<{ commandId: string; caption: string }> }> }

before(async () => {
  site = await startSite();
  // The page's first inline script reports what a document-start script left for it.
  site.page('/us/a', '<title>US</title><script>document.documentElement.dataset.pageSaw = String(window.__early)</script><h1>a</h1>');
});
after(async () => {
  await site?.close();
});

/** A server on the extension with the scripts tool set, paired with `browser`. */
async function serve(browser: ExtensionBrowser): Promise<Connected> {
  const port = await freePort();
  const server = await connect({ args: ['--connection', 'extension', '--toolsets', 'all'], env: { TABWRIGHT_WS_PORT: String(port), TABWRIGHT_PAIRING_KEY: TEST_PAIRING_CODE } });
  await browser.pair(TEST_PAIRING_CODE, port);
  return server;
}

/** Opens `path` in a tab of the user's, shares it, and returns tabwright's id of it. */
async function sharedTab(browser: ExtensionBrowser, server: Connected, path: string): Promise<number> {
  const page = await browser.context.newPage();
  await page.goto(`${site.origin}${path}`);
  await browser.share(await browser.tabIdOf(`${site.origin}${path}`));
  return await until('the shared tab in list_tabs', async () => (await call<Tabs>(server.client, 'list_tabs')).tabs.find(t => t.url === `${site.origin}${path}`)?.tabId, 20_000);
}

const data = (server: Connected, tabId: number) => evaluate<Record<string, string>>(server.client, '({...document.documentElement.dataset})', tabId);

/** The ids of what the extension registered with chrome.userScripts (asked in its worker). */
async function registered(browser: ExtensionBrowser): Promise<string[]> {
  const worker = await browser.worker();
  return await worker.evaluate(async () => {
    const us = (globalThis as unknown as { chrome: { userScripts?: { getScripts(): Promise<Array<{ id: string }>> } } }).chrome.userScripts;
    return us ? (await us.getScripts()).map(s => s.id).sort() : ['(chrome.userScripts unavailable)'];
  });
}

describe('"Allow User Scripts" on', () => {
  let browser: ExtensionBrowser;
  let server: Connected;
  before(async () => {
    browser = await startExtensionBrowser({ userScripts: true });
    server = await serve(browser);
  });
  after(async () => {
    await server?.close().catch(() => undefined);
    await browser?.close();
  });

  test('the extension registers the scripts with chrome.userScripts; they run in shared tabs only, with GM values, GM_log and menu commands', async () => {
    const tabId = await sharedTab(browser, server, '/us/a');
    await call(server.client, 'export_script', { code: SCRIPT });
    const status = await call<Status>(server.client, 'get_bridge_status');
    assert.equal(status.userscripts?.path, 'chrome.userScripts');
    assert.deepEqual(await registered(browser), ['tabwright-engine', 'tabwright-messenger']);

    await call(server.client, 'reload_tab', { tabId });
    const first = await until('the script in the shared tab', async () => {
      const d = await data(server, tabId);
      return d.twRuns ? d : undefined;
    }, 10_000);
    // document-start: before the page's first inline script (the extension marks the documents of shared tabs it is attached to).
    assert.deepEqual({ runs: first.twRuns, pageSaw: first.pageSaw }, { runs: '1', pageSaw: 'set' });

    const listed = await until('the script and its menu command in list_tabs', async () => {
      const tab = (await call<Tabs>(server.client, 'list_tabs')).tabs.find(t => t.tabId === tabId);
      return tab?.menuCommands?.length ? tab : undefined;
    }, 10_000);
    assert.deepEqual(listed.scripts?.map(s => s.name), ['Ext path']);
    assert.deepEqual(listed.menuCommands!.map(c => c.caption), ['Mark']);
    await call(server.client, 'run_menu_command', { tabId, commandId: listed.menuCommands![0]!.commandId });
    assert.equal((await data(server, tabId)).twMenu, 'clicked');
    const consoleText = JSON.stringify(await call(server.client, 'get_console_context', { tabId }));
    assert.match(consoleText, /\[Ext path\] hello from \/us\/a/);

    // The same URL in a tab the user did not share: Chrome injects the engine there too, and it runs nothing.
    const unshared = await browser.context.newPage();
    await unshared.goto(`${site.origin}/us/a`);
    // A later load of the shared tab sees the value of its own first load only: the unshared tab wrote none.
    await call(server.client, 'reload_tab', { tabId });
    const second = await until('the second run', async () => {
      const d = await data(server, tabId);
      return d.twRuns === '2' ? d : undefined;
    }, 10_000);
    assert.equal(second.pageSaw, 'set');
    assert.deepEqual(await unshared.evaluate(() => ({ runs: document.documentElement.dataset.twRuns ?? null, pageSaw: document.documentElement.dataset.pageSaw })), { runs: null, pageSaw: 'undefined' });
    await unshared.close();

    // Disabling the script unregisters the engine.
    const scriptId = (await call<{ scripts: Array<{ scriptId: string }> }>(server.client, 'list_scripts')).scripts[0]!.scriptId;
    await call(server.client, 'toggle_script', { scriptId, enabled: false });
    assert.deepEqual(await registered(browser), []);
  });
});

describe('"Allow User Scripts" off', () => {
  let browser: ExtensionBrowser;
  let server: Connected;
  before(async () => {
    browser = await startExtensionBrowser();
    server = await serve(browser);
  });
  after(async () => {
    await server?.close().catch(() => undefined);
    await browser?.close();
  });

  test('the CDP injector runs the scripts and get_bridge_status says how to turn the toggle on; clicking it switches to chrome.userScripts', async () => {
    const tabId = await sharedTab(browser, server, '/us/a');
    await call(server.client, 'export_script', { code: SCRIPT });
    const off = await call<Status>(server.client, 'get_bridge_status');
    assert.equal(off.userscripts?.path, 'cdp');
    assert.deepEqual(off.userscripts?.userScripts, { available: false, reason: 'allow-user-scripts-off', chromeMajor: Number(/Chrome\/(\d+)/.exec(await browser.context.pages()[0]!.evaluate(() => navigator.userAgent))![1]) });
    assert.match(off.userscripts?.hint ?? '', /chrome:\/\/extensions → tabwright → Details → Allow User Scripts/);
    const text = await server.client.callTool({ name: 'get_bridge_status', arguments: {} }) as { content: Array<{ text: string }> };
    assert.match(text.content.map(c => c.text).join('\n'), /Userscripts: injected over CDP; chrome\.userScripts is off \(allow-user-scripts-off\)\. Turn on "Allow User Scripts"/);
    await call(server.client, 'reload_tab', { tabId });
    assert.equal(await until('the script over CDP', async () => (await data(server, tabId)).twRuns, 10_000), '1');
    assert.deepEqual(await registered(browser), ['(chrome.userScripts unavailable)']);

    await clickAllowUserScripts(browser.context);
    const on = await call<Status>(server.client, 'get_bridge_status');
    assert.equal(on.userscripts?.path, 'chrome.userScripts');
    assert.deepEqual(await registered(browser), ['tabwright-engine', 'tabwright-messenger']);
    await call(server.client, 'reload_tab', { tabId });
    const d = await until('the script through chrome.userScripts', async () => {
      const now = await data(server, tabId);
      return now.twRuns === '2' ? now : undefined;
    }, 10_000);
    assert.equal(d.pageSaw, 'set');
  });
});
