// The element picker (docs/picker.md), end to end over stdio: a scripted human (Playwright's trusted mouse and
// keyboard, on the server's own browser through its DevTools port) selects elements in the overlay, comments and
// confirms. Asserted: the result and the files (.dom.md, a PNG of the element's box × DPR), every selector matches
// exactly the element picked (CSS in the page, the role selector in Playwright), the ref is the snapshot's, the page's
// DOM is as before and its listeners saw none of the picking; synthetic events from the page cannot pick, confirm or
// cancel; Esc is pick_cancelled, a reload pick_cancelled (navigated), timeoutSec pick_timeout; toggle_ui hides and
// shows a running pick and without one is pick_not_running; a pick past the max-wait answers pending (kind `pick`)
// and wait_for_call returns it; `tabwright pick` works through the daemon; a headed browser on Xvfb picks too, and
// so does a page whose Content-Security-Policy forbids inline styles, and one with a modal dialog open.
// Runs on the launch, cdp, own-chrome and extension lanes (the human attaches to the browser's DevTools endpoint).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePort, until, useServer } from '../fixtures/harness.js';
import { call, callError, callRaw, connect, connectionArgs, evaluate, refOf, TEST_CONNECTION, unlessConnection, type RawResult, type ToolClient } from '../fixtures/mcp.js';
import { startXvfb, xvfbMissing } from '../fixtures/xvfb.js';

/** The max-wait of the test server, in seconds: a pick that waits longer answers pending. */
const MAX_WAIT = 4;

const PAGE = `<!doctype html><title>Picker</title>
<style>body { margin: 20px; font: 16px sans-serif } button { width: 120px; height: 40px } li { height: 30px; width: 200px }</style>
<div id="toolbar"><button id="save" data-testid="save-button" class="btn primary" onclick="seen.push('onclick')">Save</button>
<button class="btn">Cancel edit</button></div>
<ul class="items"><li class="item">First item</li><li class="item">Second item</li><li class="item">Third item</li></ul>
<input id="field" aria-label="Field">
<script>
  window.seen = [];
  for (const type of ['pointerdown', 'mousedown', 'mouseup', 'click', 'pointermove', 'mouseover', 'keydown', 'input', 'focusin']) {
    document.addEventListener(type, e => seen.push('document-capture:' + type), true);
    document.addEventListener(type, e => seen.push('document:' + type));
  }
  for (const li of document.querySelectorAll('li')) li.addEventListener('click', () => seen.push('li'));
</script>`;

interface Selection {
  index: number;
  element: string;
  tag: string;
  role: string;
  name?: string;
  ref?: string;
  selectors: Array<{ tier: string; selector: string }>;
  text: string;
  attributes: Record<string, string>;
  box: { x: number; y: number; width: number; height: number };
  files: { dom: string; png?: string };
  screenshot?: { width: number; height: number };
}
interface PickSet { name: string; dir: string; tabId: number; comment: string; prompt?: string; revision: number; selections: Selection[] }

const HUMAN = unlessConnection(['playwright-server'], 'the scripted human reaches the browser on its DevTools port, which a Playwright server does not offer');
const ONLY_LAUNCH = unlessConnection(['cdp', 'playwright-server', 'own-chrome', 'extension'], 'the CLI\'s daemon launches its own browser');
const port = await freePort();
const ARGS = ['--max-wait', String(MAX_WAIT)];
let human: Browser | undefined;
const tw = useServer({
  // The launched browser (and the extension lane's) opens a DevTools port for the human; an attached one (cdp,
  // own-chrome) has one already.
  args: TEST_CONNECTION === 'launch' || TEST_CONNECTION === 'extension' ? ['--browser-arg', `--remote-debugging-port=${port}`, ...ARGS] : ARGS,
  pages: {
    '/pick': PAGE,
    '/modal': `<!doctype html><title>Modal</title><button>Outside</button>
      <dialog id="d"><p>Ship to</p><button id="inside">Home address</button></dialog><script>d.showModal()</script>`,
  },
  setup: async t => {
    // No inline style or script may run here: the overlay still looks and works the same.
    t.site.route('/strict', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "default-src 'self'; style-src 'self'; script-src 'self'" });
      res.end(PAGE);
    });
    if (HUMAN.skip) return;
    await outcome(callRaw(t.client, 'navigate', { url: 'about:blank' })); // starts the browser (it may take past the max-wait)
    human = await chromium.connectOverCDP(await devtoolsEndpoint());
  },
});

/** The DevTools endpoint of the server's browser: the port it was launched with, or the attached browser's. */
async function devtoolsEndpoint(): Promise<string> {
  if (TEST_CONNECTION === 'launch' || TEST_CONNECTION === 'extension') return `http://127.0.0.1:${port}`;
  const args = await connectionArgs(ARGS); // the same remote browser the server was given
  const endpoint = args.indexOf('--cdp-endpoint');
  if (endpoint >= 0) return args[endpoint + 1]!;
  const profile = args[args.indexOf('--own-chrome-profile') + 1]!;
  return `http://127.0.0.1:${readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]}`;
}
after(async () => {
  await human?.close().catch(() => undefined); // disconnects only: the server owns the browser
});

/** The human's view of the tab at `path`. */
async function humanPage(path: string): Promise<Page> {
  const url = `${tw.origin}${path}`;
  return await until(`the page ${url}`, () => human!.contexts().flatMap(c => c.pages()).find(p => p.url() === url));
}

/** The result of a call that may have answered pending: followed with wait_for_call until it ends. */
async function outcome(pending: Promise<RawResult>, client: ToolClient = tw.server.client): Promise<RawResult> {
  let result = await pending;
  while ((result.structuredContent as { pending?: boolean } | undefined)?.pending) {
    result = await callRaw(client, 'wait_for_call', { callId: (result.structuredContent as { callId: string }).callId });
  }
  return result;
}

/** Waits for the overlay to be in the page (its host element). */
async function overlayShown(page: Page): Promise<void> {
  await page.waitForSelector('tabwright-picker', { state: 'attached' });
}

/** The centre of an element of the overlay's closed shadow root, as the human sees it on screen (found through DevTools). */
async function overlayPoint(page: Page, selector: string): Promise<{ x: number; y: number }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: true }) as { root: DomNode };
    const host = find(root, n => n.localName === 'tabwright-picker');
    assert.ok(host?.shadowRoots?.[0], 'the overlay has a shadow root');
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: host.shadowRoots[0].nodeId, selector });
    const { model } = await cdp.send('DOM.getBoxModel', { nodeId });
    const [x1, y1, , , x3, y3] = model.content;
    return { x: (x1! + x3!) / 2, y: (y1! + y3!) / 2 };
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}
interface DomNode { nodeId: number; localName?: string; children?: DomNode[]; shadowRoots?: DomNode[] }
function find(node: DomNode, test: (n: DomNode) => boolean): DomNode | undefined {
  if (test(node)) return node;
  for (const child of [...(node.children ?? []), ...(node.shadowRoots ?? [])]) {
    const found = find(child, test);
    if (found) return found;
  }
  return undefined;
}

/** The human moves to the element of `selector` and clicks it (trusted input). */
async function clickElement(page: Page, selector: string): Promise<void> {
  const box = await page.locator(selector).boundingBox();
  assert.ok(box, `${selector} has a box`);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 3 });
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

async function clickOverlay(page: Page, selector: string): Promise<void> {
  const { x, y } = await overlayPoint(page, selector);
  await page.mouse.click(x, y);
}

/** PNG width and height from its header. */
function pngSize(file: string): { width: number; height: number } {
  const png = readFileSync(file);
  assert.equal(png.subarray(0, 8).toString('hex'), '89504e470d0a1a0a', 'a PNG signature');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

test('the human picks two elements, comments and confirms: files, selectors, ref, screenshot, the page untouched', HUMAN, async () => {
  const snap = await tw.open('/pick');
  const saveRef = refOf(snap.snapshot, 'button', 'Save');
  const page = await humanPage('/pick');
  const domBefore = await evaluate<string>(tw.client, 'document.documentElement.outerHTML');

  const picking = callRaw(tw.client, 'pick_elements', { prompt: 'Pick the save button and the second item', name: 'toolbar-set' });
  await overlayShown(page);
  await clickElement(page, '#save');
  await clickElement(page, 'li:nth-child(2)');
  await clickElement(page, 'li:nth-child(3)');
  await clickElement(page, 'li:nth-child(3)'); // a second click unselects
  await clickOverlay(page, 'textarea');
  await page.keyboard.type('Make Save green');
  await clickOverlay(page, 'button.confirm');
  const result = await outcome(picking);
  assert.equal(result.isError, undefined, JSON.stringify(result.content));
  const set = result.structuredContent as unknown as PickSet;
  const text = result.content[0]!.text!;

  assert.equal(set.name, 'toolbar-set');
  assert.equal(set.comment, 'Make Save green');
  assert.equal(set.prompt, 'Pick the save button and the second item');
  assert.deepEqual(set.selections.map(s => [s.index, s.tag, s.role, s.name, s.text]), [
    [1, 'button', 'button', 'Save', 'Save'],
    [2, 'li', 'listitem', undefined, 'Second item'],
  ]);
  const [save, item] = set.selections as [Selection, Selection];
  assert.equal(save.ref, saveRef, 'the ref of the snapshot');
  assert.deepEqual(save.selectors.map(s => s.tier), ['id', 'test', 'aria', 'class', 'structural']);
  assert.deepEqual(save.selectors.slice(0, 3).map(s => s.selector), ['#save', '[data-testid="save-button"]', 'role=button[name="Save"s]']);
  assert.ok(item.selectors.some(s => s.tier === 'structural'), JSON.stringify(item.selectors));
  assert.equal(save.attributes['data-testid'], 'save-button');

  // Every selector matches exactly its element: CSS in the page, the role selector in Playwright.
  for (const [s, expected] of [[save, 'document.getElementById("save")'], [item, 'document.querySelectorAll("li")[1]']] as const) {
    for (const { tier, selector } of s.selectors) {
      if (tier === 'aria') {
        assert.equal(await page.locator(selector).count(), 1, selector);
        assert.ok(await page.locator(selector).evaluate((el, exp) => el === (0, eval)(exp), expected), selector);
        continue;
      }
      const same = await evaluate<boolean>(tw.client, `(() => { const all = document.querySelectorAll(${JSON.stringify(selector)}); return all.length === 1 && all[0] === ${expected}; })()`);
      assert.ok(same, `${tier} ${selector} matches exactly the element`);
    }
  }

  // The files: one .dom.md and one PNG per element, under .tabwright/dom-context/<name>/.
  assert.equal(set.dir, `${tw.workspace}/.tabwright/dom-context/toolbar-set`);
  const md = readFileSync(save.files.dom, 'utf8');
  assert.ok(save.files.dom.startsWith(set.dir) && save.files.dom.endsWith('.dom.md'));
  for (const line of ['- id: `#save`', '- test: `[data-testid="save-button"]`', 'Comment: Make Save green', `- ref: ${saveRef}`, '- text: Save']) {
    assert.ok(md.includes(line), `${line} in\n${md}`);
  }
  const dpr = await page.evaluate(() => devicePixelRatio);
  for (const s of [save, item]) {
    assert.ok(s.files.png && existsSync(s.files.png), 'a screenshot file');
    const size = pngSize(s.files.png);
    assert.deepEqual(size, s.screenshot);
    assert.ok(Math.abs(size.width - s.box.width * dpr) <= 1 && Math.abs(size.height - s.box.height * dpr) <= 1, `${JSON.stringify(size)} for ${JSON.stringify(s.box)}`);
  }
  assert.equal(save.box.width, 120);
  assert.equal(save.box.height, 40);

  // The text alone tells the model everything.
  for (const part of ['The user picked 2 elements', '"Make Save green"', `[ref=${saveRef}]`, 'id `#save`', 'role=button[name="Save"s]', `${save.element}.png`, set.dir]) {
    assert.ok(text.includes(part), `${part} in\n${text}`);
  }

  // The page is as it was, and none of its listeners saw the picking.
  assert.equal(await evaluate<string>(tw.client, 'document.documentElement.outerHTML'), domBefore);
  // Once the overlay is gone the pointer rests on the page, and the browser sends the element under it a mouseover:
  // the human's pointer arriving, not a picking event.
  assert.deepEqual((await evaluate<string[]>(tw.client, 'seen')).filter(e => !e.endsWith(':mouseover')), []);

  // get_selected_elements returns the latest set (of the tab, by name).
  const latest = await call<PickSet>(tw.client, 'get_selected_elements', {});
  assert.deepEqual(latest.selections, set.selections);
  assert.equal((await call<PickSet>(tw.client, 'get_selected_elements', { name: 'toolbar-set', tabId: set.tabId })).name, 'toolbar-set');
  assert.equal((await callError(tw.client, 'get_selected_elements', { name: 'nope' })).type, 'invalid_arguments');
});

test('synthetic events from the page neither pick, confirm nor cancel', HUMAN, async () => {
  await tw.open('/pick');
  const page = await humanPage('/pick');
  const picking = callRaw(tw.client, 'pick_elements', {});
  await overlayShown(page);
  const confirm = await overlayPoint(page, 'button.confirm');
  const target = await page.locator('#field').boundingBox();
  // A page script's synthetic input (no named functions in here: tsx would wrap them in a helper the page lacks).
  await page.evaluate(([c, t]) => {
    const host = document.querySelector('tabwright-picker')!;
    for (const type of ['pointerdown', 'mousedown', 'mouseup', 'click']) {
      host.dispatchEvent(new MouseEvent(type, { clientX: t.x + 5, clientY: t.y + 5, bubbles: true, composed: true }));
    }
    host.dispatchEvent(new MouseEvent('click', { clientX: c.x, clientY: c.y, bubbles: true, composed: true }));
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    (document.getElementById('field') as HTMLElement).click();
  }, [confirm, target!] as const);
  // Still running: the human's trusted clicks pick one element and confirm.
  await clickElement(page, 'li:nth-child(1)');
  await clickOverlay(page, 'button.confirm');
  const result = await outcome(picking);
  assert.equal(result.isError, undefined, JSON.stringify(result.content));
  assert.deepEqual((result.structuredContent as unknown as PickSet).selections.map(s => s.text), ['First item']);
  await until('the overlay removed', async () => (await page.locator('tabwright-picker').count()) === 0);
});

test('Esc cancels (pick_cancelled), a newer pick replaces a running one; toggle_ui hides and shows a running pick, and without one is pick_not_running', HUMAN, async () => {
  await tw.open('/pick');
  const page = await humanPage('/pick');
  assert.equal((await callError(tw.client, 'toggle_ui', {})).type, 'pick_not_running');

  const picking = callRaw(tw.client, 'pick_elements', {});
  await overlayShown(page);
  const hidden = await call<{ visible: boolean }>(tw.client, 'toggle_ui', { visible: false });
  assert.equal(hidden.visible, false);
  // Hidden, the page is the human's again: their click reaches it.
  await clickElement(page, 'li:nth-child(1)');
  assert.ok((await evaluate<string[]>(tw.client, 'seen')).includes('li'));
  assert.equal((await call<{ visible: boolean }>(tw.client, 'toggle_ui', {})).visible, true);

  // A second pick on the tab replaces the first; Esc then cancels the second.
  const second = callRaw(tw.client, 'pick_elements', {});
  const replaced = (await outcome(picking)).structuredContent as { error: { type: string }; reason: string };
  assert.deepEqual([replaced.error.type, replaced.reason], ['pick_cancelled', 'replaced']);
  await overlayShown(page);
  await page.keyboard.press('Escape');
  const result = await outcome(second);
  assert.deepEqual([(result.structuredContent as { error: { type: string } }).error.type, (result.structuredContent as { reason: string }).reason], ['pick_cancelled', 'user']);
  assert.equal(await page.locator('tabwright-picker').count(), 0, 'the overlay is gone');
  assert.equal((await callError(tw.client, 'toggle_ui', {})).type, 'pick_not_running');
});

test('a page whose Content-Security-Policy forbids inline styles: the overlay is styled and picks all the same', HUMAN, async () => {
  await tw.open('/strict');
  const page = await humanPage('/strict');
  const picking = callRaw(tw.client, 'pick_elements', {});
  await overlayShown(page);
  const confirm = await overlayPoint(page, 'button.confirm');
  const viewport = await page.evaluate(() => ({ width: innerWidth, height: innerHeight }));
  assert.ok(confirm.x > viewport.width / 2 && confirm.y > viewport.height / 2, `the panel sits bottom right: ${JSON.stringify(confirm)} in ${JSON.stringify(viewport)}`);
  await clickElement(page, '#save');
  await clickOverlay(page, 'button.confirm');
  const result = await outcome(picking);
  assert.equal(result.isError, undefined, JSON.stringify(result.content));
  assert.deepEqual((result.structuredContent as unknown as PickSet).selections.map(s => s.text), ['Save']);
});

test('with a modal dialog open (the rest of the page inert) the person picks inside it; the dialog is left as it was', HUMAN, async () => {
  await tw.open('/modal');
  const page = await humanPage('/modal');
  const before = await evaluate<string>(tw.client, 'document.documentElement.outerHTML');
  const picking = callRaw(tw.client, 'pick_elements', { timeoutSec: 60 });
  await overlayShown(page);
  await clickElement(page, '#inside');
  await clickOverlay(page, 'button.confirm');
  const result = await outcome(picking);
  assert.equal(result.isError, undefined, JSON.stringify(result.content));
  assert.deepEqual((result.structuredContent as unknown as PickSet).selections.map(s => s.text), ['Home address']);
  assert.equal(await evaluate<string>(tw.client, 'document.documentElement.outerHTML'), before);
});

test('the page reloading under the pick ends it: pick_cancelled (navigated)', HUMAN, async () => {
  await tw.open('/pick');
  const page = await humanPage('/pick');
  const picking = callRaw(tw.client, 'pick_elements', { timeoutSec: 60 });
  await overlayShown(page);
  await page.reload();
  const result = await outcome(picking);
  const { error, reason } = result.structuredContent as { error: { type: string }; reason: string };
  assert.deepEqual([error.type, reason], ['pick_cancelled', 'navigated']);
  assert.equal((await callError(tw.client, 'toggle_ui', {})).type, 'pick_not_running');
});

test('the client cancelling the call removes the overlay', HUMAN, async () => {
  await tw.open('/pick');
  const page = await humanPage('/pick');
  const abort = new AbortController();
  const picking = tw.client.callTool({ name: 'pick_elements', arguments: {} }, { signal: abort.signal });
  await overlayShown(page);
  abort.abort();
  await assert.rejects(picking);
  await until('the overlay removed', async () => (await page.locator('tabwright-picker').count()) === 0);
  assert.equal((await callError(tw.client, 'toggle_ui', {})).type, 'pick_not_running');
});

test('nobody confirms within timeoutSec: pick_timeout, the overlay removed', HUMAN, async () => {
  await tw.open('/pick');
  const page = await humanPage('/pick');
  const error = await callError(tw.client, 'pick_elements', { timeoutSec: 1 });
  assert.equal(error.type, 'pick_timeout');
  if (TEST_CONNECTION === 'launch') assert.match(error.message, /headless/, 'the launched browser is headless here, and the message says so');
  assert.equal(await page.locator('tabwright-picker').count(), 0);
});

test('a pick past the max-wait answers pending (kind pick); wait_for_call returns the selections', HUMAN, async () => {
  await tw.open('/pick');
  const page = await humanPage('/pick');
  const first = await callRaw(tw.client, 'pick_elements', { name: 'late' });
  const pending = first.structuredContent as { pending: boolean; callId: string; waitingFor: { kind: string; tabId: number; headless?: boolean; text: string } };
  assert.equal(pending.pending, true);
  assert.equal(pending.waitingFor.kind, 'pick');
  assert.equal(pending.waitingFor.headless, TEST_CONNECTION === 'launch' ? true : undefined);
  const text = first.content[0]!.text!;
  assert.match(text, /pick elements in tab \d+/);
  assert.match(text, /wait_for_call/);

  await clickElement(page, '#save');
  await clickOverlay(page, 'button.confirm');
  const result = await outcome(Promise.resolve(first));
  assert.equal(result.isError, undefined, JSON.stringify(result.content));
  assert.equal((result.structuredContent as unknown as PickSet).selections[0]!.attributes.id, 'save');
});

test('tabwright pick: the CLI waits through the daemon for the human, and the files land in its cwd', ONLY_LAUNCH, async () => {
  const { cliHome, cli, ok } = await import('../fixtures/cli.js');
  const devtools = await freePort();
  const home = await cliHome();
  home.env.TABWRIGHT_BROWSER_ARGS += ` "--remote-debugging-port=${devtools}"`;
  let browser: Browser | undefined;
  try {
    await ok(home, ['navigate', `${tw.origin}/pick`]);
    browser = await chromium.connectOverCDP(`http://127.0.0.1:${devtools}`);
    const page = await until('the page', () => browser!.contexts().flatMap(c => c.pages()).find(p => p.url() === `${tw.origin}/pick`));
    const picking = cli(home, ['pick', '--prompt', 'The save button', '--name', 'from-cli']);
    await overlayShown(page);
    await clickElement(page, '#save');
    await clickOverlay(page, 'button.confirm');
    const run = await picking;
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const set = run.json!.result as PickSet;
    assert.equal(set.dir, `${home.cwd}/.tabwright/dom-context/from-cli`);
    assert.deepEqual(set.selections.map(s => s.selectors[0]!.selector), ['#save']);
    assert.ok(existsSync(set.selections[0]!.files.dom) && existsSync(set.selections[0]!.files.png!));
  } finally {
    await browser?.close().catch(() => undefined);
    await home.cleanup();
  }
});

test('in a headed browser (on Xvfb) the overlay is on screen and the pick works; nothing says headless', { ...ONLY_LAUNCH, ...(xvfbMissing() ? { skip: xvfbMissing() as string } : {}) }, async () => {
  const display = await startXvfb();
  const devtools = await freePort();
  const headed = await connect({ args: ['--headed', '--browser-arg', `--remote-debugging-port=${devtools}`, ...ARGS], env: { DISPLAY: display.name } });
  let browser: Browser | undefined;
  try {
    await outcome(callRaw(headed.client, 'navigate', { url: `${tw.origin}/pick` }), headed.client);
    assert.equal((await call<{ headless: boolean }>(headed.client, 'get_bridge_status', {})).headless, false);
    browser = await chromium.connectOverCDP(`http://127.0.0.1:${devtools}`);
    const page = await until('the page', () => browser!.contexts().flatMap(c => c.pages()).find(p => p.url() === `${tw.origin}/pick`));
    const picking = callRaw(headed.client, 'pick_elements', { prompt: 'Pick the second item' });
    await overlayShown(page);
    await clickElement(page, 'li:nth-child(2)');
    await clickOverlay(page, 'button.confirm');
    const result = await outcome(picking, headed.client);
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
    const set = result.structuredContent as unknown as PickSet;
    assert.deepEqual(set.selections.map(s => s.text), ['Second item']);
    assert.ok(!result.content[0]!.text!.includes('headless'));
  } finally {
    await browser?.close().catch(() => undefined);
    await headed.close();
    await display.stop();
  }
});
