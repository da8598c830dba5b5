// Pointer input the browser sends past an out-of-process frame (src/tools/pointerDelivery.ts), in process against a
// real Chromium and tabwright's in-page runtime: an action whose input never reaches the element's frame (what the frame sees when Chromium routes a
// click to the parent before it has drawn the child) is done once more, then fails as element_not_actionable; input
// that arrives is never repeated, even where the page swallows every pointer event; a top-document element costs
// no extra round trip.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { withPointerDelivery } from '../../src/tools/pointerDelivery.js';
import { ToolError } from '../../src/errors.js';
import { runtimeInitScript } from '../../src/webmcp/runtimeScript.js';
import { ROOT } from '../fixtures/mcp.js';
import { CHROMIUM } from '../fixtures/remote.js';

const CHILD = `<!doctype html><button id="btn" onclick="window.clicks = (window.clicks || 0) + 1">Child</button>`;
/** A child that stops every pointer event at its window before anyone else sees it (its listener is the first). */
const SWALLOWING = `<!doctype html><script>
  window.seen = 0;
  for (const type of ['pointerdown', 'pointerup', 'pointermove', 'pointerover', 'mousedown', 'mouseup', 'mousemove', 'mouseover', 'click'])
    addEventListener(type, e => { if (type === 'click') window.seen++; e.stopImmediatePropagation(); }, true);
</script><button id="btn">Swallowing</button>`;

let server: Server;
let browser: Browser;
let page: Page;
let origin: string;

before(async () => {
  server = createServer((req, res) => {
    const port = (server.address() as AddressInfo).port;
    const body = req.url === '/child' ? CHILD : req.url === '/swallowing' ? SWALLOWING
      : `<!doctype html><button id="top" onclick="window.clicks = (window.clicks || 0) + 1">Top</button>
<iframe src="http://other.test:${port}/child"></iframe><iframe src="http://other.test:${port}/swallowing"></iframe>`;
    res.writeHead(200, { 'content-type': 'text/html' }).end(body);
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--site-per-process', '--host-resolver-rules=MAP other.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  });
  // tabwright's in-page runtime at document start, as a session adds it (the build's bundle: npm test builds first).
  const context = await browser.newContext();
  await context.addInitScript({ content: runtimeInitScript(join(ROOT, 'dist', 'page', 'runtime.js'), 'auto') });
  page = await context.newPage();
  await page.goto(origin, { waitUntil: 'load' });
});
after(async () => {
  await browser?.close();
  await new Promise(resolve => server?.close(resolve));
});

function frameOf(path: string): Frame {
  const frame = page.frames().find(f => f.url().endsWith(path));
  assert.ok(frame, `the frame ${path}`);
  return frame;
}

test('input that never reached the frame is done once more, and then it counts', async () => {
  const frame = frameOf('/child');
  const button = (await frame.$('#btn'))!;
  let tries = 0;
  // The first try sends nothing into the frame, as a click Chromium routed to the parent.
  await withPointerDelivery(button, frame, 'click e2', async () => {
    if (++tries > 1) await button.click();
  });
  assert.deepEqual([tries, await frame.evaluate(() => (window as unknown as { clicks: number }).clicks)], [2, 1]);
});

test('input that reaches the frame neither of two times is element_not_actionable, naming the frame', async () => {
  const frame = frameOf('/child');
  const button = (await frame.$('#btn'))!;
  let tries = 0;
  const error = await withPointerDelivery(button, frame, 'click e2', async () => void tries++).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ToolError, `${String(error)} after ${tries}`);
  assert.equal(error.type, 'element_not_actionable');
  assert.equal(error.message, `The click e2 did not reach the frame http://other.test:${new URL(origin).port}/child: the browser sent the pointer input elsewhere, twice.`);
  assert.equal(tries, 2);
});

test("a click the page swallows at its window is not repeated: the runtime's listeners come before the page's", async () => {
  const frame = frameOf('/swallowing');
  const button = (await frame.$('#btn'))!;
  let tries = 0;
  await withPointerDelivery(button, frame, 'click e3', async () => {
    tries++;
    await button.click();
  });
  assert.deepEqual([tries, await frame.evaluate(() => (window as unknown as { seen: number }).seen)], [1, 1]);
});

test('a top-document element is acted on once, whatever its input did', async () => {
  const top = (await page.$('#top'))!;
  let tries = 0;
  await withPointerDelivery(top, page.mainFrame(), 'click e1', async () => void tries++);
  assert.equal(tries, 1);
});
