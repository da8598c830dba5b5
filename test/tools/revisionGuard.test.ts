// Revision guards end to end (which tools take expectRevision: test/mcp/protocol.test.ts): a call whose tab shows another document is revision_mismatch before anything is dispatched (the page never sees
// the key, the click, the navigation), with the expected and actual revisions; a ref of a replaced document with a
// revision expected is revision_mismatch too; a same-document change (pushState) keeps the revision.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, evaluate, refOf, snapshot } from '../fixtures/mcp.js';

const tw = useSession({ pages: {
  '/guard': `<!doctype html><title>Guard</title>
<button onclick="window.clicks = (window.clicks || 0) + 1">Add</button>
<input id="field" aria-label="Field">
<script>window.keys = 0; addEventListener('keydown', () => window.keys++);</script>`,
  '/other': '<!doctype html><title>Other</title><p>Other page</p>',
} });

test('the right revision acts; a replaced document is revision_mismatch and nothing reaches the page', async () => {
  const nav = await call<{ tabId: number; revision: number }>(tw.client, 'navigate', { url: `${tw.origin}/guard` });
  const snap = await snapshot(tw.client);
  assert.equal(snap.revision, nav.revision);
  const add = refOf(snap.snapshot, 'button', 'Add');
  await call(tw.client, 'click', { ref: add, expectRevision: snap.revision });
  assert.equal(await evaluate(tw.client, 'window.clicks'), 1);
  // A same-document change keeps the revision: the guard still passes.
  await evaluate(tw.client, 'history.pushState({}, "", "/guard#moved")');
  await call(tw.client, 'press_key', { key: 'a', expectRevision: snap.revision });
  assert.equal(await evaluate(tw.client, 'window.keys'), 1);

  // The page reloads: revision + 1.
  const reloaded = await call<{ revision: number }>(tw.client, 'reload_tab', {});
  assert.equal(reloaded.revision, snap.revision + 1);
  const raw = await callRaw(tw.client, 'press_key', { key: 'a', expectRevision: snap.revision });
  assert.equal(raw.isError, true);
  const fields = raw.structuredContent as { error: { type: string; message: string }; tabId: number; expected: number; actual: number };
  assert.equal(fields.error.type, 'revision_mismatch');
  assert.deepEqual([fields.tabId, fields.expected, fields.actual], [nav.tabId, snap.revision, snap.revision + 1]);
  const text = raw.content.map(c => c.text).join('\n');
  assert.equal(text.split('\n')[0], `Error [revision_mismatch]: Expected revision ${snap.revision}, but tab ${nav.tabId} is at revision ${snap.revision + 1}; nothing was done.`);
  assert.match(text, /Hint: .*get_page_context/);
  assert.equal(await evaluate(tw.client, 'window.keys'), 0, 'the key never reached the new document');

  // The old ref with the old revision: revision_mismatch (not stale_ref).
  const byRef = await callError(tw.client, 'click', { ref: add, expectRevision: snap.revision });
  assert.equal(byRef.type, 'revision_mismatch');
  assert.equal(byRef.message, `Expected revision ${snap.revision}, but tab ${nav.tabId} is at revision ${snap.revision + 1}; nothing was done.`);
  // A ref that is stale on the revision it expects is what it is: stale_ref (its tab has not moved on since).
  assert.equal((await callError(tw.client, 'click', { ref: add, expectRevision: snap.revision + 1 })).type, 'stale_ref');
  // Without expectRevision the old ref is what it always was: stale_ref.
  assert.equal((await callError(tw.client, 'click', { ref: add })).type, 'stale_ref');
  assert.equal(await evaluate(tw.client, 'window.clicks ?? 0'), 0);

  // navigate with a stale revision does not navigate.
  assert.equal((await callError(tw.client, 'navigate', { url: `${tw.origin}/other`, expectRevision: snap.revision })).type, 'revision_mismatch');
  assert.equal(await evaluate(tw.client, 'location.pathname'), '/guard');
  // And with the current one it does.
  const moved = await call<{ revision: number }>(tw.client, 'navigate', { url: `${tw.origin}/other`, expectRevision: snap.revision + 1 });
  assert.equal(moved.revision, snap.revision + 2);
});

test('expectRevision must be a positive integer', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/guard` });
  for (const expectRevision of [0, -1, 1.5, '3']) {
    assert.equal((await callError(tw.client, 'press_key', { key: 'a', expectRevision })).type, 'invalid_arguments', String(expectRevision));
  }
  assert.equal(await evaluate(tw.client, 'window.keys'), 0);
});
