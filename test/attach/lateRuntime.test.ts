// The in-page runtime injected late keeps the --webmcp mode. A tab that was open
// before tabwright attached and still shows about:blank (here: two popups a page
// opened, which share its origin and so its native WebMCP) has no runtime: the
// attach leaves about:blank documents alone, so execute or get_page_context
// injects it on first use. That runtime must offer the polyfill under --webmcp
// polyfill (even over a native WebMCP) and never under --webmcp native, as the
// init script's runtime does in every later document.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, connect, type Connected } from '../fixtures/mcp.js';
import { startChromium, type RemoteChromium } from '../fixtures/remote.js';
import { startSite, type Site } from '../fixtures/site.js';

interface TabInfo { tabId: number; url: string }

let site: Site;
before(async () => {
  site = await startSite();
  site.page('/opener', '<!doctype html><title>Opener</title><script>window.open("", "first"); window.open("", "second");</script>');
});
after(async () => {
  await site?.close();
});

/** A Chromium (with or without native WebMCP) showing only the opener page and its two about:blank popups. */
async function browserWithPopups(webmcp: boolean): Promise<RemoteChromium> {
  const chrome = await startChromium({ webmcp, extraArgs: ['--disable-popup-blocking'] });
  const [start] = await chrome.pages();
  await chrome.openTab(`${site.origin}/opener`);
  // Only the popups show about:blank then: the browser's own start tab goes.
  await fetch(`${chrome.endpoint}/json/close/${start!.id}`);
  for (let i = 0; (await chrome.pages()).length !== 3; i++) {
    if (i === 100) throw new Error(`the popups did not open: ${JSON.stringify(await chrome.pages())}`);
    await new Promise(resolve => setTimeout(resolve, 50));
  }
  return chrome;
}

/** What the document offers: native WebMCP, the polyfill (an own `document.modelContext`), tabwright's runtime. */
const PROBE = '({ native: "modelContext" in Document.prototype, polyfill: Object.getOwnPropertyNames(document).includes("modelContext"), runtime: "__tabwright" in globalThis })';

async function probe(server: Connected, tabId: number): Promise<unknown> {
  return (await call<{ value: unknown }>(server.client, 'execute', { tabId, code: PROBE })).value;
}

/** The two popups, open before attach: one for each way the runtime gets injected late. */
async function popups(server: Connected): Promise<[TabInfo, TabInfo]> {
  const { tabs } = await call<{ tabs: TabInfo[] }>(server.client, 'list_tabs');
  const opened = tabs.filter(t => t.url === 'about:blank');
  assert.equal(opened.length, 2, `two popups open before attach: ${JSON.stringify(tabs)}`);
  return [opened[0]!, opened[1]!];
}

describe('--webmcp polyfill, attached to a Chromium with native WebMCP', () => {
  let chrome: RemoteChromium;
  before(async () => {
    chrome = await browserWithPopups(true);
  });
  after(async () => {
    await chrome?.stop();
  });

  test('a runtime that execute or get_page_context injects offers the polyfill', async () => {
    const server = await connect({ args: ['--cdp-endpoint', chrome.endpoint, '--webmcp', 'polyfill', '--auto-allow'] });
    try {
      const [viaExecute, viaSnapshot] = await popups(server);
      // execute finds no runtime in the document and injects it before running the code.
      assert.deepEqual(await probe(server, viaExecute.tabId), { native: true, polyfill: true, runtime: true });
      await call(server.client, 'get_page_context', { tabId: viaSnapshot.tabId });
      assert.deepEqual(await probe(server, viaSnapshot.tabId), { native: true, polyfill: true, runtime: true });
      // The polyfill is the one tabwright lists: a tool registered now is offered.
      await call(server.client, 'execute', {
        tabId: viaExecute.tabId,
        code: 'document.modelContext.registerTool({ name: "late", description: "Registered after a late injection", inputSchema: { type: "object", properties: {} }, execute: async () => ({ content: [{ type: "text", text: "late ran" }] }) })',
      });
      const listed = await call<{ tools: Array<{ name: string; source: string }> }>(server.client, 'list_webmcp_tools', { tabId: viaExecute.tabId });
      assert.deepEqual(listed.tools.map(t => [t.name, t.source]), [['late', 'polyfill']]);
      const ran = await call(server.client, 'call_webmcp_tool', { tabId: viaExecute.tabId, name: 'late', arguments: {} });
      assert.match(JSON.stringify(ran), /late ran/);
    } finally {
      await server.close();
    }
  });
});

describe('--webmcp native, attached to a Chromium without native WebMCP', () => {
  let chrome: RemoteChromium;
  before(async () => {
    chrome = await browserWithPopups(false);
  });
  after(async () => {
    await chrome?.stop();
  });

  test('a runtime that execute or get_page_context injects installs no polyfill', async () => {
    const server = await connect({ args: ['--cdp-endpoint', chrome.endpoint, '--webmcp', 'native'] });
    try {
      const [viaExecute, viaSnapshot] = await popups(server);
      assert.deepEqual(await probe(server, viaExecute.tabId), { native: false, polyfill: false, runtime: true });
      await call(server.client, 'get_page_context', { tabId: viaSnapshot.tabId });
      assert.deepEqual(await probe(server, viaSnapshot.tabId), { native: false, polyfill: false, runtime: true });
    } finally {
      await server.close();
    }
  });
});
