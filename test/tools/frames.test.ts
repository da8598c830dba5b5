// Frames end to end: same-origin, srcdoc and cross-site
// (out-of-process) iframes appear nested under their iframe line with refs
// unique across frames; click, type, hover and select_option act on refs
// inside every kind of frame, frames nested in frames included; `execute
// {ref}` runs in the element's own frame.
//
// The cross-site origin is http://other.test:<port>, mapped to 127.0.0.1 by
// a host rule; Chromium gives a frame of another site its own renderer
// process (`--site-per-process` makes sure of it), which the first test
// checks through CDP with playwright-core directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { findBrowser } from '../../src/browser/launch/findBrowser.js';
import { freePort, until, useSession } from '../fixtures/harness.js';
import { call, refOf, snapshot } from '../fixtures/mcp.js';

/** Keeps the other.test host on loopback; the last --host-resolver-rules switch is the one Chromium reads. */
const HOST_RULES = '--host-resolver-rules=MAP other.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1';
const BROWSER_ARGS = ['--site-per-process', HOST_RULES];

/** Controls every frame gets, named after the frame (`Same button`, `Cross field`, ...). */
function controls(name: string): string {
  return `<button id="btn" onclick="this.textContent = '${name} clicked'">${name} button</button>
<label>${name} field <input id="field"></label>
<label>${name} size <select id="size"><option value="s">Small</option><option value="l">Large</option></select></label>
<div id="hover" role="button" tabindex="0" aria-label="${name} hover" style="width:120px;height:30px"
  onmouseenter="document.getElementById('hovered').textContent = 'yes'">hover</div>
<p id="hovered">no</p>`;
}

let port: number;
let other: string;
const tw = useSession({ args: BROWSER_ARGS.flatMap(a => ['--browser-arg', a]), setup: ({ site }) => {
  port = Number(new URL(site.origin).port);
  other = `http://other.test:${port}`;
  site.page('/frames', `<!doctype html><title>Frames</title>
<h1>Frames</h1>
<button id="top" onclick="this.textContent = 'Top clicked'">Top button</button>
<div style="height: 1500px"></div>
<iframe title="Same frame" src="/same" width="500" height="260"></iframe>
<iframe title="Srcdoc frame" width="500" height="260" srcdoc="${controls('Srcdoc').replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"></iframe>
<iframe title="Cross frame" src="${other}/cross" width="500" height="420"></iframe>`);
  site.page('/same', `<!doctype html><title>Same</title>${controls('Same')}`);
  // Frame in frame: the cross-site frame holds a frame back on the top page's origin (A → B → A).
  site.page('/cross', `<!doctype html><title>Cross</title>${controls('Cross')}
<decl-closed><template shadowrootmode="closed"><button onclick="window.shadowClicks = (window.shadowClicks || 0) + 1">Cross closed button</button></template></decl-closed>
<iframe title="Deep frame" src="${site.origin}/deep" width="480" height="150"></iframe>`);
  site.page('/deep', `<!doctype html><title>Deep</title><button id="btn" onclick="this.textContent = 'Deep clicked'">Deep button</button>
<label>Deep field <input id="field"></label>`);
  // Frames that load late, never, or fail: a cross-site frame answered after 400 ms, one held until the test
  // answers it, one on a port nothing listens on, one on a host the browser cannot resolve (the host rules).
  site.page('/loading', `<!doctype html><title>Loading</title>
<iframe title="Later frame" src="${other}/later"></iframe>
<iframe title="Held frame" src="${other}/held"></iframe>
<iframe title="Refused frame" src="http://other.test:${deadPort}/"></iframe>
<iframe title="Unresolved frame" src="http://nowhere.test:${port}/"></iframe>`);
  site.page('/late', `<!doctype html><title>Late</title><iframe title="Later frame" src="${other}/later"></iframe>
<script>addEventListener('pageshow', e => { if (e.persisted) document.title = 'Late restored'; });</script>`);
  site.route('/later', (_req, res) => {
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<button>Later button</button>'), 400);
  });
  site.route('/held', (_req, res) => {
    held.push(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<button>Held button</button>'));
  });
} });

/** Held /held responses, answered by the test. */
const held: Array<() => void> = [];
/** A port nothing listens on. */
const deadPort = await freePort();

/** Loads the page and waits for its load event, which waits for every frame in it. */
async function open(): Promise<void> {
  await call(tw.client, 'navigate', { url: `${tw.origin}/frames`, waitUntil: 'load' });
}

/** What `code` evaluates to in the frame of `ref`, with the element as `element`. */
async function inFrame<T>(ref: string, code: string): Promise<T> {
  return (await call<{ value: T }>(tw.client, 'execute', { ref, code })).value;
}

test('the cross-site frame is out of process under these switches', async () => {
  // Checked with playwright-core directly: newCDPSession(frame) only works for a frame with a target of its own (an OOPIF).
  const browser = await chromium.launch({ executablePath: findBrowser(undefined), headless: true, args: BROWSER_ARGS });
  try {
    const page = await browser.newPage();
    await page.goto(`${tw.origin}/frames`);
    const cross = page.frames().find(f => f.url() === `${other}/cross`);
    assert.ok(cross, 'the cross-site frame loaded');
    const session = await page.context().newCDPSession(cross);
    await session.detach();
    const same = page.frames().find(f => f.url() === `${tw.origin}/same`)!;
    await assert.rejects(page.context().newCDPSession(same), /does not have a separate CDP session/);
  } finally {
    await browser.close();
  }
});

test('every frame is nested under its iframe line, with refs unique across frames', async () => {
  await open();
  const { snapshot: text } = await snapshot(tw.client);
  const lines = text.split('\n');
  const indentOf = (needle: string) => {
    const line = lines.find(l => l.includes(needle));
    assert.ok(line, `no line with ${needle} in:\n${text}`);
    return { index: lines.indexOf(line), indent: /^ */.exec(line)![0].length };
  };
  const frames = [['Same frame', 'Same'], ['Srcdoc frame', 'Srcdoc'], ['Cross frame', 'Cross']] as const;
  for (const [title, name] of frames) {
    const frame = indentOf(`- iframe "${title}" [ref=`);
    const button = indentOf(`- button "${name} button" [ref=`);
    assert.equal(button.indent, frame.indent + 2, `${name} button sits right under its iframe`);
    assert.ok(button.index > frame.index);
    // Nothing between the iframe line and its button is at the iframe's level or above.
    for (let i = frame.index + 1; i < button.index; i++) assert.ok(/^ */.exec(lines[i]!)![0].length > frame.indent, lines[i]);
  }
  const deepFrame = indentOf('- iframe "Deep frame" [ref=');
  const crossFrame = indentOf('- iframe "Cross frame" [ref=');
  assert.ok(deepFrame.indent > crossFrame.indent && deepFrame.index > crossFrame.index);
  assert.equal(indentOf('- button "Deep button" [ref=').indent, deepFrame.indent + 2);
  assert.equal(indentOf('- button "Top button" [ref=').indent, 0);

  const refs = [...text.matchAll(/\[ref=(e\d+)\]/g)].map(m => m[1]);
  // Top: 1 button + 3 iframes; Same, Srcdoc, Cross: 4 controls each (+ Cross's closed-root button and iframe); Deep: 2.
  assert.equal(refs.length, 4 + 4 * 3 + 2 + 2);
  assert.equal(new Set(refs).size, refs.length, 'refs are unique across frames');
  // A second snapshot gives every element the same ref.
  assert.equal((await snapshot(tw.client)).snapshot, text);
});

for (const name of ['Same', 'Srcdoc', 'Cross', 'Deep']) {
  test(`click and type by ref inside the ${name} frame`, async () => {
    await open();
    const { snapshot: text, revision } = await snapshot(tw.client);
    const button = refOf(text, 'button', `${name} button`);
    const field = refOf(text, 'textbox', `${name} field`);
    const clicked = await call<{ revision: number; navigation?: unknown }>(tw.client, 'click', { ref: button });
    assert.equal(clicked.revision, revision);
    assert.equal(clicked.navigation, undefined);
    assert.equal(await inFrame(button, 'element.textContent'), `${name} clicked`);
    await call(tw.client, 'type', { ref: field, text: `hello ${name}` });
    assert.equal(await inFrame(field, 'element.value'), `hello ${name}`);
    assert.equal(await inFrame(field, 'document.activeElement === element'), true);
    // The top page is untouched.
    assert.equal(await call<{ value: string }>(tw.client, 'execute', { code: 'document.getElementById("top").textContent' }).then(r => r.value), 'Top button');
  });
}

for (const name of ['Same', 'Srcdoc', 'Cross']) {
  test(`select_option and hover by ref inside the ${name} frame`, async () => {
    await open();
    const { snapshot: text } = await snapshot(tw.client);
    const select = refOf(text, 'combobox', `${name} size`);
    const chosen = await call<{ selected: string[] }>(tw.client, 'select_option', { ref: select, values: ['Large'] });
    assert.deepEqual(chosen.selected, ['l']);
    assert.equal(await inFrame(select, 'element.value'), 'l');
    const hoverTarget = refOf(text, 'button', `${name} hover`);
    assert.equal(await inFrame(hoverTarget, 'document.getElementById("hovered").textContent'), 'no');
    await call(tw.client, 'hover', { ref: hoverTarget });
    assert.equal(await inFrame(hoverTarget, 'document.getElementById("hovered").textContent'), 'yes');
    assert.equal(await inFrame(hoverTarget, 'element.matches(":hover")'), true);
  });
}

test('execute with a ref runs in that element\'s frame', async () => {
  await open();
  const { snapshot: text, tabId } = await snapshot(tw.client);
  const cross = refOf(text, 'button', 'Cross button');
  const result = await call<{ tabId: number; value: unknown; bytes: number }>(tw.client, 'execute', {
    ref: cross,
    code: '({ href: location.href, text: element.textContent, id: element.id, top: window.top === window })',
  });
  const value = { href: `${other}/cross`, text: 'Cross button', id: 'btn', top: false };
  assert.deepEqual(result, { tabId, value, bytes: JSON.stringify(value).length });
  // A function body with await and return works too, and the deep frame (A → B → A) reports its own URL.
  const deep = refOf(text, 'button', 'Deep button');
  assert.equal(await inFrame(deep, 'await Promise.resolve(); return location.href + " " + element.textContent;'), `${tw.origin}/deep Deep button`);
  // Without a ref the code runs in the main frame, where `element` is not defined.
  const top = await call<{ value: string }>(tw.client, 'execute', { code: 'location.href + " " + typeof element' });
  assert.equal(top.value, `${tw.origin}/frames undefined`);
});

test('fill_form, scroll and get_page_context take refs inside frames', async () => {
  await open();
  const { snapshot: text } = await snapshot(tw.client);
  const filled = await call<{ filled: number }>(tw.client, 'fill_form', {
    fields: [
      { ref: refOf(text, 'textbox', 'Cross field'), value: 'cross text' },
      { ref: refOf(text, 'combobox', 'Same size'), value: 'l' },
      { ref: refOf(text, 'textbox', 'Deep field'), value: 'deep text' },
    ],
  });
  assert.equal(filled.filled, 3);
  assert.equal(await inFrame(refOf(text, 'textbox', 'Cross field'), 'element.value'), 'cross text');
  assert.equal(await inFrame(refOf(text, 'combobox', 'Same size'), 'element.value'), 'l');
  assert.equal(await inFrame(refOf(text, 'textbox', 'Deep field'), 'element.value'), 'deep text');

  // The frames sit below a 1500 px spacer: scrolling the deep button into view scrolls the top page
  // until the cross frame holding the deep one is in the top viewport.
  assert.equal(await call<{ value: number }>(tw.client, 'execute', { code: 'scrollTo(0, 0); return scrollY;' }).then(r => r.value), 0);
  const scrolled = await call<{ scroll: { y: number } }>(tw.client, 'scroll', { ref: refOf(text, 'button', 'Deep button') });
  assert.ok(scrolled.scroll.y > 0, JSON.stringify(scrolled.scroll));
  const inView = await call<{ value: boolean }>(tw.client, 'execute', {
    code: 'const cross = document.querySelector("iframe[title=\'Cross frame\']").getBoundingClientRect(); return cross.top < innerHeight && cross.bottom > 0;',
  });
  assert.equal(inView.value, true);

  // A snapshot scoped to a cross-site iframe's ref shows its document (the deep frame spliced in), with the same refs.
  const frameRef = refOf(text, 'iframe', 'Cross frame');
  const { snapshot: scoped } = await snapshot(tw.client, { ref: frameRef });
  assert.equal(scoped.split('\n')[0], `- iframe "Cross frame" [ref=${frameRef}]:`);
  for (const [role, name] of [['button', 'Cross button'], ['textbox', 'Cross field'], ['button', 'Cross closed button'], ['iframe', 'Deep frame'], ['button', 'Deep button']] as const) {
    assert.equal(refOf(scoped, role, name), refOf(text, role, name));
  }
});

test('a declarative closed shadow root inside a cross-site frame is found and clicks', async () => {
  await open();
  const { snapshot: text } = await snapshot(tw.client);
  const ref = refOf(text, 'button', 'Cross closed button');
  assert.equal(text.split('"Cross closed button"').length - 1, 1);
  await call(tw.client, 'click', { ref });
  assert.deepEqual(await inFrame(ref, '[window.shadowClicks, element.getRootNode().mode, document.querySelector("decl-closed").shadowRoot]'), [1, 'closed', null]);
});

test('navigate waits for the frames of the page; a frame still loading or failed is marked on its iframe line', async () => {
  // A timeout bounds the wait for the held frame; the one answered after 400 ms is in long before it (6 s leaves
  // room for a loaded machine: 2.5 s was once too short beside two other test processes on two cores).
  await call(tw.client, 'navigate', { url: `${tw.origin}/loading`, timeoutMs: 6_000 });
  const { snapshot: text } = await snapshot(tw.client);
  const lineOf = (title: string) => text.split('\n').find(l => l.startsWith(`- iframe "${title}"`));
  assert.equal(lineOf('Later frame'), `- iframe "Later frame" [ref=${refOf(text, 'iframe', 'Later frame')}]:`, text);
  refOf(text, 'button', 'Later button');
  assert.equal(lineOf('Held frame'), `- iframe "Held frame" [ref=${refOf(text, 'iframe', 'Held frame')}] [loading]`, text);
  assert.equal(lineOf('Refused frame'), `- iframe "Refused frame" [ref=${refOf(text, 'iframe', 'Refused frame')}] [failed=net::ERR_CONNECTION_REFUSED]`, text);
  assert.equal(lineOf('Unresolved frame'), `- iframe "Unresolved frame" [ref=${refOf(text, 'iframe', 'Unresolved frame')}] [failed=net::ERR_NAME_NOT_RESOLVED]`, text);
  for (const answer of held.splice(0)) answer();
  const heldRef = refOf(text, 'iframe', 'Held frame');
  const loaded = await until('the held frame in the snapshot', async () => {
    const now = (await snapshot(tw.client)).snapshot;
    return now.includes('Held button') ? now : undefined;
  }, 10_000);
  assert.ok(loaded.includes(`- iframe "Held frame" [ref=${heldRef}]:\n  - button "Held button" [ref=`), loaded);
  assert.ok(!loaded.includes('[loading]'), loaded);
});

test('reload_tab and navigate back wait for the frames of the page too', async () => {
  // The frame answers 400 ms after the top document is ready: without the wait the snapshot shows it [loading].
  const laterLine = (text: string) => text.split('\n').find(l => l.startsWith('- iframe "Later frame"'));
  const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/late` });
  await call(tw.client, 'reload_tab', { tabId });
  let { snapshot: text } = await snapshot(tw.client);
  assert.equal(laterLine(text), `- iframe "Later frame" [ref=${refOf(text, 'iframe', 'Later frame')}]:`, text);
  refOf(text, 'button', 'Later button');
  await call(tw.client, 'navigate', { tabId, url: `${tw.origin}/same` });
  const back = await call<{ title: string }>(tw.client, 'navigate', { tabId, url: 'back' });
  ({ snapshot: text } = await snapshot(tw.client));
  if (back.title === 'Late restored') {
    // An attached browser keeps the back-forward cache on: the page came back from it, and Playwright lost its
    // out-of-process frame. The line says so instead of showing the frame empty; a reload reads it again.
    assert.equal(laterLine(text), `- iframe "Later frame" [ref=${refOf(text, 'iframe', 'Later frame')}] [unreachable]`, text);
    await call(tw.client, 'reload_tab', { tabId });
    ({ snapshot: text } = await snapshot(tw.client));
  }
  assert.equal(laterLine(text), `- iframe "Later frame" [ref=${refOf(text, 'iframe', 'Later frame')}]:`, text);
  refOf(text, 'button', 'Later button');
});

test('a fresh server whose first page holds a cross-site frame: its refs act at once, through the selector engine too', async () => {
  // A server process of its own: the first snapshot it ever takes is of a page with an out-of-process frame.
  const { connect } = await import('../fixtures/mcp.js');
  const server = await connect({ args: BROWSER_ARGS.flatMap(a => ['--browser-arg', a]) });
  try {
    await call(server.client, 'navigate', { url: `${tw.origin}/frames` });
    const snap = await snapshot(server.client);
    // First what still resolves refs through the tabwright-ref selector engine (Locators): a selector scoped
    // under a ref, and drag (its pointer passes over the hover target, which says so).
    const frame = refOf(snap.snapshot, 'iframe', 'Cross frame');
    const hovered = await snapshot(server.client, { ref: frame, selector: '#hovered' });
    assert.match(hovered.snapshot, /no/);
    const button = refOf(snap.snapshot, 'button', 'Cross button');
    await call(server.client, 'drag', { fromRef: refOf(snap.snapshot, 'button', 'Cross hover'), toRef: button });
    assert.match((await snapshot(server.client, { ref: frame, selector: '#hovered' })).snapshot, /yes/);
    const field = refOf(snap.snapshot, 'textbox', 'Cross field');
    await call(server.client, 'click', { ref: button });
    await call(server.client, 'type', { ref: field, text: 'typed in the frame' });
    const after = await snapshot(server.client);
    assert.match(after.snapshot, /button "Cross clicked"/);
    assert.match(after.snapshot, /textbox "Cross field" \[ref=\w+\]: typed in the frame/);
  } finally {
    await server.close();
  }
});
