// wait_for end to end: each condition kind holding after the page changes
// (text shown and gone, in a frame and under a ref; an element visible,
// hidden, enabled, by ref and by find query; the URL; a request; a load
// state; a fixed time), what the model reads (the text names what held,
// after how long, and the element), each failure kind (no condition, two,
// options that do not fit, a bad pattern, a timeout that says what it saw
// last, a gone element), and cancellation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, refOf, snapshot } from '../fixtures/mcp.js';

interface Found { ref: string; role: string; name?: string; text?: string; frame?: string }
interface Held { tabId: number; held: string; afterMs: number; match?: Found; total?: number; url?: string; ref?: string; seen?: unknown; request?: { method: string; url: string; status?: number; failed?: string; resourceType: string } }

const tw = useSession({ setup: ({ site }) => {
  site.page('/wait', `<!doctype html><title>Wait</title>
<p id="status">Working on it</p>
<div id="spinner">Loading results</div>
<button id="pay" disabled>Pay now</button>
<button id="cancel">Cancel order</button>
<span id="ghost" style="visibility:hidden">Ghost note</span>
<p id="folded" style="display:none">Shipping soon</p>
<iframe title="Inner" src="/inner" width="300" height="80"></iframe>
<script>window.later = (ms, f) => setTimeout(f, ms);</script>`);
  site.page('/inner', '<!doctype html><title>Inner</title><p id="inner">Inner ready</p>');
  site.route('/api/orders', (req, res) => setTimeout(() => res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}'), 150));
  site.route('/slow-load', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<!doctype html><title>Slow</title><p>start</p>');
    setTimeout(() => res.end('<p>end</p>'), 400);
  });
} });

async function open(): Promise<number> {
  return (await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/wait`, waitUntil: 'load' })).tabId;
}

/** Runs `code` in the page (a change the wait should see). */
async function later(code: string): Promise<void> {
  await call(tw.client, 'execute', { code });
}

/** The call's text and structured fields; fails on an error result. */
async function waitFor(args: Record<string, unknown>): Promise<{ text: string; held: Held }> {
  const raw = await callRaw(tw.client, 'wait_for', args);
  assert.equal(raw.isError, undefined, JSON.stringify(raw.content));
  return { text: raw.content.map(c => c.text).join('\n'), held: raw.structuredContent as unknown as Held };
}

test('text: shown after the page adds it, and gone after it goes; the text names the element and the time', async () => {
  const tabId = await open();
  await later('later(300, () => { document.getElementById("status").textContent = "Order placed"; })');
  const started = Date.now();
  const shown = await waitFor({ text: 'order placed' });
  const took = Date.now() - started;
  assert.equal(shown.held.held, 'text');
  // afterMs counts from the call's start: within what the client measured. (No
  // lower bound: on a loaded machine the page's timer may fire before the call starts.)
  assert.ok(shown.held.afterMs >= 0 && shown.held.afterMs <= took, `${shown.held.afterMs} of ${took}`);
  assert.equal(shown.held.match?.text, 'Order placed');
  assert.match(shown.text, new RegExp(`^Text "order placed" is shown after \\d+\\.\\d s \\(tab ${tabId}\\): generic \\[ref=${shown.held.match!.ref}\\]: Order placed$`));
  // The ref it gave acts like a snapshot's.
  assert.equal((await call<{ value: string }>(tw.client, 'execute', { ref: shown.held.match!.ref, code: 'return element.id' })).value, 'status');

  await later('later(300, () => document.getElementById("spinner").remove())');
  const gone = await waitFor({ text: 'Loading results', state: 'hidden' });
  assert.deepEqual([gone.held.held, gone.held.total], ['text', 0]);
  assert.match(gone.text, new RegExp(`^Text "Loading results" is gone after \\d+\\.\\d s \\(tab ${tabId}\\)\\.$`));
  // Text that is not rendered (display: none) is not shown, as find and the snapshot judge it.
  assert.equal((await waitFor({ text: 'Shipping soon', state: 'hidden', timeoutSec: 1 })).held.total, 0);
  await later('later(200, () => { document.getElementById("folded").style.display = "block"; })');
  assert.equal((await waitFor({ text: 'Shipping soon' })).held.match?.text, 'Shipping soon');
});

test('text inside an iframe, and only under the ref given as within', async () => {
  await open();
  const { snapshot: text } = await snapshot(tw.client);
  const frameRef = refOf(text, 'iframe', 'Inner');
  const inFrame = await waitFor({ text: 'Inner ready', within: frameRef });
  assert.deepEqual([inFrame.held.match?.text, inFrame.held.match?.frame], ['Inner ready', frameRef]);
  assert.match(inFrame.text, new RegExp(`^Text "Inner ready" under ${frameRef} is shown after`));
  const cancelRef = refOf(text, 'button', 'Cancel order');
  const outside = await callError(tw.client, 'wait_for', { text: 'Inner ready', within: cancelRef, timeoutSec: 0.5 });
  assert.equal(outside.type, 'timeout');
  assert.match(outside.message, new RegExp(`^Waited 0\\.5 s for text "Inner ready" under ${cancelRef} to be shown in tab \\d+; it did not happen\\. Last seen: nothing matched`));
});

test('an element by ref: enabled, hidden, gone; by find query: enabled', async () => {
  await open();
  const { snapshot: text } = await snapshot(tw.client);
  const pay = refOf(text, 'button', 'Pay now');
  await later('later(300, () => { document.getElementById("pay").disabled = false; })');
  const enabled = await waitFor({ ref: pay, state: 'enabled' });
  assert.deepEqual([enabled.held.held, enabled.held.ref, enabled.held.seen], ['ref', pay, { visible: true, enabled: true }]);
  assert.match(enabled.text, new RegExp(`^${pay} is enabled after \\d+\\.\\d s \\(tab \\d+\\)\\.$`));

  await later('later(200, () => { document.getElementById("pay").style.visibility = "hidden"; })');
  assert.deepEqual((await waitFor({ ref: pay, state: 'hidden' })).held.seen, { visible: false, enabled: true });
  const cancel = refOf(text, 'button', 'Cancel order');
  await later('later(200, () => document.getElementById("cancel").remove())');
  const gone = await waitFor({ ref: cancel, state: 'hidden' });
  assert.equal(gone.held.seen, 'gone');
  assert.match(gone.text, new RegExp(`^${cancel} is gone \\(its element left the page\\) after`));
  // Waiting for a gone element to show is a stale ref at once, not a timeout.
  const stale = await callError(tw.client, 'wait_for', { ref: cancel, timeoutSec: 5 });
  assert.equal(stale.type, 'stale_ref');

  await call(tw.client, 'navigate', { url: `${tw.origin}/wait`, waitUntil: 'load' });
  await later('later(300, () => { document.getElementById("pay").disabled = false; })');
  const byQuery = await waitFor({ find: { role: 'button', name: 'Pay now' }, state: 'enabled' });
  assert.equal(byQuery.held.match?.name, 'Pay now');
  assert.match(byQuery.text, /^An element with role button, name "Pay now" is enabled after \d+\.\d s \(tab \d+\): button "Pay now" \[ref=e\d+\]$/);
  // A disabled match that stays disabled: the timeout says so.
  await call(tw.client, 'navigate', { url: `${tw.origin}/wait`, waitUntil: 'load' });
  const still = await callError(tw.client, 'wait_for', { find: { role: 'button', name: 'Pay now' }, state: 'enabled', timeoutSec: 0.5 });
  assert.equal(still.type, 'timeout');
  assert.match(still.message, /Last seen: it matched, but the first match was visible and disabled: button "Pay now" \[ref=e\d+\]$/);
});

test('the URL, a request (query values not shown), a load state and a fixed time', async () => {
  await open();
  await later('later(300, () => history.pushState({}, "", "/wait/done?step=2"))');
  const url = await waitFor({ url: '**/wait/done*' });
  assert.deepEqual([url.held.held, url.held.url], ['url', `${tw.origin}/wait/done?step=2`]);
  assert.match(url.text, /^The URL matches the URL glob "\*\*\/wait\/done\*" after \d+\.\d s \(tab \d+\): http:\/\/127\.0\.0\.1:\d+\/wait\/done\?step=2$/);
  assert.equal((await waitFor({ url: '/done\\?step=\\d$/' })).held.held, 'url');
  assert.equal((await waitFor({ url: 'done?step=2' })).held.held, 'url');

  await later('later(200, () => fetch("/api/orders?token=s3cr3t-value", { method: "POST" }))');
  const req = await waitFor({ request: '/api/orders' });
  assert.deepEqual(req.held.request, { method: 'POST', url: `${tw.origin}/api/orders?token=…`, resourceType: 'fetch', status: 201 });
  assert.match(req.text, /^A request to a URL containing "\/api\/orders" completed after \d+\.\d s \(tab \d+\): POST http:\/\/127\.0\.0\.1:\d+\/api\/orders\?token=… status 201$/);
  assert.ok(!JSON.stringify(req).includes('s3cr3t'));
  // Requests that do not match are counted in what the timeout saw.
  await later('later(50, () => fetch("/inner"))');
  const none = await callError(tw.client, 'wait_for', { request: '/api/other', timeoutSec: 1 });
  assert.equal(none.type, 'timeout');
  assert.match(none.message, /Last seen: 1 other request completed, the last: GET http:\/\/127\.0\.0\.1:\d+\/inner$/);

  // The load state of the document the tab has: after a navigation started, once its URL is in.
  await later('location.href = "/slow-load"');
  await waitFor({ url: '/slow-load' });
  const load = await waitFor({ loadState: 'load' });
  assert.equal(load.held.held, 'loadState');
  assert.match(load.text, /^The document reached load state load after \d+\.\d s \(tab \d+\): http:\/\/127\.0\.0\.1:\d+\/slow-load$/);

  const time = await waitFor({ timeSec: 0.3 });
  assert.ok(time.held.afterMs >= 290, String(time.held.afterMs));
  assert.match(time.text, /^Waited 0\.3 s \(tab \d+\)\.$/);
});

test('bad conditions are invalid_arguments with a hint; a timeout names what it saw last', async () => {
  await open();
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{}, /^Name a condition to wait for\.$/],
    [{ text: 'a', url: 'b' }, /^Name one condition per call, not text and url\.$/],
    [{ url: 'x', state: 'hidden' }, /^state applies to text, ref and find, not url\.$/],
    [{ text: 'x', state: 'enabled' }, /^Text is visible or hidden, not enabled\.$/],
    [{ url: 'x', within: 'e1' }, /^within applies to text and find, not url\.$/],
    [{ find: {} }, /^find names nothing to look for\.$/],
    [{ request: '/(unclosed/' }, /^request is not a valid regular expression: /],
  ];
  for (const [args, message] of cases) {
    const err = await callError(tw.client, 'wait_for', args);
    assert.equal(err.type, 'invalid_arguments', JSON.stringify(args));
    assert.match(err.message, message);
    assert.ok(err.hint.length > 10, err.hint);
  }
  const timedOut = await callRaw(tw.client, 'wait_for', { text: 'Cancel my order', timeoutSec: 0.5 });
  assert.equal(timedOut.isError, true);
  const text = timedOut.content[0]!.text!;
  assert.match(text, /Waited 0\.5 s for text "Cancel my order" to be shown in tab \d+; it did not happen\. Last seen: nothing matched; elements that nearly did: /);
  assert.match(text, /button "Cancel order" \[ref=e\d+\]/); // its longest word, "cancel"
});

test('cancelling the call ends the wait at once; the server takes the next call', async () => {
  await open();
  const controller = new AbortController();
  const started = Date.now();
  const pending = tw.client.callTool({ name: 'wait_for', arguments: { text: 'Never shown', timeoutSec: 60 } }, { signal: controller.signal });
  setTimeout(() => controller.abort(), 300);
  await assert.rejects(pending);
  assert.ok(Date.now() - started < 10_000);
  assert.equal((await waitFor({ text: 'Working on it' })).held.held, 'text');
});

test('an argument wait_for does not take is named in the result, with the one it probably meant', async () => {
  await open();
  const res = await waitFor({ text: 'Working on it', timeoutMs: 1500 });
  assert.equal(res.text.split('\n').at(-1), 'wait_for does not take "timeoutMs" (did you mean timeoutSec?): it was ignored.');
  assert.deepEqual((res.held as unknown as { ignoredArguments: string[] }).ignoredArguments, ['timeoutMs']);
});
