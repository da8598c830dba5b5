// get_text end to end: the visible text of a page, of a ref's element or a selector's first match, in reading order
// (one line per block, cells of a row on one line), without hidden text or field values; same-origin iframes inline,
// cross-origin ones by their ref; bounded by maxChars with a truncation line whose offset reads on; typed errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, evaluate, refOf, snapshot } from '../fixtures/mcp.js';

const HOST_RULES = '--host-resolver-rules=MAP other.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1';

interface TextResult { tabId: number; pageText: string; offset: number; chars: number; total: number; more: number; crossOriginFrames?: number }

let other: string;
const tw = useSession({ args: ['--browser-arg', HOST_RULES], setup: ({ site }) => {
  other = `http://other.test:${new URL(site.origin).port}`;
  site.page('/article', `<!doctype html><title>Article</title>
<style>.gone { display: none } .ghost { visibility: hidden } .back { visibility: visible }</style>
<header><nav><a href="/a">Home</a> <a href="/b">News</a></nav></header>
<main id="main">
  <h1>The   headline</h1>
  <p>First <b>bold</b> paragraph
     over two lines.</p>
  <p class="gone">Display none text</p>
  <p class="ghost">Invisible text <span class="back">but this child shows</span></p>
  <p aria-hidden="true">Aria hidden text</p>
  <script>var inScript = 'script text';</script>
  <label>Name <input value="secret field value"></label> <textarea>area value</textarea>
  <select><option>Chosen option</option></select>
  <input type="submit" value="Send it">
  <details><summary>More</summary>Closed details text</details>
  <table><tr><th>Item</th><th>Price</th></tr><tr><td>Tea</td><td>3.50</td></tr></table>
  <ul><li>One</li><li>Two</li></ul>
  <iframe title="Same" src="/inner" width="300" height="100"></iframe>
  <iframe title="Cross" src="${other}/cross" width="300" height="100"></iframe>
</main>
<footer><p>Footer words</p></footer>`);
  site.page('/inner', '<!doctype html><p>Inner frame text</p>');
  site.page('/cross', '<!doctype html><p>Cross frame text</p>');
  site.page('/long', `<!doctype html><title>Long</title>${Array.from({ length: 2000 }, (_, i) => `<p>Paragraph number ${String(i).padStart(4, '0')} of the long page.</p>`).join('')}`);
} });

test('the page: visible text in reading order, blocks on lines, hidden text and field values left out', async () => {
  const nav = await call<{ tabId: number; revision: number }>(tw.client, 'navigate', { url: `${tw.origin}/article` });
  const raw = await callRaw(tw.client, 'get_text');
  assert.equal(raw.isError, undefined, JSON.stringify(raw.content));
  const result = raw.structuredContent as unknown as TextResult;
  assert.equal(result.pageText, [
    'Home News', 'The headline', 'First bold paragraph over two lines.', 'but this child shows', 'Name Send it', 'More',
    'Item | Price', 'Tea | 3.50', 'One', 'Two', '[iframe]', 'Inner frame text', '[/iframe]', '[iframe: cross-origin, not read]', 'Footer words',
  ].join('\n'));
  assert.equal(result.total, result.pageText.length);
  assert.equal(result.more, 0);
  assert.equal(result.crossOriginFrames, 1);
  const text = raw.content.map(c => c.text).join('\n');
  assert.ok(text.startsWith(`Text of tab ${nav.tabId} · revision ${nav.revision} · ${tw.origin}/article:\n${result.pageText}\n`), text);
  assert.match(text, /1 cross-origin iframe not read: pass its ref/);
  for (const hidden of ['Display none', 'Invisible text', 'Aria hidden', 'script text', 'secret field value', 'area value', 'Chosen option', 'Closed details']) {
    assert.ok(!text.includes(hidden), hidden);
  }
});

test('a ref or a selector reads one element; an iframe\'s ref reads its document, cross-origin too', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/article` });
  const snap = (await snapshot(tw.client)).snapshot;
  // A landmark's ref from the summary level.
  const summary = await call<{ snapshot: string }>(tw.client, 'get_page_context', { level: 'summary' });
  const byRef = await call<TextResult>(tw.client, 'get_text', { ref: /- navigation \[ref=(e\d+)\]/.exec(summary.snapshot)![1]! });
  assert.equal(byRef.pageText, 'Home News');
  const bySelector = await call<TextResult>(tw.client, 'get_text', { selector: 'table' });
  assert.equal(bySelector.pageText, 'Item | Price\nTea | 3.50');
  const cross = /- iframe "Cross" \[ref=(e\d+)\]/.exec(snap)![1]!;
  assert.equal((await call<TextResult>(tw.client, 'get_text', { ref: cross })).pageText, 'Cross frame text');
  const same = /- iframe "Same" \[ref=(e\d+)\]/.exec(snap)![1]!;
  assert.equal((await call<TextResult>(tw.client, 'get_text', { ref: same })).pageText, 'Inner frame text');
});

test('maxChars bounds the text; the truncation line says how much is left and the offset that reads on', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/long` });
  const line = (i: number) => `Paragraph number ${String(i).padStart(4, '0')} of the long page.`;
  const whole = Array.from({ length: 2000 }, (_, i) => line(i)).join('\n');
  const raw = await callRaw(tw.client, 'get_text');
  const first = raw.structuredContent as unknown as TextResult;
  assert.equal(first.total, whole.length);
  assert.equal(first.pageText, whole.slice(0, 20_000));
  assert.equal(first.more, whole.length - 20_000);
  const text = raw.content.map(c => c.text).join('\n');
  assert.ok(text.endsWith(`… truncated: ${whole.length - 20_000} more characters; continue: get_text {offset: 20000}`), text.slice(-200));
  const next = await call<TextResult>(tw.client, 'get_text', { offset: 20_000, maxChars: 100_000 });
  assert.equal(next.pageText, whole.slice(20_000));
  assert.equal(next.more, 0);
  const small = await callRaw(tw.client, 'get_text', { selector: 'p', maxChars: 10 });
  assert.equal((small.structuredContent as unknown as TextResult).pageText, line(0).slice(0, 10));
  assert.match(small.content.map(c => c.text).join('\n'), /continue: get_text \{selector: "p", offset: 10, maxChars: 10\}/);
});

test('errors: ref and selector together, a selector matching nothing or not parsing, a ref that is gone', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/article` });
  const snap = (await snapshot(tw.client)).snapshot;
  const link = refOf(snap, 'link', 'Home');
  assert.equal((await callError(tw.client, 'get_text', { ref: link, selector: 'main' })).type, 'invalid_arguments');
  const none = await callError(tw.client, 'get_text', { selector: '#nothing-here' });
  assert.equal(none.type, 'invalid_arguments');
  assert.match(none.message, /matches no element/);
  assert.match(none.hint, /iframe/);
  assert.equal((await callError(tw.client, 'get_text', { selector: 'div[[[' })).type, 'invalid_arguments');
  await evaluate(tw.client, 'document.querySelector("nav a").remove()');
  assert.equal((await callError(tw.client, 'get_text', { ref: link })).type, 'stale_ref');
  await call(tw.client, 'reload_tab');
  assert.equal((await callError(tw.client, 'get_text', { ref: link })).type, 'stale_ref');
  assert.equal((await callError(tw.client, 'get_text', { ref: 'e999999' })).type, 'invalid_arguments');
});
