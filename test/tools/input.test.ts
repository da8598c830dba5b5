// Element and keyboard tools end to end: click, type, fill_form,
// select_option, press_key, hover, scroll; what each reports (navigation,
// dialogs, console errors, snapshot), stale refs, scoped refs, elements that
// cannot be acted on, and that typed text never shows up in an error.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, connect, type Connected } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { callRaw, evaluate, refOf, snapshot } from './helpers.js';

interface ActionResult {
  tabId: number;
  revision: number;
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

let site: Site;
let server: Connected;
let searches: string[] = [];

before(async () => {
  site = await startSite();
  site.page('/clicks', CLICKS_PAGE);
  site.page('/effects', EFFECTS_PAGE);
  site.page('/effects-next', '<title>Next</title><p>next</p>');
  site.page('/form', FORM_PAGE);
  site.route('/search', (req, res) => {
    searches.push(req.url!);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<title>Results</title><p>results</p>');
  });
  site.page('/covered', COVERED_PAGE);
  site.page('/tall', TALL_PAGE);
  site.page('/counter-1', COUNTER_PAGE('First'));
  site.page('/counter-2', COUNTER_PAGE('Second'));
  site.page('/scoped', SCOPED_PAGE);
  site.page('/hang', HANG_PAGE);
  server = await connect();
});
after(async () => {
  await server?.close();
  await site?.close();
});

async function open(path: string): Promise<{ snap: string; revision: number; tabId: number }> {
  await call(server.client, 'navigate', { url: `${site.origin}${path}` });
  const ctx = await snapshot(server.client);
  return { snap: ctx.snapshot, revision: ctx.revision, tabId: ctx.tabId };
}

async function events(): Promise<Array<{ type: string; button: number; shift: boolean; ctrl: boolean; alt: boolean }>> {
  return await evaluate(server.client, 'window.events.splice(0)');
}

test('click: single, double, right button and modifiers reach the page', async () => {
  const { snap, revision } = await open('/clicks');
  const ref = refOf(snap, 'button', 'Target');

  const res = await call<ActionResult>(server.client, 'click', { ref });
  assert.equal(res.revision, revision);
  assert.equal(res.navigation, undefined);
  assert.equal(res.dialog, undefined);
  assert.equal(res.consoleErrors, undefined);
  assert.equal(res.snapshot, undefined);
  assert.deepEqual(await events(), [{ type: 'click', button: 0, shift: false, ctrl: false, alt: false }]);

  await call(server.client, 'click', { ref, doubleClick: true });
  const dbl = await events();
  assert.deepEqual(dbl.map(e => e.type), ['click', 'click', 'dblclick']);

  await call(server.client, 'click', { ref, button: 'right' });
  const right = await events();
  assert.deepEqual(right.find(e => e.type === 'contextmenu')?.button, 2);
  assert.ok(!right.some(e => e.type === 'click'), 'a right click is not a click');

  await call(server.client, 'click', { ref, modifiers: ['Shift', 'Alt'] });
  assert.deepEqual(await events(), [{ type: 'click', button: 0, shift: true, ctrl: false, alt: true }]);

  await call(server.client, 'click', { ref, modifiers: ['Control'] });
  assert.deepEqual((await events()).find(e => e.type === 'click')?.ctrl, true);
});

test('type replaces the value; submit presses Enter and reports the navigation', async () => {
  const { snap, revision } = await open('/form');
  const comment = refOf(snap, 'textbox', 'Comment');
  await call(server.client, 'type', { ref: comment, text: 'first' });
  const typed = await call<ActionResult>(server.client, 'type', { ref: comment, text: 'second line' });
  assert.equal(typed.navigation, undefined);
  assert.equal(await evaluate(server.client, 'document.getElementById("comment").value'), 'second line');

  searches = [];
  const query = refOf(snap, 'textbox', 'Query');
  const res = await call<ActionResult>(server.client, 'type', { ref: query, text: 'blue shoes', submit: true });
  assert.ok(res.navigation, 'the submit navigated');
  assert.equal(res.navigation.url, `${site.origin}/search?q=blue+shoes`);
  assert.equal(res.navigation.revision, revision + 1);
  assert.equal(res.navigation.sameDocument, false);
  assert.equal(res.revision, revision + 1);
  assert.deepEqual(searches, ['/search?q=blue+shoes']);
});

test('fill_form fills text, checkbox and select in one call', async () => {
  const { snap } = await open('/form');
  const res = await call<ActionResult>(server.client, 'fill_form', {
    fields: [
      { ref: refOf(snap, 'textbox', 'Comment'), value: 'hello form' },
      { ref: refOf(snap, 'checkbox', 'I agree'), value: true },
      { ref: refOf(snap, 'combobox', 'Colour'), value: 'Blue' },
      { ref: refOf(snap, 'listbox', 'Toppings'), value: ['ch', 'mu'] },
    ],
  });
  assert.equal(res.filled, 4);
  const state = await evaluate(server.client, `({
    comment: document.getElementById('comment').value,
    agree: document.getElementById('agree').checked,
    colour: document.getElementById('colour').value,
    toppings: [...document.getElementById('toppings').selectedOptions].map(o => o.value),
  })`);
  assert.deepEqual(state, { comment: 'hello form', agree: true, colour: 'b', toppings: ['ch', 'mu'] });

  await call(server.client, 'fill_form', { fields: [{ ref: refOf(snap, 'checkbox', 'I agree'), value: false }] });
  assert.equal(await evaluate(server.client, 'document.getElementById("agree").checked'), false);

  // A checkbox takes true/false, not text.
  const bad = await callRaw(server.client, 'fill_form', { fields: [{ ref: refOf(snap, 'checkbox', 'I agree'), value: 'maybe' }] });
  assert.equal(bad.isError, true);
  assert.equal((bad.structuredContent!.error as { type: string }).type, 'invalid_arguments');
});

test('select_option by value and by label; returns the selected values', async () => {
  const { snap } = await open('/form');
  const colour = refOf(snap, 'combobox', 'Colour');
  const byValue = await call<ActionResult>(server.client, 'select_option', { ref: colour, values: ['g'] });
  assert.deepEqual(byValue.selected, ['g']);
  assert.equal(await evaluate(server.client, 'document.getElementById("colour").value'), 'g');
  const byLabel = await call<ActionResult>(server.client, 'select_option', { ref: colour, values: ['Red'] });
  assert.deepEqual(byLabel.selected, ['r']);
  const multi = await call<ActionResult>(server.client, 'select_option', { ref: refOf(snap, 'listbox', 'Toppings'), values: ['Olives', 'mu'] });
  assert.deepEqual(multi.selected, ['ol', 'mu']);

  const missing = await callRaw(server.client, 'select_option', { ref: colour, values: ['Purple'], timeoutMs: 1000 });
  assert.equal(missing.isError, true);
  assert.equal((missing.structuredContent!.error as { type: string }).type, 'element_not_actionable');
});

test('press_key sends keys and chords to the focused element', async () => {
  const { snap } = await open('/form');
  await call(server.client, 'click', { ref: refOf(snap, 'textbox', 'Keys') });
  await call(server.client, 'press_key', { key: 'x' });
  await call(server.client, 'press_key', { key: 'Control+a' });
  await call(server.client, 'press_key', { key: 'Escape' });
  assert.deepEqual(await evaluate(server.client, 'window.keys'), ['x', 'Control+ctrl', 'a+ctrl', 'Escape']);
  assert.equal(await evaluate(server.client, 'document.getElementById("keys").value'), 'x');

  const bad = await callRaw(server.client, 'press_key', { key: 'NoSuchKey' });
  assert.equal((bad.structuredContent!.error as { type: string }).type, 'invalid_arguments');
});

test('hover triggers mouseenter and :hover', async () => {
  const { snap } = await open('/effects');
  await call(server.client, 'hover', { ref: refOf(snap, 'button', 'Hover box') });
  assert.equal(await evaluate(server.client, 'document.getElementById("hover-out").textContent'), 'hovered');
  assert.equal(await evaluate(server.client, 'document.querySelector("#hover-box:hover") !== null'), true);
  assert.equal(await evaluate(server.client, 'getComputedStyle(document.getElementById("hover-box")).backgroundColor'), 'rgb(0, 128, 0)');
});

test('scroll: by pixels, the default step, a ref into view, inside an element', async () => {
  const { snap } = await open('/tall');
  const by = await call<ActionResult>(server.client, 'scroll', { dy: 500 });
  assert.equal(by.scroll!.y, 500);
  assert.equal(await evaluate(server.client, 'window.scrollY'), 500);

  const step = await call<ActionResult>(server.client, 'scroll');
  assert.equal(step.scroll!.y, 1100);
  const up = await call<ActionResult>(server.client, 'scroll', { dy: -1100 });
  assert.equal(up.scroll!.y, 0);

  const intoView = await call<ActionResult>(server.client, 'scroll', { ref: refOf(snap, 'button', 'Bottom button') });
  assert.ok(intoView.scroll!.y > 4000, `scrolled to ${intoView.scroll!.y}`);
  const visible = await evaluate<boolean>(server.client, `(() => {
    const r = document.getElementById('bottom').getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight;
  })()`);
  assert.equal(visible, true);

  await call(server.client, 'execute', { code: 'document.getElementById("box").setAttribute("aria-label", "Box"); document.getElementById("box").tabIndex = 0' });
  const box = refOf((await snapshot(server.client)).snapshot, 'generic', 'Box');
  await call(server.client, 'scroll', { ref: box, dy: 300 });
  assert.equal(await evaluate(server.client, 'document.getElementById("box").scrollTop'), 300);
});

test('an alert opened by a click is reported and does not hang the call', async () => {
  const { snap } = await open('/effects');
  const res = await call<ActionResult>(server.client, 'click', { ref: refOf(snap, 'button', 'Alert me') });
  assert.deepEqual(res.dialog, { type: 'alert', message: 'Saved!' });
  await call(server.client, 'handle_dialog', { accept: true });
  const confirm = await call<ActionResult>(server.client, 'click', { ref: refOf(snap, 'button', 'Confirm me') });
  assert.deepEqual(confirm.dialog, { type: 'confirm', message: 'Really?' });
  await call(server.client, 'handle_dialog', { accept: false });
  assert.equal(await evaluate(server.client, 'window.confirmed'), false);
  // A dialog is reported by the call that opened it (test/tools/dialogs.test.ts has the rest).
  const quiet = await call<ActionResult>(server.client, 'click', { ref: refOf(snap, 'button', 'Quiet') });
  assert.equal(quiet.dialog, undefined);
});

test('new console errors and uncaught exceptions are reported by the action', async () => {
  const { snap } = await open('/effects');
  const res = await call<ActionResult>(server.client, 'click', { ref: refOf(snap, 'button', 'Log error') });
  assert.deepEqual(res.consoleErrors?.map(e => e.text), ['the widget broke']);
  const thrown = await call<ActionResult>(server.client, 'click', { ref: refOf(snap, 'button', 'Throw') });
  assert.equal(thrown.consoleErrors?.length, 1);
  assert.match(thrown.consoleErrors![0]!.text, /handler exploded/);
  const quiet = await call<ActionResult>(server.client, 'click', { ref: refOf(snap, 'button', 'Quiet') });
  assert.equal(quiet.consoleErrors, undefined);
});

test('a click that navigates reports it; a hash link is a same-document change', async () => {
  const { snap, revision } = await open('/effects');
  const hash = await call<ActionResult>(server.client, 'click', { ref: refOf(snap, 'link', 'Anchor') });
  assert.deepEqual(hash.navigation && { url: hash.navigation.url, revision: hash.navigation.revision, sameDocument: hash.navigation.sameDocument },
    { url: `${site.origin}/effects#anchor`, revision, sameDocument: true });

  const popup = await call<ActionResult>(server.client, 'click', { ref: refOf(snap, 'link', 'Popup') });
  assert.equal(popup.newTabs?.length, 1);
  assert.equal(popup.newTabs![0]!.openerTabId, popup.tabId);
  await call(server.client, 'close_tab', { tabId: popup.newTabs![0]!.tabId });

  const nav = await call<ActionResult>(server.client, 'click', { ref: refOf(snap, 'link', 'Next page') });
  assert.equal(nav.navigation?.url, `${site.origin}/effects-next`);
  assert.equal(nav.navigation?.revision, revision + 1);
  assert.equal(nav.navigation?.sameDocument, false);
  assert.equal(nav.revision, revision + 1);
});

test('snapshot: true returns a fresh snapshot after the action', async () => {
  const { snap } = await open('/effects');
  const res = await call<ActionResult>(server.client, 'click', { ref: refOf(snap, 'link', 'Next page'), snapshot: true });
  assert.ok(res.snapshot);
  assert.match(res.snapshot, /next/);
  assert.ok(!res.snapshot.includes('Alert me'), 'the snapshot is of the new page');
  const typed = await call<ActionResult>(server.client, 'scroll', { dy: 10, snapshot: true });
  assert.ok(typed.snapshot);
});

test('a ref from an older revision is stale_ref and never acts on the new page', async () => {
  const first = await open('/counter-1');
  const oldRef = refOf(first.snap, 'button', 'Increment');
  await call(server.client, 'navigate', { url: `${site.origin}/counter-2` });

  let err = await callRaw(server.client, 'click', { ref: oldRef });
  assert.equal((err.structuredContent!.error as { type: string }).type, 'stale_ref');
  assert.equal(await evaluate(server.client, 'window.count ?? 0'), 0);

  // Also once the new document has been snapshotted (its own refs exist).
  const second = await snapshot(server.client);
  assert.equal(second.revision, first.revision + 1);
  const newRef = refOf(second.snapshot, 'button', 'Increment');
  assert.notEqual(newRef, oldRef);
  for (const tool of ['click', 'hover'] as const) {
    err = await callRaw(server.client, tool, { ref: oldRef });
    assert.equal((err.structuredContent!.error as { type: string; hint: string }).type, 'stale_ref', tool);
    assert.match((err.structuredContent!.error as { hint: string }).hint, /get_page_context/);
  }
  err = await callRaw(server.client, 'type', { ref: oldRef, text: 'x' });
  assert.equal((err.structuredContent!.error as { type: string }).type, 'stale_ref');
  assert.equal(await evaluate(server.client, 'window.count ?? 0'), 0);

  // The new ref works.
  await call(server.client, 'click', { ref: newRef });
  assert.equal(await evaluate(server.client, 'window.count'), 1);

  // Reloading the same URL replaces the document too.
  await call(server.client, 'reload_tab');
  err = await callRaw(server.client, 'click', { ref: newRef });
  assert.equal((err.structuredContent!.error as { type: string }).type, 'stale_ref');
  assert.equal(await evaluate(server.client, 'window.count ?? 0'), 0);
});

test('a ref from a selector-scoped snapshot works, and so does a ref outside the scope', async () => {
  const { snap } = await open('/scoped');
  const mainRef = refOf(snap, 'button', 'Main button');
  const scoped = await snapshot(server.client, { selector: '#side' });
  const sideRef = refOf(scoped.snapshot, 'button', 'Side button');
  await call(server.client, 'click', { ref: sideRef });
  await call(server.client, 'click', { ref: mainRef });
  await call(server.client, 'click', { ref: sideRef });
  assert.deepEqual(await evaluate(server.client, '[window.mainClicks, window.sideClicks]'), [1, 2]);
});

test('a disabled or covered element is element_not_actionable', async () => {
  let { snap } = await open('/form');
  let err = await callRaw(server.client, 'click', { ref: refOf(snap, 'button', 'Disabled button'), timeoutMs: 1000 });
  assert.equal((err.structuredContent!.error as { type: string }).type, 'element_not_actionable');

  ({ snap } = await open('/covered'));
  err = await callRaw(server.client, 'click', { ref: refOf(snap, 'button', 'Covered button'), timeoutMs: 1000 });
  assert.equal((err.structuredContent!.error as { type: string }).type, 'element_not_actionable');
  assert.equal(await evaluate(server.client, 'window.hit ?? false'), false);
});

test('typed text never appears in an error', async () => {
  const secret = 'hunter2-Tr0ub4dor&3';
  const { snap } = await open('/form');
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
    const res = await callRaw(server.client, tool, args);
    assert.equal(res.isError, true, `${tool} ${JSON.stringify(args)} should fail`);
    const everything = JSON.stringify(res);
    assert.ok(!everything.includes(secret), `${tool} echoed the secret: ${everything}`);
    assert.ok(!everything.includes('hunter2'), `${tool} echoed part of the secret: ${everything}`);
  }
  // The page itself never received the secret either.
  assert.equal(await evaluate(server.client, 'document.getElementById("locked").value'), '');
  // Once the page navigates away, the old ref is stale and nothing is typed anywhere.
  const query = refOf(snap, 'textbox', 'Query');
  await call(server.client, 'navigate', { url: `${site.origin}/form` });
  const stale = await callRaw(server.client, 'type', { ref: query, text: secret });
  assert.equal((stale.structuredContent!.error as { type: string }).type, 'stale_ref');
  assert.ok(!JSON.stringify(stale).includes(secret));
  assert.ok(!server.stderr().includes(secret), 'the server log does not hold the secret either');
});

test('an action whose handler never returns times out, and the tab works again', async () => {
  const { snap } = await open('/hang');
  let err = await callRaw(server.client, 'click', { ref: refOf(snap, 'button', 'Hang on click'), timeoutMs: 1000 });
  assert.equal((err.structuredContent!.error as { type: string }).type, 'timeout');
  await call(server.client, 'click', { ref: refOf(snap, 'button', 'Fine') });
  assert.equal(await evaluate(server.client, 'window.fine'), 1);

  await call(server.client, 'click', { ref: refOf(snap, 'textbox', 'Trap') });
  err = await callRaw(server.client, 'press_key', { key: 'x' });
  assert.equal((err.structuredContent!.error as { type: string }).type, 'timeout');
  await call(server.client, 'press_key', { key: 'y' });
  assert.match(await evaluate<string>(server.client, 'document.getElementById("trap").value'), /y$/);
});
