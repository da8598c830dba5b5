// Tabs the page opens and closes: target=_blank links,
// window.open, rel=noopener links and window.close(). The action that opened
// a tab reports it (newTabs with openerTabId) and the active tab, which stays
// the one the agent was using; a tab that closes itself is reported by the
// action that caused it, and the active tab falls back to its opener. The
// click's text names each new tab's URL and title and whether it is a popup
// (window.open keeping window.opener) or a plain tab.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, evaluate, refOf, snapshot, unlessConnection } from '../fixtures/mcp.js';
import type { TabInfo } from '../../src/session/tab.js';
import { seenBy } from '../fixtures/clientLens.js';

interface ActionResult {
  tabId: number;
  activeTabId?: number;
  tabClosed?: boolean;
  newTabs?: Array<{ tabId: number; openerTabId?: number; url?: string; title?: string; popup?: boolean; blank?: boolean; dialog?: { type: string; message: string } }>;
}

const OPENER_PAGE = `<!doctype html><title>Opener</title>
<a href="/child?via=blank" target="_blank">Blank link</a>
<a href="/child?via=noopener" target="_blank" rel="noopener">Noopener link</a>
<button onclick="window.popup = window.open('/child?via=open', 'named')">Open window</button>
<button onclick="window.open('/closer')">Open closer</button>
<button onclick="window.open('/alerting')">Open alerting</button>
<button onclick="window.open('').location.href = '/child?via=blank-first'">Open blank, then navigate</button>
<button onclick="window.open('')">Open blank window</button>
<button onclick="const w = window.open(''); setTimeout(() => { w.location.href = '/child?via=later'; }, 200)">Open blank, navigate later</button>`;

const CHILD_PAGE = `<!doctype html><title>Child</title>
<p id="via"></p>
<script>document.getElementById('via').textContent = new URLSearchParams(location.search).get('via') + ' ' + (window.opener ? 'has opener' : 'no opener');</script>`;

const CLOSER_PAGE = `<!doctype html><title>Closer</title>
<button onclick="window.close()">Close me</button>`;

const tw = useSession({
  pages: {
    '/opener': OPENER_PAGE,
    '/child': CHILD_PAGE,
    '/closer': CLOSER_PAGE,
    '/alerting': '<!doctype html><title>Alerting</title><script>alert("Hello from the popup")</script>',
  },
});

async function tabs(): Promise<TabInfo[]> {
  return (await call<{ tabs: TabInfo[] }>(tw.client, 'list_tabs')).tabs;
}

/** Opens the opener page in a fresh active tab; returns its tabId and refs snapshot. */
async function openOpener(): Promise<{ tabId: number; snap: string }> {
  const tab = await call<TabInfo>(tw.client, 'open_tab', { url: `${tw.origin}/opener` });
  return { tabId: tab.tabId, snap: (await snapshot(tw.client)).snapshot };
}

/**
 * Clicks `ref`, checks the result reports exactly one new tab opened by
 * `opener`, with its URL, title and kind in the fields and in the text a
 * content-only client gives its model, and returns it.
 */
async function clickOpens(ref: string, opener: number, expect: { path: string; title: string; popup: boolean }): Promise<TabInfo> {
  const raw = await callRaw(tw.client, 'click', { ref });
  const res = raw.structuredContent as unknown as ActionResult;
  assert.equal(res.newTabs?.length, 1, JSON.stringify(res));
  const opened = res.newTabs![0]!;
  assert.equal(opened.openerTabId, opener);
  assert.equal(res.activeTabId, opener, 'the active tab stays the one that clicked');
  const url = `${tw.origin}${expect.path}`;
  assert.deepEqual({ url: opened.url, title: opened.title, popup: opened.popup }, { url, title: expect.title, popup: expect.popup });
  const kind = expect.popup ? 'a popup: it can reach its opener through window.opener' : 'a plain tab';
  const text = seenBy('cursor', raw).text;
  assert.ok(text.includes(`New tab ${opened.tabId} opened (${kind}, opener tab ${opener}): ${url} ${JSON.stringify(expect.title)}.`), text);
  assert.ok(text.includes(`The active tab stays ${opener} (focus_tab {tabId: ${opened.tabId}} switches`), text);
  const listed = (await tabs()).find(t => t.tabId === opened.tabId);
  assert.ok(listed, 'the new tab is in list_tabs');
  assert.equal(listed.openerTabId, opener);
  assert.equal(listed.popup, expect.popup || undefined);
  assert.equal(listed.active, false);
  // list_tabs' text says it too: clients that drop structuredContent show the model only the text.
  const line = seenBy('cursor', await callRaw(tw.client, 'list_tabs')).text.split('\n').find(l => l.includes(`[${opened.tabId}]`));
  const relation = expect.popup ? `popup of tab ${opener} (window.opener reaches it)` : `opened by tab ${opener}`;
  assert.equal(line, `  [${opened.tabId}] ${expect.title} — ${url} (revision ${listed.revision}) · ${relation}`);
  return listed;
}

test('a target=_blank link opens a tab; list_tabs names the tab that clicked as opener; the active tab stays', async () => {
  const { tabId, snap } = await openOpener();
  const child = await clickOpens(refOf(snap, 'link', 'Blank link'), tabId, { path: '/child?via=blank', title: 'Child', popup: false });
  assert.equal(child.url, `${tw.origin}/child?via=blank`);
  assert.equal(await evaluate(tw.client, 'document.getElementById("via").textContent', child.tabId), 'blank no opener', 'target=_blank implies noopener in Chromium');
  assert.equal(await evaluate(tw.client, 'document.title'), 'Opener', 'calls without tabId still go to the opener');
});

test('window.open from a click opens a tab with its opener', async () => {
  const { tabId, snap } = await openOpener();
  const child = await clickOpens(refOf(snap, 'button', 'Open window'), tabId, { path: '/child?via=open', title: 'Child', popup: true });
  assert.equal(await evaluate(tw.client, 'document.getElementById("via").textContent', child.tabId), 'open has opener');
  assert.equal(await evaluate(tw.client, 'window.popup.closed'), false);
});

test('a popup opened blank that navigates at once, or a moment later: the click reports its page, not about:blank', async () => {
  const { tabId, snap } = await openOpener();
  await clickOpens(refOf(snap, 'button', 'Open blank, then navigate'), tabId, { path: '/child?via=blank-first', title: 'Child', popup: true });
  await clickOpens(refOf(snap, 'button', 'Open blank, navigate later'), tabId, { path: '/child?via=later', title: 'Child', popup: true });

  // One that stays blank is reported as such after the bounded wait, in the fields and the text.
  const raw = await callRaw(tw.client, 'click', { ref: refOf(snap, 'button', 'Open blank window') });
  const blank = (raw.structuredContent as unknown as ActionResult).newTabs?.[0];
  assert.deepEqual({ url: blank?.url, popup: blank?.popup, blank: blank?.blank, openerTabId: blank?.openerTabId }, { url: 'about:blank', popup: true, blank: true, openerTabId: tabId });
  const text = seenBy('cursor', raw).text;
  assert.ok(text.includes(`New tab ${blank!.tabId} opened (a popup: it can reach its opener through window.opener, opener tab ${tabId}): about:blank, no page loaded yet (its opener may still navigate it; list_tabs shows where it goes).`), text);
  const line = seenBy('cursor', await callRaw(tw.client, 'list_tabs')).text.split('\n').find(l => l.includes(`[${blank!.tabId}]`));
  assert.match(line ?? '', new RegExp(`^  \\[${blank!.tabId}\\] .* — about:blank \\(revision \\d+\\) · popup of tab ${tabId} \\(window\\.opener reaches it\\)$`));
});

test('a rel=noopener link: the page has no opener, list_tabs names the tab that clicked', async () => {
  const { tabId, snap } = await openOpener();
  const child = await clickOpens(refOf(snap, 'link', 'Noopener link'), tabId, { path: '/child?via=noopener', title: 'Child', popup: false });
  assert.equal(await evaluate(tw.client, 'document.getElementById("via").textContent', child.tabId), 'noopener no opener');
});

test('a popup with an alert on load is reported with its dialog', unlessConnection(['own-chrome', 'extension'], 'the user\'s own browser has a popup attached after Chrome created it (neither chrome.debugger nor approval mode can pause a new tab): an alert during its first load blocks it before tabwright is there (docs/own-browser.md)'), async () => {
  const { tabId, snap } = await openOpener();
  const res = await call<ActionResult>(tw.client, 'click', { ref: refOf(snap, 'button', 'Open alerting') });
  assert.equal(res.newTabs?.length, 1);
  const popup = res.newTabs![0]!;
  assert.equal(popup.openerTabId, tabId);
  // The popup shares the opener's renderer, so its alert pauses the opener too: the click returns when it opens.
  assert.deepEqual(popup.dialog, { type: 'alert', message: 'Hello from the popup' });
  const listed = (await tabs()).find(t => t.tabId === popup.tabId);
  assert.deepEqual(listed?.dialog, { type: 'alert', message: 'Hello from the popup' });
  assert.equal((await callError(tw.client, 'execute', { code: '1', tabId: popup.tabId })).type, 'dialog_open');
  await call(tw.client, 'handle_dialog', { tabId: popup.tabId, accept: true });
  assert.equal(await evaluate(tw.client, 'document.title', popup.tabId), 'Alerting');
  assert.equal(await evaluate(tw.client, 'document.title'), 'Opener', 'the opener answers again');
});

test('a page that closes itself: the click reports it, the active tab falls back to the opener, the next call works', async () => {
  const { tabId, snap } = await openOpener();
  const closer = await clickOpens(refOf(snap, 'button', 'Open closer'), tabId, { path: '/closer', title: 'Closer', popup: true });
  await call(tw.client, 'focus_tab', { tabId: closer.tabId });
  const closeRef = refOf((await snapshot(tw.client)).snapshot, 'button', 'Close me');

  const res = await call<ActionResult>(tw.client, 'click', { ref: closeRef });
  assert.equal(res.tabId, closer.tabId);
  assert.equal(res.tabClosed, true);
  assert.equal(res.activeTabId, tabId);
  const list = await tabs();
  assert.equal(list.find(t => t.tabId === closer.tabId), undefined);
  assert.deepEqual(list.filter(t => t.active).map(t => t.tabId), [tabId]);
  // No "target closed" on the next call without tabId: it goes to the opener.
  assert.equal(await evaluate(tw.client, 'document.title'), 'Opener');
});
