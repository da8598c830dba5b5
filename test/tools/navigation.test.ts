// navigate end to end: URLs, back/forward, HTTP status, waitUntil, and the
// failure modes (refused connection, bad URL, a page whose script never ends).
// Also a click that navigates: its result names the new document's URL,
// title and HTTP status, in the text a model reads as well as in fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, evaluate, refOf, snapshot, unlessConnection } from '../fixtures/mcp.js';
import { seenBy } from '../fixtures/clientLens.js';

interface NavResult {
  tabId: number;
  url: string;
  title: string;
  status: number;
  revision: number;
  instanceId: string;
}

// Short stuck-page probes (TABWRIGHT_STUCK_PROBE_MS): no page of this file is busy without being stuck.
const tw = useSession({
  env: { TABWRIGHT_STUCK_PROBE_MS: '500' },
  setup: async tw => {
    tw.site.page('/a', '<title>Page A</title><h1>A</h1>');
    tw.site.page('/b', '<title>Page B</title><h1>B</h1>');
    tw.site.route('/missing', (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<title>Not here</title><h1>Nothing at this address</h1>');
    });
    tw.site.route('/broken', (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<title>Oops</title><h1>Server error</h1>');
    });
    tw.site.route('/redirect', (_req, res) => {
      res.writeHead(302, { location: '/b' });
      res.end();
    });
    // The image holds the load event back for a while; DOMContentLoaded comes first.
    tw.site.page('/slow-load', '<title>Slow</title><img src="/slow.png"><script>window.dcl = document.readyState</script>');
    tw.site.route('/slow.png', (_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end();
      }, 700);
    });
    tw.site.page('/links', '<title>Links</title><a href="/a">To A</a> <a href="/missing">To missing</a> <a href="/redirect">To redirect</a> <a href="/big">To big</a>');
    tw.site.page('/big', `<title>Big</title>${Array.from({ length: 400 }, (_, i) => `<p><a href="#p${i}">Paragraph link ${i}</a></p>`).join('')}`);
    tw.site.page('/loop', '<title>Loop</title><h1>stuck</h1><script>while (true) {}</script><p>after</p>');
    // Loads fine, then its script never returns.
    tw.site.page('/stuck-later', '<title>Later</title><h1>fine at first</h1><script>setTimeout(() => { while (true) {} }, 50)</script>');
  },
});

test('navigate to a URL: final URL, title, status, revision', async () => {
  const a = await call<NavResult>(tw.client, 'navigate', { url: `${tw.origin}/a` });
  assert.equal(a.tabId, 1);
  assert.equal(a.url, `${tw.origin}/a`);
  assert.equal(a.title, 'Page A');
  assert.equal(a.status, 200);
  assert.equal(typeof a.instanceId, 'string');
  const b = await call<NavResult>(tw.client, 'navigate', { url: `${tw.origin}/b`, tabId: a.tabId });
  assert.equal(b.title, 'Page B');
  assert.equal(b.revision, a.revision + 1);
  assert.notEqual(b.instanceId, a.instanceId);
});

test('an error page reports its HTTP status', async () => {
  const missing = await call<NavResult>(tw.client, 'navigate', { url: `${tw.origin}/missing` });
  assert.equal(missing.status, 404);
  assert.equal(missing.title, 'Not here');
  assert.equal(missing.url, `${tw.origin}/missing`);
  const broken = await call<NavResult>(tw.client, 'navigate', { url: `${tw.origin}/broken` });
  assert.equal(broken.status, 500);
});

test('a redirect reports the final URL and status', async () => {
  const res = await call<NavResult>(tw.client, 'navigate', { url: `${tw.origin}/redirect` });
  assert.equal(res.url, `${tw.origin}/b`);
  assert.equal(res.status, 200);
  assert.equal(res.title, 'Page B');
});

test('back and forward move through history, each a new revision', async () => {
  const { tabId } = await call<NavResult>(tw.client, 'open_tab', { url: `${tw.origin}/a` });
  const b = await call<NavResult>(tw.client, 'navigate', { tabId, url: `${tw.origin}/b` });
  const back = await call<NavResult>(tw.client, 'navigate', { tabId, url: 'back' });
  assert.equal(back.url, `${tw.origin}/a`);
  assert.equal(back.title, 'Page A');
  assert.equal(back.status, 200);
  assert.equal(back.revision, b.revision + 1);
  const forward = await call<NavResult>(tw.client, 'navigate', { tabId, url: 'forward' });
  assert.equal(forward.url, `${tw.origin}/b`);
  assert.equal(forward.title, 'Page B');
  assert.equal(forward.revision, b.revision + 2);

  const noForward = await callError(tw.client, 'navigate', { tabId, url: 'forward' });
  assert.equal(noForward.type, 'navigation_failed');
  // The failed call did not move the tab.
  const tabs = (await call<{ tabs: NavResult[] }>(tw.client, 'list_tabs')).tabs;
  const now = tabs.find(t => t.tabId === tabId)!;
  assert.equal(now.url, `${tw.origin}/b`);
  assert.equal(now.revision, forward.revision);
});

test('back into the blank page a tab started on, then no further', async () => {
  const blank = await call<NavResult>(tw.client, 'open_tab');
  const a = await call<NavResult>(tw.client, 'navigate', { tabId: blank.tabId, url: `${tw.origin}/a` });
  const back = await call<NavResult>(tw.client, 'navigate', { tabId: blank.tabId, url: 'back' });
  assert.equal(back.url, 'about:blank');
  assert.equal(back.status, 0);
  assert.equal(back.revision, a.revision + 1);
  const none = await callError(tw.client, 'navigate', { tabId: blank.tabId, url: 'back' });
  assert.equal(none.type, 'navigation_failed');
});

test('back over a same-document entry keeps the revision', async () => {
  const a = await call<NavResult>(tw.client, 'navigate', { url: `${tw.origin}/a` });
  await evaluate(tw.client, 'location.hash = "part"');
  const back = await call<NavResult>(tw.client, 'navigate', { url: 'back' });
  assert.equal(back.url, `${tw.origin}/a`);
  assert.equal(back.revision, a.revision);
  assert.equal(back.instanceId, a.instanceId);
});

test('waitUntil chooses when the navigation counts as done', async () => {
  const loaded = await call<NavResult>(tw.client, 'navigate', { url: `${tw.origin}/slow-load`, waitUntil: 'load' });
  assert.equal(loaded.status, 200);
  assert.equal(await evaluate(tw.client, 'document.readyState'), 'complete');

  // Right at the commit, the result still names the new URL (several times: it used to come back empty now and then).
  for (const path of ['/a', '/b', '/a', '/b', '/a', '/b', '/a']) {
    const committed = await call<NavResult>(tw.client, 'navigate', { url: `${tw.origin}${path}`, waitUntil: 'commit' });
    assert.equal(committed.status, 200);
    assert.equal(committed.url, `${tw.origin}${path}`);
  }

  const idle = await call<NavResult>(tw.client, 'navigate', { url: `${tw.origin}/slow-load`, waitUntil: 'networkidle' });
  assert.equal(idle.status, 200);
  assert.equal(await evaluate(tw.client, 'document.readyState'), 'complete');

  const dcl = await call<NavResult>(tw.client, 'navigate', { url: `${tw.origin}/slow-load`, waitUntil: 'domcontentloaded' });
  assert.equal(dcl.status, 200);
  assert.equal(await evaluate(tw.client, 'window.dcl'), 'loading');

  assert.equal((await callError(tw.client, 'navigate', { url: `${tw.origin}/a`, waitUntil: 'soon' })).type, 'invalid_arguments');
});

test('a refused connection is navigation_failed', async () => {
  const port = await freePort();
  const before = await call<NavResult>(tw.client, 'navigate', { url: `${tw.origin}/a` });
  const err = await callError(tw.client, 'navigate', { url: `http://127.0.0.1:${port}/` });
  assert.equal(err.type, 'navigation_failed');
  assert.ok(err.hint.length > 0);
  // It says where the tab is now: the browser's error page, a new revision, the old refs gone.
  assert.match(err.message, new RegExp(`^Could not load http://127\\.0\\.0\\.1:${port}/: net::ERR_CONNECTION_REFUSED\\. Tab ${before.tabId} now shows the browser's error page \\(revision (\\d+)\\); the refs of the page before are gone\\.$`));
  assert.ok(Number(/revision (\d+)/.exec(err.message)![1]) > before.revision);
});

test('a navigation right after a failed one is not cut short by the error page', async () => {
  for (let i = 0; i < 5; i++) {
    const port = await freePort();
    assert.equal((await callError(tw.client, 'navigate', { url: `http://127.0.0.1:${port}/` })).type, 'navigation_failed');
    const next = await call<NavResult>(tw.client, 'navigate', { url: `${tw.origin}/a` });
    assert.equal(next.status, 200);
    assert.equal(next.title, 'Page A');
  }
});

test('a malformed or disallowed URL is invalid_arguments', async () => {
  for (const url of ['not a url', '/relative/path', 'javascript:alert(1)', 'ftp://127.0.0.1/file', '']) {
    const err = await callError(tw.client, 'navigate', { url });
    assert.equal(err.type, 'invalid_arguments', url);
  }
  assert.equal((await callError(tw.client, 'navigate', {})).type, 'invalid_arguments');
  assert.equal((await callError(tw.client, 'navigate', { url: `${tw.origin}/a`, timeoutMs: 5 })).type, 'invalid_arguments');
});

test('a page stuck in an endless script: timeout, the server keeps answering, the tab recovers', unlessConnection(['extension'], 'Chrome refuses Runtime.terminateExecution to an extension, so a stuck page cannot be stopped (docs/own-browser.md; test/tools/execute.test.ts checks the error)'), async () => {
  const { tabId } = await call<NavResult>(tw.client, 'open_tab');
  let navDone = false;
  const nav = callError(tw.client, 'navigate', { tabId, url: `${tw.origin}/loop`, timeoutMs: 4000 }).finally(() => {
    navDone = true;
  });

  // While the navigation waits on the stuck page, other calls answer.
  await new Promise(resolve => setTimeout(resolve, 500));
  const tabs = await call<{ tabs: NavResult[] }>(tw.client, 'list_tabs');
  assert.ok(tabs.tabs.some(t => t.tabId === tabId));
  const status = await call<{ browserRunning: boolean }>(tw.client, 'get_bridge_status');
  assert.equal(status.browserRunning, true);
  assert.equal(navDone, false, 'list_tabs and get_bridge_status answered while navigate was still waiting');

  const err = await nav;
  assert.equal(err.type, 'timeout');

  // After the timeout too, the server answers, even about the stuck tab.
  const after = (await call<{ tabs: NavResult[] }>(tw.client, 'list_tabs')).tabs.find(t => t.tabId === tabId)!;
  assert.equal(after.url, `${tw.origin}/loop`);
  await call(tw.client, 'get_bridge_status');

  // The loop was stopped: the tab runs code and navigates again.
  assert.equal(await evaluate(tw.client, '6 * 7', tabId), 42);
  const next = await call<NavResult>(tw.client, 'navigate', { tabId, url: `${tw.origin}/a` });
  assert.equal(next.status, 200);
  assert.equal(next.title, 'Page A');
  assert.equal(next.revision, after.revision + 1);
});

test('a page stuck after it loaded: reload_tab and navigate still work', unlessConnection(['extension'], 'Chrome refuses Runtime.terminateExecution to an extension, so a stuck page cannot be stopped (docs/own-browser.md; test/tools/execute.test.ts checks the error)'), async () => {
  const { tabId } = await call<NavResult>(tw.client, 'open_tab', { url: `${tw.origin}/stuck-later` });
  await new Promise(resolve => setTimeout(resolve, 300)); // let its loop start
  const reloaded = await call<NavResult & { status: number }>(tw.client, 'reload_tab', { tabId, timeoutMs: 5000 });
  assert.equal(reloaded.status, 200);
  assert.equal(reloaded.title, 'Later');
  await new Promise(resolve => setTimeout(resolve, 300));
  const away = await call<NavResult>(tw.client, 'navigate', { tabId, url: `${tw.origin}/a`, timeoutMs: 5000 });
  assert.equal(away.status, 200);
  assert.equal(away.title, 'Page A');
  assert.equal(away.revision, reloaded.revision + 1);
  assert.equal(await evaluate(tw.client, '6 * 7', tabId), 42);
});

interface ClickNav {
  navigation?: { url: string; title: string; status?: number; revision: number; sameDocument: boolean };
  revision: number;
  snapshot?: string;
}

/** Clicks the link named `name` on /links; returns the fields and the text a content-only client shows its model. */
async function clickLink(name: string): Promise<{ res: ClickNav; text: string; revision: number }> {
  await call(tw.client, 'navigate', { url: `${tw.origin}/links` });
  const page = await snapshot(tw.client);
  const raw = await callRaw(tw.client, 'click', { ref: refOf(page.snapshot, 'link', name) });
  assert.ok(!raw.isError, JSON.stringify(raw.content));
  return { res: raw.structuredContent as unknown as ClickNav, text: seenBy('cursor', raw).text, revision: page.revision };
}

test('a click that navigates reports the new URL, title, HTTP status and revision, and a small new page inline', async () => {
  const { res, text, revision } = await clickLink('To A');
  assert.deepEqual(res.navigation, { url: `${tw.origin}/a`, title: 'Page A', status: 200, revision: revision + 1, instanceId: (res.navigation as { instanceId: string }).instanceId, sameDocument: false });
  assert.match(text, new RegExp(`^Navigated to ${tw.origin}/a "Page A" \\(HTTP 200, revision ${revision + 1}\\)\\.$`, 'm'));
  // A small new document comes with its snapshot (no diff: the old document's refs are gone).
  assert.match(text, /^Snapshot of the new page \(0 refs\):\n- heading "A" \[level=1\]$/m);
  assert.equal(res.snapshot, '- heading "A" [level=1]');
});

test('a click onto a 404 reports HTTP 404; a redirect reports the final URL and status', async () => {
  const missing = await clickLink('To missing');
  assert.equal(missing.res.navigation?.status, 404);
  assert.equal(missing.res.navigation?.title, 'Not here');
  assert.match(missing.text, new RegExp(`^Navigated to ${tw.origin}/missing "Not here" \\(HTTP 404, revision \\d+\\)\\.\\nThe server answered HTTP 404; the page shown is its error page\\.$`, 'm'));
  const redirect = await clickLink('To redirect');
  assert.equal(redirect.res.navigation?.url, `${tw.origin}/b`);
  assert.equal(redirect.res.navigation?.status, 200);
  assert.match(redirect.text, /"Page B" \(HTTP 200, revision \d+\)/);
});

test('a click onto a page too big to show inline says how to read it', async () => {
  const { res, text } = await clickLink('To big');
  assert.equal(res.navigation?.title, 'Big');
  assert.equal(res.snapshot, undefined);
  assert.match(text, /^get_page_context reads the new page \(400 refs, about \d+ tokens\)\.$/m);
});
