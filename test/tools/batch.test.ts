// batch end to end: a chain of steps runs in order and the text carries each step's own text; a failing step stops
// the batch (later steps never run, the page shows it) and the error names the step; chain mode carries the
// revision so a page that reloads under the batch stops it with revision_mismatch; fixed mode asks for a revision
// on each page-changing step before anything runs; bad batches are refused whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { callError, callRaw, evaluate, refOf, snapshot } from '../fixtures/mcp.js';

const tw = useSession({ pages: {
  '/steps': `<!doctype html><title>Steps</title>
<button onclick="window.adds = (window.adds || 0) + 1; document.getElementById('count').textContent = String(window.adds)">Add</button>
<button onclick="document.getElementById('doomed').remove()">Remove it</button>
<button id="doomed">Doomed</button>
<p id="count">0</p>
<input aria-label="Name">
<div style="height: 3000px"></div>
<script>if (location.search === '?moving') document.querySelector('button').addEventListener('click', () => setTimeout(() => { location.href = '/steps?moved'; }, 2500));</script>`,
} });

interface Outcome { step: number; tool: string; status: string; expectRevision?: number; revision?: number; error?: { type: string } }
interface BatchFields { mode: string; done: number; failedStep: number | null; notRun: number; steps: Outcome[]; error?: { type: string; message: string } }

async function batch(args: Record<string, unknown>): Promise<{ isError: boolean; text: string; fields: BatchFields }> {
  const raw = await callRaw(tw.client, 'batch', args);
  return { isError: raw.isError === true, text: raw.content.map(c => c.text).join('\n'), fields: raw.structuredContent as unknown as BatchFields };
}

async function open(): Promise<{ revision: number; snap: string }> {
  await callRaw(tw.client, 'navigate', { url: `${tw.origin}/steps` });
  const snap = await snapshot(tw.client);
  return { revision: snap.revision, snap: snap.snapshot };
}

test('chain: the steps run in order, each guarded by the revision the previous left; the text has every step', async () => {
  const { revision, snap } = await open();
  const add = refOf(snap, 'button', 'Add');
  const name = refOf(snap, 'textbox', 'Name');
  const res = await batch({ mode: 'chain', steps: [
    { tool: 'click', args: { ref: add } },
    { tool: 'type', args: { ref: name, text: 'Ada' } },
    { tool: 'click', args: { ref: add } },
    { tool: 'find', args: { role: 'paragraph' } },
  ] });
  assert.equal(res.isError, false, res.text);
  assert.deepEqual(res.fields.steps.map(s => [s.tool, s.status, s.expectRevision, s.revision]), [
    ['click', 'done', revision, revision], ['type', 'done', revision, revision], ['click', 'done', revision, revision], ['find', 'done', undefined, revision],
  ]);
  assert.deepEqual([res.fields.done, res.fields.failedStep, res.fields.notRun], [4, null, 0]);
  assert.deepEqual(await evaluate(tw.client, '[window.adds, document.querySelector("input").value]'), [2, 'Ada']);
  const sections = res.text.split('\n').filter(l => l.startsWith('── Step'));
  assert.deepEqual(sections, [
    `── Step 1: click (expectRevision ${revision}) — done`, `── Step 2: type (expectRevision ${revision}) — done`,
    `── Step 3: click (expectRevision ${revision}) — done`, '── Step 4: find — done',
  ]);
  assert.match(res.text, /element.* match/, 'the find step\'s own text is in the batch\'s');
  assert.equal(res.text.split('\n').at(-1), 'Batch (chain): all 4 steps done.');
});

test('the first failure stops the batch: later steps never run, and the error names the step', async () => {
  const { snap } = await open();
  const add = refOf(snap, 'button', 'Add');
  const res = await batch({ mode: 'chain', steps: [
    { tool: 'click', args: { ref: refOf(snap, 'button', 'Remove it') } },
    { tool: 'click', args: { ref: refOf(snap, 'button', 'Doomed') } },
    { tool: 'click', args: { ref: add } },
  ] });
  assert.equal(res.isError, true);
  assert.equal(res.fields.error?.type, 'stale_ref');
  assert.match(res.fields.error!.message, /^Step 2 \(click\) of the batch: /);
  assert.deepEqual(res.fields.steps.map(s => s.status), ['done', 'failed', 'not_run']);
  assert.deepEqual([res.fields.done, res.fields.failedStep, res.fields.notRun], [1, 2, 1]);
  assert.equal(res.fields.steps[1].error?.type, 'stale_ref');
  // What the model reads: the done step's text, the failed step's error, a summary, then the batch's error.
  assert.match(res.text, /── Step 1: click .* — done\n/);
  assert.match(res.text, /── Step 2: click .* — failed\nError \[stale_ref\]/);
  assert.match(res.text, /Batch \(chain\) stopped at step 2 \(click\): 1 done, 1 failed, 1 not run\.\nError \[stale_ref\]: Step 2 \(click\) of the batch: /);
  assert.equal(await evaluate(tw.client, 'window.adds ?? 0'), 0, 'step 3 never ran');
});

test('chain: a page that navigates under the batch stops it with revision_mismatch before the next action', async () => {
  // This page leaves 2.5 s after Add is clicked, long after the click's report: the chain still expects the old
  // revision, and wait_for (a read) carries nothing forward.
  await callRaw(tw.client, 'navigate', { url: `${tw.origin}/steps?moving` });
  const { revision, snapshot: snap } = await snapshot(tw.client);
  const res = await batch({ mode: 'chain', steps: [
    { tool: 'click', args: { ref: refOf(snap, 'button', 'Add') } },
    { tool: 'find', args: { role: 'button' } },
    { tool: 'wait_for', args: { url: '**/steps?moved' } },
    { tool: 'press_key', args: { key: 'x' } },
    { tool: 'click', args: { ref: refOf(snap, 'button', 'Add') } },
  ] });
  assert.equal(res.isError, true, res.text);
  assert.equal(res.fields.error?.type, 'revision_mismatch');
  assert.deepEqual(res.fields.steps.map(s => s.status), ['done', 'done', 'done', 'failed', 'not_run']);
  assert.deepEqual(res.fields.steps.map(s => s.expectRevision), [revision, undefined, undefined, revision, undefined]);
  assert.match(res.text, new RegExp(`Step 4 \\(press_key\\) of the batch: Expected revision ${revision}, but tab \\d+ is at revision ${revision + 1}; nothing was done\\.`));
});

test('fixed: every page-changing step needs its own expectRevision, checked before any step runs', async () => {
  const { revision, snap } = await open();
  const add = refOf(snap, 'button', 'Add');
  const missing = await callError(tw.client, 'batch', { mode: 'fixed', steps: [
    { tool: 'click', args: { ref: add, expectRevision: revision } },
    { tool: 'find', args: { role: 'button' } },
    { tool: 'click', args: { ref: add } },
  ] });
  assert.equal(missing.type, 'invalid_arguments');
  assert.match(missing.message, /^Step 3 \(click\) changes the page and has no expectRevision; .*No step ran\.$/);
  assert.equal(await evaluate(tw.client, 'window.adds ?? 0'), 0);
  const res = await batch({ mode: 'fixed', steps: [
    { tool: 'click', args: { ref: add, expectRevision: revision } },
    { tool: 'click', args: { ref: add, expectRevision: revision } },
  ] });
  assert.equal(res.isError, false, res.text);
  assert.equal(await evaluate(tw.client, 'window.adds'), 2);
  // A wrong revision in fixed mode: the step fails and the batch stops there.
  const wrong = await batch({ mode: 'fixed', steps: [{ tool: 'click', args: { ref: add, expectRevision: revision + 5 } }] });
  assert.equal(wrong.fields.error?.type, 'revision_mismatch');
  assert.equal(await evaluate(tw.client, 'window.adds'), 2);
});

test('bad batches are refused whole with invalid_arguments naming the step', async () => {
  const { snap } = await open();
  const add = refOf(snap, 'button', 'Add');
  const cases: Array<[unknown[], RegExp]> = [
    [[{ tool: 'click', args: { ref: add } }, { tool: 'no_such_tool' }], /^Step 2: there is no tool named "no_such_tool"; no step ran\.$/],
    [[{ tool: 'batch', args: { mode: 'chain', steps: [] } }], /^Step 1: batch cannot run inside a batch; no step ran\.$/],
    [[{ tool: 'share_tabs', args: {} }], /^Step 1: share_tabs cannot run inside a batch; no step ran\.$/],
    [[{ tool: 'click', args: { ref: add } }, { tool: 'type', args: { ref: add } }], /^Step 2 \(type\): text: .*; no step ran\.$/],
    [Array.from({ length: 17 }, () => ({ tool: 'click', args: { ref: add } })), /steps/],
    [[], /steps/],
  ];
  for (const [steps, message] of cases) {
    const error = await callError(tw.client, 'batch', { mode: 'chain', steps });
    assert.equal(error.type, 'invalid_arguments', JSON.stringify(steps).slice(0, 80));
    assert.match(error.message, message);
  }
  assert.equal((await callError(tw.client, 'batch', { mode: 'loose', steps: [{ tool: 'click', args: { ref: add } }] })).type, 'invalid_arguments');
  assert.equal(await evaluate(tw.client, 'window.adds ?? 0'), 0, 'no step of a refused batch ran');
});
