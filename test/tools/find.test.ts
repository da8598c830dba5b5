// find end to end: by text, role and name, and CSS selector, across a
// same-origin and a cross-site (out-of-process) iframe, under a ref or in
// one frame; bounded matches with how many more; a no-match answer that
// names near matches; and the refs it issues for text without a snapshot
// ref, used by execute, get_page_context and click. Also get_page_context's
// frame scope for a selector.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, refOf, snapshot } from '../fixtures/mcp.js';

/** Keeps the other.test host on loopback (frames.test.ts does the same); the last --host-resolver-rules switch wins. */
const HOST_RULES = '--host-resolver-rules=MAP other.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1';

interface Found { ref: string; role: string; name?: string; text?: string; tag: string; frame?: string }
interface FindFields { tabId: number; total: number; more: number; matches: Found[]; near?: Found[]; roles?: Record<string, number>; hidden?: number }

let other: string;
const items = Array.from({ length: 30 }, (_, i) => `<li>Item ${i + 1}</li>`).join('');
const tw = useSession({ args: ['--site-per-process', HOST_RULES].flatMap(a => ['--browser-arg', a]), setup: ({ site }) => {
  other = `http://other.test:${new URL(site.origin).port}`;
  site.page('/find', `<!doctype html><title>Find</title>
<h1>Billing</h1>
<div class="card"><span class="brand">Visa</span> <span class="digits" id="digits">ending in 4242</span></div>
<p id="status">Payment <b>due</b> today</p>
<table><tr><td>Order 1</td><td>€12</td></tr><tr><td>Order 2</td><td>€8</td></tr></table>
<ul>${items}</ul>
<button>Save draft</button> <button>Save</button>
<div class="secret" style="display:none">hidden 4242</div>
<script>document.getElementById('digits').addEventListener('click', () => { window.digitClicks = (window.digitClicks || 0) + 1; });</script>
<iframe title="Same frame" src="/same" width="400" height="120"></iframe>
<iframe title="Cross frame" src="${other}/cross" width="400" height="160"></iframe>
<div style="height: 800px"></div>`); // below the frames: through the extension, a click into a cross-site frame at the bottom of a page scrolled to its end reached the parent's iframe element, not the frame
  site.page('/same', '<!doctype html><title>Same</title><p class="digits">Same ending 1111</p>');
  site.page('/cross', `<!doctype html><title>Cross</title><p class="digits">Cross ending 9999</p>
<button onclick="this.textContent = 'Cross paid'">Cross pay</button>`);
} });

async function open(): Promise<void> {
  await call(tw.client, 'navigate', { url: `${tw.origin}/find`, waitUntil: 'load' });
}

async function find(args: Record<string, unknown>): Promise<FindFields> {
  return await call<FindFields>(tw.client, 'find', args);
}

async function findText(args: Record<string, unknown>): Promise<string> {
  const raw = await callRaw(tw.client, 'find', args);
  assert.equal(raw.isError, undefined, JSON.stringify(raw.content));
  return raw.content[0]!.text!;
}

test('text finds the innermost element, not actionable, with a ref that execute, get_page_context and click take', async () => {
  await open();
  const found = await find({ text: 'in 4242' });
  assert.equal(found.total, 1);
  assert.equal(found.more, 0);
  const [digits] = found.matches;
  assert.deepEqual({ ...digits, ref: undefined }, { ref: undefined, role: 'generic', text: 'ending in 4242', tag: 'span' });
  // The whole page snapshot has no ref for it: find issued a new one.
  const { snapshot: page } = await snapshot(tw.client);
  assert.ok(!page.includes(`[ref=${digits!.ref}]`), page);
  assert.equal((await call<{ value: string }>(tw.client, 'execute', { ref: digits!.ref, code: 'element.id + ":" + element.textContent' })).value, 'digits:ending in 4242');
  const scoped = await snapshot(tw.client, { ref: digits!.ref });
  assert.equal(scoped.snapshot, `- generic [ref=${digits!.ref}]:\n  ending in 4242`);
  await call(tw.client, 'click', { ref: digits!.ref });
  assert.equal((await call<{ value: number }>(tw.client, 'execute', { code: 'window.digitClicks' })).value, 1);
  // The same element gets the same ref again; the text content lists it as a snapshot line.
  assert.equal((await find({ text: 'ENDING IN 4242' })).matches[0]!.ref, digits!.ref);
  assert.equal(await findText({ text: 'in 4242' }), `1 element matches text "in 4242" on the page (tab ${found.tabId}, revision ${scoped.revision}):\n- generic [ref=${digits!.ref}]: ending in 4242`);
  // Text spread over several elements matches the element that holds all of it.
  const status = await find({ text: 'payment due' });
  assert.deepEqual(status.matches.map(m => [m.tag, m.text]), [['p', 'Payment due today']]);
});

test('matches come in document order across a same-origin and a cross-site frame, with the iframe refs of the snapshot', async () => {
  await open();
  const { snapshot: page } = await snapshot(tw.client);
  const sameFrame = refOf(page, 'iframe', 'Same frame');
  const crossFrame = refOf(page, 'iframe', 'Cross frame');
  const found = await find({ text: 'ending' });
  assert.equal(found.total, 3);
  assert.deepEqual(found.matches.map(m => [m.text, m.frame]), [['ending in 4242', undefined], ['Same ending 1111', sameFrame], ['Cross ending 9999', crossFrame]]);
  const cross = found.matches[2]!;
  assert.equal((await call<{ value: string }>(tw.client, 'execute', { ref: cross.ref, code: 'location.origin + " " + element.className' })).value, `${other} digits`);
  const text = await findText({ text: 'ending' });
  assert.ok(text.includes(`\n- generic [ref=${cross.ref}] in iframe ${crossFrame}: Cross ending 9999`), text);

  // A button in the cross-site frame, found by role and name, clicks by its ref (the snapshot's ref).
  const pay = await find({ role: 'button', name: 'cross pay' });
  assert.equal(pay.total, 1);
  assert.equal(pay.matches[0]!.ref, refOf(page, 'button', 'Cross pay'));
  await call(tw.client, 'click', { ref: pay.matches[0]!.ref });
  assert.equal((await call<{ value: string }>(tw.client, 'execute', { ref: pay.matches[0]!.ref, code: 'element.textContent' })).value, 'Cross paid');
});

test('ref scopes the search (an iframe\'s ref: inside it); a selector reaches into frames with the iframe\'s ref', async () => {
  await open();
  const { snapshot: page } = await snapshot(tw.client);
  const crossFrame = refOf(page, 'iframe', 'Cross frame');
  assert.equal((await find({ selector: '.digits' })).total, 3);
  const inCross = await find({ selector: '.digits', ref: crossFrame });
  assert.deepEqual(inCross.matches.map(m => [m.tag, m.text, m.frame]), [['p', 'Cross ending 9999', crossFrame]]);
  const inSame = await find({ text: 'ending', ref: refOf(page, 'iframe', 'Same frame') });
  assert.deepEqual(inSame.matches.map(m => m.text), ['Same ending 1111']);

  const table = (await find({ selector: 'table' })).matches[0]!;
  assert.equal(table.role, 'table');
  const cells = await find({ ref: table.ref, role: 'cell' });
  assert.deepEqual(cells.matches.map(m => m.name), ['Order 1', '€12', 'Order 2', '€8']);
  const row = await find({ ref: table.ref, role: 'row', text: '€8' });
  assert.deepEqual(row.matches.map(m => m.text), ['Order 2 €8']);

  // get_page_context: a selector that matches only inside a frame needs the iframe's ref, and then snapshots there.
  const missing = await callError(tw.client, 'get_page_context', { selector: 'p.digits' });
  assert.equal(missing.type, 'invalid_arguments');
  assert.match(missing.hint, /pass with it the ref of the iframe/);
  const scoped = await snapshot(tw.client, { ref: crossFrame, selector: 'p.digits' });
  // The scope's root line has the ref find gave the same element.
  assert.equal(scoped.snapshot, `- generic [ref=${inCross.matches[0]!.ref}]:\n  Cross ending 9999`);
  const outside = await callError(tw.client, 'get_page_context', { ref: crossFrame, selector: '#digits' });
  assert.deepEqual([outside.type, outside.message], ['invalid_arguments', `The selector matches no element under ${crossFrame}.`]);
  // Under an element's ref, a selector matches among its descendants only.
  const cell = await snapshot(tw.client, { ref: table.ref, selector: 'tr:nth-child(2) td' });
  assert.equal(cell.snapshot, `- cell [ref=${cells.matches[2]!.ref}]:\n  Order 2`);
});

test('role and name: substring by default, exact for the whole name', async () => {
  await open();
  const { snapshot: page } = await snapshot(tw.client);
  const save = await find({ role: 'button', name: 'save' });
  assert.deepEqual(save.matches.map(m => [m.name, m.ref]), [['Save draft', refOf(page, 'button', 'Save draft')], ['Save', refOf(page, 'button', 'Save')]]);
  assert.deepEqual((await find({ role: 'button', name: 'Save', exact: true })).matches.map(m => m.name), ['Save']);
  assert.equal((await find({ role: 'button', name: 'save', exact: true })).total, 0);
  assert.deepEqual((await find({ role: 'heading' })).matches.map(m => m.name), ['Billing']);
  assert.deepEqual((await find({ text: 'Item 3', exact: true })).matches.map(m => [m.role, m.text]), [['listitem', 'Item 3']]);
});

test('too many matches: the first limit, and how many more', async () => {
  await open();
  const found = await find({ role: 'listitem' });
  assert.equal(found.total, 30);
  assert.equal(found.more, 20);
  assert.deepEqual(found.matches.map(m => m.text), Array.from({ length: 10 }, (_, i) => `Item ${i + 1}`));
  const text = await findText({ role: 'listitem' });
  assert.ok(text.startsWith(`30 elements match role listitem on the page (tab ${found.tabId}, revision `), text);
  assert.ok(text.includes('; the first 10:\n- listitem [ref='), text);
  assert.ok(text.endsWith('\n… 20 more: narrow the query (role, name, exact, ref) or raise limit (up to 50).'), text);
  const all = await find({ role: 'listitem', limit: 50 });
  assert.equal(all.matches.length, 30);
  assert.equal(all.more, 0);
  assert.equal((await callError(tw.client, 'find', { role: 'listitem', limit: 51 })).type, 'invalid_arguments');
});

test('no match: an answer, not an error, naming what nearly matched', async () => {
  await open();
  const near = await find({ text: 'ending in 4243' });
  assert.equal(near.total, 0);
  assert.deepEqual(near.matches, []);
  assert.deepEqual(near.near!.map(m => m.text), ['ending in 4242', 'Same ending 1111', 'Cross ending 9999']);
  const text = await findText({ text: 'ending in 4243' });
  const lines = text.split('\n');
  assert.equal(lines[0], `No element matches text "ending in 4243" on the page (tab ${near.tabId}, revision ${lines[0]!.match(/revision (\d+)/)![1]}).`);
  assert.equal(lines[1], 'Elements with a word of it (refs usable as they are):');
  assert.equal(lines[2], `- generic [ref=${near.near![0]!.ref}]: ending in 4242`);
  // The near refs work like any other.
  assert.equal((await call<{ value: string }>(tw.client, 'execute', { ref: near.near![2]!.ref, code: 'element.textContent' })).value, 'Cross ending 9999');

  // A role with a name that matches nothing lists the elements of that role; a role nothing has lists the roles present.
  const save = await find({ role: 'button', name: 'Delete' });
  assert.deepEqual(save.near!.map(m => m.name), ['Save draft', 'Save', 'Cross pay']);
  const none = await find({ role: 'buton' });
  assert.equal(none.total, 0);
  assert.equal(none.roles!.listitem, 30);
  assert.equal(none.roles!.button, 2);
  assert.match(await findText({ role: 'buton' }), /\nNo element has role buton here; roles present: listitem 30, /);
  // Hidden matches are counted, not returned.
  const hidden = await find({ selector: '.secret' });
  assert.deepEqual([hidden.total, hidden.hidden], [0, 1]);
  assert.match(await findText({ selector: '.secret' }), /\n1 element matches but is hidden \(display: none\)/);
});

test('bad input is invalid_arguments with a hint', async () => {
  await open();
  const { snapshot: page } = await snapshot(tw.client);
  const nothing = await callError(tw.client, 'find', {});
  assert.equal(nothing.type, 'invalid_arguments');
  assert.match(nothing.hint, /find \{text: /);
  const bad = await callError(tw.client, 'find', { selector: 'div[' });
  assert.equal(bad.type, 'invalid_arguments');
  assert.match(bad.message, /The selector is not valid CSS/);
  assert.equal((await callError(tw.client, 'find', { text: '  ' })).type, 'invalid_arguments');
  // Under a button's ref: its text only.
  assert.deepEqual((await find({ text: 'draft', ref: refOf(page, 'button', 'Save draft') })).total, 1);
  assert.deepEqual((await find({ text: 'draft', ref: refOf(page, 'button', 'Save') })).total, 0);
  assert.equal((await callError(tw.client, 'find', { text: 'x', ref: 'e999999' })).type, 'invalid_arguments');
  // A ref of a replaced document is stale.
  const old = (await find({ text: 'in 4242' })).matches[0]!.ref;
  await open();
  assert.equal((await callError(tw.client, 'find', { text: 'x', ref: old })).type, 'stale_ref');
});
