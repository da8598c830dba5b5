// add_element end to end: default parents, a selector or a ref (inside a cross-site frame) as the parent, properties
// then attributes, the result {tag, id}, the errors, and what docs/addElement.md claims against a strict
// Content-Security-Policy (script-src 'self', style-src 'self'): an inline script runs once (no CSP violation), an
// inline style applies through an adopted stylesheet that goes with its element, and the same code inserted by the
// page's own means stays blocked. Runs on every connection lane (`--connection extension` included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, evaluate, refOf, snapshot } from '../fixtures/mcp.js';

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'";
/** Counts the page's CSP violations (an inline script in the page itself would add one, our path must not). */
const VIOLATIONS = '<script src="/violations.js"></script>';

const tw = useSession({
  args: ['--browser-arg', '--host-resolver-rules=MAP other.test 127.0.0.1'],
  context: 'file',
  setup: ({ site }) => {
    const other = `http://other.test:${new URL(site.origin).port}`;
    const strict = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) =>
      res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': CSP }).end(body);
    site.page('/violations.js', 'window.violations = []; document.addEventListener("securitypolicyviolation", e => window.violations.push(e.violatedDirective));', 'text/javascript');
    site.route('/strict', strict(`<!doctype html><html><head><title>Strict</title>${VIOLATIONS}</head><body><div id="box">Box</div><img id="pic" alt="pic"></body></html>`));
    site.page('/open', '<!doctype html><title>Open</title><div id="box">Box</div>');
    site.page('/framed', `<!doctype html><title>Framed</title><iframe title="Cross frame" src="${other}/inner" width="400" height="200"></iframe>`);
    site.route('/inner', strict(`<!doctype html><title>Inner</title>${VIOLATIONS}<section aria-label="Inner section"><button>Inner button</button></section>`));
  },
});

interface Added { tabId: number; tag: string; id: string | null; inline?: string; scriptError?: { name: string; message: string } }

const add = (args: Record<string, unknown>) => call<Added>(tw.client, 'add_element', args);

test('an inline script runs once on a script-src \'self\' page, where the page\'s own inline script is blocked', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/strict` });
  // The page's own way is blocked: that is what the CSP does here.
  await evaluate(tw.client, 'const s = document.createElement("script"); s.textContent = "window.pageOwn = 1"; document.head.append(s); return 1');
  assert.equal(await evaluate(tw.client, 'window.pageOwn ?? null'), null);
  assert.deepEqual(await evaluate(tw.client, 'window.violations'), ['script-src-elem']);

  const res = await add({ tag: 'script', attributes: { id: 'injected', 'data-by': 'agent' }, properties: { textContent: 'var topLevel = 7; window.runs = (window.runs ?? 0) + 1;' } });
  assert.deepEqual(res, { tabId: res.tabId, tag: 'script', id: 'injected', inline: 'evaluated' });
  assert.deepEqual(await evaluate(tw.client, '({ runs: window.runs, topLevel: window.topLevel, parent: document.getElementById("injected").parentElement.localName, type: document.getElementById("injected").getAttribute("type"), by: document.getElementById("injected").dataset.by, violations: window.violations.length })'),
    { runs: 1, topLevel: 7, parent: 'head', type: null, by: 'agent', violations: 1 });
  // Moving the element does not run it again (it was prepared once, inert).
  assert.equal(await evaluate(tw.client, 'document.body.append(document.getElementById("injected")); return window.runs'), 1);
});

test('a throwing inline script: the element stays, the error is in the result and reaches the page', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/strict` });
  await evaluate(tw.client, 'window.seen = []; addEventListener("error", e => window.seen.push(e.message)); return 1');
  const raw = await callRaw(tw.client, 'add_element', { tag: 'script', properties: { textContent: 'throw new TypeError("nope")' } });
  assert.equal(raw.isError, undefined);
  const fields = raw.structuredContent as unknown as Added;
  assert.deepEqual(fields.scriptError, { name: 'TypeError', message: 'nope' });
  assert.equal(fields.id, null);
  const text = raw.content.map(c => c.text).join('\n');
  assert.match(text, /^Added <script> to <head> in tab \d+\./);
  assert.match(text, /The script threw TypeError: nope/);
  assert.match(text, /no id/);
  assert.deepEqual(await evaluate(tw.client, 'window.seen'), ['Uncaught TypeError: nope']);
});

test('an inline style applies on a style-src \'self\' page through an adopted sheet that leaves with its element', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/strict` });
  const color = () => evaluate<string>(tw.client, 'getComputedStyle(document.getElementById("box")).color');
  assert.equal(await color(), 'rgb(0, 0, 0)');
  const raw = await callRaw(tw.client, 'add_element', { tag: 'style', attributes: { id: 'theme' }, properties: { textContent: '#box { color: rgb(1, 2, 3) }' } });
  assert.equal((raw.structuredContent as unknown as Added).inline, 'adopted');
  assert.match(raw.content.map(c => c.text).join('\n'), /CSP refused the inline style, so it applies as an adopted stylesheet/);
  assert.equal(await color(), 'rgb(1, 2, 3)');
  assert.equal(await evaluate(tw.client, 'document.getElementById("theme").parentElement.localName'), 'head');
  await evaluate(tw.client, 'document.getElementById("theme").remove(); return 1');
  assert.equal(await evaluate(tw.client, 'new Promise(r => setTimeout(() => r(document.adoptedStyleSheets.length), 50))'), 0);
  assert.equal(await color(), 'rgb(0, 0, 0)');
});

test('without a CSP a style uses its own sheet, and a script runs once', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/open` });
  assert.equal((await add({ tag: 'style', properties: { textContent: '#box { color: rgb(4, 5, 6) }' } })).inline, 'element');
  assert.equal(await evaluate(tw.client, 'getComputedStyle(document.getElementById("box")).color + " " + document.adoptedStyleSheets.length'), 'rgb(4, 5, 6) 0');
  await add({ tag: 'script', properties: { textContent: 'window.once = (window.once ?? 0) + 1' } });
  assert.equal(await evaluate(tw.client, 'window.once'), 1);
});

test('parents: <body> by default for other tags, a selector, and properties before attributes', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/open` });
  const div = await add({ tag: 'div', attributes: { id: 'note', title: 'from attributes' }, properties: { textContent: 'Hello', title: 'from properties' } });
  assert.deepEqual([div.tag, div.id, div.inline], ['div', 'note', undefined]);
  assert.deepEqual(await evaluate(tw.client, '({ parent: document.getElementById("note").parentElement.localName, text: document.getElementById("note").textContent, title: document.getElementById("note").title })'),
    { parent: 'body', text: 'Hello', title: 'from attributes' });
  await add({ tag: 'b', parent: '#box', properties: { innerHTML: '<i>inner</i>' } });
  assert.equal(await evaluate(tw.client, 'document.getElementById("box").innerHTML'), 'Box<b><i>inner</i></b>');
});

test('errors: unmatched or malformed selector, bad names, a refused property, parent and ref together', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/strict` });
  const before = await evaluate<number>(tw.client, 'document.querySelectorAll("*").length');
  const unmatched = await callError(tw.client, 'add_element', { tag: 'div', parent: '#nowhere' });
  assert.equal(unmatched.type, 'invalid_arguments');
  assert.match(unmatched.message, /matches no element/);
  assert.match(unmatched.hint, /get_page_context|find/);
  assert.equal((await callError(tw.client, 'add_element', { tag: 'div', parent: '##' })).type, 'invalid_arguments');
  assert.equal((await callError(tw.client, 'add_element', { tag: 'bad name' })).type, 'invalid_arguments');
  assert.equal((await callError(tw.client, 'add_element', { tag: 'div', attributes: { 'bad name': 'x' } })).type, 'invalid_arguments');
  const refused = await callError(tw.client, 'add_element', { tag: 'div', properties: { tagName: 'P' } });
  assert.equal(refused.type, 'element_not_added');
  assert.match(refused.message, /TypeError: .*tagName/);
  assert.equal((await callError(tw.client, 'add_element', { tag: 'div', parent: 'body', ref: 'e1' })).type, 'invalid_arguments');
  assert.equal(await evaluate(tw.client, 'document.querySelectorAll("*").length'), before, 'nothing was inserted');
});

test('a ref inside a cross-site frame with its own strict CSP: the element and its script land in that frame', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/framed` });
  const ref = refOf((await snapshot(tw.client)).snapshot, 'button', 'Inner button');
  const res = await add({ ref, tag: 'script', attributes: { id: 'framed-script' }, properties: { textContent: 'window.inFrame = location.pathname' } });
  assert.deepEqual([res.id, res.inline], ['framed-script', 'evaluated']);
  const styled = await add({ ref, tag: 'style', properties: { textContent: 'button { color: rgb(9, 8, 7) }' } });
  assert.equal(styled.inline, 'adopted');
  const seen = await call<{ value: unknown }>(tw.client, 'execute', { ref, code: 'return { inFrame: window.inFrame, parent: document.getElementById("framed-script").parentElement.localName, color: getComputedStyle(element).color, violations: window.violations.length }' });
  assert.deepEqual(seen.value, { inFrame: '/inner', parent: 'button', color: 'rgb(9, 8, 7)', violations: 1 });
  assert.equal(await evaluate(tw.client, 'window.inFrame ?? null'), null, 'the top document did not run it');
});
