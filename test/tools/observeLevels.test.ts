// get_page_context levels end to end: summary (outline with landmark refs and counts), interactive (actionable
// elements with refs and their headings), full (the default, unchanged); refs of every level act like snapshot refs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { useSession } from '../fixtures/harness.js';
import { call, callRaw, evaluate, refOf } from '../fixtures/mcp.js';
import { CORPUS } from '../fixtures/site.js';

interface PageContext {
  tabId: number;
  revision: number;
  refCount: number;
  snapshot?: string;
  level?: string;
  counts?: { links: number; buttons: number; fields: number; other: number; forms: number };
  outlineMore?: number;
}

const FORM_PAGE = `<!doctype html><title>Shop</title>
<header><nav aria-label="Site"><a href="/home">Home</a> <a href="/about">About us</a></nav></header>
<main>
  <h1>Order</h1>
  <p>Fill in the form below. Long explanatory prose that only the full level shows.</p>
  <form id="order" aria-label="Order form">
    <label>Name <input name="name"></label>
    <label><input type="checkbox" name="gift"> Gift wrap</label>
    <label>Size <select name="size"><option>Small</option><option>Large</option></select></label>
    <button type="submit" onclick="event.preventDefault(); this.textContent = 'Ordered'">Place order</button>
  </form>
  <table><tr><td>Row text only</td><td><a href="/r1">Row link</a></td></tr></table>
</main>
<aside id="side"><h2>Help</h2><a href="/faq">FAQ</a><button>Chat with us</button></aside>
<footer><p>Plain footer text</p></footer>`;

const tw = useSession({ pages: { '/form': FORM_PAGE } });

test('summary: title, URL, outline of headings and landmarks (landmarks with refs), counts; no actionable refs', async () => {
  const nav = await call<{ tabId: number; revision: number }>(tw.client, 'navigate', { url: `${tw.origin}/form` });
  const raw = await callRaw(tw.client, 'get_page_context', { level: 'summary' });
  assert.equal(raw.isError, undefined, JSON.stringify(raw.content));
  const ctx = raw.structuredContent as unknown as PageContext;
  const text = raw.content.map(c => c.text).join('\n');
  assert.equal(ctx.level, 'summary');
  assert.deepEqual(ctx.counts, { links: 4, buttons: 2, fields: 3, other: 0, forms: 1 });
  assert.match(text, /Level: summary · 4 links, 2 buttons, 3 fields, 1 form/);
  assert.match(text, new RegExp(`Tab ${nav.tabId} · revision ${nav.revision} · ${tw.origin}/form\nTitle: Shop`));
  const outline = ctx.snapshot!;
  assert.ok(text.includes(outline), 'the text carries the outline');
  const lines = outline.split('\n').map(l => l.trim().replace(/ \[ref=e\d+\]/, ''));
  assert.deepEqual(lines, [
    '- banner:', '- navigation "Site"', '- main:', '- heading "Order" [level=1]', '- form "Order form"',
    '- complementary:', '- heading "Help" [level=2]', '- contentinfo',
  ]);
  // Landmarks have refs; nothing else does.
  assert.equal(ctx.refCount, 6);
  assert.ok(!/(link|button|textbox|checkbox|combobox) /.test(outline), outline);
  assert.ok(!outline.includes('Long explanatory prose'));
  // A landmark's ref scopes the interactive level to it.
  const side = /- complementary \[ref=(e\d+)\]/.exec(outline)![1]!;
  const part = await call<PageContext>(tw.client, 'get_page_context', { ref: side, level: 'interactive' });
  refOf(part.snapshot!, 'button', 'Chat with us');
  assert.ok(!part.snapshot!.includes('Place order'));
});

test('interactive: every actionable element with its ref and name, the headings and landmarks around them, no text', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/form` });
  const full = await call<PageContext>(tw.client, 'get_page_context');
  const ctx = await call<PageContext>(tw.client, 'get_page_context', { level: 'interactive' });
  assert.equal(ctx.level, 'interactive');
  const snap = ctx.snapshot!;
  for (const [role, name] of [['link', 'Home'], ['link', 'About us'], ['textbox', 'Name'], ['checkbox', 'Gift wrap'], ['combobox', 'Size'],
    ['button', 'Place order'], ['link', 'Row link'], ['link', 'FAQ'], ['button', 'Chat with us']] as const) {
    assert.equal(refOf(snap, role, name), refOf(full.snapshot!, role, name), `${role} ${name}: the same ref at both levels`);
  }
  assert.match(snap, /- heading "Order" \[level=1\]/);
  assert.match(snap, /- heading "Help" \[level=2\]/);
  for (const prose of ['Long explanatory prose', 'Row text only', 'Plain footer text']) assert.ok(!snap.includes(prose), prose);
  assert.equal(ctx.refCount, full.refCount);
  assert.ok(snap.length < full.snapshot!.length);
  // A ref of the interactive level acts.
  await call(tw.client, 'click', { ref: refOf(snap, 'button', 'Place order') });
  assert.equal(await evaluate(tw.client, 'document.querySelector("button").textContent'), 'Ordered');
  await call(tw.client, 'type', { ref: refOf(snap, 'textbox', 'Name'), text: 'Ada' });
  assert.equal(await evaluate(tw.client, 'document.querySelector("input[name=name]").value'), 'Ada');
});

test('full is the default: no level and level "full" give the same snapshot', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/form` });
  const plain = await call<PageContext>(tw.client, 'get_page_context');
  const full = await call<PageContext>(tw.client, 'get_page_context', { level: 'full' });
  assert.equal(full.snapshot, plain.snapshot);
  assert.equal(plain.level, undefined);
  assert.match(plain.snapshot!, /Long explanatory prose/);
});

test('interactive pages long containers with paging lines that keep the level', async () => {
  tw.site.page('/long', `<!doctype html><title>Long</title><main><h1>Items</h1><ul>${Array.from({ length: 3000 }, (_, i) => `<li>Item text ${i} <a href="/i/${i}">Open ${i}</a></li>`).join('')}</ul></main>`);
  await call(tw.client, 'navigate', { url: `${tw.origin}/long` });
  const ctx = await call<PageContext>(tw.client, 'get_page_context', { level: 'interactive' });
  const snap = ctx.snapshot!;
  refOf(snap, 'link', 'Open 0');
  const paging = /get_page_context \{ref: "(e\d+)", offset: (\d+), level: "interactive"\}/.exec(snap);
  assert.ok(paging, snap.slice(-400));
  const next = await call<PageContext>(tw.client, 'get_page_context', { ref: paging[1], offset: Number(paging[2]), level: 'interactive' });
  refOf(next.snapshot!, 'link', `Open ${paging[2]}`);
  assert.ok(!next.snapshot!.includes('Item text'));
});

const CORPUS_PAGES = ['wikipedia.html', 'cnn.html', 'ietf-1.html'];

test('corpus pages: each level costs fewer tokens than the next (reported for docs/snapshot.md)', { skip: existsSync(join(CORPUS, CORPUS_PAGES[0]!)) ? undefined : 'the shared corpus is not here' }, async () => {
  const rows: string[] = [];
  for (const page of CORPUS_PAGES) {
    await call(tw.client, 'navigate', { url: `${tw.origin}/corpus/${page}` });
    const tokens: number[] = [];
    for (const level of ['summary', 'interactive', 'full']) {
      const raw = await callRaw(tw.client, 'get_page_context', { level });
      assert.equal(raw.isError, undefined, JSON.stringify(raw.content).slice(0, 500));
      tokens.push(encode(raw.content.map(c => c.text).join('\n')).length);
    }
    assert.ok(tokens[0]! < tokens[1]! && tokens[1]! < tokens[2]!, `${page}: ${tokens.join(' < ')}`);
    rows.push(`| ${page} | ${tokens.map(t => t.toLocaleString('en-US')).join(' | ')} |`);
  }
  console.log(`| page | summary | interactive | full |\n| --- | ---: | ---: | ---: |\n${rows.join('\n')}`);
});
