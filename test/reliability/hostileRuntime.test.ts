/**
 * Hostile pages against the in-page runtime (docs/reliability.md, "Hostile pages"): pages whose first inline <head>
 * script replaces the natives the runtime might lean on with liars (Function.prototype.call/apply/bind/toString,
 * EventTarget.prototype.addEventListener/dispatchEvent, JSON.parse/stringify, Promise and its then, Array.prototype
 * methods, Object.defineProperty, MutationObserver), or freezes the prototypes, or looks for the runtime and tries
 * to call into it to fake what the agent reads. On each, the agent's tools must still tell the truth: the
 * snapshot names the page's real elements, a click fires the real handler, fill_form sets the value, get_text
 * reads the text, list_webmcp_tools and call_webmcp_tool see the page's tool, execute returns the value.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, callRaw, evaluate, refOf, snapshot } from '../fixtures/mcp.js';
import { useServer } from '../fixtures/harness.js';
import { Attacks, LAUNCH_ONLY } from './hostile.js';

/** The page's real content, after its first script ran. */
const BODY = `<h1>Real heading</h1>
<p id="text">Real paragraph text</p>
<button id="b" onclick="document.getElementById('out').textContent = 'clicked ' + (++window.clicks)">Real button</button>
<label>Real field <input id="f" oninput="document.getElementById('mirror').textContent = 'typed ' + this.value"></label>
<p id="out">not clicked</p><p id="mirror">nothing typed</p>
<script>
  window.clicks = 0;
  document.modelContext.registerTool({ name: 'real_tool', description: 'The page\\'s real tool', annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    execute: async () => ({ content: [{ type: 'text', text: 'real result' }] }) });
</script>`;

/** Liars for every native the brief names: each returns something plausible and wrong, or swallows the call. */
const LIARS = `<script>
  const fake = { fake: true };
  const realCall = Function.prototype.call, realApply = Function.prototype.apply, realBind = Function.prototype.bind;
  Function.prototype.call = function (self, ...args) { return Reflect.apply(this, self, args.map(a => a === 'Real button' ? 'Fake button' : a)); };
  Function.prototype.apply = function (self, args) { return Reflect.apply(this, self, args ?? []); };
  Function.prototype.bind = function (self, ...bound) { const f = this; return function (...args) { return Reflect.apply(f, self, [...bound, ...args]); }; };
  Function.prototype.toString = function () { return 'function () { [native code] }'; };
  EventTarget.prototype.addEventListener = function () {};
  EventTarget.prototype.removeEventListener = function () {};
  EventTarget.prototype.dispatchEvent = function () { return true; };
  JSON.parse = function () { return fake; };
  JSON.stringify = function () { return '{"fake":true}'; };
  const RealPromise = Promise;
  window.Promise = function FakePromise(executor) { return new RealPromise(() => {}); };
  window.Promise.resolve = () => new RealPromise(() => {});
  window.Promise.all = () => new RealPromise(() => {});
  window.Promise.race = () => new RealPromise(() => {});
  RealPromise.prototype.then = function (ok) { return this; };
  Object.defineProperty = function (o) { return o; };
  window.MutationObserver = class { observe() {} disconnect() {} takeRecords() { return []; } };
</script>`;

/** Array.prototype's methods replaced with liars (the runtime calls them everywhere: see the todo test below). */
const ARRAY_LIARS = `<script>
  for (const m of ['map', 'filter', 'forEach', 'push', 'join', 'slice', 'includes', 'indexOf', 'some', 'every', 'find', 'reduce', 'concat', 'splice', 'sort']) {
    Array.prototype[m] = function () { return m === 'join' ? 'fake' : m === 'push' ? 0 : []; };
  }
</script>`;

/** Every prototype a runtime might extend, frozen before anything else runs. */
const FREEZER = `<script>
  for (const o of [Object.prototype, Array.prototype, Function.prototype, EventTarget.prototype, Element.prototype, Node.prototype,
    HTMLElement.prototype, Document.prototype, Window.prototype, Promise.prototype, JSON, Object, Array, Function, Promise]) Object.freeze(o);
</script>`;

/**
 * Looks for the runtime the way a page can (its own globals against a fresh frame's, Symbol keys, the text of
 * natives) and tries to make it lie: replace or wrap what it finds, poison the snapshot walker's inputs.
 */
const DETECTOR = `<script>
  window.seen = {};
  const frame = document.createElement('iframe');
  document.documentElement.append(frame);
  const fresh = new Set(Object.getOwnPropertyNames(frame.contentWindow));
  frame.remove();
  // A fresh frame gets the runtime too, so also look for names no standard global has.
  seen.globals = Object.getOwnPropertyNames(window).filter(k => (!fresh.has(k) || /^__|tabwright/i.test(k)) && k !== 'seen');
  seen.modelContext = typeof document.modelContext + ' ' + /\[native code\]/.test(Function.prototype.toString.call(Object.getPrototypeOf(document.modelContext ?? {}).registerTool ?? (() => {})));
  seen.symbols = Object.getOwnPropertySymbols(window).map(String);
  seen.patched = ['pushState', 'replaceState'].filter(m => !/\\[native code\\]/.test(Function.prototype.toString.call(History.prototype[m])));
  seen.attempts = [];
  for (const key of [...seen.globals, ...Object.getOwnPropertySymbols(window)]) {
    const value = window[key];
    if (!value || (typeof value !== 'object' && typeof value !== 'function')) continue;
    try { window[key] = { snapshot: () => '- button "Fake" [ref=e1]' }; seen.attempts.push(String(key) + ': replaced ' + (window[key] !== value)); } catch (e) { seen.attempts.push(String(key) + ': replace threw'); }
    for (const m of Object.keys(value)) {
      try { value[m] = () => 'fake'; seen.attempts.push(String(key) + '.' + m + ': wrapped ' + (value[m] !== undefined && String(value[m]).includes('fake'))); } catch (e) { seen.attempts.push(String(key) + '.' + m + ': wrap threw'); }
    }
  }
</script>`;

const page = (head: string) => `<!doctype html><html><head><title>Hostile</title>${head}</head><body>${BODY}</body></html>`;

const tw = useServer({
  args: ['--webmcp', 'polyfill'],
  pages: { '/liars': page(LIARS), '/frozen': page(FREEZER), '/detector': page(DETECTOR), '/arrays': page(ARRAY_LIARS), '/plain': page('') },
});

/** The truths the agent must get on the page at `path`, each counted as one attack on them. */
async function truths(attacks: Attacks, path: string): Promise<void> {
  await call(tw.client, 'navigate', { url: `${tw.origin}${path}` });
  const check = async (what: string, run: () => Promise<string | true>) => {
    const outcome = await run().catch((error: Error) => `threw ${error.message.slice(0, 200)}`);
    attacks.check(`${path}: ${what}`, outcome === true, outcome === true ? 'true result' : outcome);
  };
  let snap = '';
  await check('the snapshot names the real elements', async () => {
    snap = (await snapshot(tw.client)).snapshot;
    return /heading "Real heading"/.test(snap) && /button "Real button"/.test(snap) && /textbox "Real field"/.test(snap) && /Real paragraph text/.test(snap) && !/Fake/.test(snap) || snap.slice(0, 300);
  });
  await check('click fires the real handler', async () => {
    const res = await callRaw(tw.client, 'click', { ref: refOf(snap, 'button', 'Real button') });
    if (res.isError) return JSON.stringify(res.content).slice(0, 200);
    const text = (await call<{ pageText: string }>(tw.client, 'get_text', { selector: '#out' })).pageText;
    return /clicked 1/.test(text) || `#out: ${text}`;
  });
  await check('fill_form sets the value', async () => {
    const res = await callRaw(tw.client, 'fill_form', { fields: [{ ref: refOf(snap, 'textbox', 'Real field'), value: 'hello' }] });
    if (res.isError) return JSON.stringify(res.content).slice(0, 200);
    const after = (await snapshot(tw.client)).snapshot;
    const mirror = (await call<{ pageText: string }>(tw.client, 'get_text', { selector: '#mirror' })).pageText;
    return (/textbox "Real field"[^\n]*hello/.test(after) && /typed hello/.test(mirror)) || `${mirror} / ${after.slice(0, 200)}`;
  });
  await check('get_text reads the text', async () => {
    const text = (await call<{ pageText: string }>(tw.client, 'get_text', { selector: '#text' })).pageText;
    return text.trim() === 'Real paragraph text' || text;
  });
  await check('list_webmcp_tools lists the page\'s tool', async () => {
    const { tools } = await call<{ tools: Array<{ name: string; description: string }> }>(tw.client, 'list_webmcp_tools');
    return (tools.length === 1 && tools[0]!.name === 'real_tool' && tools[0]!.description === 'The page\'s real tool') || JSON.stringify(tools).slice(0, 200);
  });
  await check('call_webmcp_tool runs it', async () => {
    const res = await callRaw(tw.client, 'call_webmcp_tool', { name: 'real_tool', arguments: { q: 'x' } });
    const text = res.content.map(c => c.text ?? '').join('\n');
    return (!res.isError && /real result/.test(text)) || text.slice(0, 200);
  });
  await check('execute returns the value', async () => {
    const value = await evaluate<unknown>(tw.client, '({ list: [1, 2, 3], name: document.querySelector("h1").textContent })');
    return JSON.stringify(value) === '{"list":[1,2,3],"name":"Real heading"}' || JSON.stringify(value);
  });
}

test('natives replaced with liars, and prototypes frozen, before the page\'s first script: the tools still tell the truth', LAUNCH_ONLY, async () => {
  const attacks = new Attacks({ target: 'hostile-runtime', what: 'Pages whose first <head> script replaces Function.prototype.call/apply/bind/toString, EventTarget.prototype.addEventListener/dispatchEvent, JSON.parse/stringify, Promise and then, Object.defineProperty and MutationObserver with liars, or freezes Object/Array/Function/EventTarget/Element/Node/Document/Window prototypes, or finds the runtime and tries to replace or wrap it: snapshot, click, fill_form, get_text, list_webmcp_tools, call_webmcp_tool and execute each still give the true result' });
  for (const path of ['/plain', '/liars', '/frozen', '/detector']) await truths(attacks, path);
  const seen = await evaluate<{ globals: string[]; symbols: string[]; patched: string[]; attempts: string[]; modelContext: string }>(tw.client, 'window.seen');
  attacks.finish({ pages: 4, runtimeGlobals: seen.globals.join(' ') || 'none', runtimeSymbols: seen.symbols.length, patchedNatives: seen.patched.join(' ') || 'none', modelContextNative: seen.modelContext, callInto: seen.attempts.join('; ').slice(0, 300) || 'none' });
  // The detector found the runtime and tried to replace or wrap it (else the page would prove nothing).
  assert.ok(seen.globals.includes('__tabwright') && seen.attempts.length > 0, JSON.stringify(seen));
});

// Known limit: the runtime calls Array.prototype's methods as the page leaves them, so a page that replaces them
// before its first script breaks the snapshot, get_text and WebMCP listing, and makes execute return null. Recorded
// as its own target (its failures show in docs/reliability.md) until the runtime stops leaning on them.
test('Array.prototype methods replaced with liars before the page\'s first script: the tools still tell the truth', { ...LAUNCH_ONLY, todo: 'the runtime calls Array.prototype methods the page can replace' }, async () => {
  const attacks = new Attacks({ target: 'hostile-runtime-arrays', what: 'A page whose first <head> script replaces Array.prototype map, filter, forEach, push, join, slice, includes, indexOf, some, every, find, reduce, concat, splice and sort with liars: snapshot, click, fill_form, get_text, list_webmcp_tools, call_webmcp_tool and execute each still give the true result (known limit: they do not)' });
  await truths(attacks, '/arrays');
  attacks.finish();
});
