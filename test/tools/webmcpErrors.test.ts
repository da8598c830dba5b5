// call_webmcp_tool's failures say whose they are: an error the page's tool
// threw is the page's own (evaluation_failed); an error the browser's
// DevTools protocol answered with is browser_error, never presented as the
// page's; a frame whose document went away under the call is
// webmcp_tool_not_found. Native WebMCP (the browser's own), real protocol
// failures: a result nested deeper than CDP returns by value, and a child
// frame that navigates while its tool runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { until, useSession } from '../fixtures/harness.js';
import { call, callRaw, evaluate } from '../fixtures/mcp.js';

interface ErrorData { type: string; message: string; hint: string; method?: string }

/** Nesting depth of the deep tool's result: past what CDP returns by value (about 1000 levels). */
const DEPTH = 1500;

const TOOLS_PAGE = `<!doctype html><title>Errors</title>
<iframe src="/frame"></iframe>
<script>
  window.calls = { deep: 0, boom: 0 };
  document.modelContext.registerTool({
    name: 'deep',
    description: 'Returns a deeply nested result',
    inputSchema: { type: 'object', properties: {} },
    execute: async () => {
      calls.deep++;
      let node = {};
      const root = node;
      for (let i = 0; i < ${DEPTH}; i++) { node.next = {}; node = node.next; }
      return root;
    },
  });
  document.modelContext.registerTool({
    name: 'boom',
    description: 'Always fails',
    inputSchema: { type: 'object', properties: {} },
    execute: async () => {
      calls.boom++;
      throw new Error('the page caught fire');
    },
  });
</script>`;

const FRAME_PAGE = `<!doctype html><title>Frame</title>
<script>
  document.modelContext.registerTool({
    name: 'leave_frame',
    description: 'Navigates its own frame and never answers',
    inputSchema: { type: 'object', properties: {} },
    execute: () => {
      setTimeout(() => { location.href = '/elsewhere'; }, 50);
      return new Promise(() => undefined);
    },
  });
</script>`;

// frame.test names the loopback site too: a frame there is cross-site to 127.0.0.1, so it gets a renderer of its own.
const tw = useSession({
  args: ['--auto-allow', '--browser-arg', '--host-resolver-rules=MAP frame.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  pages: {
    '/tools': TOOLS_PAGE,
    '/frame': FRAME_PAGE,
    '/elsewhere': '<!doctype html><title>Elsewhere</title><p>elsewhere</p>',
  },
});

/** The error of a call that must fail, and the text a content-only client shows its model. */
async function failure(args: Record<string, unknown>): Promise<{ error: ErrorData; text: string; recovery?: { dispatched: string; revisionBefore: number } }> {
  const raw = await callRaw(tw.client, 'call_webmcp_tool', args);
  assert.equal(raw.isError, true, JSON.stringify(raw.structuredContent));
  const { error, recovery } = raw.structuredContent as { error: ErrorData; recovery?: { dispatched: string; revisionBefore: number } };
  return { error, text: raw.content.map(c => c.text ?? '').join('\n'), recovery };
}

async function openTools(): Promise<number> {
  const tab = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/tools` });
  const { tools } = await call<{ tools: Array<{ name: string }> }>(tw.client, 'list_webmcp_tools', { tabId: tab.tabId });
  assert.deepEqual(tools.map(t => t.name).sort(), ['boom', 'deep', 'leave_frame']);
  return tab.tabId;
}

test('a protocol failure during a WebMCP call is browser_error, not the page\'s error; the page\'s own throw stays evaluation_failed', async () => {
  const tabId = await openTools();
  const deep = await failure({ tabId, name: 'deep' });
  assert.equal(deep.error.type, 'browser_error');
  assert.equal(deep.error.message, `The browser failed a protocol command during the call of WebMCP tool "deep" (Runtime.callFunctionOn failed: Object reference chain is too long); this is the browser's error, not the page's. The action may have reached the page; tab ${tabId} still shows revision ${deep.recovery!.revisionBefore}.`);
  assert.equal(deep.recovery!.dispatched, 'unknown');
  assert.equal(deep.error.hint, 'The page\'s tool ran, but its result is nested too deeply for the browser to hand back; a flatter result would come back. Check the page (get_page_context) before calling it again.');
  assert.doesNotMatch(deep.text, /page's own/);
  assert.ok(deep.text.includes(`Error [browser_error]: ${deep.error.message}`), deep.text);
  assert.ok(deep.text.includes(`Hint: ${deep.error.hint}`), deep.text);

  const boom = await failure({ tabId, name: 'boom' });
  assert.equal(boom.error.type, 'evaluation_failed');
  // Chromium 156 hands the caller its own wording for a tool that threw, not the page's message.
  // Native WebMCP answers only that the invocation failed; what the tool threw comes from the console error it logs.
  assert.equal(boom.error.message, 'WebMCP tool "boom" failed: Uncaught Error: the page caught fire (the browser answered: UnknownError: Tool was executed but the invocation failed. For example, the script function threw an error)');
  assert.equal(boom.error.hint, 'The error is the page\'s own; check the arguments or the page state.');
  const { value } = await call<{ value: unknown }>(tw.client, 'execute', { tabId, code: 'window.calls' });
  assert.deepEqual(value, { deep: 1, boom: 1 }, 'each tool ran once');
});

test('a child frame that navigates during its tool\'s call: webmcp_tool_not_found, its outcome unknown', async () => {
  const tabId = await openTools();
  const gone = await failure({ tabId, name: 'leave_frame', timeoutSec: 20 });
  assert.equal(gone.error.type, 'webmcp_tool_not_found', JSON.stringify(gone.error));
  assert.equal(gone.error.message, 'WebMCP tool "leave_frame" went away during the call: its frame navigated or closed, so whether it finished is unknown.');
  assert.doesNotMatch(gone.text, /page's own/);
  // The frame's new document may still be loading when the call ends.
  await until('the frame to show /elsewhere', async () => (await call<{ value: unknown }>(tw.client, 'execute', { tabId, code: 'document.querySelector("iframe").contentDocument?.title' })).value === 'Elsewhere', 10_000);
});

test('a child frame whose tools the browser does not list in time is named as unreadable, not left out silently', async () => {
  // A cross-site frame (frame.test against 127.0.0.1: its own renderer process) that registers a tool and then keeps
  // its thread busy, so the browser cannot answer for its tools; the main frame's tools are listed all the same.
  const port = new URL(tw.origin).port;
  tw.site.page('/busy-parent', `<!doctype html><title>Busy parent</title><iframe src="http://frame.test:${port}/busy-frame"></iframe>
<script>document.modelContext.registerTool({ name: 'parent_ok', description: 'The parent answers', inputSchema: { type: 'object', properties: {} }, execute: async () => 'ok' });</script>`);
  tw.site.page('/busy-frame', `<!doctype html><title>Busy frame</title>
<script>
  document.modelContext.registerTool({ name: 'busy_tool', description: 'Never listed', inputSchema: { type: 'object', properties: {} }, execute: async () => 'never' });
  addEventListener('message', () => { const end = Date.now() + 10_000; while (Date.now() < end) {} });
</script>`);
  const tab = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/busy-parent` });
  assert.equal(await evaluate(tw.client, 'frames[0].postMessage("spin", "*"), frames.length', tab.tabId), 1);
  const raw = await callRaw(tw.client, 'list_webmcp_tools', { tabId: tab.tabId });
  const text = raw.content.map(c => c.text ?? '').join('\n');
  const fields = raw.structuredContent as { tools: Array<{ name: string }>; partial?: Array<{ tabId: number; frameUrl?: string; reason: string }> };
  assert.deepEqual(fields.tools.map(t => t.name), ['parent_ok'], text);
  assert.deepEqual(fields.partial, [{ tabId: tab.tabId, frameUrl: `http://frame.test:${port}/busy-frame`, reason: 'unreadable' }], text);
  assert.ok(text.includes(`Tab ${tab.tabId} (frame http://frame.test:${port}/busy-frame): the browser did not answer for this frame's tools (its document may have been changing), so they are not listed; call list_webmcp_tools again.`), text);
  await call(tw.client, 'close_tab', { tabId: tab.tabId });
});
