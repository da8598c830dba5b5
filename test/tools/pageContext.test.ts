// get_page_context end to end: refs on actionable nodes, selector scoping,
// and the inline / file / auto output modes with the 64 KB inline cap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { useSession } from '../fixtures/harness.js';
import { call, callError, connect, evaluate, refOf } from '../fixtures/mcp.js';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { largePage } from '../fixtures/largePage.js';

interface PageContext {
  tabId: number;
  url: string;
  title: string;
  revision: number;
  instanceId: string;
  refCount: number;
  bytes: number;
  snapshot?: string;
  path?: string;
}

const FORM_PAGE = `<!doctype html><title>Shop</title>
<header><nav><a href="/home">Home</a> <a href="/about">About us</a></nav></header>
<main>
  <h1>Order</h1>
  <form id="order">
    <label>Name <input name="name"></label>
    <label>Notes <textarea name="notes"></textarea></label>
    <label><input type="checkbox" name="gift"> Gift wrap</label>
    <label>Size <select name="size"><option>Small</option><option>Large</option></select></label>
    <fieldset><legend>Speed</legend>
      <label><input type="radio" name="speed" value="slow"> Slow</label>
      <label><input type="radio" name="speed" value="fast"> Fast</label>
    </fieldset>
    <button type="submit">Place order</button>
  </form>
</main>
<aside id="side"><h2>Help</h2><a href="/faq">FAQ</a><button>Chat with us</button></aside>
<footer><p>Plain footer text</p></footer>`;

/** A page whose snapshot is well over 64 KB. */
function bigPage(): string {
  const rows = Array.from({ length: 2500 }, (_, i) => `<li><a href="/item/${i}">Catalogue item number ${i}</a> <button>Add ${i}</button></li>`);
  return `<!doctype html><title>Catalogue</title><main><h1>Catalogue</h1><ul>${rows.join('')}</ul></main><section id="tail"><h2>End</h2><button>Last button</button></section>`;
}

const tw = useSession({
  context: 'file',
  pages: {
    '/form': FORM_PAGE,
    '/big': bigPage(),
    '/large': largePage(),
  },
});

test('every actionable node carries a ref; header fields describe the tab', async () => {
  const nav = await call<{ tabId: number; revision: number; instanceId: string }>(tw.client, 'navigate', { url: `${tw.origin}/form` });
  const ctx = await call<PageContext>(tw.client, 'get_page_context');
  assert.equal(ctx.tabId, nav.tabId);
  assert.equal(ctx.url, `${tw.origin}/form`);
  assert.equal(ctx.title, 'Shop');
  assert.equal(ctx.revision, nav.revision);
  assert.equal(ctx.instanceId, nav.instanceId);
  assert.equal(ctx.path, undefined);
  const snap = ctx.snapshot!;
  assert.equal(ctx.bytes, Buffer.byteLength(snap));
  assert.equal(ctx.refCount, [...snap.matchAll(/\[ref=e\d+\]/g)].length);

  const actionable: Array<[string, string]> = [
    ['link', 'Home'], ['link', 'About us'], ['link', 'FAQ'],
    ['textbox', 'Name'], ['textbox', 'Notes'], ['checkbox', 'Gift wrap'], ['combobox', 'Size'],
    ['radio', 'Slow'], ['radio', 'Fast'], ['button', 'Place order'], ['button', 'Chat with us'],
  ];
  const refs = actionable.map(([role, name]) => refOf(snap, role, name));
  assert.equal(new Set(refs).size, refs.length, 'refs are distinct');

  // The snapshot in the text content matches the structured one.
  const raw = await tw.client.callTool({ name: 'get_page_context', arguments: {} });
  const text = (raw.content as Array<{ type: string; text: string }>)[0]!.text;
  assert.ok(text.includes(refOf(snap, 'button', 'Place order')));
});

test('within one document an element keeps its ref across snapshots', async () => {
  const first = await call<PageContext>(tw.client, 'get_page_context');
  const second = await call<PageContext>(tw.client, 'get_page_context');
  assert.equal(refOf(second.snapshot!, 'button', 'Place order'), refOf(first.snapshot!, 'button', 'Place order'));
  assert.equal(refOf(second.snapshot!, 'link', 'FAQ'), refOf(first.snapshot!, 'link', 'FAQ'));
  assert.equal(second.revision, first.revision);
});

test('text lines of separators only (between links of a nav or footer) are left out; text that holds them stays', async () => {
  tw.site.page('/separators', '<!doctype html><title>Seps</title><nav><a href="/a">Home</a> | <a href="/b">About</a> · <a href="/c">Help</a> / <a href="/d">Legal</a></nav><p>Terms | Privacy</p><footer><a href="/e">One</a> » <a href="/f">Two</a> - <a href="/g">Three</a></footer>');
  await call(tw.client, 'navigate', { url: `${tw.site.origin}/separators` });
  const { snapshot } = await call<PageContext>(tw.client, 'get_page_context');
  const texts = snapshot!.split('\n').map(line => line.trim()).filter(line => !line.startsWith('- ') && !line.startsWith('#') && line);
  assert.deepEqual(texts.filter(line => !/^\w+:/.test(line)), ['Terms | Privacy'], snapshot);
  for (const name of ['Home', 'About', 'Help', 'Legal', 'One', 'Two', 'Three']) assert.ok(refOf(snapshot!, 'link', name), name);
  await call(tw.client, 'navigate', { url: `${tw.site.origin}/form` });
});

test('a new document gets new refs', async () => {
  const before = await call<PageContext>(tw.client, 'get_page_context');
  await call(tw.client, 'reload_tab');
  const after = await call<PageContext>(tw.client, 'get_page_context');
  assert.equal(after.revision, before.revision + 1);
  assert.notEqual(refOf(after.snapshot!, 'button', 'Place order'), refOf(before.snapshot!, 'button', 'Place order'));
});

test('selector scopes the snapshot to the first match', async () => {
  const ctx = await call<PageContext>(tw.client, 'get_page_context', { selector: '#side' });
  const snap = ctx.snapshot!;
  refOf(snap, 'link', 'FAQ');
  refOf(snap, 'button', 'Chat with us');
  assert.ok(!snap.includes('Place order'), snap);
  assert.ok(!snap.includes('Home'), snap);
  assert.equal(ctx.refCount, [...snap.matchAll(/\[ref=e\d+\]/g)].length);

  // Refs match the whole-page snapshot's.
  const full = await call<PageContext>(tw.client, 'get_page_context');
  assert.equal(refOf(full.snapshot!, 'button', 'Chat with us'), refOf(snap, 'button', 'Chat with us'));

  const label = await call<PageContext>(tw.client, 'get_page_context', { selector: 'label' });
  refOf(label.snapshot!, 'textbox', 'Name');
  assert.ok(!label.snapshot!.includes('Notes'), 'only the first match');
});

test('a selector that matches nothing, or does not parse, is invalid_arguments', async () => {
  assert.equal((await callError(tw.client, 'get_page_context', { selector: '#no-such-element' })).type, 'invalid_arguments');
  assert.equal((await callError(tw.client, 'get_page_context', { selector: 'div[[[' })).type, 'invalid_arguments');
  assert.equal((await callError(tw.client, 'get_page_context', { selector: '' })).type, 'invalid_arguments');
  assert.equal((await callError(tw.client, 'get_page_context', { output: 'stdout' })).type, 'invalid_arguments');
});

test('output: file writes the snapshot under <workspace>/.tabwright/context/', async () => {
  const inline = await call<PageContext>(tw.client, 'get_page_context', { output: 'inline' });
  const ctx = await call<PageContext>(tw.client, 'get_page_context', { output: 'file' });
  assert.equal(ctx.snapshot, undefined);
  assert.ok(ctx.path);
  assert.equal(dirname(ctx.path), join(tw.workspace, '.tabwright', 'context'));
  assert.ok(existsSync(ctx.path));
  const file = readFileSync(ctx.path, 'utf8');
  assert.ok(file.includes(inline.snapshot!), 'the file holds the snapshot');
  assert.equal(ctx.refCount, inline.refCount);
  assert.equal(ctx.bytes, inline.bytes);
});

test('the snapshot budget: a page that fits is shown whole; a bigger one is paged, cut at the budget, or written whole to a file', async () => {
  // 300 items fit the budget: every one is in the default snapshot, with no paging line.
  tw.site.page('/fits', `<!doctype html><title>Fits</title><ul>${Array.from({ length: 300 }, (_, i) => `<li><a href="/i/${i}">Item ${i}</a></li>`).join('')}</ul>
    <div style="display:none">${'hidden archive text '.repeat(5000)}</div><button>After</button>`);
  await call(tw.client, 'navigate', { url: `${tw.origin}/fits` });
  const fits = await call<PageContext>(tw.client, 'get_page_context');
  refOf(fits.snapshot!, 'link', 'Item 0');
  refOf(fits.snapshot!, 'link', 'Item 299');
  refOf(fits.snapshot!, 'button', 'After');
  assert.equal(fits.refCount, 301);
  assert.ok(!fits.snapshot!.includes('…'), fits.snapshot);
  assert.ok(!fits.snapshot!.includes('hidden archive'), 'display:none text never enters a snapshot');

  // 2,500 items (over 64 KB shown whole): by default the list is paged at 50.
  await call(tw.client, 'navigate', { url: `${tw.origin}/big` });
  const paged = await call<PageContext>(tw.client, 'get_page_context');
  assert.equal(paged.path, undefined);
  refOf(paged.snapshot!, 'link', 'Catalogue item number 49');
  assert.ok(!paged.snapshot!.includes('number 50"'));
  assert.match(paged.snapshot!, /… items 1–50 of 2500 shown; 2450 more: get_page_context \{ref: "e\d+", offset: 50\}/);
  const ref = refOf(paged.snapshot!, 'button', 'Last button');

  // An explicit limit past the list's length: the walk stops at the budget and says where to continue.
  for (const output of ['auto', 'inline'] as const) {
    const cut = await call<PageContext>(tw.client, 'get_page_context', { limit: 5000, output });
    assert.equal(cut.path, undefined, 'inline: the budget keeps it under the cap');
    assert.ok(cut.bytes <= 64 * 1024, `snapshot is ${cut.bytes} bytes`);
    const stop = /… snapshot budget reached after item (\d+) of 2500; continue: get_page_context \{ref: "(e\d+)", offset: (\d+)\}/.exec(cut.snapshot!);
    assert.ok(stop, cut.snapshot!.slice(-2000));
    const shown = Number(stop[1]);
    assert.equal(Number(stop[3]), shown);
    assert.ok(shown > 300 && shown < 2500, `shown ${shown}`);
    refOf(cut.snapshot!, 'link', `Catalogue item number ${shown - 1}`);
    assert.ok(!cut.snapshot!.includes(`Catalogue item number ${shown + 1}"`));
    // The continuation starts with the first item not shown whole.
    const next = await call<PageContext>(tw.client, 'get_page_context', { ref: stop[2], offset: shown });
    assert.match(next.snapshot!, new RegExp(`- link "Catalogue item number ${shown}" \\[ref=e\\d+\\]`));
  }

  // output: file takes the whole page (the file budget is 2 MB).
  const file = await call<PageContext>(tw.client, 'get_page_context', { limit: 5000, output: 'file' });
  assert.ok(file.bytes > 64 * 1024, `snapshot is ${file.bytes} bytes`);
  assert.equal(file.snapshot, undefined);
  assert.ok(file.path);
  assert.equal(dirname(file.path), join(tw.workspace, '.tabwright', 'context'));
  const text = readFileSync(file.path, 'utf8');
  assert.equal(refOf(text, 'button', 'Last button'), ref);
  refOf(text, 'link', 'Catalogue item number 2499');
  assert.ok(!text.includes('budget reached'));
  assert.equal(file.refCount, 5001);

  // The refs in the file are live: they act on this document.
  const clicked = await call<{ tabId: number }>(tw.client, 'click', { ref: refOf(text, 'button', 'Add 2499') });
  assert.equal(clicked.tabId, file.tabId);

  // A selector brings one part, inline.
  const scoped = await call<PageContext>(tw.client, 'get_page_context', { selector: '#tail' });
  assert.equal(scoped.path, undefined);
  assert.equal(refOf(scoped.snapshot!, 'button', 'Last button'), ref);
});

test('TABWRIGHT_OUTPUT sets the default output mode', async () => {
  const other = await connect({ env: { TABWRIGHT_OUTPUT: 'file' } });
  try {
    await call(other.client, 'navigate', { url: `${tw.origin}/form` });
    const ctx = await call<PageContext>(other.client, 'get_page_context');
    assert.equal(ctx.snapshot, undefined);
    assert.ok(ctx.path && existsSync(ctx.path));
    assert.equal(dirname(ctx.path), join(other.workspace, '.tabwright', 'context'));
    refOf(readFileSync(ctx.path, 'utf8'), 'button', 'Place order');
    // An explicit output still wins.
    const inline = await call<PageContext>(other.client, 'get_page_context', { output: 'inline' });
    refOf(inline.snapshot!, 'button', 'Place order');
  } finally {
    await other.close();
  }
});

test('a snapshot taken while the page navigates itself is labelled with the document it shows', async () => {
  // The first page replaces itself as soon as it has loaded; the snapshot may start on
  // one document and end on the next: it must never carry the old document's label.
  tw.site.page('/hop', '<!doctype html><title>Hop</title><p>leaving</p><script>addEventListener("DOMContentLoaded", () => setTimeout(() => location.replace("/landed"), 0))</script>');
  tw.site.page('/landed', '<!doctype html><title>Landed</title><button>Stay</button>');
  for (let i = 0; i < 3; i++) {
    await call(tw.client, 'navigate', { url: `${tw.origin}/hop` });
    const ctx = await call<{ title: string; revision: number; instanceId: string; snapshot: string }>(tw.client, 'get_page_context', { output: 'inline' });
    const tab = (await call<{ tabs: Array<{ active: boolean; revision: number; instanceId: string; title: string }> }>(tw.client, 'list_tabs')).tabs.find(t => t.active)!;
    if (ctx.instanceId === tab.instanceId) {
      assert.equal(ctx.revision, tab.revision);
      if (ctx.title === 'Landed') {
        const ref = /button "Stay" \[ref=(e\d+)\]/.exec(ctx.snapshot)?.[1];
        assert.ok(ref, ctx.snapshot);
        await call(tw.client, 'click', { ref });
      }
    } else {
      // The snapshot was of the first document, and the tab moved on after it returned.
      assert.equal(ctx.title, 'Hop');
      assert.ok(ctx.revision < tab.revision);
    }
  }
});

test('a 5,000-row table: the default snapshot is small and says how to page; paging by ref reaches row 4,999, whose button acts', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/large`, waitUntil: 'load' });
  const first = await call<PageContext>(tw.client, 'get_page_context', { output: 'inline' });
  const tokens = encode(first.snapshot!).length;
  assert.ok(tokens <= 25_000, `default snapshot of the large page: ${tokens} tokens`);
  assert.equal(first.path, undefined, 'inline under the cap');
  refOf(first.snapshot!, 'button', 'Buy 0');
  refOf(first.snapshot!, 'link', 'Link number 0');
  refOf(first.snapshot!, 'button', 'Last button');
  assert.ok(!first.snapshot!.includes('Buy 4999'));
  // The rows' container says how many are shown and how to go on.
  const paging = /… items 1–50 of 5000 shown; 4950 more: get_page_context \{ref: "(e\d+)", offset: 50\}/.exec(first.snapshot!);
  assert.ok(paging, first.snapshot);
  const container = paging[1]!;
  assert.match(first.snapshot!, new RegExp(`- rowgroup \\[ref=${container}\\]:`));
  assert.match(first.snapshot!, /… items 1–50 of 2000 shown; 1950 more: get_page_context \{ref: "e\d+", offset: 50\}/);

  // The next page continues where the first stopped.
  const next = await call<PageContext>(tw.client, 'get_page_context', { ref: container, offset: 50 });
  assert.match(next.snapshot!, /- row: Row 50 \|/);
  assert.ok(!next.snapshot!.includes('Row 49 '), next.snapshot);
  assert.match(next.snapshot!, new RegExp(`get_page_context \\{ref: "${container}", offset: 100\\}`));

  // Jump to the end: the last row and its button, with a ref that acts.
  const last = await call<PageContext>(tw.client, 'get_page_context', { ref: container, offset: 4990 });
  assert.match(last.snapshot!, /- row: Row 4999 \| Item 993 \|/);
  assert.match(last.snapshot!, /items 4991–5000 of 5000 shown; this is the end/);
  const buy = refOf(last.snapshot!, 'button', 'Buy 4999');
  await call(tw.client, 'click', { ref: buy });
  assert.equal(await evaluate(tw.client, 'window.clicked'), 4999);
  // A ref from a page keeps its element: the same row seen again has the same ref.
  const again = await call<PageContext>(tw.client, 'get_page_context', { ref: container, offset: 4999 });
  assert.equal(refOf(again.snapshot!, 'button', 'Buy 4999'), buy);
  // A bigger limit shows more per page.
  const wide = await call<PageContext>(tw.client, 'get_page_context', { ref: container, offset: 0, limit: 500 });
  refOf(wide.snapshot!, 'button', 'Buy 499');
  assert.ok(!wide.snapshot!.includes('Buy 500"'));
});

test('a 25,000-row table: the default snapshot stays within its budget, and any row is one paging call away', async () => {
  const rows = Array.from({ length: 25_000 }, (_, i) => `<tr><td>R${i}</td><td>${(i * 7) % 1000}</td><td><button onclick="window.hit=${i}">Pick ${i}</button></td></tr>`);
  tw.site.page('/rows25k', `<!doctype html><title>Rows</title><h1>Rows</h1><table><tbody>${rows.join('')}</tbody></table><p>Tail text</p>`);
  await call(tw.client, 'navigate', { url: `${tw.origin}/rows25k`, waitUntil: 'load' });
  const first = await call<PageContext>(tw.client, 'get_page_context');
  assert.equal(first.path, undefined);
  assert.ok(first.bytes <= 64 * 1024, `${first.bytes} bytes`);
  assert.ok(encode(first.snapshot!).length <= 25_000);
  const paging = /… items 1–50 of 25000 shown; 24950 more: get_page_context \{ref: "(e\d+)", offset: 50\}/.exec(first.snapshot!);
  assert.ok(paging, first.snapshot);
  assert.match(first.snapshot!, /Tail text/);
  // Row 17,321 in one call, and its button acts.
  const page = await call<PageContext>(tw.client, 'get_page_context', { ref: paging[1], offset: 17_321, limit: 1 });
  assert.match(page.snapshot!, /- row: R17321 \| 247\n/);
  assert.match(page.snapshot!, /… items 17322–17322 of 25000 shown; 7678 more: get_page_context \{ref: "e\d+", offset: 17322\}/);
  await call(tw.client, 'click', { ref: refOf(page.snapshot!, 'button', 'Pick 17321') });
  assert.equal(await evaluate(tw.client, 'window.hit'), 17321);
});

test('paging arguments are checked', async () => {
  assert.equal((await callError(tw.client, 'get_page_context', { offset: 5 })).type, 'invalid_arguments');
  // ref with selector matches under the ref (test/tools/find.test.ts); the ref is still checked first.
  assert.equal((await callError(tw.client, 'get_page_context', { ref: 'e999999', selector: 'main' })).type, 'invalid_arguments');
  assert.equal((await callError(tw.client, 'get_page_context', { ref: 'zz' })).type, 'invalid_arguments');
  assert.equal((await callError(tw.client, 'get_page_context', { limit: 0 })).type, 'invalid_arguments');
});

test('urls: true shows link targets; the default does not', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/form` });
  const plain = await call<PageContext>(tw.client, 'get_page_context');
  assert.ok(!plain.snapshot!.includes('/url'), plain.snapshot);
  const withUrls = await call<PageContext>(tw.client, 'get_page_context', { urls: true });
  assert.match(withUrls.snapshot!, /- link "FAQ" \[ref=e\d+\]:\n\s+- \/url: \/faq/);
  assert.equal(refOf(withUrls.snapshot!, 'link', 'FAQ'), refOf(plain.snapshot!, 'link', 'FAQ'));
});
