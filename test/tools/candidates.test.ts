// Candidates on targeting errors: a stale ref's error names at most 8 elements now on the page with the role and
// name the ref was shown with (else its role), each with a ref that acts; no error of a targeting failure carries
// the text typed (type, fill_form) or the code evaluated (execute), in content or structuredContent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callRaw, evaluate, refOf, snapshot, type RawResult } from '../fixtures/mcp.js';

interface Candidate { role: string; name?: string; ref: string }
interface ErrorResult { error: { type: string; message: string }; ref?: string; was?: { role: string; name?: string }; candidates?: Candidate[] }

const SECRET = 'hunter2-s3cr3t-value';

const tw = useSession({ pages: {
  '/saves': `<!doctype html><title>Saves</title><main id="list"></main>
<script>
  function render() {
    document.getElementById('list').innerHTML = Array.from({ length: 12 }, (_, i) =>
      '<button onclick="document.title = \\'saved ' + i + '\\'">Save</button>').join('') +
      '<label>Password <input type="password" id="pw"></label><button>Cancel</button>';
  }
  render();
</script>`,
} });

function textOf(raw: RawResult): string {
  return raw.content.map(c => c.text ?? '').join('\n');
}

test('a re-rendered element: the stale_ref error lists at most 8 candidates with its role and name, refs that act', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/saves` });
  const snap = (await snapshot(tw.client)).snapshot;
  const old = refOf(snap, 'button', 'Save');
  await evaluate(tw.client, 'render()');
  const raw = await callRaw(tw.client, 'click', { ref: old });
  assert.equal(raw.isError, true);
  const data = raw.structuredContent as unknown as ErrorResult;
  assert.equal(data.error.type, 'stale_ref');
  assert.equal(data.ref, old);
  assert.deepEqual(data.was, { role: 'button', name: 'Save' });
  assert.equal(data.candidates!.length, 8);
  for (const c of data.candidates!) {
    assert.equal(c.role, 'button');
    assert.equal(c.name, 'Save');
    assert.notEqual(c.ref, old);
  }
  const text = textOf(raw);
  assert.equal([...text.matchAll(/^- button "Save" \[ref=e\d+\]$/gm)].length, 8, text);
  assert.ok(text.includes(`- button "Save" [ref=${data.candidates![2]!.ref}]`));
  // A candidate's ref acts as a snapshot's would.
  await call(tw.client, 'click', { ref: data.candidates![2]!.ref });
  assert.equal(await evaluate(tw.client, 'document.title'), 'saved 2');
});

test('typed text and evaluated code never reach a targeting error, in content or structuredContent', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/saves` });
  const snap = (await snapshot(tw.client)).snapshot;
  const field = refOf(snap, 'textbox', 'Password');
  await evaluate(tw.client, 'render()');
  const calls: Array<[string, Record<string, unknown>]> = [
    ['type', { ref: field, text: SECRET }],
    ['fill_form', { fields: [{ ref: field, value: SECRET }] }],
    ['execute', { ref: field, code: `element.value = "${SECRET}"` }],
  ];
  for (const [tool, args] of calls) {
    const raw = await callRaw(tw.client, tool, args);
    assert.equal(raw.isError, true, tool);
    const data = raw.structuredContent as unknown as ErrorResult;
    assert.equal(data.error.type, 'stale_ref', tool);
    // The re-rendered field is the one candidate of its role and name.
    assert.deepEqual(data.candidates!.map(c => [c.role, c.name]), [['textbox', 'Password']], tool);
    assert.ok(!JSON.stringify(raw).includes(SECRET), `${tool}: ${JSON.stringify(raw)}`);
    assert.ok(!JSON.stringify(raw).includes('hunter2'), tool);
  }
  // A value already in the field is not a candidate's either: candidates carry role, name and ref only.
  const fresh = (await callRaw(tw.client, 'click', { ref: field })).structuredContent as unknown as ErrorResult;
  const now = fresh.candidates![0]!.ref;
  await call(tw.client, 'type', { ref: now, text: SECRET });
  await evaluate(tw.client, 'document.getElementById("pw").replaceWith(document.getElementById("pw").cloneNode())');
  await evaluate(tw.client, `document.getElementById("pw").value = ${JSON.stringify(SECRET)}`);
  const raw = await callRaw(tw.client, 'type', { ref: now, text: 'x' });
  assert.equal((raw.structuredContent as unknown as ErrorResult).error.type, 'stale_ref');
  assert.ok(!JSON.stringify(raw).includes(SECRET), JSON.stringify(raw));
});

test('a ref of a replaced document: candidates come from the new document; none named: its role', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/saves` });
  const snap = (await snapshot(tw.client)).snapshot;
  const cancel = refOf(snap, 'button', 'Cancel');
  await call(tw.client, 'reload_tab');
  const data = (await callRaw(tw.client, 'click', { ref: cancel })).structuredContent as unknown as ErrorResult;
  assert.equal(data.error.type, 'stale_ref');
  assert.deepEqual(data.candidates!.map(c => [c.role, c.name]), [['button', 'Cancel']]);
  // The button renamed: the buttons on the page now, at most 8.
  const again = refOf((await snapshot(tw.client)).snapshot, 'button', 'Cancel');
  await evaluate(tw.client, 'document.querySelector("button:last-of-type").remove(); document.getElementById("list").append(Object.assign(document.createElement("button"), { textContent: "Close" }))');
  const renamed = (await callRaw(tw.client, 'click', { ref: again })).structuredContent as unknown as ErrorResult;
  assert.equal(renamed.error.type, 'stale_ref');
  assert.equal(renamed.candidates!.length, 8);
  assert.ok(renamed.candidates!.every(c => c.role === 'button'));
  assert.ok(!renamed.candidates!.some(c => c.name === 'Cancel'));
});

test('find with no match lists at most 8 near candidates', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/saves` });
  const found = await call<{ total: number; near: Candidate[] }>(tw.client, 'find', { role: 'button', name: 'Delete' });
  assert.equal(found.total, 0);
  assert.equal(found.near.length, 8);
  assert.ok(found.near.every(n => n.role === 'button'));
});
