// The in-page WebMCP polyfill under --webmcp polyfill: the
// registerTool contract (errors, signal), toolchange events, the page-side
// API, MCP cancellation reaching the tool's signal, and tools that vanish
// mid-call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError, evaluate, unlessConnection } from '../fixtures/mcp.js';

const EMPTY = { type: 'object', properties: {} };

const PAGE = `<!doctype html><title>Polyfill</title>
<script>
  window.log = { started: 0, aborted: 0, reason: '' };
  document.modelContext.registerTool({ name: 'add', description: 'Add two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    execute: async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }) });
  document.modelContext.registerTool({ name: 'wait_forever', description: 'Never settles, but notices cancellation', inputSchema: ${JSON.stringify(EMPTY)},
    execute: (input, { signal }) => {
      log.started++;
      signal.addEventListener('abort', () => { log.aborted++; log.reason = signal.reason && signal.reason.name; });
      return new Promise(() => {});
    } });
  const vanishing = new AbortController();
  document.modelContext.registerTool({ name: 'vanish', description: 'Unregisters itself during the call', inputSchema: ${JSON.stringify(EMPTY)},
    execute: () => { setTimeout(() => vanishing.abort(), 50); return new Promise(() => {}); } }, { signal: vanishing.signal });
  document.modelContext.registerTool({ name: 'leave', description: 'Navigates away during the call', inputSchema: ${JSON.stringify(EMPTY)},
    execute: () => { setTimeout(() => { location.href = '/plain'; }, 50); return new Promise(() => {}); } });
</script>
<form toolname="ask" tooldescription="Waits for a person to submit"><input name="q"><button>Ask</button></form>`;

let tabId: number;

// the call path, not the consent gate
const tw = useSession({
  args: ['--webmcp', 'polyfill', '--browser-arg', '--enable-features=WebMCP', '--auto-allow'],
  context: 'file',
  setup: async tw => {
    tw.site.page('/poly', PAGE);
    tw.site.page('/plain', '<!doctype html><title>Plain</title>');
    // A user's own switch enabling WebMCP is dropped too under --webmcp polyfill.
    tabId = (await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.site.origin}/poly` })).tabId;
  },
});

test('--webmcp polyfill launches without native WebMCP, even when a --browser-arg enables it', unlessConnection(['cdp', 'playwright-server', 'own-chrome', 'extension'], 'tabwright cannot switch off the native WebMCP of a browser it did not start; the polyfill shadows it there (docs/attach.md)'), async () => {
  // The polyfill's getter sits where Chromium's would (Document.prototype), but it is not the browser's own.
  assert.deepEqual(await evaluate(tw.client, '({ native: Function.prototype.toString.call(Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")?.get ?? (() => 0)).includes("[native code]"), proto: "modelContext" in Document.prototype, own: Object.getOwnPropertyNames(document).includes("modelContext") })', tabId), { native: false, proto: true, own: false });
});

test('registerTool rejects bad tools like Chromium does', async () => {
  const outcomes = await evaluate<string[]>(tw.client, `(async () => {
    const mc = document.modelContext;
    const circular = { type: 'object' }; circular.self = circular;
    const attempts = [
      { name: 'add', description: 'again', execute() {} },
      { name: '', description: 'x', execute() {} },
      { name: 'a b', description: 'x', execute() {} },
      { name: 'caf\\u00e9', description: 'x', execute() {} },
      { name: 'x'.repeat(129), description: 'x', execute() {} },
      { name: 'no_description', description: '', execute() {} },
      { name: 'circular', description: 'x', inputSchema: circular, execute() {} },
      { name: 'bigint', description: 'x', inputSchema: { type: 'object', n: 1n }, execute() {} },
      { name: 'no_execute', description: 'x' },
      { name: 'ok.name_-1', description: 'x', execute() {} },
      { name: 'y'.repeat(128), description: 'x', execute() {} },
    ];
    const out = [];
    for (const tool of attempts) {
      const p = mc.registerTool(tool);
      out.push(p instanceof Promise ? await p.then(() => 'ok', e => e.name + ': ' + e.message.split(':').pop().trim().split('\\n')[0]) : 'not a promise');
    }
    return out;
  })()`, tabId);
  assert.deepEqual(outcomes, [
    'InvalidStateError: Duplicate tool name',
    'InvalidStateError: Invalid tool name',
    'InvalidStateError: Invalid tool name',
    'InvalidStateError: Invalid tool name',
    'InvalidStateError: Invalid tool name',
    'InvalidStateError: Description is required',
    'TypeError: Converting circular structure to JSON',
    'TypeError: Do not know how to serialize a BigInt',
    'TypeError: Required member is undefined.',
    'ok',
    'ok',
  ]);
  const { tools } = await call<{ tools: Array<{ name: string; source: string }> }>(tw.client, 'list_webmcp_tools', { tabId });
  assert.deepEqual(tools.map(t => [t.name, t.source]), [['add', 'polyfill'], ['ask', 'polyfill'], ['leave', 'polyfill'], ['ok.name_-1', 'polyfill'], ['vanish', 'polyfill'], ['wait_forever', 'polyfill'], ['y'.repeat(128), 'polyfill']]);
});

test('aborting the registration signal unregisters; toolchange fires on each change', async () => {
  const seen = await evaluate<{ listed: string[][]; events: number; handler: number }>(tw.client, `(async () => {
    const mc = document.modelContext;
    let events = 0, handler = 0;
    mc.addEventListener('toolchange', () => events++);
    mc.ontoolchange = () => handler++;
    const names = async () => (await mc.getTools()).map(t => t.name).filter(n => n.startsWith('temp'));
    const stop = new AbortController();
    const listed = [await names()];
    await mc.registerTool({ name: 'temp_one', description: 'x', execute() {} }, { signal: stop.signal });
    await mc.registerTool({ name: 'temp_two', description: 'x', execute() {} });
    listed.push(await names());
    stop.abort();
    mc.unregisterTool('temp_two');
    listed.push(await names());
    await new Promise(r => setTimeout(r, 0));
    mc.ontoolchange = null;
    return { listed, events, handler };
  })()`, tabId);
  assert.deepEqual(seen, { listed: [[], ['temp_one', 'temp_two'], []], events: 4, handler: 4 });
  const { tools } = await call<{ tools: Array<{ name: string }> }>(tw.client, 'list_webmcp_tools', { tabId });
  assert.equal(tools.some(t => t.name.startsWith('temp')), false);
});

test('the page API: getTools, executeTool, the navigator alias, nothing else reachable', async () => {
  const api = await evaluate<Record<string, unknown>>(tw.client, `(async () => {
    const mc = document.modelContext;
    const add = (await mc.getTools()).find(t => t.name === 'add');
    return {
      alias: navigator.modelContext === mc,
      methods: Object.getOwnPropertyNames(Object.getPrototypeOf(mc)).sort(),
      own: Object.keys(mc),
      add: { name: add.name, description: add.description, origin: add.origin, window: add.window === window, inputSchema: add.inputSchema },
      result: await mc.executeTool(add, { a: 4, b: 5 }),
      fromText: await mc.executeTool('add', '{"a":1,"b":1}'),
    };
  })()`, tabId);
  assert.deepEqual(api, {
    alias: true,
    methods: ['constructor', 'executeTool', 'getTools', 'ontoolactivated', 'ontoolcancel', 'ontoolchange', 'registerTool', 'unregisterTool'],
    own: [],
    add: { name: 'add', description: 'Add two numbers', origin: tw.origin, window: true, inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
    result: '{"content":[{"type":"text","text":"9"}]}',
    fromText: '{"content":[{"type":"text","text":"2"}]}',
  });
});

test('cancelling the MCP call aborts the signal the tool got', async () => {
  const controller = new AbortController();
  const pending = tw.client.callTool({ name: 'call_webmcp_tool', arguments: { tabId, name: 'wait_forever' } }, { signal: controller.signal });
  const settled = pending.then(() => 'resolved', () => 'rejected');
  const end = Date.now() + 20_000;
  while ((await evaluate<number>(tw.client, 'log.started', tabId)) < 1) {
    if (Date.now() > end) assert.fail('the tool never started');
    await new Promise(r => setTimeout(r, 100));
  }
  controller.abort();
  assert.equal(await settled, 'rejected');
  while ((await evaluate<number>(tw.client, 'log.aborted', tabId)) < 1) {
    if (Date.now() > end) assert.fail('the tool\'s signal was never aborted');
    await new Promise(r => setTimeout(r, 100));
  }
  assert.deepEqual(await evaluate(tw.client, '({ ...log })', tabId), { started: 1, aborted: 1, reason: 'AbortError' });
});

test('a timeout aborts the tool\'s signal too', async () => {
  const err = await callError(tw.client, 'call_webmcp_tool', { tabId, name: 'wait_forever', timeoutSec: 1 });
  assert.equal(err.type, 'timeout');
  const end = Date.now() + 20_000;
  while ((await evaluate<number>(tw.client, 'log.aborted', tabId)) < 2) {
    if (Date.now() > end) assert.fail('the tool\'s signal was never aborted');
    await new Promise(r => setTimeout(r, 100));
  }
  assert.equal(await evaluate(tw.client, 'log.started', tabId), 2);
});

test('a declarative form without toolautosubmit waits for the person, then times out cleanly', async () => {
  const err = await callError(tw.client, 'call_webmcp_tool', { tabId, name: 'ask', arguments: { q: 'why' }, timeoutSec: 1 });
  assert.equal(err.type, 'timeout');
  assert.equal(err.message, 'WebMCP tool "ask" is a form without toolautosubmit: its fields were filled in, and no one submitted it within 1 s.');
  assert.match(err.hint, /submit it yourself/);
  assert.equal(await evaluate(tw.client, 'document.querySelector("[name=q]").value', tabId), 'why');
});

test('a tool that unregisters or navigates away mid-call is webmcp_tool_not_found, not a hang', async () => {
  const vanished = await callError(tw.client, 'call_webmcp_tool', { tabId, name: 'vanish', timeoutSec: 60 });
  assert.equal(vanished.type, 'webmcp_tool_not_found');
  assert.match(vanished.message, /unregistered during the call/);
  const left = await callError(tw.client, 'call_webmcp_tool', { tabId, name: 'leave', timeoutSec: 60 });
  assert.equal(left.type, 'webmcp_tool_not_found');
  assert.match(left.message, /navigated or closed/);
  const { tools } = await call<{ tools: unknown[] }>(tw.client, 'list_webmcp_tools', { tabId });
  assert.deepEqual(tools, []);
});
