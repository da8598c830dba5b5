// close_browser end to end: the managed browser closes and the next call starts a fresh one; a call in flight on
// a tab ends with browser_disconnected; an attached browser (cdp) is detached, keeps running with its tabs, and the
// next call attaches again and sees them; a session with a context of its own closes only that context.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { useServer, useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, connectClient, ROOT, serverArgs, TEST_CONNECTION, unlessConnection } from '../fixtures/mcp.js';
import { startChromium, type RemoteChromium } from '../fixtures/remote.js';
import { startSite, type Site } from '../fixtures/site.js';

interface Closed { action: string; connection: string; endpoint: string | null; tabCount: number; sessionContext: boolean; browserRunning: boolean }
interface TabInfo { tabId: number; url: string }

const PAGES = {
  '/a': '<!doctype html><title>A</title><h1>Page A</h1>',
  '/b': '<!doctype html><title>B</title><h1>Page B</h1>',
};

/** A result's fields: its structuredContent without `text` (the text lines, read with textOf). */
function fieldsOf(result: { structuredContent?: Record<string, unknown> }): Record<string, unknown> {
  const { text: _text, ...fields } = result.structuredContent ?? {};
  return fields;
}

/** The text of a result's content. */
function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.filter(c => c.type === 'text').map(c => c.text).join('\n');
}

describe('the managed browser', () => {
  const tw = useServer({ pages: PAGES });
  const managedOnly = unlessConnection(['cdp', 'playwright-server', 'own-chrome', 'extension'], 'only the launch connection has a browser tabwright launched; the attached kinds are detached (the cdp test below)');

  test('close_browser closes it with its tabs; list_tabs and get_bridge_status show no browser; the next navigate starts a fresh one', managedOnly, async () => {
    const first = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/a` });
    const second = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/b` });
    const result = await callRaw(tw.client, 'close_browser');
    assert.equal(result.isError, undefined);
    assert.equal(textOf(result), 'Closed the managed browser (2 tabs). The next call that needs a browser starts a fresh one.');
    assert.deepEqual(fieldsOf(result), { action: 'closed', connection: 'launch', endpoint: null, tabCount: 2, sessionContext: false, browserRunning: false });

    assert.deepEqual((await call<{ tabs: TabInfo[] }>(tw.client, 'list_tabs')).tabs, []);
    const status = await call<{ browserRunning: boolean; tabCount: number; activeTabId: number | null }>(tw.client, 'get_bridge_status');
    assert.equal(status.browserRunning, false);
    assert.equal(status.tabCount, 0);
    assert.equal(status.activeTabId, null);
    // An old tabId names no tab any more.
    assert.equal((await callError(tw.client, 'close_tab', { tabId: first.tabId })).type, 'tab_not_found');

    const again = await call<{ tabId: number; url: string }>(tw.client, 'navigate', { url: `${tw.origin}/b` });
    assert.equal(again.url, `${tw.origin}/b`);
    assert.ok(again.tabId > second.tabId, `tabIds are not reused (${again.tabId} after ${second.tabId})`);
    const now = await call<{ browserRunning: boolean; tabCount: number }>(tw.client, 'get_bridge_status');
    assert.equal(now.browserRunning, true);
    assert.equal(now.tabCount, 1);
  });

  test('a second close_browser has nothing to close', managedOnly, async () => {
    await call(tw.client, 'close_browser');
    const result = await callRaw(tw.client, 'close_browser');
    assert.equal(textOf(result), 'The managed browser is not running; nothing was closed.');
    assert.equal((fieldsOf(result) as unknown as Closed).action, 'none');
  });

  test('a call in flight on a tab, and an open dialog, end with an error instead of hanging', managedOnly, async () => {
    await call(tw.client, 'navigate', { url: `${tw.origin}/a` });
    const other = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/b`, background: true });
    // A dialog waits on the second tab.
    await call(tw.client, 'execute', { tabId: other.tabId, code: 'setTimeout(() => alert("waiting"), 0); return 1' });
    const waiting = callRaw(tw.client, 'wait_for', { text: 'never shown', timeoutSec: 120 });
    // Give the call time to reach the page (nothing asserts on this delay).
    await new Promise(resolve => setTimeout(resolve, 1000));
    const closed = await call<Closed>(tw.client, 'close_browser');
    assert.equal(closed.action, 'closed');
    assert.equal(closed.tabCount, 2);
    const result = await waiting;
    assert.equal(result.isError, true, JSON.stringify(result));
    const error = (result.structuredContent as { error: { type: string; message: string } }).error;
    assert.equal(error.type, 'browser_disconnected');
    assert.match(error.message, /^close_browser closed the browser \(or detached from it\) while wait_for ran/);
    assert.deepEqual((await call<{ tabs: TabInfo[] }>(tw.client, 'list_tabs')).tabs, []);
  });
});

describe('an attached browser (cdp)', () => {
  let site: Site;
  let chrome: RemoteChromium;
  const cdpLane = unlessConnection(['playwright-server', 'own-chrome', 'extension'], 'this test starts a Chromium of its own to attach to; the launch and cdp lanes run it');
  before(async () => {
    if (cdpLane.skip) return;
    site = await startSite();
    for (const [path, body] of Object.entries(PAGES)) site.page(path, body);
    chrome = await startChromium();
    await chrome.openTab(`${site.origin}/a`);
  });
  after(async () => {
    await chrome?.stop();
    await site?.close();
  });

  test('close_browser detaches: the browser keeps running with its tabs, and the next call attaches again and sees them', cdpLane, async () => {
    const dirs = mkdtempSync(join(tmpdir(), 'tabwright-close-'));
    // Not the lane's --new-context: the browser's default context, whose tabs are the browser's own.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: serverArgs(['--cdp-endpoint', chrome.endpoint]),
      stderr: 'pipe',
      cwd: ROOT,
      env: { ...(process.env as Record<string, string>), TABWRIGHT_WORKSPACE: dirs, TABWRIGHT_CONFIG_DIR: join(dirs, 'config'), TABWRIGHT_DATA_DIR: join(dirs, 'data') },
    });
    const { client } = await connectClient(transport, 'close-browser-test');
    try {
      const listed = (await call<{ tabs: TabInfo[] }>(client, 'list_tabs')).tabs;
      assert.deepEqual(listed.map(t => t.url).sort(), ['about:blank', `${site.origin}/a`]);
      await call(client, 'open_tab', { url: `${site.origin}/b` });
      const urls = ['about:blank', `${site.origin}/a`, `${site.origin}/b`];

      const result = await callRaw(client, 'close_browser');
      assert.equal(result.isError, undefined);
      assert.equal(textOf(result), `Detached from the browser at ${chrome.endpoint}; it keeps running with its 3 tabs. The next call attaches again.`.replace(chrome.endpoint, `${chrome.endpoint}/`));
      assert.deepEqual(fieldsOf(result), { action: 'detached', connection: 'cdp', endpoint: `${chrome.endpoint}/`, tabCount: 3, sessionContext: false, browserRunning: false });

      // The browser, seen over its own DevTools HTTP API: still up, every tab still open.
      assert.deepEqual((await chrome.pages()).map(p => p.url).sort(), urls);

      // The next call attaches again: the same tabs, with new tabIds.
      const again = (await call<{ tabs: TabInfo[] }>(client, 'list_tabs')).tabs;
      assert.deepEqual(again.map(t => t.url).sort(), urls);
      const maxBefore = Math.max(...listed.map(t => t.tabId));
      assert.ok(again.every(t => t.tabId > maxBefore), 'tabIds are not reused');
      const status = await call<{ browserRunning: boolean; tabCount: number }>(client, 'get_bridge_status');
      assert.equal(status.browserRunning, true);
      assert.equal(status.tabCount, 3);
    } finally {
      await client.close();
      rmSync(dirs, { recursive: true, force: true });
    }
  });
});

describe('a session with a context of its own', () => {
  // The in-process harness runs each test in a keyed session with its own context (as the daemon's /mcp sessions).
  const tw = useSession({ pages: PAGES });
  const reason = unlessConnection(['own-chrome', 'extension'], 'the user\'s own browser has one profile; per-session contexts there are docs/own-browser.md\'s "Contexts"');

  test('close_browser closes only that context; the next call opens a new one', reason, async () => {
    await call(tw.client, 'navigate', { url: `${tw.origin}/a` });
    await call(tw.client, 'open_tab', { url: `${tw.origin}/b` });
    const result = await callRaw(tw.client, 'close_browser');
    assert.equal(textOf(result), 'Closed this session\'s browser context (2 tabs); the browser stays up for the other sessions. The next call opens a new context.');
    const closed = fieldsOf(result) as unknown as Closed;
    assert.equal(closed.action, 'context_closed');
    assert.equal(closed.sessionContext, true);
    assert.equal(closed.connection, TEST_CONNECTION);
    assert.deepEqual((await call<{ tabs: TabInfo[] }>(tw.client, 'list_tabs')).tabs, []);
    const again = await call<{ url: string }>(tw.client, 'navigate', { url: `${tw.origin}/b` });
    assert.equal(again.url, `${tw.origin}/b`);
  });
});
