// Covered elements end to end: a click or hover on a covered
// target fails fast with element_not_actionable naming the cover (tag, id,
// role, accessible name, or text); nothing reaches the target; closing the
// cover or force: true gets the click through; a pointer-events: none
// decoration, a label's styled box and a shadow-DOM button are not covers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError, evaluate, refOf } from '../fixtures/mcp.js';

// A cookie wall over the whole page; its Accept button removes it.
const WALL_PAGE = `<!doctype html><title>Wall</title>
<button id="buy" style="position:absolute; top:200px; left:40px">Buy now</button>
<div id="cookie-wall" role="dialog" aria-label="Cookie consent" style="position:fixed; inset:0; background:rgba(0,0,0,0.4)">
  <button style="position:absolute; top:10px; right:10px" onclick="document.getElementById('cookie-wall').remove()">Accept cookies</button>
</div>
<script>
  window.clicks = [];
  document.getElementById('buy').addEventListener('click', e => clicks.push({ trusted: e.isTrusted, detail: e.detail }));
  document.getElementById('buy').addEventListener('mouseenter', e => clicks.push({ hover: true }));
</script>`;

// A spinner with neither id, role nor name: it is named by its text.
const SPINNER_PAGE = `<!doctype html><title>Spinner</title>
<button id="save" style="position:absolute; top:100px; left:40px">Save</button>
<div style="position:fixed; top:50px; left:0; width:400px; height:200px; background:white"><span>Loading…</span></div>
<script>window.saves = 0; document.getElementById('save').onclick = () => saves++;</script>`;

// Decorations that must not count as covers.
const DECOR_PAGE = `<!doctype html><title>Decor</title>
<button id="go" style="position:absolute; top:100px; left:40px">Go</button>
<div id="glow" style="position:fixed; inset:0; pointer-events:none; background:rgba(255,0,0,0.2)"></div>
<label id="terms-label" style="position:absolute; top:200px; left:40px; display:inline-block">
  <input type="checkbox" id="terms" style="position:absolute; opacity:0; width:20px; height:20px; margin:0">
  <span style="display:inline-block; width:20px; height:20px; border:1px solid black"></span> Accept terms
</label>
<div id="host" style="position:absolute; top:300px; left:40px"></div>
<script>
  window.log = [];
  document.getElementById('go').addEventListener('click', e => log.push('go:' + e.isTrusted));
  const root = document.getElementById('host').attachShadow({ mode: 'open' });
  root.innerHTML = '<button>Shadow button</button>';
  root.querySelector('button').addEventListener('click', e => log.push('shadow:' + e.isTrusted));
</script>`;

const tw = useSession({ pages: { '/wall': WALL_PAGE, '/spinner': SPINNER_PAGE, '/decor': DECOR_PAGE } });

test('a covered click fails fast, names the cover, and reaches nothing', async () => {
  const { snapshot: snap } = await tw.open('/wall');
  const buy = refOf(snap, 'button', 'Buy now');
  const started = Date.now();
  // A 60 s limit: Playwright alone would retry for all of it; the hit test answers at once.
  const err = await callError(tw.client, 'click', { ref: buy, timeoutMs: 60_000 });
  const elapsed = Date.now() - started;
  assert.equal(err.type, 'element_not_actionable');
  assert.equal(err.message, `Could not click ${buy}: it is covered by <div id="cookie-wall"> dialog "Cookie consent", which would receive the pointer events.`);
  assert.equal(err.hint, `Close or dismiss the covering element first (find its button in a fresh snapshot), or pass force: true to dispatch the click to ${buy} itself.`);
  assert.ok(elapsed < 15_000, `took ${elapsed} ms`);
  assert.deepEqual(await evaluate(tw.client, 'window.clicks'), []);

  // Hover is checked the same way (no force for hover).
  const hover = await callError(tw.client, 'hover', { ref: buy });
  assert.equal(hover.type, 'element_not_actionable');
  assert.equal(hover.message, `Could not hover ${buy}: it is covered by <div id="cookie-wall"> dialog "Cookie consent", which would receive the pointer events.`);
  assert.equal(hover.hint, 'Close or dismiss the covering element first (find its button in a fresh snapshot).');
  assert.deepEqual(await evaluate(tw.client, 'window.clicks'), []);
});

test('closing the cover lets a real click through', async () => {
  const { snapshot: snap } = await tw.open('/wall');
  await call(tw.client, 'click', { ref: refOf(snap, 'button', 'Accept cookies') });
  assert.equal(await evaluate(tw.client, 'document.getElementById("cookie-wall")'), null);
  await call(tw.client, 'click', { ref: refOf(snap, 'button', 'Buy now') });
  assert.deepEqual(await evaluate(tw.client, 'window.clicks'), [{ hover: true }, { trusted: true, detail: 1 }]);
});

test('force: true dispatches the click to the covered element itself', async () => {
  const { snapshot: snap } = await tw.open('/wall');
  const res = await call<{ revision: number }>(tw.client, 'click', { ref: refOf(snap, 'button', 'Buy now'), force: true });
  assert.equal(typeof res.revision, 'number');
  assert.deepEqual(await evaluate(tw.client, 'window.clicks'), [{ trusted: false, detail: 1 }]);
  // The cover is still there: force went around it, it did not remove it.
  assert.equal(await evaluate(tw.client, 'document.getElementById("cookie-wall") !== null'), true);
  await call(tw.client, 'click', { ref: refOf(snap, 'button', 'Buy now'), force: true, doubleClick: true });
  assert.deepEqual(await evaluate(tw.client, 'window.clicks.slice(1)'), [{ trusted: false, detail: 1 }, { trusted: false, detail: 2 }]);
});

test('a cover without id or name is named by its text', async () => {
  const { snapshot: snap } = await tw.open('/spinner');
  const save = refOf(snap, 'button', 'Save');
  const err = await callError(tw.client, 'click', { ref: save });
  assert.equal(err.type, 'element_not_actionable');
  assert.equal(err.message, `Could not click ${save}: it is covered by <div> containing "Loading…", which would receive the pointer events.`);
  assert.equal(await evaluate(tw.client, 'window.saves'), 0);
});

test('pointer-events: none decorations, a label\'s box and shadow DOM are not covers', async () => {
  const { snapshot: snap } = await tw.open('/decor');
  await call(tw.client, 'click', { ref: refOf(snap, 'button', 'Go') });
  await call(tw.client, 'click', { ref: refOf(snap, 'checkbox', 'Accept terms') });
  await call(tw.client, 'click', { ref: refOf(snap, 'button', 'Shadow button') });
  assert.deepEqual(await evaluate(tw.client, 'window.log'), ['go:true', 'shadow:true']);
  assert.equal(await evaluate(tw.client, 'document.getElementById("terms").checked'), true);
});
