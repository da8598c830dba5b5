// list_webmcp_tools and call_webmcp_tool end to end against Chromium's native
// WebMCP: an imperative tool (document.modelContext.registerTool) and a
// declarative one (<form toolname>), schema checks before dispatch, and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { until, useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, evaluate, unlessConnection } from '../fixtures/mcp.js';

interface ToolInfo {
  tabId: number;
  origin: string;
  frameUrl?: string;
  name: string;
  description: string;
  inputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; consequentialHint?: boolean; untrustedContentHint?: boolean };
  form?: { autosubmit: boolean };
  source: string;
}

const ADD_SCHEMA = {
  type: 'object',
  properties: { a: { type: 'number', description: 'First addend' }, b: { type: 'number', description: 'Second addend' } },
  required: ['a', 'b'],
  additionalProperties: false,
};

const TOOLS_PAGE = `<!doctype html><title>Calculator</title>
<h1>Calculator</h1>
<form id="note" toolname="add_note" tooldescription="Add a note to the board" toolautosubmit>
  <label>Text <input name="text" required toolparamdescription="What the note says"></label>
  <label>Colour <select name="colour"><option value="yellow">Yellow</option><option value="pink">Pink</option></select></label>
  <button>Add</button>
</form>
<ul id="board"></ul>
<script>
  window.calls = { add: 0, boom: 0, refuse: 0 };
  document.modelContext.registerTool({
    name: 'add',
    description: 'Add two numbers',
    inputSchema: ${JSON.stringify(ADD_SCHEMA)},
    annotations: { readOnlyHint: true },
    execute: async ({ a, b }) => {
      calls.add++;
      return { content: [{ type: 'text', text: String(a + b) }] };
    },
  });
  document.modelContext.registerTool({
    name: 'boom',
    description: 'Always fails',
    inputSchema: { type: 'object', properties: {} },
    execute: async () => {
      calls.boom++;
      throw new Error('the calculator caught fire');
    },
  });
  document.modelContext.registerTool({
    name: 'refuse',
    description: 'Reports an error result',
    inputSchema: { type: 'object', properties: {} },
    execute: async () => {
      calls.refuse++;
      return { isError: true, content: [{ type: 'text', text: 'not today' }] };
    },
  });
  document.getElementById('note').addEventListener('submit', event => {
    event.preventDefault();
    const data = new FormData(event.target);
    const li = document.createElement('li');
    li.textContent = data.get('colour') + ': ' + data.get('text');
    document.getElementById('board').append(li);
    if (event.agentInvoked) event.respondWith(Promise.resolve('Added note "' + data.get('text') + '"'));
  });
</script>`;

const OTHER_PAGE = `<!doctype html><title>Clock</title>
<script>
  document.modelContext.registerTool({
    name: 'what_time',
    description: 'Tells the time',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
    execute: async () => ({ content: [{ type: 'text', text: 'tea time' }] }),
  });
</script>`;

let calcTab: number;

// the call path, not the consent gate (test/tools/consent.test.ts)
const tw = useSession({
  args: ['--auto-allow'],
  context: 'file',
  pages: {
    '/calc': TOOLS_PAGE,
    '/clock': OTHER_PAGE,
    '/plain': '<!doctype html><title>Plain</title><p>no tools here</p>',
  },
});

async function calls(): Promise<{ add: number; boom: number; refuse: number }> {
  return await evaluate(tw.client, 'window.calls', calcTab);
}

test('without tabs, list_webmcp_tools answers empty and does not start the browser', unlessConnection(['cdp', 'playwright-server', 'own-chrome', 'extension'], 'an attached browser runs from the start, so there is no "not started" state to keep (docs/attach.md)'), async () => {
  const res = await call<{ tools: ToolInfo[] }>(tw.client, 'list_webmcp_tools');
  assert.deepEqual(res.tools, []);
  assert.equal((await call<{ browserRunning: boolean }>(tw.client, 'get_bridge_status')).browserRunning, false);
});

test('lists imperative and declarative tools with schema and annotations', async () => {
  calcTab = (await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/calc` })).tabId;
  const { tools } = await call<{ tools: ToolInfo[] }>(tw.client, 'list_webmcp_tools', { tabId: calcTab });
  assert.deepEqual(tools.map(t => t.name).sort(), ['add', 'add_note', 'boom', 'refuse']);

  const add = tools.find(t => t.name === 'add')!;
  assert.equal(add.tabId, calcTab);
  assert.equal(add.origin, tw.origin);
  assert.equal(add.frameUrl, undefined);
  assert.equal(add.description, 'Add two numbers');
  assert.deepEqual(add.inputSchema, ADD_SCHEMA);
  assert.equal(add.annotations?.readOnlyHint, true);
  assert.equal(add.source, 'native');

  const note = tools.find(t => t.name === 'add_note')!;
  assert.equal(note.description, 'Add a note to the board');
  assert.equal('annotations' in note, false, 'a form declares no annotations');
  assert.deepEqual(note.form, { autosubmit: true });
  assert.deepEqual(note.inputSchema?.required, ['text']);
  const props = note.inputSchema?.properties as Record<string, { type: string; description?: string; enum?: string[] }>;
  assert.equal(props.text?.type, 'string');
  assert.equal(props.text?.description, 'What the note says');
  assert.deepEqual(props.colour?.enum, ['yellow', 'pink']);

  assert.notEqual(tools.find(t => t.name === 'boom')!.annotations?.readOnlyHint, true);
});

test('call_webmcp_tool returns the tool\'s content', async () => {
  const raw = await callRaw(tw.client, 'call_webmcp_tool', { name: 'add', arguments: { a: 2, b: 40 } });
  assert.notEqual(raw.isError, true, JSON.stringify(raw));
  const res = raw.structuredContent as { tabId: number; name: string; result: { content: Array<{ type: string; text: string }> } };
  assert.equal(res.tabId, calcTab);
  assert.equal(res.name, 'add');
  assert.deepEqual(res.result.content, [{ type: 'text', text: '42' }]);
  assert.deepEqual(raw.content.filter(c => c.type === 'text').map(c => c.text), ['42']);
  assert.equal((await calls()).add, 1);
});

test('a declarative form tool fills and submits the form', async () => {
  const res = await call<{ result: unknown }>(tw.client, 'call_webmcp_tool', { tabId: calcTab, name: 'add_note', arguments: { text: 'buy milk', colour: 'pink' } });
  assert.equal(res.result, 'Added note "buy milk"');
  assert.deepEqual(await evaluate(tw.client, '[...document.querySelectorAll("#board li")].map(li => li.textContent)', calcTab), ['pink: buy milk']);
});

test('arguments that fail the inputSchema are invalid_arguments and never reach the page', async () => {
  const before = await calls();
  const bad: Array<Record<string, unknown>> = [
    {},
    { a: 1 },
    { a: 'one', b: 2 },
    { a: 1, b: 2, c: 3 },
  ];
  for (const args of bad) {
    const err = await callError(tw.client, 'call_webmcp_tool', { name: 'add', arguments: args });
    assert.equal(err.type, 'invalid_arguments', JSON.stringify(args));
  }
  const noText = await callError(tw.client, 'call_webmcp_tool', { name: 'add_note', arguments: { colour: 'pink' } });
  assert.equal(noText.type, 'invalid_arguments');
  const badColour = await callError(tw.client, 'call_webmcp_tool', { name: 'add_note', arguments: { text: 'x', colour: 'green' } });
  assert.equal(badColour.type, 'invalid_arguments');
  // arguments itself must be an object.
  assert.equal((await callError(tw.client, 'call_webmcp_tool', { name: 'add', arguments: [1, 2] })).type, 'invalid_arguments');

  assert.deepEqual(await calls(), before, 'no execute ran');
  assert.deepEqual(await evaluate(tw.client, 'document.querySelectorAll("#board li").length', calcTab), 1, 'no form was submitted');
});

test('an unknown tool name is webmcp_tool_not_found', async () => {
  const err = await callError(tw.client, 'call_webmcp_tool', { name: 'subtract', arguments: {} });
  assert.equal(err.type, 'webmcp_tool_not_found');
  assert.match(err.hint, /list_webmcp_tools/);
});

test('a tool whose execute throws, or reports isError, is evaluation_failed', async () => {
  const thrown = await callError(tw.client, 'call_webmcp_tool', { name: 'boom' });
  assert.equal(thrown.type, 'evaluation_failed');
  const refused = await callError(tw.client, 'call_webmcp_tool', { name: 'refuse', arguments: {} });
  assert.equal(refused.type, 'evaluation_failed');
  assert.ok(refused.message.includes('not today'), refused.message);
  const counts = await calls();
  assert.equal(counts.boom, 1);
  assert.equal(counts.refuse, 1);
});

test('without tabId, list_webmcp_tools covers every open tab', async () => {
  const clock = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/clock` });
  const plain = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/plain`, background: true });
  const { tools } = await call<{ tools: ToolInfo[] }>(tw.client, 'list_webmcp_tools');
  const byTab = (id: number) => tools.filter(t => t.tabId === id).map(t => t.name).sort();
  assert.deepEqual(byTab(calcTab), ['add', 'add_note', 'boom', 'refuse']);
  assert.deepEqual(byTab(clock.tabId), ['what_time']);
  assert.deepEqual(byTab(plain.tabId), []);
  assert.equal(tools.length, 5);

  // call_webmcp_tool defaults to the active tab (the clock); tabId picks another.
  const time = await call<{ tabId: number; result: { content: Array<{ text: string }> } }>(tw.client, 'call_webmcp_tool', { name: 'what_time' });
  assert.equal(time.tabId, clock.tabId);
  assert.equal(time.result.content[0]!.text, 'tea time');
  assert.equal((await callError(tw.client, 'call_webmcp_tool', { name: 'add', arguments: { a: 1, b: 2 } })).type, 'webmcp_tool_not_found');
  const sum = await call<{ tabId: number }>(tw.client, 'call_webmcp_tool', { tabId: calcTab, name: 'add', arguments: { a: 1, b: 2 } });
  assert.equal(sum.tabId, calcTab);
});

test('tools belong to their document: after navigating away they are gone', async () => {
  await call(tw.client, 'navigate', { tabId: calcTab, url: `${tw.origin}/plain` });
  const { tools } = await call<{ tools: ToolInfo[] }>(tw.client, 'list_webmcp_tools', { tabId: calcTab });
  assert.deepEqual(tools, []);
  assert.equal((await callError(tw.client, 'call_webmcp_tool', { tabId: calcTab, name: 'add', arguments: { a: 1, b: 2 } })).type, 'webmcp_tool_not_found');
  assert.equal((await callError(tw.client, 'list_webmcp_tools', { tabId: 777 })).type, 'tab_not_found');
});

test('a declarative form that submits to another page reports the navigation', async () => {
  tw.site.page('/subscribe', `<!doctype html><title>Subscribe</title>
<form action="/subscribed" method="get" toolname="subscribe" tooldescription="Subscribe to the list" toolautosubmit>
  <label>Email <input name="email" type="email" required></label><button>Subscribe</button>
</form>`);
  tw.site.page('/subscribed', '<!doctype html><title>Subscribed</title><p>Thanks</p>');
  const opened = await call<{ tabId: number; revision: number }>(tw.client, 'open_tab', { url: `${tw.origin}/subscribe` });
  const res = await call<{ navigation: { url: string; revision: number; sameDocument: boolean } }>(tw.client, 'call_webmcp_tool', {
    tabId: opened.tabId, name: 'subscribe', arguments: { email: 'reader@example.org' },
  });
  assert.equal(res.navigation.url, `${tw.origin}/subscribed?email=reader%40example.org`);
  assert.equal(res.navigation.revision, opened.revision + 1);
  assert.equal(res.navigation.sameDocument, false);
  const ctx = await call<{ title: string; revision: number }>(tw.client, 'get_page_context', { tabId: opened.tabId });
  assert.equal(ctx.title, 'Subscribed');
  assert.equal(ctx.revision, opened.revision + 1);
  await call(tw.client, 'close_tab', { tabId: opened.tabId });
});

test('a native tool whose document navigates away before it answers reports the navigation, not an error', async () => {
  tw.site.page('/leaver', `<!doctype html><title>Leaver</title><script>
document.modelContext.registerTool({ name: 'leave', description: 'Goes to another page and never answers', inputSchema: { type: 'object', properties: {} },
  execute: () => { location.href = '/left'; return new Promise(() => {}); } });
</script>`);
  tw.site.page('/left', '<!doctype html><title>Left</title><p>gone</p>');
  const opened = await call<{ tabId: number; revision: number }>(tw.client, 'open_tab', { url: `${tw.origin}/leaver` });
  const res = await call<{ navigation: { url: string; revision: number; sameDocument: boolean } }>(tw.client, 'call_webmcp_tool', { tabId: opened.tabId, name: 'leave' });
  assert.equal(res.navigation.url, `${tw.origin}/left`);
  assert.equal(res.navigation.sameDocument, false);
  assert.equal((await call<{ title: string }>(tw.client, 'get_page_context', { tabId: opened.tabId })).title, 'Left');
  await call(tw.client, 'close_tab', { tabId: opened.tabId });
});

test('the cached tool list follows the page: tools registered, removed or re-registered after a list', async () => {
  tw.site.page('/dynamic', '<!doctype html><title>Dynamic</title><p>tools come and go</p>');
  const { tabId } = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/dynamic` });
  const register = (name: string, type: string) => evaluate(tw.client, `(() => {
    window.stops ??= {};
    const stop = new AbortController();
    window.stops[${JSON.stringify(name)}] = stop;
    document.modelContext.registerTool({
      name: ${JSON.stringify(name)}, description: 'echo x',
      inputSchema: { type: 'object', properties: { x: { type: ${JSON.stringify(type)} } }, required: ['x'] },
      execute: async ({ x }) => ({ content: [{ type: 'text', text: ${JSON.stringify(name)} + ':' + x }] }),
    }, { signal: stop.signal });
    return true;
  })()`, tabId);
  const text = async (name: string, x: unknown) => (await call<{ result: { content: Array<{ text: string }> } }>(tw.client, 'call_webmcp_tool', { tabId, name, arguments: { x } })).result.content[0]!.text;

  await register('first', 'number');
  assert.deepEqual((await call<{ tools: ToolInfo[] }>(tw.client, 'list_webmcp_tools', { tabId })).tools.map(t => t.name), ['first']);
  assert.equal(await text('first', 1), 'first:1');
  // Registered after the list was cached: still found.
  await register('late', 'number');
  assert.equal(await text('late', 2), 'late:2');
  // Removed after the list was cached: not found, never called.
  await evaluate(tw.client, 'window.stops.late.abort(), true', tabId);
  assert.equal((await callError(tw.client, 'call_webmcp_tool', { tabId, name: 'late', arguments: { x: 3 } })).type, 'webmcp_tool_not_found');
  // Re-registered with another schema: the new schema decides.
  assert.equal(await text('first', 4), 'first:4');
  await evaluate(tw.client, 'window.stops.first.abort(), true', tabId);
  await register('first', 'string');
  assert.equal(await text('first', 'five'), 'first:five');
  assert.equal((await callError(tw.client, 'call_webmcp_tool', { tabId, name: 'first', arguments: { x: 6 } })).type, 'invalid_arguments');
});

test('a page written for older Chrome registers through navigator.modelContext: its tools are the native ones, and unregisterTool removes one', async () => {
  tw.site.page('/older', `<!doctype html><title>Older</title>
<script>
  const mc = navigator.modelContext;
  mc.registerTool({
    name: 'legacy_echo', description: 'Echo x',
    inputSchema: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] },
    execute: async ({ x }) => ({ content: [{ type: 'text', text: 'legacy:' + x }] }),
  });
  mc.registerTool({ name: 'legacy_gone', description: 'Removed by name', execute: async () => 'gone' });
</script>`);
  const { tabId } = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/older` });
  const names = async () => (await call<{ tools: ToolInfo[] }>(tw.client, 'list_webmcp_tools', { tabId })).tools.map(t => `${t.name}:${t.source}`).sort();
  const viaDocument = () => evaluate(tw.client, 'document.modelContext.getTools().then(tools => tools.map(t => t.name).sort())', tabId);
  assert.deepEqual(await names(), ['legacy_echo:native', 'legacy_gone:native']);
  assert.deepEqual(await viaDocument(), ['legacy_echo', 'legacy_gone'], 'registered with the browser\'s own document.modelContext');
  assert.equal((await call<{ result: { content: Array<{ text: string }> } }>(tw.client, 'call_webmcp_tool', { tabId, name: 'legacy_echo', arguments: { x: 'hi' } })).result.content[0]!.text, 'legacy:hi');
  await evaluate(tw.client, 'navigator.modelContext.unregisterTool("legacy_gone"), navigator.modelContext.unregisterTool("never_there"), true', tabId);
  await until('legacy_gone unregistered', async () => (await viaDocument() as string[]).join() === 'legacy_echo');
  assert.deepEqual((await names()).map(n => n.split(':')[0]), ['legacy_echo']);
  await call(tw.client, 'close_tab', { tabId });
});

test('page scripts that replace modelContext methods in the main world do not change what a call does', async () => {
  tw.site.page('/hijack', `<!doctype html><title>Hijack</title>
<script>
  window.hijacked = 0;
  document.modelContext.registerTool({
    name: 'double', description: 'Double a number',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    execute: async ({ n }) => ({ content: [{ type: 'text', text: String(n * 2) }] }),
  });
  const fake = async () => { window.hijacked++; return { content: [{ type: 'text', text: 'hijacked' }] }; };
  const proto = Object.getPrototypeOf(document.modelContext);
  for (const target of [document.modelContext, proto]) {
    Object.defineProperty(target, 'invokeTool', { value: fake, configurable: true, writable: true });
    Object.defineProperty(target, 'executeTool', { value: async () => { window.hijacked++; return '{"content":[{"type":"text","text":"hijacked"}]}'; }, configurable: true, writable: true });
    Object.defineProperty(target, 'getTools', { value: async () => { window.hijacked++; return []; }, configurable: true, writable: true });
  }
</script>`);
  const { tabId } = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/hijack` });
  // The page's replacements are in place where its own scripts look.
  assert.equal(await evaluate(tw.client, 'typeof document.modelContext.invokeTool + "/" + (document.modelContext.executeTool === Object.getPrototypeOf(document.modelContext).executeTool)', tabId), 'function/false');
  for (const n of [3, 21]) {
    const res = await call<{ result: { content: Array<{ text: string }> } }>(tw.client, 'call_webmcp_tool', { tabId, name: 'double', arguments: { n } });
    assert.deepEqual(res.result.content, [{ type: 'text', text: String(n * 2) }]);
  }
  assert.equal(await evaluate(tw.client, 'window.hijacked', tabId), 0);
  await call(tw.client, 'close_tab', { tabId });
});
