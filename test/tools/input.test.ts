// Element and keyboard tools end to end: click, type, fill_form,
// select_option, press_key, hover, scroll; what each reports (the element
// acted on and its container, navigation, dialogs, console errors, the
// snapshot diff or the whole snapshot), stale refs, scoped refs, elements
// that cannot be acted on, and that typed text never shows up in an error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callRaw, evaluate, type RawResult, refOf, snapshot, TEST_CONNECTION } from '../fixtures/mcp.js';
import { seenBy } from '../fixtures/clientLens.js';
import { largePage } from '../fixtures/largePage.js';

interface ElementInfo {
  ref: string;
  role?: string;
  name?: string;
  container?: { role: string; name?: string; ref?: string };
}

interface ActionResult {
  tabId: number;
  revision: number;
  element?: ElementInfo;
  elements?: ElementInfo[];
  diff?: string;
  changes?: { added: number; removed: number; changed: number; moved: number; refsAdded: number; refsRemoved: number; refsKept: number; tooMany?: boolean };
  navigation?: { url: string; revision: number; instanceId: string; sameDocument: boolean };
  dialog?: { type: string; message: string; defaultValue?: string };
  consoleErrors?: Array<{ seq: number; text: string }>;
  newTabs?: Array<{ tabId: number; openerTabId?: number }>;
  snapshot?: string;
  selected?: string[];
  filled?: number;
  scroll?: { x: number; y: number; maxY: number };
}

const CLICKS_PAGE = `<!doctype html><title>Clicks</title>
<button id="target">Target</button>
<script>
  window.events = [];
  const t = document.getElementById('target');
  for (const type of ['click', 'dblclick', 'contextmenu', 'auxclick']) {
    t.addEventListener(type, e => {
      if (type === 'contextmenu') e.preventDefault();
      events.push({ type, button: e.button, shift: e.shiftKey, ctrl: e.ctrlKey, alt: e.altKey });
    });
  }
</script>`;

const EFFECTS_PAGE = `<!doctype html><title>Effects</title>
<style>#hover-box:hover { background: rgb(0, 128, 0); } #hover-box { width: 200px; height: 60px; }</style>
<button onclick="alert('Saved!')">Alert me</button>
<button onclick="window.confirmed = confirm('Really?')">Confirm me</button>
<button onclick="console.error('the widget broke'); console.log('just a log')">Log error</button>
<button onclick="setTimeout(() => {}, 0); throw new Error('handler exploded')">Throw</button>
<button onclick="window.quiet = (window.quiet || 0) + 1">Quiet</button>
<a href="/effects-next">Next page</a>
<a href="#anchor">Anchor</a>
<a href="/effects-next" target="_blank">Popup</a>
<div id="hover-box" role="button" tabindex="0" aria-label="Hover box">hover over me</div>
<p id="hover-out">not hovered</p>
<script>
  document.getElementById('hover-box').addEventListener('mouseenter', () => {
    document.getElementById('hover-out').textContent = 'hovered';
  });
</script>`;

const FORM_PAGE = `<!doctype html><title>Form</title>
<form action="/search" method="get">
  <label>Query <input name="q"></label>
  <button type="submit">Search</button>
</form>
<label>Comment <textarea id="comment"></textarea></label>
<label><input type="checkbox" id="agree"> I agree</label>
<label>Colour <select id="colour"><option value="r">Red</option><option value="g">Green</option><option value="b">Blue</option></select></label>
<label>Toppings <select id="toppings" multiple><option value="ch">Cheese</option><option value="ol">Olives</option><option value="mu">Mushrooms</option></select></label>
<label>Keys <input id="keys"></label>
<button disabled>Disabled button</button>
<label>Locked <input id="locked" disabled></label>
<script>
  window.keys = [];
  document.getElementById('keys').addEventListener('keydown', e => keys.push(e.key + (e.ctrlKey ? '+ctrl' : '')));
</script>`;

const COVERED_PAGE = `<!doctype html><title>Covered</title>
<button id="under" onclick="window.hit = true" style="position:absolute; top:20px; left:20px">Covered button</button>
<div style="position:fixed; inset:0; background:rgba(0,0,0,0.5)"></div>`;

const TALL_PAGE = `<!doctype html><title>Tall</title><style>body{margin:0}</style>
<div style="height:5000px">top</div>
<button id="bottom">Bottom button</button>
<div id="box" style="height:200px; overflow:auto"><div style="height:2000px">inner</div></div>`;

// Two documents with the same layout: a ref of the first must never act on the second.
const COUNTER_PAGE = (label: string) => `<!doctype html><title>${label}</title>
<h1>${label}</h1>
<button onclick="window.count = (window.count || 0) + 1">Increment</button>`;

// Event handlers that never return.
const HANG_PAGE = `<!doctype html><title>Hang</title>
<button onclick="while (true) {}">Hang on click</button>
<button onclick="window.fine = (window.fine || 0) + 1">Fine</button>
<label>Trap <input id="trap" onkeydown="if (event.key === 'x') while (true) {}"></label>`;

const SCOPED_PAGE = `<!doctype html><title>Scoped</title>
<main><button onclick="window.mainClicks = (window.mainClicks || 0) + 1">Main button</button></main>
<aside id="side"><button onclick="window.sideClicks = (window.sideClicks || 0) + 1">Side button</button></aside>`;

// A result list a click replaces item by item (new elements, new refs), beside a page of links that do not change.
const RESULTS_PAGE = `<!doctype html><title>Results</title>
<nav>${Array.from({ length: 40 }, (_, i) => `<a href="#n${i}">Section link number ${i} of the site</a>`).join(' ')}</nav>
<main><button onclick="page()">Next results</button><ul aria-label="Results" id="results"></ul></main>
<script>
  let n = 0;
  function page() {
    const list = document.getElementById('results');
    list.replaceChildren(...Array.from({ length: 10 }, (_, i) => {
      const li = document.createElement('li');
      li.innerHTML = '<h3>Result ' + (n * 10 + i) + '</h3><span>score ' + ((n * 7 + i * 3) % 10) + '</span> <button>Open result ' + (n * 10 + i) + '</button>';
      return li;
    }));
    n++;
  }
  page();
</script>`;

// A table with a button per row, content a click reveals, a list a click fills with 300 entries, a search form.
const INVOICES_PAGE = `<!doctype html><title>Invoices</title>
<main><h1>Invoices</h1>
<table><thead><tr><th>Number</th><th>Total</th><th>Actions</th></tr></thead><tbody id="rows">
<tr><td>Invoice 2024-02</td><td>€80</td><td><button onclick="this.closest('tr').remove()">Delete</button></td></tr>
<tr><td>Invoice 2024-03</td><td>€120</td><td><button onclick="this.closest('tr').remove()">Delete</button></td></tr>
</tbody></table>
<button onclick="document.getElementById('details').hidden = false">Show details</button>
<section id="details" aria-label="Details" hidden><p>Paid on 2024-04-01.</p><button onclick="this.parentElement.hidden = true">Close details</button></section>
<form role="search" aria-label="Search invoices" onsubmit="event.preventDefault()"><label>Query <input id="q"></label><button>Find</button></form>
<ul aria-label="History"><li><a href="#created">Created</a></li></ul>
<button onclick="loadAll()">Load history</button>
<button onclick="fetch('/slow-data').then(r => r.text()).then(t => { const p = document.createElement('p'); p.textContent = t; document.querySelector('main').append(p); })">Fetch note</button>
</main>
<script>
function loadAll() {
  const ul = document.querySelector('ul');
  for (let i = 0; i < 300; i++) {
    const li = document.createElement('li');
    li.innerHTML = '<a href="#h' + i + '">History entry number ' + i + ' of the invoice log</a>';
    ul.append(li);
  }
}
</script>`;

let searches: string[] = [];

// Short stuck-page probes (TABWRIGHT_STUCK_PROBE_MS): no page of this file is busy without being stuck.
const tw = useSession({
  env: { TABWRIGHT_STUCK_PROBE_MS: '500' },
  setup: async tw => {
    tw.site.page('/clicks', CLICKS_PAGE);
    tw.site.page('/effects', EFFECTS_PAGE);
    tw.site.page('/effects-next', '<title>Next</title><p>next</p>');
    tw.site.page('/form', FORM_PAGE);
    tw.site.route('/search', (req, res) => {
      searches.push(req.url!);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<title>Results</title><p>results</p>');
    });
    tw.site.page('/covered', COVERED_PAGE);
    tw.site.page('/tall', TALL_PAGE);
    tw.site.page('/counter-1', COUNTER_PAGE('First'));
    tw.site.page('/counter-2', COUNTER_PAGE('Second'));
    tw.site.page('/scoped', SCOPED_PAGE);
    tw.site.page('/hang', HANG_PAGE);
    tw.site.page('/invoices', INVOICES_PAGE);
    tw.site.page('/results', RESULTS_PAGE);
    tw.site.page('/large', largePage(3000, 0));
    tw.site.route('/slow-data', (_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('Note from the server');
      }, 200);
    });
  },
});

async function events(): Promise<Array<{ type: string; button: number; shift: boolean; ctrl: boolean; alt: boolean }>> {
  return await evaluate(tw.client, 'window.events.splice(0)');
}

test('click: single, double, right button and modifiers reach the page', async () => {
  const { snapshot: snap, revision } = await tw.open('/clicks');
  const ref = refOf(snap, 'button', 'Target');

  const res = await call<ActionResult>(tw.client, 'click', { ref });
  assert.equal(res.revision, revision);
  assert.equal(res.navigation, undefined);
  assert.equal(res.dialog, undefined);
  assert.equal(res.consoleErrors, undefined);
  assert.equal(res.snapshot, undefined);
  assert.deepEqual(await events(), [{ type: 'click', button: 0, shift: false, ctrl: false, alt: false }]);

  await call(tw.client, 'click', { ref, doubleClick: true });
  const dbl = await events();
  assert.deepEqual(dbl.map(e => e.type), ['click', 'click', 'dblclick']);

  await call(tw.client, 'click', { ref, button: 'right' });
  const right = await events();
  assert.deepEqual(right.find(e => e.type === 'contextmenu')?.button, 2);
  assert.ok(!right.some(e => e.type === 'click'), 'a right click is not a click');

  await call(tw.client, 'click', { ref, modifiers: ['Shift', 'Alt'] });
  assert.deepEqual(await events(), [{ type: 'click', button: 0, shift: true, ctrl: false, alt: true }]);

  await call(tw.client, 'click', { ref, modifiers: ['Control'] });
  assert.deepEqual((await events()).find(e => e.type === 'click')?.ctrl, true);
});

test('type replaces the value; submit presses Enter and reports the navigation', async () => {
  const { snapshot: snap, revision } = await tw.open('/form');
  const comment = refOf(snap, 'textbox', 'Comment');
  await call(tw.client, 'type', { ref: comment, text: 'first' });
  const typed = await call<ActionResult>(tw.client, 'type', { ref: comment, text: 'second line' });
  assert.equal(typed.navigation, undefined);
  assert.equal(await evaluate(tw.client, 'document.getElementById("comment").value'), 'second line');

  searches = [];
  const query = refOf(snap, 'textbox', 'Query');
  const res = await call<ActionResult>(tw.client, 'type', { ref: query, text: 'blue shoes', submit: true });
  assert.ok(res.navigation, 'the submit navigated');
  assert.equal(res.navigation.url, `${tw.origin}/search?q=blue+shoes`);
  assert.equal(res.navigation.revision, revision + 1);
  assert.equal(res.navigation.sameDocument, false);
  assert.equal(res.revision, revision + 1);
  assert.deepEqual(searches, ['/search?q=blue+shoes']);
});

test('fill_form fills text, checkbox and select in one call', async () => {
  const { snapshot: snap } = await tw.open('/form');
  const refs = [refOf(snap, 'textbox', 'Comment'), refOf(snap, 'checkbox', 'I agree'), refOf(snap, 'combobox', 'Colour'), refOf(snap, 'listbox', 'Toppings')];
  const { res, text } = await act('fill_form', {
    fields: [
      { ref: refs[0], value: 'hello form' },
      { ref: refs[1], value: true },
      { ref: refs[2], value: 'Blue' },
      { ref: refs[3], value: ['ch', 'mu'] },
    ],
  });
  assert.equal(res.filled, 4);
  // The diff shows each field with its ref and new value, so the first line does not name them again.
  assert.match(text, /^Filled 4 fields; each is in the diff below\.$/m);
  assert.match(text, new RegExp(`^  - textbox "Comment" \\[ref=${refs[0]}\\]: hello form  \\(was: empty\\)$`, 'm'));
  assert.deepEqual(res.elements?.map(e => e.ref), refs);
  assert.match(text, new RegExp(`^  - checkbox "I agree" \\[ref=${refs[1]}\\] \\[checked\\]  \\(was: without \\[checked\\]\\)$`, 'm'));
  // Filled again with what they hold: nothing changes, so the fields are named in the first line.
  const again = await act('fill_form', { fields: [{ ref: refs[0], value: 'hello form' }, { ref: refs[1], value: true }] });
  assert.match(again.text, new RegExp(`^Filled 2 fields: textbox "Comment" \\[ref=${refs[0]}\\]; checkbox "I agree" \\[ref=${refs[1]}\\]\\.\\nSnapshot unchanged`, 'm'));
  const state = await evaluate(tw.client, `({
    comment: document.getElementById('comment').value,
    agree: document.getElementById('agree').checked,
    colour: document.getElementById('colour').value,
    toppings: [...document.getElementById('toppings').selectedOptions].map(o => o.value),
  })`);
  assert.deepEqual(state, { comment: 'hello form', agree: true, colour: 'b', toppings: ['ch', 'mu'] });

  await call(tw.client, 'fill_form', { fields: [{ ref: refOf(snap, 'checkbox', 'I agree'), value: false }] });
  assert.equal(await evaluate(tw.client, 'document.getElementById("agree").checked'), false);

  // A checkbox takes true/false, not text.
  const bad = await callRaw(tw.client, 'fill_form', { fields: [{ ref: refOf(snap, 'checkbox', 'I agree'), value: 'maybe' }] });
  assert.equal(bad.isError, true);
  assert.equal((bad.structuredContent!.error as { type: string }).type, 'invalid_arguments');

  // type into a checkbox says what the element is and which tool fits, and never echoes the text.
  const typed = await callRaw(tw.client, 'type', { ref: refOf(snap, 'checkbox', 'I agree'), text: 'typed secret' });
  assert.equal(typed.isError, true);
  const said = typed.content.map(c => c.text ?? '').join('\n');
  assert.match(said, /it is an input that takes no typed text \(a checkbox, radio button, file input or button\)/);
  assert.match(said, /Use click for a checkbox/);
  assert.doesNotMatch(said, /typed secret/);
});

test('select_option by value and by label; returns the selected values', async () => {
  const { snapshot: snap } = await tw.open('/form');
  const colour = refOf(snap, 'combobox', 'Colour');
  const { res: byValue, text } = await act('select_option', { ref: colour, values: ['g'] });
  assert.deepEqual(byValue.selected, ['g']);
  assert.match(text, new RegExp(`^Selected options in combobox "Colour" \\[ref=${colour}\\]\\.$`, 'm'));
  assert.match(text, new RegExp(`^  - combobox "Colour" \\[ref=${colour}\\]: Green  \\(was: value "Red"\\)$`, 'm'));
  assert.equal(await evaluate(tw.client, 'document.getElementById("colour").value'), 'g');
  const byLabel = await call<ActionResult>(tw.client, 'select_option', { ref: colour, values: ['Red'] });
  assert.deepEqual(byLabel.selected, ['r']);
  const multi = await call<ActionResult>(tw.client, 'select_option', { ref: refOf(snap, 'listbox', 'Toppings'), values: ['Olives', 'mu'] });
  assert.deepEqual(multi.selected, ['ol', 'mu']);

  const missing = await callRaw(tw.client, 'select_option', { ref: colour, values: ['Purple'], timeoutMs: 1000 });
  assert.equal(missing.isError, true);
  assert.equal((missing.structuredContent!.error as { type: string }).type, 'element_not_actionable');
  assert.match(missing.content.map(c => c.text ?? '').join('\n'), /some of the requested options do not exist[\s\S]*lists a select's options after "options:"/);
});

test('press_key sends keys and chords to the focused element', async () => {
  const { snapshot: snap } = await tw.open('/form');
  await call(tw.client, 'click', { ref: refOf(snap, 'textbox', 'Keys') });
  await call(tw.client, 'press_key', { key: 'x' });
  await call(tw.client, 'press_key', { key: 'Control+a' });
  await call(tw.client, 'press_key', { key: 'Escape' });
  assert.deepEqual(await evaluate(tw.client, 'window.keys'), ['x', 'Control+ctrl', 'a+ctrl', 'Escape']);
  assert.equal(await evaluate(tw.client, 'document.getElementById("keys").value'), 'x');

  const bad = await callRaw(tw.client, 'press_key', { key: 'NoSuchKey' });
  assert.equal((bad.structuredContent!.error as { type: string }).type, 'invalid_arguments');
});

test('hover triggers mouseenter and :hover', async () => {
  const { snapshot: snap } = await tw.open('/effects');
  const box = refOf(snap, 'button', 'Hover box');
  const { text } = await act('hover', { ref: box });
  assert.equal(await evaluate(tw.client, 'document.getElementById("hover-out").textContent'), 'hovered');
  assert.match(text, new RegExp(`^Hovered button "Hover box" \\[ref=${box}\\]\\.\\n.*\\nChanged:\\n  hovered  \\(was: not hovered\\)$`));
  assert.equal(await evaluate(tw.client, 'document.querySelector("#hover-box:hover") !== null'), true);
  assert.equal(await evaluate(tw.client, 'getComputedStyle(document.getElementById("hover-box")).backgroundColor'), 'rgb(0, 128, 0)');
});

test('scroll: by pixels, the default step, a ref into view, inside an element', async () => {
  const { snapshot: snap } = await tw.open('/tall');
  const by = await call<ActionResult>(tw.client, 'scroll', { dy: 500 });
  assert.equal(by.scroll!.y, 500);
  assert.equal(await evaluate(tw.client, 'window.scrollY'), 500);

  const step = await call<ActionResult>(tw.client, 'scroll');
  assert.equal(step.scroll!.y, 1100);
  const up = await call<ActionResult>(tw.client, 'scroll', { dy: -1100 });
  assert.equal(up.scroll!.y, 0);

  const bottom = refOf(snap, 'button', 'Bottom button');
  const { res: intoView, text } = await act('scroll', { ref: bottom });
  assert.match(text, new RegExp(`^Scrolled button "Bottom button" \\[ref=${bottom}\\] into view\\.$`, 'm'));
  assert.ok(intoView.scroll!.y > 4000, `scrolled to ${intoView.scroll!.y}`);
  const visible = await evaluate<boolean>(tw.client, `(() => {
    const r = document.getElementById('bottom').getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight;
  })()`);
  assert.equal(visible, true);

  await call(tw.client, 'execute', { code: 'document.getElementById("box").setAttribute("aria-label", "Box"); document.getElementById("box").tabIndex = 0' });
  const box = refOf((await snapshot(tw.client)).snapshot, 'generic', 'Box');
  await call(tw.client, 'scroll', { ref: box, dy: 300 });
  assert.equal(await evaluate(tw.client, 'document.getElementById("box").scrollTop'), 300);
});

test('an alert opened by a click is reported and does not hang the call', async () => {
  const { snapshot: snap } = await tw.open('/effects');
  const res = await call<ActionResult>(tw.client, 'click', { ref: refOf(snap, 'button', 'Alert me') });
  assert.deepEqual(res.dialog, { type: 'alert', message: 'Saved!' });
  await call(tw.client, 'handle_dialog', { accept: true });
  const confirm = await call<ActionResult>(tw.client, 'click', { ref: refOf(snap, 'button', 'Confirm me') });
  assert.deepEqual(confirm.dialog, { type: 'confirm', message: 'Really?' });
  await call(tw.client, 'handle_dialog', { accept: false });
  assert.equal(await evaluate(tw.client, 'window.confirmed'), false);
  // A dialog is reported by the call that opened it (test/tools/dialogs.test.ts has the rest).
  const quiet = await call<ActionResult>(tw.client, 'click', { ref: refOf(snap, 'button', 'Quiet') });
  assert.equal(quiet.dialog, undefined);
});

test('new console errors and uncaught exceptions are reported by the action', async () => {
  const { snapshot: snap } = await tw.open('/effects');
  const res = await call<ActionResult>(tw.client, 'click', { ref: refOf(snap, 'button', 'Log error') });
  assert.deepEqual(res.consoleErrors?.map(e => e.text), ['the widget broke']);
  const thrown = await call<ActionResult>(tw.client, 'click', { ref: refOf(snap, 'button', 'Throw') });
  assert.equal(thrown.consoleErrors?.length, 1);
  assert.match(thrown.consoleErrors![0]!.text, /handler exploded/);
  const quiet = await call<ActionResult>(tw.client, 'click', { ref: refOf(snap, 'button', 'Quiet') });
  assert.equal(quiet.consoleErrors, undefined);
});

test('a click that navigates reports it; a hash link is a same-document change', async () => {
  const { snapshot: snap, revision } = await tw.open('/effects');
  const hash = await call<ActionResult>(tw.client, 'click', { ref: refOf(snap, 'link', 'Anchor') });
  assert.deepEqual(hash.navigation && { url: hash.navigation.url, revision: hash.navigation.revision, sameDocument: hash.navigation.sameDocument },
    { url: `${tw.origin}/effects#anchor`, revision, sameDocument: true });

  const popup = await call<ActionResult>(tw.client, 'click', { ref: refOf(snap, 'link', 'Popup') });
  assert.equal(popup.newTabs?.length, 1);
  assert.equal(popup.newTabs![0]!.openerTabId, popup.tabId);
  await call(tw.client, 'close_tab', { tabId: popup.newTabs![0]!.tabId });

  const nav = await call<ActionResult>(tw.client, 'click', { ref: refOf(snap, 'link', 'Next page') });
  assert.equal(nav.navigation?.url, `${tw.origin}/effects-next`);
  assert.equal(nav.navigation?.revision, revision + 1);
  assert.equal(nav.navigation?.sameDocument, false);
  assert.equal(nav.revision, revision + 1);
});

test('snapshot: true returns a fresh snapshot after the action', async () => {
  const { snapshot: snap } = await tw.open('/effects');
  const res = await call<ActionResult>(tw.client, 'click', { ref: refOf(snap, 'link', 'Next page'), snapshot: true });
  assert.ok(res.snapshot);
  assert.match(res.snapshot, /next/);
  assert.ok(!res.snapshot.includes('Alert me'), 'the snapshot is of the new page');
  const typed = await call<ActionResult>(tw.client, 'scroll', { dy: 10, snapshot: true });
  assert.ok(typed.snapshot);
});

test('a ref from an older revision is stale_ref and never acts on the new page', async () => {
  const first = await tw.open('/counter-1');
  const oldRef = refOf(first.snapshot, 'button', 'Increment');
  await call(tw.client, 'navigate', { url: `${tw.origin}/counter-2` });

  let err = await callRaw(tw.client, 'click', { ref: oldRef });
  assert.equal((err.structuredContent!.error as { type: string }).type, 'stale_ref');
  assert.equal(await evaluate(tw.client, 'window.count ?? 0'), 0);

  // Also once the new document has been snapshotted (its own refs exist).
  const second = await snapshot(tw.client);
  assert.equal(second.revision, first.revision + 1);
  const newRef = refOf(second.snapshot, 'button', 'Increment');
  assert.notEqual(newRef, oldRef);
  for (const tool of ['click', 'hover'] as const) {
    err = await callRaw(tw.client, tool, { ref: oldRef });
    assert.equal((err.structuredContent!.error as { type: string; hint: string }).type, 'stale_ref', tool);
    assert.match((err.structuredContent!.error as { hint: string }).hint, /get_page_context/);
  }
  err = await callRaw(tw.client, 'type', { ref: oldRef, text: 'x' });
  assert.equal((err.structuredContent!.error as { type: string }).type, 'stale_ref');
  assert.equal(await evaluate(tw.client, 'window.count ?? 0'), 0);

  // The new ref works.
  await call(tw.client, 'click', { ref: newRef });
  assert.equal(await evaluate(tw.client, 'window.count'), 1);

  // Reloading the same URL replaces the document too.
  await call(tw.client, 'reload_tab');
  err = await callRaw(tw.client, 'click', { ref: newRef });
  assert.equal((err.structuredContent!.error as { type: string }).type, 'stale_ref');
  assert.equal(await evaluate(tw.client, 'window.count ?? 0'), 0);
});

test('a ref from a selector-scoped snapshot works, and so does a ref outside the scope', async () => {
  const { snapshot: snap } = await tw.open('/scoped');
  const mainRef = refOf(snap, 'button', 'Main button');
  const scoped = await snapshot(tw.client, { selector: '#side' });
  const sideRef = refOf(scoped.snapshot, 'button', 'Side button');
  await call(tw.client, 'click', { ref: sideRef });
  await call(tw.client, 'click', { ref: mainRef });
  await call(tw.client, 'click', { ref: sideRef });
  assert.deepEqual(await evaluate(tw.client, '[window.mainClicks, window.sideClicks]'), [1, 2]);
});

test('a disabled or covered element is element_not_actionable', async () => {
  // timeoutMs leaves room for Playwright's first actionability check on a loaded machine: a call that times out
  // before any check reports `timeout`, not why.
  let { snapshot: snap } = await tw.open('/form');
  let err = await callRaw(tw.client, 'click', { ref: refOf(snap, 'button', 'Disabled button'), timeoutMs: 2500 });
  assert.equal((err.structuredContent!.error as { type: string }).type, 'element_not_actionable');

  ({ snapshot: snap } = await tw.open('/covered'));
  err = await callRaw(tw.client, 'click', { ref: refOf(snap, 'button', 'Covered button'), timeoutMs: 2500 });
  assert.equal((err.structuredContent!.error as { type: string }).type, 'element_not_actionable');
  assert.equal(await evaluate(tw.client, 'window.hit ?? false'), false);
});

test('typed text never appears in an error', async () => {
  const secret = 'hunter2-Tr0ub4dor&3';
  const { snapshot: snap } = await tw.open('/form');
  const attempts: Array<[string, Record<string, unknown>]> = [
    ['type', { ref: refOf(snap, 'textbox', 'Locked'), text: secret, timeoutMs: 1000 }],
    ['type', { ref: refOf(snap, 'button', 'Disabled button'), text: secret, timeoutMs: 1000 }],
    ['type', { ref: 'e999999', text: secret }],
    ['fill_form', { fields: [{ ref: refOf(snap, 'checkbox', 'I agree'), value: secret }] }],
    ['fill_form', { fields: [{ ref: refOf(snap, 'textbox', 'Locked'), value: secret }], timeoutMs: 1000 }],
    ['type', { ref: refOf(snap, 'textbox', 'Query'), text: secret, timeoutMs: 5 }],
    ['type', { ref: refOf(snap, 'textbox', 'Query'), text: 123 }],
  ];
  for (const [tool, args] of attempts) {
    const res = await callRaw(tw.client, tool, args);
    assert.equal(res.isError, true, `${tool} ${JSON.stringify(args)} should fail`);
    const everything = JSON.stringify(res);
    assert.ok(!everything.includes(secret), `${tool} echoed the secret: ${everything}`);
    assert.ok(!everything.includes('hunter2'), `${tool} echoed part of the secret: ${everything}`);
  }
  // The page itself never received the secret either.
  assert.equal(await evaluate(tw.client, 'document.getElementById("locked").value'), '');
  // Once the page navigates away, the old ref is stale and nothing is typed anywhere.
  const query = refOf(snap, 'textbox', 'Query');
  await call(tw.client, 'navigate', { url: `${tw.origin}/form` });
  const stale = await callRaw(tw.client, 'type', { ref: query, text: secret });
  assert.equal((stale.structuredContent!.error as { type: string }).type, 'stale_ref');
  assert.ok(!JSON.stringify(stale).includes(secret));
  assert.ok(!tw.stderr().includes(secret), 'the server log does not hold the secret either');
});

test('an action whose handler never returns times out, and the tab works again', async () => {
  const { snapshot: snap, tabId } = await tw.open('/hang');
  let err = await callRaw(tw.client, 'click', { ref: refOf(snap, 'button', 'Hang on click'), timeoutMs: 1000 });
  assert.equal((err.structuredContent!.error as { type: string }).type, 'timeout');
  if (TEST_CONNECTION === 'extension') {
    // Chrome refuses Runtime.terminateExecution to an extension (docs/own-browser.md): the error says the page is
    // stuck for good and how to leave it, and the tab closes.
    assert.match((err.structuredContent!.error as { message: string }).message, /could not be stopped: Chrome does not let an extension stop a page's script/);
    await call(tw.client, 'close_tab', { tabId });
    return;
  }
  await call(tw.client, 'click', { ref: refOf(snap, 'button', 'Fine') });
  assert.equal(await evaluate(tw.client, 'window.fine'), 1);

  await call(tw.client, 'click', { ref: refOf(snap, 'textbox', 'Trap') });
  err = await callRaw(tw.client, 'press_key', { key: 'x' });
  assert.equal((err.structuredContent!.error as { type: string }).type, 'timeout');
  await call(tw.client, 'press_key', { key: 'y' });
  assert.match(await evaluate<string>(tw.client, 'document.getElementById("trap").value'), /y$/);
});

/** The text a content-only client (Cursor) gives its model, and the fields, of one call. */
async function act(name: string, args: Record<string, unknown>): Promise<{ text: string; res: ActionResult; raw: RawResult }> {
  const raw = await callRaw(tw.client, name, args);
  assert.ok(!raw.isError, `${name} failed: ${JSON.stringify(raw.content)}`);
  return { text: seenBy('cursor', raw).text, res: raw.structuredContent as unknown as ActionResult, raw };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

test('a click names the element and its row: the wrong row\'s button says which row, and the diff shows the row gone', async () => {
  const { snapshot: snap } = await tw.open('/invoices');
  const second = [...snap.matchAll(/- button "Delete" \[ref=(e\d+)\]/g)].map(m => m[1]!)[1]!;
  const { text, res } = await act('click', { ref: second });
  assert.match(text, new RegExp(`^Clicked button "Delete" \\[ref=${second}\\] in row "Invoice 2024-03 \\| €120"\\.$`, 'm'));
  assert.deepEqual(res.element, { ref: second, role: 'button', name: 'Delete', container: { role: 'row', name: 'Invoice 2024-03 | €120' } });
  assert.match(text, new RegExp(`Removed in table:\\n  - row: Invoice 2024-03 \\| €120\\n    - button "Delete" \\[ref=${second}\\]`));
  assert.equal(res.changes?.removed, 2);
  assert.equal(res.changes?.refsRemoved, 1);
  assert.ok(res.diff && text.includes(res.diff), 'the diff field is what the text says');
  assert.equal(await evaluate(tw.client, 'document.querySelectorAll("#rows tr").length'), 1);
});

test('an element the last whole-page snapshot does not have is named by the page (one evaluation), the same way', async () => {
  const { snapshot: snap } = await tw.open('/invoices');
  // A row added behind the baseline's back, and its ref from a scoped snapshot (which is no baseline).
  await evaluate(tw.client, `document.getElementById('rows').insertAdjacentHTML('beforeend', '<tr><td>Invoice 2024-04</td><td>€95</td><td><button onclick="this.textContent = \\'Archived\\'">Archive</button></td></tr>')`);
  const scoped = await snapshot(tw.client, { selector: '#rows' });
  assert.ok(!snap.includes('Archive'));
  const archive = refOf(scoped.snapshot, 'button', 'Archive');
  const { text, res } = await act('click', { ref: archive });
  assert.match(text, new RegExp(`^Clicked button "Archive" \\[ref=${archive}\\] in row "Invoice 2024-04 \\| €95"\\.$`, 'm'));
  assert.deepEqual(res.element?.container, { role: 'row', name: 'Invoice 2024-04 | €95' });
  // The diff is against the last whole-page snapshot: the row is new to it, with the button's new name.
  assert.match(text, new RegExp(`Added in table:\\n  - row: Invoice 2024-04 \\| €95\\n    - button "Archived" \\[ref=${archive}\\]`));
});

test('a click that reveals content reports it as added, with refs that work', async () => {
  const { snapshot: snap } = await tw.open('/invoices');
  const { text, res } = await act('click', { ref: refOf(snap, 'button', 'Show details') });
  assert.match(text, /^Clicked button "Show details" \[ref=e\d+\]\.$/m);
  const added = /Added in main:\n  - region "Details":\n    Paid on 2024-04-01\.\n    - button "Close details" \[ref=(e\d+)\]/.exec(text);
  assert.ok(added, text);
  assert.deepEqual({ added: res.changes?.added, removed: res.changes?.removed, refsAdded: res.changes?.refsAdded }, { added: 3, removed: 0, refsAdded: 1 });
  // The new ref acts; the next diff is against the snapshot this click took.
  const close = await act('click', { ref: added[1] });
  assert.match(close.text, new RegExp(`^Clicked button "Close details" \\[ref=${added[1]}\\] in region "Details"\\.$`, 'm'));
  assert.match(close.text, /Removed in main:\n  - region "Details":/);
  // Nothing visible changes: the result says so.
  const again = await act('click', { ref: refOf(snap, 'button', 'Find') });
  assert.match(again.text, /^Clicked button "Find" \[ref=e\d+\] in search "Search invoices"\.\nSnapshot unchanged \(\d+ refs\)\.$/);
});

test('typing shows the new value as a changed line; press_key names the focused element and where Tab moved it', async () => {
  const { snapshot: snap } = await tw.open('/invoices');
  const query = refOf(snap, 'textbox', 'Query');
  const typed = await act('type', { ref: query, text: 'April' });
  assert.match(typed.text, new RegExp(`^Typed 5 characters into textbox "Query" \\[ref=${query}\\] in search "Search invoices"\\.$`, 'm'));
  assert.match(typed.text, new RegExp(`Changed in search "Search invoices":\\n  - textbox "Query" \\[ref=${query}\\]: April  \\(was: empty\\)`));
  const tab = await act('press_key', { key: 'Tab' });
  assert.match(tab.text, new RegExp(`^Pressed Tab on textbox "Query" \\[ref=${query}\\] in search "Search invoices"\\.$`, 'm'));
  assert.match(tab.text, new RegExp(`^Focus is now on button "Find" \\[ref=${refOf(snap, 'button', 'Find')}\\] in search "Search invoices"\\.$`, 'm'));
  assert.equal(tab.res.element?.ref, query);
  const filled = await act('fill_form', { fields: [{ ref: query, value: 'May' }] });
  assert.match(filled.text, /^Filled 1 field in search "Search invoices"; each is in the diff below\.$/m);
});

test('a diff waits for the fetch the click started, so the content it brings is in it', async () => {
  const { snapshot: snap } = await tw.open('/invoices');
  const { text } = await act('click', { ref: refOf(snap, 'button', 'Fetch note') });
  assert.match(text, /Added in main:\n  Note from the server$/m);
});

test('a change too big for the diff budget is one line naming the part that changed and the call that reads it', async () => {
  const { snapshot: snap } = await tw.open('/invoices');
  const { text, res } = await act('click', { ref: refOf(snap, 'button', 'Load history') });
  const line = /^The page changed too much for a diff here \(300 added lines; refs: 300 new, 0 gone, \d+ kept\); the change is inside list "History": get_page_context \{ref: "(e\d+)"\} reads that part/m.exec(text);
  assert.ok(line, text);
  assert.ok(text.length < 600, `one line, not the diff (${text.length} characters)`);
  assert.equal(res.changes?.added, 300);
  const part = await snapshot(tw.client, { ref: line[1] });
  assert.match(part.snapshot, /link "History entry number 299 of the invoice log"/);
  assert.ok(!part.snapshot.includes('Invoice 2024-02'), 'the scope is the list, not the page');
});

test('when the diff would be longer than the changed part as it now reads, the part is shown instead, with refs that work', async () => {
  const { snapshot: snap } = await tw.open('/results');
  assert.match(snap, /button "Open result 9"/);
  const { text, res } = await act('click', { ref: refOf(snap, 'button', 'Next results') });
  assert.match(text, /^Since last snapshot, list "Results" changed \(refs: 10 new, 10 gone, \d+ kept\); it now reads:\n- list "Results":\n {2}- listitem:/m);
  assert.ok(!text.includes('Result 9'), 'the old items are not repeated');
  assert.ok(!text.includes('Section link number'), 'the unchanged page around the list is not repeated');
  assert.match(text, /button "Open result 19" \[ref=e\d+\]/);
  assert.equal(res.changes?.refsRemoved, 10);
  // The refs it shows are live, and it is the new baseline: the next action diffs against it.
  const { text: next } = await act('click', { ref: refOf(text, 'button', 'Open result 19') });
  assert.match(next, /^Clicked button "Open result 19" \[ref=e\d+\] in listitem "Result 19"\.\nSnapshot unchanged/m);
});

test('with no whole-page snapshot of the document yet, the action takes one first and reports a diff', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/invoices` });
  const scoped = await snapshot(tw.client, { selector: 'main' });
  const { text } = await act('click', { ref: refOf(scoped.snapshot, 'button', 'Show details') });
  assert.match(text, /Added in main:\n  - region "Details":/);
});

test('on a page over the snapshot budget the action skips the diff and says so in one line', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/large` });
  const page = await snapshot(tw.client);
  assert.match(page.snapshot, /… items 1–50 of 3000 shown/, 'the page is paged');
  const { text, res } = await act('click', { ref: refOf(page.snapshot, 'button', 'Buy 7') });
  assert.match(text, /^Clicked button "Buy 7" \[ref=e\d+\] in row "Row 7 \| Item 49 \| 91\.70 \| green"\.\nNo snapshot diff: the page was over the snapshot budget at its last snapshot; get_page_context reads it in pages\.$/);
  assert.equal(res.changes, undefined);
  assert.equal(await evaluate(tw.client, 'window.clicked'), 7);
});
