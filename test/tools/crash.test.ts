// A page whose renderer crashes (docs/errors.md, page_crashed): a page that runs out of memory, in a browser whose
// pages get a 16 MB JavaScript heap (V8's --max-old-space-size), so the crash comes within a second. The call that
// was running and every later call on the tab are page_crashed, with the ways out; list_tabs marks the tab; the
// console read still works; reload_tab loads the page again in a new page under the same tab id; other tabs work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../fixtures/harness.js';
import { call, callError, callRaw } from '../fixtures/mcp.js';

const tw = useServer({
  pages: {
    '/a': '<!doctype html><title>A</title><button onclick="this.textContent = \'Clicked\'">Go</button><script>console.log("before the crash")</script>',
    '/b': '<!doctype html><title>B</title><h1>Page B</h1>',
    '/later': '<!doctype html><title>Later</title><script>setTimeout(() => { const kept = []; for (;;) kept.push(new Array(1e5).fill(Math.random())); }, 1500)</script>',
  },
  args: ['--browser-arg', '--js-flags=--max-old-space-size=16'],
});

const OUT_OF_MEMORY = 'const kept = []; for (;;) kept.push(new Array(1e5).fill(Math.random()));';

interface TabInfo { tabId: number; url: string; crashed?: boolean; revision: number }

/** Opens `path` in a new tab and makes its page run out of memory; resolves with the tab id and what the call answered. */
async function crashTab(path: string): Promise<{ tabId: number; during: { type: string; message: string; hint: string } }> {
  const { tabId } = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}${path}` });
  const during = await callError(tw.client, 'execute', { tabId, code: OUT_OF_MEMORY });
  return { tabId, during };
}

test('the call the crash ends, and each later call on the tab, is page_crashed with the ways out', async () => {
  const { tabId, during } = await crashTab('/a');
  assert.equal(during.type, 'page_crashed', JSON.stringify(during));
  assert.match(during.message, new RegExp(`The page of tab ${tabId} crashed during the call: .* Whether the call.s action reached the page first is not known\\.`));
  assert.match(during.hint, new RegExp(`reload_tab \\{tabId: ${tabId}\\}`));
  for (const [name, args] of [['get_page_context', { tabId }], ['take_screenshot', { tabId }], ['execute', { tabId, code: '1' }], ['get_text', { tabId }]] as const) {
    const started = Date.now();
    const error = await callError(tw.client, name, args);
    assert.equal(error.type, 'page_crashed', `${name}: ${JSON.stringify(error)}`);
    // At once: nothing waits on a page that cannot answer (it used to wait out a 5 s stuck-page probe).
    assert.ok(Date.now() - started < 3_000, `${name} took ${Date.now() - started} ms`);
  }
  const listed = await callRaw(tw.client, 'list_tabs');
  const tab = (listed.structuredContent as { tabs: TabInfo[] }).tabs.find(t => t.tabId === tabId);
  assert.equal(tab?.crashed, true);
  assert.match(listed.content.map(c => c.text).join('\n'), new RegExp(`\\[${tabId}\\] .*page crashed \\(reload_tab \\{tabId: ${tabId}\\} loads it again; close_tab closes it\\)`));
  // What the page logged before it crashed stays readable.
  const logged = await call<{ entries: Array<{ text: string }> }>(tw.client, 'get_console_context', { tabId });
  assert.ok(logged.entries.some(e => e.text === 'before the crash'), JSON.stringify(logged.entries));
  const webmcp = await call<{ tools: unknown[]; skipped: Array<{ tabId: number; reason: string }> }>(tw.client, 'list_webmcp_tools', { tabId });
  assert.deepEqual(webmcp.skipped, [{ tabId, reason: `its page crashed (reload_tab {tabId: ${tabId}} loads it again)` }]);
  // Another tab is not affected.
  const other = await call<{ tabId: number; title: string }>(tw.client, 'open_tab', { url: `${tw.origin}/b` });
  assert.equal(other.title, 'B');
  await call(tw.client, 'close_tab', { tabId: other.tabId });
});

test('reload_tab loads a crashed page again in a new page under the same tab id, the revision after the crashed one; its refs and clicks work', async () => {
  const { tabId } = await crashTab('/a');
  const crashedRevision = (await call<{ tabs: TabInfo[] }>(tw.client, 'list_tabs')).tabs.find(t => t.tabId === tabId)!.revision;
  // The revision guard answers for the crashed page, before anything is replaced.
  const stale = await callError(tw.client, 'reload_tab', { tabId, expectRevision: crashedRevision - 1 });
  assert.equal(stale.type, 'revision_mismatch', JSON.stringify(stale));
  // Its hint cannot send the model to get_page_context, which a crashed page does not answer.
  assert.match(stale.message, /Its page has crashed\.$/);
  assert.match(stale.hint, new RegExp(`^reload_tab \\{tabId: ${tabId}\\}`));
  assert.equal((await call<{ tabs: TabInfo[] }>(tw.client, 'list_tabs')).tabs.find(t => t.tabId === tabId)?.crashed, true, 'nothing was done');
  const reloaded = await callRaw(tw.client, 'reload_tab', { tabId, expectRevision: crashedRevision });
  const text = reloaded.content.map(c => c.text).join('\n');
  assert.match(text, new RegExp(`The page of tab ${tabId} had crashed: a new page took its place and loads ${tw.origin}/a\\.`));
  const fields = reloaded.structuredContent as { tabId: number; url: string; status: number; revision: number };
  assert.deepEqual([fields.tabId, fields.url, fields.status, fields.revision], [tabId, `${tw.origin}/a`, 200, crashedRevision + 1]);
  const listed = (await call<{ tabs: TabInfo[] }>(tw.client, 'list_tabs')).tabs.filter(t => t.tabId === tabId);
  assert.deepEqual(listed.map(t => [t.url, t.crashed]), [[`${tw.origin}/a`, undefined]]);
  const { snapshot } = await call<{ snapshot: string }>(tw.client, 'get_page_context', { tabId });
  const ref = /button "Go" \[ref=(e\d+)\]/.exec(snapshot)?.[1];
  assert.ok(ref, snapshot);
  await call(tw.client, 'click', { ref });
  assert.equal(await call<{ value: unknown }>(tw.client, 'execute', { tabId, code: 'document.querySelector("button").textContent' }).then(r => r.value), 'Clicked');
  await call(tw.client, 'close_tab', { tabId });
});

test('navigate loads another URL into a crashed tab; close_tab closes one', async () => {
  const first = await crashTab('/a');
  const moved = await callRaw(tw.client, 'navigate', { tabId: first.tabId, url: `${tw.origin}/b` });
  assert.match(moved.content.map(c => c.text).join('\n'), new RegExp(`The page of tab ${first.tabId} had crashed: a new page took its place\\.`));
  assert.deepEqual([(moved.structuredContent as { tabId: number }).tabId, (moved.structuredContent as { title: string }).title], [first.tabId, 'B']);
  await call(tw.client, 'close_tab', { tabId: first.tabId });
  const second = await crashTab('/a');
  const closed = await call<{ closedTabId: number }>(tw.client, 'close_tab', { tabId: second.tabId });
  assert.equal(closed.closedTabId, second.tabId);
  const left = (await call<{ tabs: TabInfo[] }>(tw.client, 'list_tabs')).tabs.map(t => t.tabId);
  assert.equal(left.includes(second.tabId), false);
});

test('a wait on a page that crashes meanwhile ends then with page_crashed, not at its timeout', async () => {
  const { tabId } = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/later` });
  const started = Date.now();
  const error = await callError(tw.client, 'wait_for', { tabId, text: 'never shown', timeoutSec: 60 });
  assert.equal(error.type, 'page_crashed', JSON.stringify(error));
  assert.ok(Date.now() - started < 30_000, `the wait took ${Date.now() - started} ms`);
  await call(tw.client, 'close_tab', { tabId });
});
