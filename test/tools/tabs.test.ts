// Tab tools end to end: list_tabs, open_tab, close_tab, focus_tab, reload_tab,
// and the tab identity rules (tabId never reused, active flag, revision and
// instanceId per document).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError, evaluate, unlessConnection } from '../fixtures/mcp.js';
import type { TabInfo } from '../../src/session/tab.js';

let reloads = 0;

const tw = useSession({
  context: 'file',
  setup: async tw => {
    tw.site.page('/one', '<title>One</title><h1>One</h1><a href="#section">jump</a>');
    tw.site.page('/two', '<title>Two</title><h1>Two</h1>');
    tw.site.route('/counted', (_req, res) => {
      reloads++;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<title>Load ${reloads}</title><p>load ${reloads}</p>`);
    });
  },
});

async function tabs(): Promise<TabInfo[]> {
  return (await call<{ tabs: TabInfo[] }>(tw.client, 'list_tabs')).tabs;
}

test('list_tabs answers with no tabs before the browser starts', unlessConnection(['cdp', 'playwright-server', 'own-chrome', 'extension'], 'an attached browser runs from the start: list_tabs attaches and shows its tabs (docs/attach.md)'), async () => {
  assert.deepEqual(await tabs(), []);
  const status = await call<{ browserRunning: boolean }>(tw.client, 'get_bridge_status');
  assert.equal(status.browserRunning, false);
});

test('open_tab opens an active about:blank tab at revision 1', async () => {
  const opened = await call<TabInfo>(tw.client, 'open_tab');
  assert.equal(opened.tabId, 1);
  assert.equal(opened.url, 'about:blank');
  assert.equal(opened.active, true);
  assert.equal(opened.revision, 1);
  assert.equal(typeof opened.instanceId, 'string');
  assert.notEqual(opened.instanceId, 'pending');
  assert.deepEqual(await tabs(), [{ ...opened }]);
});

test('open_tab with a url loads it; background leaves the active tab alone', async () => {
  const fg = await call<TabInfo & { status: number }>(tw.client, 'open_tab', { url: `${tw.origin}/one` });
  assert.equal(fg.tabId, 2);
  assert.equal(fg.status, 200);
  assert.equal(fg.url, `${tw.origin}/one`);
  assert.equal(fg.title, 'One');
  assert.equal(fg.active, true);

  const bg = await call<TabInfo & { status: number }>(tw.client, 'open_tab', { url: `${tw.origin}/two`, background: true });
  assert.equal(bg.tabId, 3);
  assert.equal(bg.status, 200);
  assert.equal(bg.title, 'Two');
  assert.equal(bg.active, false);

  const list = await tabs();
  assert.deepEqual(list.map(t => [t.tabId, t.active]), [[1, false], [2, true], [3, false]]);
  assert.deepEqual(list.map(t => t.title), ['about:blank', 'One', 'Two']);
});

test('focus_tab moves the active flag and becomes the default tab', async () => {
  const focused = await call<TabInfo>(tw.client, 'focus_tab', { tabId: 3 });
  assert.equal(focused.tabId, 3);
  assert.equal(focused.active, true);
  assert.deepEqual((await tabs()).filter(t => t.active).map(t => t.tabId), [3]);
  // Tools without tabId act on the active tab.
  assert.equal(await evaluate(tw.client, 'document.title'), 'Two');
  await call(tw.client, 'focus_tab', { tabId: 2 });
  assert.equal(await evaluate(tw.client, 'document.title'), 'One');
});

test('close_tab closes, moves the active tab, and tabIds are never reused', async () => {
  const closed = await call<{ closedTabId: number; activeTabId: number }>(tw.client, 'close_tab', { tabId: 2 });
  assert.equal(closed.closedTabId, 2);
  assert.notEqual(closed.activeTabId, 2);
  const list = await tabs();
  assert.deepEqual(list.map(t => t.tabId), [1, 3]);
  assert.deepEqual(list.filter(t => t.active).map(t => t.tabId), [closed.activeTabId]);

  assert.equal((await callError(tw.client, 'close_tab', { tabId: 2 })).type, 'tab_not_found');
  assert.equal((await callError(tw.client, 'focus_tab', { tabId: 2 })).type, 'tab_not_found');
  assert.equal((await callError(tw.client, 'reload_tab', { tabId: 2 })).type, 'tab_not_found');

  await call(tw.client, 'close_tab', { tabId: 3 });
  const next = await call<TabInfo>(tw.client, 'open_tab');
  assert.equal(next.tabId, 4, 'a new tab gets a fresh id, not a closed one');
  assert.deepEqual((await tabs()).map(t => t.tabId), [1, 4]);
});

test('closing the last tab leaves none; the next page tool opens a new one', async () => {
  for (const t of await tabs()) await call(tw.client, 'close_tab', { tabId: t.tabId });
  assert.deepEqual(await tabs(), []);
  const status = await call<{ tabCount: number; activeTabId: number | null }>(tw.client, 'get_bridge_status');
  assert.equal(status.tabCount, 0);
  assert.equal(status.activeTabId, null);
  const nav = await call<TabInfo>(tw.client, 'navigate', { url: `${tw.origin}/one` });
  assert.equal(nav.tabId, 5);
  assert.deepEqual((await tabs()).map(t => [t.tabId, t.active]), [[5, true]]);
});

test('revision: +1 when the document is replaced, unchanged on same-document navigation', async () => {
  const start = await call<TabInfo>(tw.client, 'open_tab');
  assert.equal(start.revision, 1);
  const id = start.tabId;
  const current = async () => (await tabs()).find(t => t.tabId === id)!;

  const one = await call<TabInfo>(tw.client, 'navigate', { tabId: id, url: `${tw.origin}/one` });
  assert.equal(one.revision, 2);
  assert.notEqual(one.instanceId, start.instanceId);

  // history.pushState: same document.
  await evaluate(tw.client, 'history.pushState({}, "", "/one/pushed")', id);
  let now = await current();
  assert.equal(now.url, `${tw.origin}/one/pushed`);
  assert.equal(now.revision, 2);
  assert.equal(now.instanceId, one.instanceId);

  // A #hash change: same document.
  await evaluate(tw.client, 'location.hash = "section"', id);
  now = await current();
  assert.equal(now.url, `${tw.origin}/one/pushed#section`);
  assert.equal(now.revision, 2);
  assert.equal(now.instanceId, one.instanceId);

  // navigate to the same URL with another fragment: still the same document.
  const frag = await call<TabInfo>(tw.client, 'navigate', { tabId: id, url: `${tw.origin}/one/pushed#other` });
  assert.equal(frag.revision, 2);
  assert.equal(frag.instanceId, one.instanceId);

  // A new document.
  const two = await call<TabInfo>(tw.client, 'navigate', { tabId: id, url: `${tw.origin}/two` });
  assert.equal(two.revision, 3);
  assert.notEqual(two.instanceId, one.instanceId);
  now = await current();
  assert.equal(now.revision, 3);
  assert.equal(now.instanceId, two.instanceId);
});

test('reload_tab replaces the document: new instanceId, revision +1', async () => {
  const opened = await call<TabInfo>(tw.client, 'open_tab', { url: `${tw.origin}/counted` });
  const loadsBefore = reloads;
  const reloaded = await call<TabInfo & { status: number }>(tw.client, 'reload_tab');
  assert.equal(reloaded.tabId, opened.tabId);
  assert.equal(reloaded.status, 200);
  assert.equal(reloaded.revision, opened.revision + 1);
  assert.notEqual(reloaded.instanceId, opened.instanceId);
  assert.equal(reloaded.title, `Load ${loadsBefore + 1}`);
  assert.equal(reloads, loadsBefore + 1);
});

test('reload_tab with tabId reloads a background tab and keeps the active one', async () => {
  const active = await call<TabInfo>(tw.client, 'open_tab', { url: `${tw.origin}/one` });
  const bg = await call<TabInfo>(tw.client, 'open_tab', { url: `${tw.origin}/counted`, background: true });
  const reloaded = await call<TabInfo>(tw.client, 'reload_tab', { tabId: bg.tabId });
  assert.equal(reloaded.tabId, bg.tabId);
  assert.equal(reloaded.active, false);
  assert.equal(reloaded.revision, bg.revision + 1);
  const list = await tabs();
  assert.deepEqual(list.filter(t => t.active).map(t => t.tabId), [active.tabId]);
});

test('a tab the page opens itself gets the next tabId and its opener', async () => {
  const opener = await call<TabInfo>(tw.client, 'open_tab', { url: `${tw.origin}/one` });
  const before = (await tabs()).map(t => t.tabId);
  await evaluate(tw.client, `window.open(${JSON.stringify(`${tw.origin}/two`)}); true`);
  let popup: TabInfo | undefined;
  for (let i = 0; i < 50 && !popup; i++) {
    popup = (await tabs()).find(t => !before.includes(t.tabId));
    if (!popup) await new Promise(resolve => setTimeout(resolve, 100));
  }
  assert.ok(popup, 'the popup shows up in list_tabs');
  assert.equal(popup.tabId, Math.max(...before) + 1);
  assert.equal(popup.openerTabId, opener.tabId);
  assert.equal(popup.active, false);
  const closed = await call<{ activeTabId: number }>(tw.client, 'close_tab', { tabId: opener.tabId });
  assert.notEqual(closed.activeTabId, opener.tabId);
});

test('open_tab whose URL fails: navigation_failed names the tab that stays open (tabId in the error and the message)', async () => {
  const before = (await tabs()).map(t => t.tabId);
  // Port 1 on loopback refuses the connection at once.
  const result = await tw.client.callTool({ name: 'open_tab', arguments: { url: 'http://127.0.0.1:1/' } });
  assert.equal(result.isError, true);
  const sc = result.structuredContent as { error: { type: string; message: string; hint: string }; tabId: number };
  assert.equal(sc.error.type, 'navigation_failed');
  const opened = (await tabs()).filter(t => !before.includes(t.tabId));
  assert.deepEqual(opened.map(t => [t.tabId, t.active]), [[sc.tabId, true]]);
  assert.match(sc.error.message, new RegExp(`stays open as tab ${sc.tabId} \\(now the active tab\\)`));
  assert.match(sc.error.hint, new RegExp(`close_tab \\{tabId: ${sc.tabId}\\}`));
  await call(tw.client, 'close_tab', { tabId: sc.tabId });
});
