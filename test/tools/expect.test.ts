// Verified actions end to end: a page-changing tool's `expect` postconditions (text shown and gone, URL, a field's
// value, an element gone, no invalid field) are awaited after the action; verified results say so, a condition that
// does not hold is expectation_failed with what was seen (never the value typed), a page blocked by a dialog is
// expectation_indeterminate, and in both the action's own report stays; bad postconditions are refused before the
// action runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, evaluate, refOf, snapshot } from '../fixtures/mcp.js';

const tw = useSession({ pages: {
  '/form': `<!doctype html><title>Form</title>
<p id="dirty">Unsaved changes</p>
<label>Email <input id="email" type="email"></label>
<button id="save" onclick="window.saves = (window.saves || 0) + 1; setTimeout(() => { document.getElementById('dirty').remove(); document.body.insertAdjacentHTML('beforeend', '<p>Saved</p>'); }, 300)">Save</button>
<button onclick="const e = document.getElementById('email'); e.setAttribute('aria-invalid', String(!e.value.includes('@')))">Check</button>
<button onclick="setTimeout(() => { location.href = '/done'; }, 200)">Finish</button>
<button onclick="alert('Stop')">Warn</button>
<button onclick="window.pressed = (window.pressed || 0) + 1; document.getElementById('save').remove()">Remove save</button>`,
  '/done': '<!doctype html><title>Done</title><p>All done</p>',
  '/signup': `<!doctype html><title>Signup</title><form action="/done"><label>Email <input type="email" name="email" required></label>
<label>Age <input type="number" name="age" min="18"></label><button>Send</button></form>
<form action="/done" novalidate><label>Nick <input name="nick" required></label><button>Send anyway</button></form>`,
} });

interface Verification { status: string; afterMs: number; conditions: Array<{ kind: string; status: string; said: string }> }

async function open(): Promise<string> {
  await call(tw.client, 'navigate', { url: `${tw.origin}/form` });
  return (await snapshot(tw.client)).snapshot;
}

const textOf = (raw: { content: Array<{ text?: string }> }) => raw.content.map(c => c.text).join('\n');

test('verified: text shown and gone, the URL after a navigation, an element gone', async () => {
  const snap = await open();
  const raw = await callRaw(tw.client, 'click', { ref: refOf(snap, 'button', 'Save'), expect: { text: 'Saved', textGone: 'Unsaved changes' } });
  assert.equal(raw.isError, undefined, textOf(raw));
  const v = (raw.structuredContent as { verification: Verification }).verification;
  assert.equal(v.status, 'verified');
  assert.deepEqual(v.conditions.map(c => [c.kind, c.status]), [['text', 'held'], ['textGone', 'held']]);
  const lines = textOf(raw).split('\n');
  assert.match(lines[0]!, /^Clicked button "Save"/, 'the action report comes first');
  assert.match(lines.at(-1)!, /^Verified after \d+\.\d s: Text "Saved" is shown; Text "Unsaved changes" is gone\.$/);

  const nav = await callRaw(tw.client, 'click', { ref: refOf(snap, 'button', 'Finish'), expect: { url: '**/done', text: 'All done' } });
  assert.equal((nav.structuredContent as { verification: Verification }).verification.status, 'verified', textOf(nav));
  assert.match(textOf(nav), /Verified after .*: Text "All done" is shown; The URL matches the URL glob "\*\*\/done"\.$/);

  const again = await open();
  const save = refOf(again, 'button', 'Save');
  const gone = await callRaw(tw.client, 'click', { ref: refOf(again, 'button', 'Remove save'), expect: { gone: save } });
  assert.equal((gone.structuredContent as { verification: Verification }).verification.status, 'verified', textOf(gone));
});

test('a field\'s value: verified when it matches; expectation_failed never echoes either value, and keeps the report', async () => {
  const snap = await open();
  const email = refOf(snap, 'textbox', 'Email');
  const ok = await callRaw(tw.client, 'type', { ref: email, text: 'ada@example.com', expect: { value: { ref: email, equals: 'ada@example.com' } } });
  assert.equal((ok.structuredContent as { verification: Verification }).verification.status, 'verified', textOf(ok));

  const secret = 'hunter2-s3cr3t';
  const raw = await callRaw(tw.client, 'type', { ref: email, text: secret, expect: { value: { ref: email, equals: 'something-else-entirely' }, timeoutSec: 0.5 } });
  assert.equal(raw.isError, true);
  const fields = raw.structuredContent as { error: { type: string; message: string; hint: string }; verification: Verification };
  assert.equal(fields.error.type, 'expectation_failed');
  assert.equal(fields.verification.status, 'failed');
  const text = textOf(raw);
  assert.match(text, /^Typed .*\n/, 'the action\'s report is kept');
  assert.match(text, new RegExp(`Error \\[expectation_failed\\]: The action was done, but its postconditions did not all hold: value: did not hold within 0\\.5 s: ${email} holds a different value \\(${secret.length} characters\\)\\. Tab \\d+ is at revision \\d+\\.`));
  assert.match(fields.error.hint, /^Do not repeat the action blindly/);
  // (The kept action report shows the field as the page now has it, as every type report does; the check's own
  // words never name a value.)
  const check = JSON.stringify([fields.error, fields.verification]);
  assert.ok(!check.includes(secret) && !check.includes('something-else-entirely'), check);
  assert.ok(!JSON.stringify(raw).includes('something-else-entirely'), 'the expected value is nowhere in the result');
  assert.equal(await evaluate(tw.client, 'document.getElementById("email").value'), secret, 'the action was done');
});

test('noValidationError: an invalid field fails the check and is named; a valid one verifies', async () => {
  const snap = await open();
  const email = refOf(snap, 'textbox', 'Email');
  await call(tw.client, 'type', { ref: email, text: 'not-an-email' });
  const raw = await callRaw(tw.client, 'click', { ref: refOf(snap, 'button', 'Check'), expect: { noValidationError: true, timeoutSec: 0.5 } });
  assert.equal((raw.structuredContent as { error: { type: string } }).error.type, 'expectation_failed', textOf(raw));
  assert.match(textOf(raw), /noValidationError: did not hold within 0\.5 s: invalid field shown: "Email"/);
  await call(tw.client, 'type', { ref: email, text: 'ada@example.com' });
  const fixed = await callRaw(tw.client, 'click', { ref: refOf(snap, 'button', 'Check'), expect: { noValidationError: true } });
  assert.equal((fixed.structuredContent as { verification: Verification }).verification.status, 'verified', textOf(fixed));
});

test('a dialog blocking the page leaves the postconditions indeterminate; the action is reported', async () => {
  const snap = await open();
  const raw = await callRaw(tw.client, 'click', { ref: refOf(snap, 'button', 'Warn'), expect: { text: 'Saved', timeoutSec: 1 } });
  const fields = raw.structuredContent as { error: { type: string }; verification: Verification };
  assert.equal(fields.error.type, 'expectation_indeterminate', textOf(raw));
  assert.deepEqual(fields.verification.conditions.map(c => [c.kind, c.status]), [['text', 'indeterminate']]);
  assert.match(textOf(raw), /text: could not be judged: the page waits for its alert dialog \(handle_dialog answers it\)/);
  await call(tw.client, 'handle_dialog', { accept: true });
});

test('bad postconditions are refused before the action runs', async () => {
  const snap = await open();
  const save = refOf(snap, 'button', 'Save');
  // A misspelled postcondition is refused, never passed unchecked.
  const misspelled = await callError(tw.client, 'click', { ref: save, expect: { text: 'Saved', textShwn: 'x' } });
  assert.equal(misspelled.type, 'invalid_arguments');
  assert.match(misspelled.message, /expect: Unrecognized key.*textShwn/);
  for (const expect of [{}, { url: '/(unclosed/' }, { timeoutSec: 1 }, { text: '' }, { timeoutSec: 60, text: 'x' }]) {
    assert.equal((await callError(tw.client, 'click', { ref: save, expect })).type, 'invalid_arguments', JSON.stringify(expect));
  }
  assert.equal(await evaluate(tw.client, 'window.saves ?? 0'), 0, 'no click ran');
  // Read-only tools take no postconditions.
  for (const name of ['get_page_context', 'find', 'take_screenshot']) {
    const res = await callRaw(tw.client, name, { expect: { text: 'x' } });
    assert.ok(!JSON.stringify(res.structuredContent ?? {}).includes('verification'), name);
  }
});

test('a submit the browser\'s form validation holds back says which fields held it; a novalidate form is not judged', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/signup` });
  const snap = (await snapshot(tw.client)).snapshot;
  await call(tw.client, 'type', { ref: refOf(snap, 'spinbutton', 'Age'), text: '12' });
  const raw = await callRaw(tw.client, 'click', { ref: refOf(snap, 'button', 'Send') });
  const lines = textOf(raw).split('\n');
  assert.match(lines.at(-1)!, /^The browser did not submit the form: 2 fields are invalid: "Email" \(.+\); "Age" \(.+\)\.$/);
  assert.deepEqual((raw.structuredContent as { invalidFields: Array<{ name: string }> }).invalidFields.map(f => f.name), ['Email', 'Age']);
  assert.equal(await evaluate(tw.client, 'location.pathname'), '/signup');
  // A form with novalidate submits whatever it holds: nothing to say.
  const sent = await callRaw(tw.client, 'click', { ref: refOf(snap, 'button', 'Send anyway') });
  assert.doesNotMatch(textOf(sent), /did not submit/);
});
