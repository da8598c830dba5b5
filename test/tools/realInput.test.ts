// Real input end to end: typing into a framework-controlled input
// (a plain-JS copy of React's value tracker), a rich-text editor that owns
// its model (beforeinput), emoji, clear: true / false, and fields that reject
// what was typed (input_not_applied, with password values never shown);
// checkboxes and selects are read back too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError, evaluate, refOf } from '../fixtures/mcp.js';

// A controlled input the way React does it: the value setter is wrapped so
// the component knows what script wrote; an 'input' event whose value equals
// the last written one is ignored, and every event re-renders from state.
// So `el.value = x; dispatchEvent(new Event('input'))` is undone, while real
// typing (the browser changes the value itself) updates the state.
const CONTROLLED_PAGE = `<!doctype html><title>Controlled</title>
<label>Name <input id="name"></label>
<output id="state"></output>
<script>
  const input = document.getElementById('name');
  const native = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
  let tracked = '';
  let state = '';
  Object.defineProperty(input, 'value', {
    configurable: true,
    get() { return native.get.call(this); },
    set(v) { tracked = String(v); native.set.call(this, v); },
  });
  function render() { input.value = state; document.getElementById('state').textContent = state; }
  input.addEventListener('input', () => {
    const actual = native.get.call(input);
    if (actual !== tracked) { tracked = actual; state = actual; }
    render();
  });
</script>`;

// Fields that change or refuse what they get.
const REJECT_PAGE = `<!doctype html><title>Reject</title>
<label>Code <input id="code" oninput="this.value = this.value.toUpperCase()"></label>
<label>Frozen <input id="frozen" oninput="this.value = ''"></label>
<label>PIN <input id="pin" maxlength="3"></label>
<label>Password <input id="pw" type="password" oninput="this.value = ''"></label>
<label><input type="checkbox" id="locked-box" onclick="return false"> Locked box</label>
<label><input type="checkbox" id="news" onclick="window.newsTrusted = event.isTrusted"> Newsletter</label>
<label>Size <select id="size" onchange="this.value = 's'"><option value="s">Small</option><option value="m">Medium</option></select></label>
<label>Colour <select id="colour" onchange="window.colourSeen = this.value"><option value="r">Red</option><option value="g">Green</option></select></label>`;

// A rich-text editor that owns its model, like editors built on
// beforeinput: it cancels every edit and applies it to a string, then
// renders the string. Text that reaches the DOM any other way is lost on
// the next render.
const EDITOR_PAGE = `<!doctype html><title>Editor</title>
<div id="editor" contenteditable="true" role="textbox" aria-label="Message" style="white-space:pre-wrap; min-height:40px; border:1px solid #888"></div>
<script>
  const ed = document.getElementById('editor');
  window.model = 'Old draft';
  window.inputTypes = [];
  function offsets() {
    const sel = getSelection();
    if (!sel.rangeCount) return [model.length, model.length];
    const r = sel.getRangeAt(0);
    const at = (node, off) => { const m = document.createRange(); m.selectNodeContents(ed); m.setEnd(node, off); return m.toString().length; };
    return [at(r.startContainer, r.startOffset), at(r.endContainer, r.endOffset)];
  }
  function render(caret) {
    ed.textContent = model;
    const node = ed.firstChild;
    if (node && document.activeElement === ed) getSelection().collapse(node, caret);
  }
  ed.addEventListener('beforeinput', e => {
    e.preventDefault();
    inputTypes.push(e.inputType);
    let [s, t] = offsets();
    if (e.inputType === 'insertText' || e.inputType === 'insertReplacementText' || e.inputType === 'insertFromPaste') {
      const text = e.data ?? (e.dataTransfer ? e.dataTransfer.getData('text/plain') : '');
      model = model.slice(0, s) + text + model.slice(t);
      render(s + text.length);
    } else if (e.inputType === 'insertLineBreak' || e.inputType === 'insertParagraph') {
      model = model.slice(0, s) + '\\n' + model.slice(t);
      render(s + 1);
    } else if (e.inputType.startsWith('delete')) {
      if (s === t) {
        if (e.inputType.endsWith('Backward')) s = Math.max(0, s - (/[\\udc00-\\udfff]/.test(model[s - 1] ?? '') ? 2 : 1));
        else t = Math.min(model.length, t + (/[\\ud800-\\udbff]/.test(model[t] ?? '') ? 2 : 1));
      }
      model = model.slice(0, s) + model.slice(t);
      render(s);
    }
  });
  render(0);
</script>`;

const tw = useSession({ pages: { '/controlled': CONTROLLED_PAGE, '/reject': REJECT_PAGE, '/editor': EDITOR_PAGE } });

test('a controlled (React-style) input keeps typed text; clear: false appends', async () => {
  const { snapshot: snap } = await tw.open('/controlled');
  const name = refOf(snap, 'textbox', 'Name');
  const state = () => evaluate(tw.client, '[document.getElementById("name").value, document.getElementById("state").textContent]');

  // The fixture is faithful: a script write followed by a synthetic input event is undone.
  await evaluate(tw.client, 'const i = document.getElementById("name"); i.value = "Script"; i.dispatchEvent(new Event("input", { bubbles: true })); return 0;');
  assert.deepEqual(await state(), ['', '']);

  await call(tw.client, 'type', { ref: name, text: 'Ada Lovelace' });
  assert.deepEqual(await state(), ['Ada Lovelace', 'Ada Lovelace']);
  await call(tw.client, 'type', { ref: name, text: ', Countess', clear: false });
  assert.deepEqual(await state(), ['Ada Lovelace, Countess', 'Ada Lovelace, Countess']);
  await call(tw.client, 'type', { ref: name, text: 'Grace 🚀 Hopper', clear: true });
  assert.deepEqual(await state(), ['Grace 🚀 Hopper', 'Grace 🚀 Hopper']);
  await call(tw.client, 'fill_form', { fields: [{ ref: name, value: 'Katherine' }] });
  assert.deepEqual(await state(), ['Katherine', 'Katherine']);
});

test('a rich-text editor that owns its model receives text and emoji; clear replaces', async () => {
  const { snapshot: snap } = await tw.open('/editor');
  const editor = refOf(snap, 'textbox', 'Message');
  const model = () => evaluate(tw.client, '[window.model, document.getElementById("editor").innerText]');

  await call(tw.client, 'type', { ref: editor, text: ' and more 👋', clear: false });
  assert.deepEqual(await model(), ['Old draft and more 👋', 'Old draft and more 👋']);

  await call(tw.client, 'type', { ref: editor, text: 'Hello 😀 world' });
  assert.deepEqual(await model(), ['Hello 😀 world', 'Hello 😀 world']);

  await call(tw.client, 'type', { ref: editor, text: 'Line one\nLine two 🎉', clear: true });
  assert.deepEqual(await model(), ['Line one\nLine two 🎉', 'Line one\nLine two 🎉']);
  // Every change went through the editor's own beforeinput handling.
  assert.deepEqual(await evaluate(tw.client, 'window.inputTypes'), [
    'insertText',
    'deleteContentForward', 'insertText',
    'deleteContentForward', 'insertText', 'insertLineBreak', 'insertText',
  ]);

  await call(tw.client, 'type', { ref: editor, text: '', clear: true });
  assert.deepEqual(await model(), ['', '']);
});

test('a field that changes or drops the text fails with input_not_applied', async () => {
  const { snapshot: snap } = await tw.open('/reject');
  const code = refOf(snap, 'textbox', 'Code');
  let err = await callError(tw.client, 'type', { ref: code, text: 'abc-12' });
  assert.equal(err.type, 'input_not_applied');
  assert.equal(err.message, `The text typed into ${code} did not stick: expected "abc-12", the field holds "ABC-12".`);
  assert.equal(err.hint, 'The page changed or rejected the value (an input mask, validation, a handler that resets it). Check the field in a fresh snapshot and type what the page accepts.');
  assert.equal(await evaluate(tw.client, 'document.getElementById("code").value'), 'ABC-12');

  const frozen = refOf(snap, 'textbox', 'Frozen');
  err = await callError(tw.client, 'fill_form', { fields: [{ ref: frozen, value: 'hello' }] });
  assert.equal(err.type, 'input_not_applied');
  assert.equal(err.message, `The text typed into ${frozen} did not stick: expected "hello", the field holds "".`);

  const pin = refOf(snap, 'textbox', 'PIN');
  err = await callError(tw.client, 'type', { ref: pin, text: '123456' });
  assert.equal(err.type, 'input_not_applied');
  assert.equal(err.message, `The text typed into ${pin} did not stick: expected "123456", the field holds "123" (its maxlength is 3).`);
  // Upper case and the PIN typed within its limit do stick.
  await call(tw.client, 'type', { ref: code, text: 'XYZ' });
  await call(tw.client, 'type', { ref: pin, text: '987' });
  assert.deepEqual(await evaluate(tw.client, '[document.getElementById("code").value, document.getElementById("pin").value]'), ['XYZ', '987']);
});

test('input_not_applied on a password field never shows the values', async () => {
  const secret = 'hunter2-Tr0ub4dor&3';
  const { snapshot: snap } = await tw.open('/reject');
  const pw = refOf(snap, 'textbox', 'Password');
  const err = await callError(tw.client, 'type', { ref: pw, text: secret });
  assert.equal(err.type, 'input_not_applied');
  assert.equal(err.message, `The text typed into ${pw} did not stick: expected 19 characters, the field holds 0 (a password field: values not shown).`);
  assert.ok(!JSON.stringify(err).includes('hunter2'));
  assert.ok(!tw.stderr().includes('hunter2'));
});

test('checkboxes are clicked for real and read back', async () => {
  const { snapshot: snap } = await tw.open('/reject');
  await call(tw.client, 'fill_form', { fields: [{ ref: refOf(snap, 'checkbox', 'Newsletter'), value: true }] });
  assert.deepEqual(await evaluate(tw.client, '[document.getElementById("news").checked, window.newsTrusted]'), [true, true]);

  const locked = refOf(snap, 'checkbox', 'Locked box');
  const err = await callError(tw.client, 'fill_form', { fields: [{ ref: locked, value: true }] });
  assert.equal(err.type, 'input_not_applied');
  assert.equal(err.message, `Clicking ${locked} did not check it: the page keeps it unchecked.`);
  assert.equal(await evaluate(tw.client, 'document.getElementById("locked-box").checked'), false);
});

test('a selection the page turns back fails with input_not_applied', async () => {
  const { snapshot: snap } = await tw.open('/reject');
  const colour = refOf(snap, 'combobox', 'Colour');
  const ok = await call<{ selected: string[] }>(tw.client, 'select_option', { ref: colour, values: ['Green'] });
  assert.deepEqual(ok.selected, ['g']);
  assert.deepEqual(await evaluate(tw.client, '[document.getElementById("colour").value, window.colourSeen]'), ['g', 'g']);

  const size = refOf(snap, 'combobox', 'Size');
  const err = await callError(tw.client, 'select_option', { ref: size, values: ['m'] });
  assert.equal(err.type, 'input_not_applied');
  assert.equal(err.message, `The options chosen in ${size} did not stick: expected "m", now selected "s".`);
  assert.equal(await evaluate(tw.client, 'document.getElementById("size").value'), 's');
});
