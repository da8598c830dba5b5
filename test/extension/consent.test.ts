/**
 * The extension's consent window (EXTENSION-DESIGN.md §4.8; docs/own-browser.md, "Consent"): with the extension
 * connected, a WebMCP tool whose permission is `prompt` is asked about in a popup window of the extension, and
 * the answer counts only from that window, from a click by the user (isTrusted), once. The harness is the user:
 * its clicks in the window are what the user does. What the agent or a script could do instead is refused: a
 * script's element.click() in the window, the same page opened in a tab, and the agent's own tabs never reach the
 * window (it is no shared tab).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { EXTENSION_ID, startExtensionBrowser, TEST_PAIRING_CODE, type ExtensionBrowser } from '../fixtures/extension.js';
import { freePort, until } from '../fixtures/harness.js';
import { call, callError, callRaw, connect, evaluate, refOf, type Connected } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';

const SHOP = `<!doctype html><title>Shop</title><h1>Shop</h1>
<button onclick="window.presses++">Press</button>
<script>
  window.buys = 0;
  window.presses = 0;
  document.modelContext.registerTool({
    name: 'buy', description: 'Buy an item', annotations: { consequentialHint: true },
    inputSchema: { type: 'object', properties: { item: { type: 'string' } } },
    execute: async ({ item }) => { buys++; return { content: [{ type: 'text', text: 'bought ' + item }] }; },
  });
</script>`;

let browser: ExtensionBrowser;
let server: Connected;
let site: Site;

before(async () => {
  site = await startSite();
  site.page('/shop', SHOP);
  browser = await startExtensionBrowser();
  const port = await freePort();
  server = await connect({ args: ['--connection', 'extension'], env: { TABWRIGHT_WS_PORT: String(port), TABWRIGHT_PAIRING_KEY: TEST_PAIRING_CODE, TABWRIGHT_CONSENT_TIMEOUT_MS: '30000' } });
  await browser.pair(TEST_PAIRING_CODE, port);
  await call(server.client, 'open_tab', { url: `${site.origin}/shop` });
});
after(async () => {
  await server?.close();
  await browser?.close();
  await site?.close();
});

/** The consent window the next question opens (a popup window of the extension). */
function nextConsentWindow(): Promise<Page> {
  return browser.context.waitForEvent('page', { predicate: p => p.url().startsWith(`chrome-extension://${EXTENSION_ID}/consent.html`), timeout: 20_000 });
}

/**
 * The user's click on an answer button. An accepted answer closes the window at once, which can be before
 * Playwright's click returns ("Target page, context or browser has been closed"): that is the answer taking effect;
 * the call's result says what it was.
 */
async function answer(window: Page, selector: string): Promise<void> {
  await window.click(selector).catch((error: Error) => {
    if (!window.isClosed() && !/has been closed/.test(error.message)) throw error;
  });
}

async function statusOf(page: Page): Promise<string | null> {
  await until('the consent page to answer', async () => (await page.locator('#status').getAttribute('data-state')) !== null, 5000);
  return await page.locator('#status').getAttribute('data-state');
}

test('the question opens the extension\'s consent window; the user\'s click there lets the call through', async () => {
  const opened = nextConsentWindow();
  const calling = callRaw(server.client, 'call_webmcp_tool', { name: 'buy', arguments: { item: 'tea' } });
  const window = await opened;
  await window.waitForSelector('#title:has-text("buy")');
  assert.match(await window.locator('#detail').textContent() ?? '', /buy/);
  // The agent's side sees no such tab.
  const { tabs } = await call<{ tabs: Array<{ url: string }> }>(server.client, 'list_tabs');
  assert.ok(tabs.every(t => !t.url.startsWith('chrome-extension:')), JSON.stringify(tabs));
  await answer(window, '#once');
  const result = await calling;
  assert.equal(result.isError, undefined, JSON.stringify(result));
  assert.match(JSON.stringify(result.content), /bought tea/);
  assert.equal(await evaluate(server.client, 'window.buys'), 1);
});

test('a script\'s click in the window and the same page in another tab do not count; a deny from the window does', async () => {
  const opened = nextConsentWindow();
  const calling = callRaw(server.client, 'call_webmcp_tool', { name: 'buy', arguments: { item: 'gold' } });
  const window = await opened;
  await window.waitForSelector('#title:has-text("buy")');
  // element.click() from script: isTrusted is false.
  await window.evaluate(() => (document.getElementById('once') as HTMLButtonElement).click());
  assert.equal(await statusOf(window), 'refused');
  assert.match(await window.locator('#status').textContent() ?? '', /Only a click by the user counts/);
  // The same page (same nonce) in an ordinary tab: not the window made for the question, even with a real click.
  const copy = await browser.context.newPage();
  await copy.goto(window.url());
  await copy.click('#always');
  assert.equal(await statusOf(copy), 'refused');
  assert.match(await copy.locator('#status').textContent() ?? '', /only from the consent window/);
  await copy.close();
  assert.equal(await evaluate(server.client, 'window.buys'), 1, 'nothing ran meanwhile');
  await answer(window, '#deny');
  const result = await calling;
  assert.equal(result.isError, true);
  assert.equal((result.structuredContent?.error as { type: string }).type, 'consent_denied');
  assert.equal(await evaluate(server.client, 'window.buys'), 1);
});

test('closing the window is a no; the window of an answered question is gone', async () => {
  const opened = nextConsentWindow();
  const calling = callRaw(server.client, 'call_webmcp_tool', { name: 'buy', arguments: { item: 'ink' } });
  const window = await opened;
  await window.close();
  const result = await calling;
  assert.equal((result.structuredContent?.error as { type: string }).type, 'consent_denied');
  assert.equal(browser.context.pages().filter(p => p.url().includes('consent.html')).length, 0);
});

test('while the window asks about a tab, input to that tab is refused; after the answer it goes through', async () => {
  const { snapshot } = await call<{ snapshot: string }>(server.client, 'get_page_context', { output: 'inline' });
  const press = refOf(snapshot, 'button', 'Press');
  const opened = nextConsentWindow();
  const calling = callRaw(server.client, 'call_webmcp_tool', { name: 'buy', arguments: { item: 'salt' } });
  const window = await opened;
  await window.waitForSelector('#title:has-text("buy")');
  const refused = await callError(server.client, 'click', { ref: press, timeoutMs: 3000 });
  assert.equal(refused.type, 'extension_denied', JSON.stringify(refused));
  assert.match(refused.hint, /consent window/);
  assert.equal(await evaluate(server.client, 'window.presses'), 0, 'no click reached the page');
  await answer(window, '#once');
  assert.equal((await calling).isError, undefined);
  await call(server.client, 'click', { ref: press });
  assert.equal(await evaluate(server.client, 'window.presses'), 1);
});
