// After a failed action: a page-changing call's error says whether the action was dispatched (no: refused before
// anything reached the page, safe to call again; unknown or yes: it may have taken effect, look first), with the
// tab's revision before and after; an action that may have gone through never hints at a retry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callRaw, evaluate, refOf, snapshot } from '../fixtures/mcp.js';

const tw = useSession({ pages: {
  '/act': `<!doctype html><title>Act</title>
<button disabled onclick="window.clicked = true">Locked</button>
<p>Ready</p>`,
  '/next': '<!doctype html><title>Next</title><p>Next page</p>',
} });

interface Recovery { dispatched: string; revisionBefore: number; revisionAfter?: number; retry: string }
interface Failed { error: { type: string; message: string; hint: string }; recovery: Recovery }

test('refused before dispatch: recovery says no, safe to call again; the message is the error\'s own', async () => {
  const { revision } = await call<{ revision: number }>(tw.client, 'navigate', { url: `${tw.origin}/act` });
  const snap = await snapshot(tw.client);
  await evaluate(tw.client, 'document.querySelector("button").remove()');
  const raw = await callRaw(tw.client, 'click', { ref: refOf(snap.snapshot, 'button', 'Locked') });
  assert.equal(raw.isError, true);
  const failed = raw.structuredContent as unknown as Failed;
  assert.equal(failed.error.type, 'stale_ref');
  assert.deepEqual(failed.recovery, { dispatched: 'no', revisionBefore: revision, revisionAfter: revision, retry: 'safe' });
  assert.doesNotMatch(failed.error.message, /reached the page/);
  assert.equal(await evaluate(tw.client, 'window.clicked ?? false'), false);

  // The guard refuses before dispatch too.
  const guarded = (await callRaw(tw.client, 'press_key', { key: 'a', expectRevision: revision + 3 })).structuredContent as unknown as Failed;
  assert.deepEqual([guarded.error.type, guarded.recovery.dispatched, guarded.recovery.retry], ['revision_mismatch', 'no', 'safe']);
});

test('may have gone through: the message says so with the revisions, and the hint says to look first', async () => {
  const { revision, tabId } = await call<{ revision: number; tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/act` });
  // The code runs (it sets a flag), then never settles: the time limit stops it.
  const raw = await callRaw(tw.client, 'execute', { code: 'window.ran = true; await new Promise(() => {});', timeoutSec: 1 });
  const failed = raw.structuredContent as unknown as Failed;
  assert.equal(failed.error.type, 'timeout', JSON.stringify(failed.error));
  assert.deepEqual(failed.recovery, { dispatched: 'yes', revisionBefore: revision, revisionAfter: revision, retry: 'check_first' });
  // Known to have run, on the same document: the error's own words stand.
  assert.equal(failed.error.message, 'The code did not finish within 1 s.');
  assert.equal(await evaluate(tw.client, 'window.ran'), true, 'it had reached the page');
  // A call cancelled or cut off while its input may be on its way: it says so, and not to retry blindly.
  // (The unknown case: tested with a WebMCP tool whose result the browser could not return, webmcpErrors.test.ts.)

  // Code that navigates the page away mid-run: the revision moved, and the message says from which to which.
  const moved = (await callRaw(tw.client, 'execute', { code: `location.href = '/next'; await new Promise(() => {});`, timeoutSec: 5 })).structuredContent as unknown as Failed;
  assert.notEqual(moved.recovery.dispatched, 'no', JSON.stringify(moved));
  assert.equal(moved.recovery.retry, 'check_first');
  assert.equal(moved.recovery.revisionBefore, revision);
  assert.equal(moved.recovery.revisionAfter, revision + 1, JSON.stringify(moved));
  assert.match(moved.error.message, new RegExp(`The action reached the page; tab ${tabId} went from revision ${revision} to ${revision + 1}\\.$`));
  assert.equal(moved.error.hint, 'Do not call it again blindly: check the page first (get_page_context) to see whether it took effect, then decide.');
  assert.doesNotMatch(moved.error.hint, /try again|retry/i);
});

test('read-only tools carry no recovery: nothing of theirs changes a page', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/act` });
  const raw = await callRaw(tw.client, 'wait_for', { text: 'Never shown', timeoutSec: 0.3 });
  assert.equal((raw.structuredContent as { error: { type: string } }).error.type, 'timeout');
  assert.equal((raw.structuredContent as { recovery?: unknown }).recovery, undefined);
});
