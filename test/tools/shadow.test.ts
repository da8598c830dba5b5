// Shadow DOM end to end: open, nested and slotted shadow content
// appears exactly once and acts by ref; closed roots, made by script
// (recorded by the runtime's attachShadow wrapper) or declared in HTML
// (found through CDP), show their controls, which click and type by ref.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, evaluate, refOf, snapshot } from '../fixtures/mcp.js';

/** Every button records its click in window.clicks, so the DOM is read back without the product's help. */
const button = (name: string) => `<button onclick="clicks.push('${name}')">${name}</button>`;

const SHADOW_PAGE = `<!doctype html><title>Shadow</title>
<script>window.clicks = []; window.roots = {};</script>
<h1>Shadow</h1>
<open-box></open-box>
<outer-box></outer-box>
<slot-box>${button('Slotted button')}</slot-box>
<closed-box></closed-box>
<decl-closed><template shadowrootmode="closed">${button('Declarative button')}<label>Declarative field <input></label></template></decl-closed>
<decl-partly><template shadowrootmode="closed"><slot name="shown"></slot>${button('Partly slotted button')}</template><span slot="shown">Slotted span</span><span>Unslotted span</span></decl-partly>
<decl-open><template shadowrootmode="open">${button('Declarative open button')}</template></decl-open>
<plain-element>Plain custom element text</plain-element>
<script>
  const define = (name, mode, html) => customElements.define(name, class extends HTMLElement {
    constructor() {
      super();
      const root = this.attachShadow({ mode });
      root.innerHTML = html;
      (roots[name] ??= []).push(root);
    }
  });
  define('open-box', 'open', ${JSON.stringify(button('Open button'))});
  define('inner-box', 'open', ${JSON.stringify(button('Nested button'))});
  define('outer-box', 'open', '<p>Outer text</p><inner-box></inner-box>');
  define('slot-box', 'open', ${JSON.stringify(`<p>Before the slot</p><slot></slot><slot name="extra">${button('Fallback button')}</slot>`)});
  define('deep-closed', 'closed', ${JSON.stringify(button('Deep closed button'))});
  define('closed-box', 'closed', ${JSON.stringify(`${button('Closed button')}<label>Closed field <input id="closed-field"></label><deep-closed></deep-closed>`)});
</script>`;

const NAMES = ['Open button', 'Nested button', 'Slotted button', 'Fallback button', 'Closed button', 'Deep closed button', 'Declarative button', 'Partly slotted button', 'Declarative open button'];

const tw = useSession({ pages: { '/shadow': SHADOW_PAGE } });

/** The shadow page, navigated, and its snapshot. */
const open = async () => (await tw.open('/shadow')).snapshot;

const count = (text: string, needle: string) => text.split(needle).length - 1;

test('open, nested, slotted and closed shadow content each appear exactly once', async () => {
  const text = await open();
  for (const name of NAMES) {
    assert.equal(count(text, `"${name}"`), 1, `${name} once in:\n${text}`);
    refOf(text, 'button', name);
  }
  for (const line of ['Outer text', 'Before the slot', 'Plain custom element text', 'Slotted span']) assert.equal(count(text, line), 1, line);
  assert.equal(count(text, 'Unslotted span'), 0, 'light DOM not assigned to a slot is not shown');
  refOf(text, 'textbox', 'Closed field');
  refOf(text, 'textbox', 'Declarative field');
  // Flat-tree order: the slot shows the light-DOM button between the text before it and the fallback after it.
  const order = ['Open button', 'Outer text', 'Nested button', 'Before the slot', 'Slotted button', 'Fallback button', 'Closed button', 'Closed field', 'Deep closed button', 'Declarative button', 'Slotted span', 'Partly slotted button', 'Declarative open button'].map(n => text.indexOf(n));
  assert.deepEqual([...order].sort((a, b) => a - b), order);
  const refs = [...text.matchAll(/\[ref=(e\d+)\]/g)].map(m => m[1]);
  assert.equal(refs.length, NAMES.length + 2);
  assert.equal(new Set(refs).size, refs.length);
  // The same refs on a second snapshot (the CDP probe for declarative roots ran once; nothing moved).
  assert.equal((await snapshot(tw.client)).snapshot, text);
});

test('every shadow button clicks by ref, closed ones included', async () => {
  const text = await open();
  for (const name of NAMES) await call(tw.client, 'click', { ref: refOf(text, 'button', name) });
  assert.deepEqual(await evaluate(tw.client, 'clicks'), NAMES);
});

test('type into fields inside closed roots', async () => {
  const text = await open();
  await call(tw.client, 'type', { ref: refOf(text, 'textbox', 'Closed field'), text: 'in a closed root' });
  assert.equal(await evaluate(tw.client, 'roots["closed-box"][0].getElementById("closed-field").value'), 'in a closed root');
  const declarative = refOf(text, 'textbox', 'Declarative field');
  await call(tw.client, 'type', { ref: declarative, text: 'declared' });
  // The page itself cannot reach a declarative closed root; execute {ref} reads the element it resolves to.
  assert.deepEqual(await call(tw.client, 'execute', { ref: declarative, code: '[element.value, element.getRootNode().mode, element.getRootNode().host.localName]' }).then(r => r.value),
    ['declared', 'closed', 'decl-closed']);
  assert.equal(await evaluate(tw.client, 'document.activeElement.localName'), 'decl-closed');
});

test('closed roots stay closed to the page and attachShadow behaves as before', async () => {
  await open();
  const seen = await evaluate(tw.client, `({
    closed: document.querySelector('closed-box').shadowRoot,
    declarative: document.querySelector('decl-closed').shadowRoot,
    open: document.querySelector('open-box').shadowRoot === roots['open-box'][0],
    name: Element.prototype.attachShadow.name,
    length: Element.prototype.attachShadow.length,
    mode: document.createElement('div').attachShadow({ mode: 'closed' }).mode,
    again: (() => { const d = document.createElement('div'); d.attachShadow({ mode: 'open' }); try { d.attachShadow({ mode: 'open' }); return 'no error'; } catch (e) { return e.name; } })(),
  })`);
  assert.deepEqual(seen, { closed: null, declarative: null, open: true, name: 'attachShadow', length: 1, mode: 'closed', again: 'NotSupportedError' });
});

test('a snapshot scoped to a closed-root host shows its content', async () => {
  const text = await open();
  const { snapshot: scoped } = await snapshot(tw.client, { selector: 'closed-box' });
  const host = /^- generic \[ref=(e\d+)\]:/.exec(scoped)?.[1];
  assert.ok(host, scoped);
  assert.equal(scoped, [
    `- generic [ref=${host}]:`,
    `  - button "Closed button" [ref=${refOf(text, 'button', 'Closed button')}]`,
    `  - textbox "Closed field" [ref=${refOf(text, 'textbox', 'Closed field')}]`,
    `  - button "Deep closed button" [ref=${refOf(text, 'button', 'Deep closed button')}]`,
  ].join('\n'));
});
