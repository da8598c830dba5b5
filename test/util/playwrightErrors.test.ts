// Playwright's error messages, matched in one place (src/util/playwrightErrors.ts):
// each kind against the real error of a real Chromium (a covered button, a closed
// page, a timed-out locator, ...), and the few phrases that are too costly to provoke
// against playwright-core's own source. Then what the tools make of some of them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { createRequire } from 'node:module';
import { chromium, selectors, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { classifyPlaywrightError, netErrorOf, protocolErrorOf, type PlaywrightErrorKind } from '../../src/util/playwrightErrors.js';
import { actionError } from '../../src/tools/actionErrors.js';
import { toToolError } from '../../src/errors.js';
import { playwrightTimeout, timeoutError } from '../../src/browser/playwright.js';
import { raceTimeout } from '../../src/util/wait.js';
import { CHROMIUM } from '../fixtures/remote.js';

let browser: Browser;
let context: BrowserContext;
let page: Page;

before(async () => {
  // Launched without --enable-features=WebMCP: frame.webmcp refuses, which one case needs.
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  context = await browser.newContext();
  page = await context.newPage();
  await page.setContent(`<style>@keyframes move { from { transform: translateX(0) } to { transform: translateX(200px) } }</style>
<button id=hidden style="display:none">H</button><button id=disabled disabled>D</button><input id=readonly readonly><div id=div>x</div>
<button id=moving style="position:absolute;top:400px;animation:move 0.2s infinite linear">M</button><select id=select><option>a</option></select>
<input id=stubborn type=checkbox onclick="event.preventDefault()"><input id=file type=file><input id=number type=number>
<div style="position:relative;width:fit-content"><button id=covered>C</button><div id=cover style="position:absolute;inset:0"></div></div>`);
  // Playwright's injected script goes into the document with its first action: not inside a timed case.
  await page.click('#div');
});
after(async () => {
  await browser?.close();
});

/** The error `produce` rejects with (fails the test when it resolves). */
async function errorOf(produce: () => Promise<unknown>): Promise<Error> {
  try {
    await produce();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

const kinds = (error: unknown) => [...classifyPlaywrightError(error)];

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise(resolve => server.close(resolve));
  return port;
}

const SHORT = { timeout: 400 };
const CASES: Array<[string, () => Promise<unknown>, PlaywrightErrorKind[]]> = [
  // A longer timeout: the call log names the cover only once a retry got as far as the hit test (a loaded machine).
  ['click on a covered button', () => page.click('#covered', { timeout: 1500 }), ['covered', 'timeout']],
  ['click on a hidden button', () => page.click('#hidden', SHORT), ['not_visible', 'timeout']],
  ['click on a disabled button', () => page.click('#disabled', SHORT), ['not_enabled', 'timeout']],
  ['fill on a read-only input', () => page.fill('#readonly', 'x', SHORT), ['not_editable', 'timeout']],
  ['fill on a div', () => page.fill('#div', 'x', SHORT), ['not_editable']],
  ['click on a handle whose element left the page', async () => {
    const handle = (await page.evaluateHandle(() => document.body.appendChild(document.createElement('button')))).asElement()!;
    await handle.evaluate(el => el.remove());
    return await handle.click(SHORT);
  }, ['not_attached']],
  ['fill on a checkbox', () => page.fill('#stubborn', 'x', SHORT), ['not_text_input']],
  ['fill on a number field with letters', () => page.fill('#number', 'abc', SHORT), ['not_a_number']],
  ['click on a moving button', () => page.click('#moving', SHORT), ['not_stable', 'timeout']],
  ['check on a div', () => page.check('#div', SHORT), ['not_checkable']],
  ['selectOption on a div', () => page.selectOption('#div', 'a', SHORT), ['not_select']],
  ['selectOption of a missing option', () => page.selectOption('#select', 'zzz', SHORT), ['option_missing', 'timeout']],
  // Its call log ends "waiting for scheduled navigations to finish": document_gone too (no caller asks both).
  ['setChecked on a checkbox that undoes the click', () => page.setChecked('#stubborn', true, SHORT), ['check_unchanged', 'document_gone']],
  ['two files for a single-file input', () => page.setInputFiles('#file', [{ name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('a') }, { name: 'b.txt', mimeType: 'text/plain', buffer: Buffer.from('b') }], SHORT), ['single_file_only']],
  ['an unknown key', () => page.keyboard.press('NoSuchKey'), ['unknown_key']],
  ['a waitForSelector that times out', () => page.waitForSelector('#nothing', { timeout: 50 }), ['timeout']],
  ['a page\'s own exception', () => page.evaluate('throw new Error("boom")'), []],
];

for (const [what, produce, expected] of CASES) {
  test(`real error: ${what} is ${expected.join(' + ') || 'nothing of Playwright\'s'}`, async () => {
    assert.deepEqual(kinds(await errorOf(produce)), expected);
  });
}

test('real error: a load of a closed port is net_error, with its code', async () => {
  const p = await context.newPage();
  const error = await errorOf(async () => p.goto(`http://127.0.0.1:${await closedPort()}/`, { timeout: 10_000 }));
  await p.close();
  // Its call log says "navigating to": document_gone too (pageLoadError asks only for the code).
  assert.deepEqual(kinds(error), ['net_error', 'document_gone']);
  assert.equal(netErrorOf(error), 'net::ERR_CONNECTION_REFUSED');
  assert.equal(netErrorOf(new Error('page.goto: Timeout 1ms exceeded.\nCall log:\n  - net::ERR_FAILED in a log line')), undefined, 'the first line only');
});

test('real error: a navigation during an evaluation, and a detached frame, are document_gone', async () => {
  const p = await context.newPage();
  try {
    await p.setContent('<p>x</p>');
    const pending = p.evaluate(() => new Promise(() => undefined));
    pending.catch(() => undefined);
    await p.evaluate('0');
    await p.goto('data:text/html,<p>y</p>');
    assert.deepEqual(kinds(await errorOf(() => pending)), ['document_gone']);
    await p.setContent('<iframe srcdoc="<p>inner</p>"></iframe>');
    const frame = p.frames()[1]!;
    await frame.waitForLoadState();
    await p.evaluate(() => document.querySelector('iframe')!.remove());
    assert.deepEqual(kinds(await errorOf(() => frame.evaluate('1'))), ['document_gone']);
  } finally {
    await p.close();
  }
});

test('real error: a closed page, and a closed context, are target_closed', async () => {
  const own = await browser.newContext();
  const p = await own.newPage();
  await p.close();
  assert.deepEqual(kinds(await errorOf(() => p.evaluate('1'))), ['target_closed']);
  assert.deepEqual(kinds(await errorOf(() => p.click('button', SHORT))), ['target_closed']);
  await own.close();
  assert.deepEqual(kinds(await errorOf(() => own.newPage())), ['target_closed']);
});

test('real error: a CDP call on a gone execution context is context_not_found', async () => {
  const cdp = await context.newCDPSession(page);
  try {
    const error = await errorOf(() => cdp.send('Runtime.callFunctionOn', { functionDeclaration: '() => 1', executionContextId: 987_654 }));
    assert.deepEqual(kinds(error), ['context_not_found', 'protocol_error']);
  } finally {
    await cdp.detach();
  }
});

test('real error: a value CDP cannot return is protocol_error, with its method and reason; toToolError makes it browser_error', async () => {
  const cdp = await context.newCDPSession(page);
  try {
    const deep = 'let o = {}; const root = o; for (let i = 0; i < 1500; i++) { o.a = {}; o = o.a; } root';
    const error = await errorOf(() => cdp.send('Runtime.evaluate', { expression: deep, returnByValue: true }));
    assert.deepEqual(kinds(error), ['protocol_error']);
    assert.deepEqual(protocolErrorOf(error), { method: 'Runtime.evaluate', reason: 'Object reference chain is too long' });
    assert.equal(protocolErrorOf(new Error('page.evaluate: Error: boom')), undefined);
    // The companion extension's chrome.debugger hands the browser's error object on as JSON.
    assert.deepEqual(protocolErrorOf(new Error('cdpSession.send: Protocol error (Runtime.callFunctionOn): {"code":-32000,"message":"Object reference chain is too long"}')),
      { method: 'Runtime.callFunctionOn', reason: 'Object reference chain is too long' });
    assert.deepEqual(toToolError(error).toData(), {
      type: 'browser_error',
      message: 'The browser failed a protocol command during the call (Runtime.evaluate failed: Object reference chain is too long); this is the browser\'s error, not the page\'s.',
      hint: 'Check the tab (list_tabs, get_page_context) and call again; if it repeats, run with TABWRIGHT_LOG=debug and report the log.',
    });
    assert.deepEqual(toToolError(error).details, { method: 'Runtime.evaluate' });
  } finally {
    await cdp.detach();
  }
});

test('real error: frame.webmcp on a browser launched without WebMCP is webmcp_unavailable', async () => {
  assert.deepEqual(kinds(await errorOf(() => page.mainFrame().webmcp.tools())), ['webmcp_unavailable']);
});

test('real error: frame.webmcp.callTool of a tool the frame does not have is webmcp_tool_gone', async () => {
  const webmcp = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--enable-features=WebMCP'] });
  const server = createHttpServer((_req, res) => res.end('<!doctype html><title>t</title>'));
  try {
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    const tab = await webmcp.newPage();
    await tab.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    assert.deepEqual(kinds(await errorOf(() => tab.mainFrame().webmcp.callTool('absent', {}))), ['webmcp_tool_gone']);
  } finally {
    server.close();
    await webmcp.close();
  }
});

test('real error: registering a selector engine twice is already_registered', async () => {
  const engine = () => ({ query: () => null, queryAll: () => [] });
  await selectors.register('tabwrightErrorsTest', engine);
  assert.deepEqual(kinds(await errorOf(() => selectors.register('tabwrightErrorsTest', engine))), ['already_registered']);
});

test('tabwright\'s own timeouts are Playwright TimeoutErrors', async () => {
  assert.deepEqual(kinds(timeoutError('snapshot: no answer within 5 ms')), ['timeout']);
  assert.deepEqual(kinds(await errorOf(() => raceTimeout(new Promise(() => undefined), playwrightTimeout(5)))), ['timeout']);
});

test('the phrases not provoked here are playwright-core\'s own', () => {
  const bundle = readFileSync(join(dirname(createRequire(import.meta.url).resolve('playwright-core')), 'lib', 'coreBundle.js'), 'utf8');
  const phrases: Array<[string, PlaywrightErrorKind]> = [
    ['Element is outside of the viewport', 'outside_viewport'],
    ['Unknown modifier ', 'unknown_key'],
    ['Execution context was destroyed', 'document_gone'],
    ['Navigating frame was detached!', 'document_gone'],
    ['Session already detached. Most likely the page has been closed.', 'target_closed'],
    ['Page has been closed.', 'target_closed'],
    ['Pipe has been closed', 'target_closed'],
    ['WebMCP is not supported in WebKit.', 'webmcp_unavailable'],
  ];
  for (const [phrase, kind] of phrases) {
    assert.ok(bundle.includes(phrase), `playwright-core says "${phrase}"`);
    assert.ok(classifyPlaywrightError(new Error(`x.y: ${phrase}`)).has(kind), `"${phrase}" is ${kind}`);
  }
});

test('what the tools make of real errors: types and fixed wording kept', async () => {
  const covered = actionError(await errorOf(() => page.click('#covered', SHORT)), 'click e5');
  assert.deepEqual([covered.type, covered.message], ['element_not_actionable', 'Could not click e5: another element covers it and would receive the click.']);
  const hidden = actionError(await errorOf(() => page.click('#hidden', SHORT)), 'click e1');
  assert.deepEqual([hidden.type, hidden.message], ['element_not_actionable', 'Could not click e1: it is not visible.']);
  const checkbox = actionError(await errorOf(() => page.fill('#stubborn', 'secret text', SHORT)), 'type into e4');
  assert.deepEqual(checkbox.toData(), {
    type: 'element_not_actionable',
    message: 'Could not type into e4: it is an input that takes no typed text (a checkbox, radio button, file input or button).',
    hint: 'Use click for a checkbox, radio button or button (fill_form takes true/false for a checkbox), and upload_file for a file input.',
  });
  const number = actionError(await errorOf(() => page.fill('#number', 'secret text', SHORT)), 'type into e6');
  assert.equal(number.message, 'Could not type into e6: it is a number field and the text is not a number.');
  const timedOut = actionError(await errorOf(() => page.waitForSelector('#nothing', { timeout: 50 })), 'click e2');
  assert.deepEqual([timedOut.type, timedOut.message], ['timeout', 'Could not click e2 within the time limit.']);
  const key = actionError(await errorOf(() => page.keyboard.press('NoSuchKey')), 'press NoSuchKey');
  assert.deepEqual([key.type, key.message], ['invalid_arguments', 'Unknown key: "NoSuchKey"']);
  const p = await context.newPage();
  await p.close();
  const closed = await errorOf(() => p.click('button', SHORT));
  assert.deepEqual([actionError(closed, 'click e3').type, actionError(closed, 'click e3').message], ['tab_not_found', 'The tab closed while trying to click e3.']);
  assert.deepEqual(toToolError(closed).toData(), { type: 'tab_not_found', message: 'The tab or browser closed during the call.', hint: 'Call list_tabs to see the open tabs.' });
  assert.equal(toToolError(await errorOf(() => page.evaluate('throw new Error("boom")'))).type, 'internal');
});
