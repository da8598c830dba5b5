/**
 * The extension enforces the scope (EXTENSION-DESIGN.md §4.6; docs/own-browser.md, "What the extension allows"):
 * through tabwright an unshared tab is invisible and unreachable, and a server that asks for more than the shared
 * tabs (as a compromised or prompt-injected one would) is refused by the extension's own gate. The second part
 * plays that server with the built ExtensionBridge in this process and sends the link's requests directly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EXTENSION_ID, startExtensionBrowser, startLinkServer, TEST_PAIRING_CODE, type ExtensionBrowser, type LinkServer } from '../fixtures/extension.js';
import { freePort, until } from '../fixtures/harness.js';
import { call, callError, connect, evaluate, type Connected } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';

interface Link {
  request(m: string, p?: Record<string, unknown>): Promise<unknown>;
}

let browser: ExtensionBrowser;
let site: Site;

before(async () => {
  site = await startSite();
  site.page('/shared', '<title>Shared</title><h1>shared</h1>');
  site.page('/secret', '<title>Secret</title><h1>secret</h1><script>document.cookie = "sid=top; path=/"</script>');
  browser = await startExtensionBrowser();
});
after(async () => {
  await browser?.close();
  await site?.close();
});

describe('through tabwright', () => {
  let server: Connected;
  before(async () => {
    const port = await freePort();
    server = await connect({ args: ['--connection', 'extension'], env: { TABWRIGHT_WS_PORT: String(port), TABWRIGHT_PAIRING_KEY: TEST_PAIRING_CODE } });
    await browser.pair(TEST_PAIRING_CODE, port);
  });
  after(async () => {
    await server?.close().catch(() => undefined);
  });

  test('only the tabs the user shares are tabwright\'s: sharing shows a tab, stopping takes it away', async () => {
    const shared = await browser.context.newPage();
    await shared.goto(`${site.origin}/shared`);
    const secret = await browser.context.newPage();
    await secret.goto(`${site.origin}/secret`);
    await browser.share(await browser.tabIdOf(`${site.origin}/shared`));
    const urls = async () => (await call<{ tabs: Array<{ url: string; tabId: number }> }>(server.client, 'list_tabs')).tabs.map(t => t.url);
    await until('the shared tab in list_tabs', async () => (await urls()).includes(`${site.origin}/shared`), 20_000);
    assert.deepEqual(await urls(), [`${site.origin}/shared`]);
    // Nothing tabwright runs reaches the unshared tab: the shared one's page sees only itself.
    assert.equal(await evaluate(server.client, 'document.title'), 'Shared');

    const secretId = await browser.tabIdOf(`${site.origin}/secret`);
    await browser.share(secretId);
    await until('the second tab', async () => (await urls()).includes(`${site.origin}/secret`), 10_000);
    const secretTab = (await call<{ tabs: Array<{ url: string; tabId: number }> }>(server.client, 'list_tabs')).tabs.find(t => t.url === `${site.origin}/secret`)!.tabId;
    await browser.unshare(secretId);
    await until('the tab to go away', async () => !(await urls()).includes(`${site.origin}/secret`), 10_000);
    assert.deepEqual(await urls(), [`${site.origin}/shared`]);
    // A call on the tab the user stopped sharing says so, not that the tab closed.
    const gone = await callError(server.client, 'get_page_context', { tabId: secretTab });
    assert.equal(gone.type, 'tab_not_found');
    assert.match(gone.message, new RegExp(`^Tab ${secretTab} is no longer shared with tabwright: the user stopped sharing it \\(it is still open in their browser\\)\\.$`));
    assert.match(gone.hint, /ask the user to share it again/);
    assert.ok(!secret.isClosed());
    await browser.unshare(await browser.tabIdOf(`${site.origin}/shared`));
    await shared.close();
    await secret.close();
  });

  test('closing tabwright detaches every tab and leaves the tabs open, out of the tabwright group', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${site.origin}/shared`);
    const tabId = await browser.tabIdOf(`${site.origin}/shared`);
    await browser.share(tabId);
    await until('the tab in list_tabs', async () => (await call<{ tabs: unknown[] }>(server.client, 'list_tabs')).tabs.length === 1, 20_000);
    // What the extension says of itself, asked from one of its pages as the popup does.
    const popup = await browser.context.newPage();
    await popup.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
    const state = () => popup.evaluate(async (id: number) => {
      const c = (globalThis as unknown as { chrome: { runtime: { sendMessage(m: unknown): Promise<{ result: { attached: number[] } }> }; tabs: { get(id: number): Promise<{ groupId: number; url?: string }> } } }).chrome;
      const { result } = await c.runtime.sendMessage({ type: 'status' });
      const tab = await c.tabs.get(id);
      return { attached: result.attached.includes(id), grouped: tab.groupId !== -1, url: tab.url };
    }, tabId);
    assert.deepEqual(await state(), { attached: true, grouped: true, url: `${site.origin}/shared` });
    await server.close();
    await until('the extension to let go', async () => !(await state()).attached, 10_000);
    assert.deepEqual(await state(), { attached: false, grouped: false, url: `${site.origin}/shared` });
    await popup.close();
    await browser.unshare(tabId);
    await page.close();
  });

  test('the popup will not share the extension\'s own pages', async () => {
    const own = await browser.context.newPage();
    await own.goto(`chrome-extension://${EXTENSION_ID}/pair.html`);
    const popup = await browser.context.newPage();
    await popup.goto(`chrome-extension://${EXTENSION_ID}/popup.html?tabId=${await browser.tabIdOf(`chrome-extension://${EXTENSION_ID}/pair.html`)}`);
    await popup.click('#share');
    await until('the refusal', async () => /only web pages can be shared/.test(await popup.locator('#error').textContent() ?? ''), 5000);
    await popup.close();
    await own.close();
  });
});

describe('a server that asks for more than the shared tabs', () => {
  let server: LinkServer | undefined;
  let link: Link;
  let sharedTab = 0;
  let secretTab = 0;

  before(async () => {
    server = await startLinkServer();
    const { bridge } = server;
    await browser.pair(TEST_PAIRING_CODE, server.port);
    link = await until('the extension link', () => bridge.link, 20_000);
    const shared = await browser.context.newPage();
    await shared.goto(`${site.origin}/shared`);
    const secret = await browser.context.newPage();
    await secret.goto(`${site.origin}/secret`);
    sharedTab = await browser.tabIdOf(`${site.origin}/shared`);
    secretTab = await browser.tabIdOf(`${site.origin}/secret`);
    await browser.share(sharedTab);
    await link.request('cdp.attach', { tabId: sharedTab });
  });
  after(async () => {
    await server?.close();
  });

  /** The gate's code for `request`, or 'allowed'. */
  const codeOf = (request: Promise<unknown>) => request.then(() => 'allowed', (error: { code?: string }) => error.code ?? String(error));
  const send = (method: string, params: Record<string, unknown> = {}, tabId = sharedTab) => link.request('cdp.send', { tabId, method, params });

  test('tabs.list names the shared tabs only', async () => {
    const { tabs } = await link.request('tabs.list') as { tabs: Array<{ tabId: number }> };
    assert.deepEqual(tabs.map(t => t.tabId), [sharedTab]);
  });

  test('an unshared tab cannot be attached, driven, activated or closed', async () => {
    assert.equal(await codeOf(link.request('cdp.attach', { tabId: secretTab })), 'not_shared');
    assert.equal(await codeOf(send('Runtime.evaluate', { expression: 'document.title' }, secretTab)), 'not_shared');
    assert.equal(await codeOf(link.request('tabs.activate', { tabId: secretTab })), 'not_shared');
    assert.equal(await codeOf(link.request('tabs.close', { tabId: secretTab })), 'not_shared');
    assert.ok(await browser.tabIdOf(`${site.origin}/secret`), 'the tab is still open');
  });

  test('a shared tab\'s session cannot open targets, reach the browser or read the whole cookie jar', async () => {
    const pagesBefore = browser.context.pages().length;
    for (const method of ['Target.createTarget', 'Target.attachToTarget', 'Target.setDiscoverTargets', 'Target.getTargets', 'Browser.getVersion', 'Browser.close', 'SystemInfo.getInfo', 'Storage.getCookies', 'Network.getAllCookies', 'Storage.clearCookies']) {
      assert.equal(await codeOf(send(method, method === 'Target.createTarget' ? { url: `${site.origin}/secret` } : {})), 'method_denied', method);
    }
    assert.equal(browser.context.pages().length, pagesBefore, 'no tab opened');
    // Cookies of the shared tab's origin are fine; another origin's are not.
    assert.equal(await codeOf(send('Network.getCookies', { urls: [`${site.origin}/shared`] })), 'allowed');
    assert.equal(await codeOf(send('Network.getCookies', { urls: ['https://bank.example/'] })), 'cookie_scope');
    assert.equal(await codeOf(send('Network.setCookie', { name: 'x', value: '1', url: 'https://bank.example/' })), 'cookie_scope');
    assert.equal(await codeOf(send('Network.deleteCookies', { name: 'sid', domain: 'bank.example' })), 'cookie_scope');
    // What the page itself may do still works.
    const { result } = await send('Runtime.evaluate', { expression: 'document.title', returnByValue: true }) as { result: { value: string } };
    assert.equal(result.value, 'Shared');
  });

  test('a shared tab cannot be sent to the extension\'s pages or other browser pages', async () => {
    for (const url of [`chrome-extension://${EXTENSION_ID}/popup.html`, `chrome-extension://${EXTENSION_ID}/pair.html`, 'chrome://settings', 'devtools://devtools/bundled/inspector.html', 'view-source:http://127.0.0.1/', 'javascript:alert(1)']) {
      assert.equal(await codeOf(send('Page.navigate', { url })), 'scheme_denied', url);
    }
    assert.equal(await codeOf(link.request('tabs.create', { url: `chrome-extension://${EXTENSION_ID}/popup.html` })), 'scheme_denied');
  });

  test('a tab showing the extension\'s own page is not attached even if it was shared', async () => {
    // The user shared a web page; the page then goes to one of ours (a user navigation, or a server that got
    // past the scheme check): the extension detaches it and refuses to attach it again.
    const detached = new Promise<unknown>(resolve => (link as unknown as { onEvent(l: (ev: string, p: unknown) => void): void }).onEvent((ev, p) => {
      if (ev === 'cdp.detached') resolve(p);
    }));
    const page = browser.context.pages().find(p => p.url() === `${site.origin}/shared`)!;
    await page.goto(`chrome-extension://${EXTENSION_ID}/pair.html`);
    assert.deepEqual(await detached, { tabId: sharedTab, reason: 'not_debuggable' });
    assert.equal(await codeOf(link.request('cdp.attach', { tabId: sharedTab })), 'not_debuggable');
    assert.equal(await codeOf(send('Runtime.evaluate', { expression: '1' })), 'not_shared');
  });
});
