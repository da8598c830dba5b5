// drag {fromRef, toRef} end to end: real mouse input moves a card
// built on pointer events (with intermediate moves, all trusted) and an
// HTML5 draggable (Chromium runs dragstart / drop / dragend from the real
// moves); a covered source fails with element_not_actionable. The result
// names both elements and shows the dragged node where it went.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, evaluate, refOf } from '../fixtures/mcp.js';
import { seenBy } from '../fixtures/clientLens.js';

// A card dragged with pointer events: it follows the pointer after 5 px of
// travel (as drag libraries do) and lands in the lane under the release
// point. The lanes have no ref: the drop target is a card inside the lane.
const POINTER_PAGE = `<!doctype html><title>Board</title>
<style>.lane { display:inline-block; vertical-align:top; width:200px; height:200px; margin:20px; border:1px solid #888 } #card { width:120px; height:40px; background:#fc6; touch-action:none }</style>
<section class="lane" id="todo" aria-label="To do"><div id="card" role="button" aria-label="Card 1">Card 1</div></section>
<section class="lane" id="done" aria-label="Done"><div id="card2" role="button" aria-label="Card 2">Card 2</div></section>
<script>
  window.log = { moves: 0, untrusted: 0, started: false, droppedIn: null };
  const card = document.getElementById('card');
  document.getElementById('card2').style.cssText = 'width:120px; height:40px; background:#6cf';
  let start = null;
  card.addEventListener('pointerdown', e => { start = { x: e.clientX, y: e.clientY }; if (!e.isTrusted) log.untrusted++; });
  document.addEventListener('pointermove', e => {
    if (!start) return;
    log.moves++;
    if (!e.isTrusted) log.untrusted++;
    if (Math.hypot(e.clientX - start.x, e.clientY - start.y) > 5) log.started = true;
    if (log.started) card.style.transform = 'translate(' + (e.clientX - start.x) + 'px,' + (e.clientY - start.y) + 'px)';
  });
  document.addEventListener('pointerup', e => {
    if (!start) return;
    if (!e.isTrusted) log.untrusted++;
    start = null;
    card.style.transform = '';
    if (!log.started) return;
    const lane = [...document.querySelectorAll('.lane')].find(l => { const r = l.getBoundingClientRect(); return e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom; });
    if (lane) { lane.append(card); log.droppedIn = lane.id; }
  });
</script>`;

// HTML5 drag and drop: draggable items (they get refs for being
// draggable), a focusable drop zone that reads dataTransfer.
const HTML5_PAGE = `<!doctype html><title>Sort</title>
<ul id="source"><li id="apple" draggable="true" aria-label="Apple">Apple</li><li id="pear" draggable="true" aria-label="Pear">Pear</li></ul>
<div id="basket" tabindex="0" role="region" aria-label="Basket" style="width:200px; height:120px; border:1px dashed #444"></div>
<div id="lid" style="position:absolute; top:0; left:0; right:0; height:60px; background:white; display:none">Lid</div>
<script>
  window.events = [];
  for (const li of document.querySelectorAll('li')) {
    li.addEventListener('dragstart', e => { e.dataTransfer.setData('text/plain', li.id); e.dataTransfer.effectAllowed = 'move'; events.push('dragstart:' + li.id); });
    li.addEventListener('dragend', e => events.push('dragend:' + e.dataTransfer.dropEffect));
  }
  const basket = document.getElementById('basket');
  basket.addEventListener('dragover', e => { e.preventDefault(); e.dataTransfer.dropEffect = 'move'; });
  basket.addEventListener('drop', e => {
    e.preventDefault();
    const id = e.dataTransfer.getData('text/plain');
    events.push('drop:' + id + ':' + e.isTrusted);
    basket.append(document.getElementById(id));
  });
</script>`;

const tw = useSession({ pages: { '/board': POINTER_PAGE, '/sort': HTML5_PAGE } });

test('drag moves a pointer-events card with intermediate trusted moves', async () => {
  const { snapshot: snap } = await tw.open('/board');
  const res = await call<{ revision: number; navigation?: unknown }>(tw.client, 'drag', { fromRef: refOf(snap, 'button', 'Card 1'), toRef: refOf(snap, 'button', 'Card 2') });
  assert.equal(res.navigation, undefined);
  assert.deepEqual(await evaluate(tw.client, 'window.log'), { moves: 10, untrusted: 0, started: true, droppedIn: 'done' });
  assert.deepEqual(await evaluate(tw.client, '[...document.getElementById("done").children].map(c => c.id)'), ['card2', 'card']);
});

test('drag runs HTML5 drag and drop; the result names both elements and shows the item moved', async () => {
  const { snapshot: snap } = await tw.open('/sort');
  const pear = refOf(snap, 'listitem', 'Pear');
  const basket = refOf(snap, 'region', 'Basket');
  const raw = await callRaw(tw.client, 'drag', { fromRef: pear, toRef: basket });
  const text = seenBy('cursor', raw).text;
  assert.match(text, new RegExp(`^Dragged listitem "Pear" \\[ref=${pear}\\] onto region "Basket" \\[ref=${basket}\\]\\.$`, 'm'));
  assert.match(text, new RegExp(`^Moved in region "Basket" \\[ref=${basket}\\]:\\n  - listitem "Pear" \\[ref=${pear}\\]:  \\(was in list\\)\\n    Pear$`, 'm'));
  const res = raw.structuredContent as { element?: { ref: string; name?: string }; dropTarget?: { ref: string; role?: string } };
  assert.deepEqual([res.element?.ref, res.element?.name, res.dropTarget?.ref, res.dropTarget?.role], [pear, 'Pear', basket, 'region']);
  assert.deepEqual(await evaluate(tw.client, 'window.events'), ['dragstart:pear', 'drop:pear:true', 'dragend:move']);
  assert.deepEqual(await evaluate(tw.client, '[...document.getElementById("basket").children].map(c => c.id)'), ['pear']);
  assert.deepEqual(await evaluate(tw.client, '[...document.getElementById("source").children].map(c => c.id)'), ['apple']);
});

test('drag from a covered element fails and moves nothing', async () => {
  const { snapshot: snap } = await tw.open('/sort');
  await evaluate(tw.client, 'document.getElementById("lid").style.display = "block"');
  const apple = refOf(snap, 'listitem', 'Apple');
  const err = await callError(tw.client, 'drag', { fromRef: apple, toRef: refOf(snap, 'region', 'Basket') });
  assert.equal(err.type, 'element_not_actionable');
  assert.equal(err.message, `Could not drag ${apple}: it is covered by <div id="lid"> containing "Lid", which would receive the pointer events.`);
  assert.deepEqual(await evaluate(tw.client, 'window.events'), []);
});
