/**
 * Protocol revisions: the server negotiates 2026-07-28
 * with clients that offer it and keeps working with clients on 2025-11-25,
 * 2025-06-18, 2025-03-26 and 2024-11-05. Each is proven with a real client:
 * the SDK v2 client in both eras, and a hand-written stdio session per older
 * revision (initialize → tools/list → tools/call), and a JSON-RPC batch at
 * 2025-03-26, the one revision whose clients may send them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { call, connect, serverArgs } from '../fixtures/mcp.js';
import { eventually } from '../fixtures/harness.js';
import { processesWith } from '../fixtures/processes.js';
import { RawSession } from '../fixtures/raw.js';
import { startSite, type Site } from '../fixtures/site.js';

/** Every tool tools/list must show. */
const TOOL_NAMES = [
  'list_tabs', 'open_tab', 'close_tab', 'focus_tab', 'reload_tab', 'navigate', 'get_page_context', 'get_text', 'find',
  'click', 'type', 'fill_form', 'select_option', 'press_key', 'hover', 'scroll', 'dismiss_consent_banner',
  'take_screenshot', 'resize_viewport', 'save_pdf', 'execute', 'add_element', 'get_console_context', 'list_webmcp_tools', 'call_webmcp_tool', 'get_bridge_status', 'close_browser',
  'drag', 'upload_file', 'list_downloads', 'handle_dialog', // the file, dialog and drag tools
  'wait_for', 'wait_for_call', // a condition in a tab; the outcome of a call that answered pending
  'list_network_requests', 'get_network_request', // a tab's network log
  'batch', // several calls in order, revision-guarded
  'lease_tab', 'release_tab', // a tab reserved for one agent's page-changing calls
  'pick_elements', 'get_selected_elements', 'toggle_ui', // the element picker: the human selects elements for the agent
].sort();

/** The tools that can change a page: each takes expectRevision (docs/actions.md, "Revision guards"). */
const GUARDED = [
  'add_element', 'call_webmcp_tool', 'click', 'close_tab', 'dismiss_consent_banner', 'drag', 'execute', 'fill_form', 'focus_tab', 'handle_dialog', 'hover',
  'navigate', 'press_key', 'reload_tab', 'resize_viewport', 'select_option', 'type', 'upload_file',
].sort();

let site: Site;

before(async () => {
  site = await startSite();
  site.page('/hello', '<title>Hello revision</title><h1>Hello</h1><p id="p">from 127.0.0.1</p>');
});
after(async () => {
  await site?.close();
});

describe('SDK v2 client', () => {
  test("mode 'auto' negotiates the modern era, 2026-07-28", async () => {
    // 'auto' probes in a throwaway server process first; the marker finds every process of this test.
    const marker = `--tabwright-test-run=${randomUUID()}`;
    const server = await connect({ mode: 'auto', args: ['--browser-arg', marker] });
    try {
      assert.equal(server.client.getProtocolEra(), 'modern');
      const { tools } = await server.client.listTools();
      assert.deepEqual(tools.map(t => t.name).sort(), TOOL_NAMES);
      const status = await call<{ protocolVersion: string; era: string }>(server.client, 'get_bridge_status');
      assert.equal(status.protocolVersion, '2026-07-28');
      assert.equal(status.era, 'modern');
      const nav = await call<{ status: number; title: string }>(server.client, 'navigate', { url: `${site.origin}/hello` });
      assert.equal(nav.status, 200);
      assert.equal(nav.title, 'Hello revision');
    } finally {
      await server.close();
    }
    assert.ok(await eventually(() => processesWith(marker).length === 0, 10_000), 'no server or browser process of this test is left');
  });

  test("mode 'legacy' uses the initialize handshake at the SDK's latest 2025 revision", async () => {
    const server = await connect({ mode: 'legacy' });
    try {
      assert.equal(server.client.getProtocolEra(), 'legacy');
      const { tools } = await server.client.listTools();
      assert.deepEqual(tools.map(t => t.name).sort(), TOOL_NAMES);
      // The advertised schemas leave out the sanity bounds (src/mcp/server.ts leanJsonSchema) and keep the guiding ones.
      const props = (name: string) => (tools.find(t => t.name === name)!.inputSchema as { properties: Record<string, Record<string, unknown>> }).properties;
      assert.deepEqual(props('click').ref, { type: 'string', description: 'Element ref, e.g. "e12"' });
      assert.deepEqual(props('click').timeoutMs, { description: 'Wait limit in ms (default 5000)', type: 'integer', minimum: 100 });
      assert.deepEqual(props('navigate').tabId, { description: 'Tab (default: the active tab)', type: 'integer' });
      assert.equal(props('take_screenshot').quality!.maximum, 100);
      assert.deepEqual(tools.filter(t => 'expectRevision' in props(t.name)).map(t => t.name).sort(), GUARDED);
      // Each of them but close_tab takes expect postconditions (docs/actions.md, "Verified actions").
      assert.deepEqual(tools.filter(t => 'expect' in props(t.name)).map(t => t.name).sort(), GUARDED.filter(name => name !== 'close_tab'));
      assert.deepEqual(props('click').expectRevision, { description: props('click').expectRevision!.description, type: 'integer', exclusiveMinimum: 0 });
      assert.equal(props('execute').timeoutSec!.maximum, 300);
      // The bounds still hold: invokeTool validates them.
      const over = await server.client.callTool({ name: 'navigate', arguments: { url: `${site.origin}/hello`, tabId: 2_000_000 } });
      assert.equal(over.isError, true);
      assert.match(JSON.stringify(over.content), /invalid_arguments|Invalid arguments for navigate/);
      const status = await call<{ protocolVersion: string; era: string }>(server.client, 'get_bridge_status');
      assert.equal(status.protocolVersion, '2025-11-25');
      assert.equal(status.era, 'legacy');
      const nav = await call<{ status: number; title: string }>(server.client, 'navigate', { url: `${site.origin}/hello` });
      assert.equal(nav.status, 200);
      assert.equal(nav.title, 'Hello revision');
    } finally {
      await server.close();
    }
  });
});

describe('raw initialize at each older revision', () => {
  for (const revision of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
    test(`revision ${revision}: initialize, tools/list, tools/call`, async () => {
      const raw = new RawSession(serverArgs());
      try {
        const init = await raw.initialize(revision);
        assert.equal(init.error, undefined, JSON.stringify(init.error));
        assert.equal(init.result?.protocolVersion, revision);
        assert.equal((init.result?.serverInfo as { name: string }).name, 'tabwright');
        assert.ok((init.result?.capabilities as Record<string, unknown>).tools, 'the server advertises tools');

        const list = await raw.request('tools/list');
        assert.equal(list.error, undefined, JSON.stringify(list.error));
        const tools = list.result!.tools as Array<{ name: string; description: string; inputSchema: { type: string } }>;
        assert.equal(tools.length, TOOL_NAMES.length);
        assert.deepEqual(tools.map(t => t.name).sort(), TOOL_NAMES);
        const navigate = tools.find(t => t.name === 'navigate')!;
        assert.equal(navigate.inputSchema.type, 'object');
        assert.ok(navigate.description.length > 20);

        const status = await raw.callTool('get_bridge_status');
        assert.notEqual(status.isError, true);
        assert.equal((status.structuredContent as { protocolVersion: string }).protocolVersion, revision);

        const nav = await raw.callTool('navigate', { url: `${site.origin}/hello` });
        assert.notEqual(nav.isError, true, JSON.stringify(nav));
        const text = (nav.content as Array<{ type: string; text: string }>).find(c => c.type === 'text');
        assert.ok(text && text.text.length > 0, 'a text block every revision can read');
        const structured = nav.structuredContent as { status: number; title: string; url: string };
        assert.equal(structured.status, 200);
        assert.equal(structured.title, 'Hello revision');
        assert.equal(structured.url, `${site.origin}/hello`);

        const exec = await raw.callTool('execute', { code: 'document.getElementById("p").textContent' });
        assert.equal((exec.structuredContent as { value: unknown }).value, 'from 127.0.0.1');

        assert.deepEqual(raw.junk, [], 'stdout carried only JSON-RPC frames');
        const exit = await raw.close();
        assert.equal(exit.code, 0, raw.stderr);
      } finally {
        raw.kill('SIGKILL');
      }
    });
  }
});

test('revision 2025-03-26: a JSON-RPC batch is accepted and answered as one array', async () => {
  const raw = new RawSession(serverArgs());
  try {
    const init = await raw.initialize('2025-03-26');
    assert.equal(init.result?.protocolVersion, '2025-03-26');
    const line = (msgs: unknown[]) => `${JSON.stringify(msgs)}\n`;
    await raw.write(line([
      { jsonrpc: '2.0', id: 'b1', method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'none', progress: 1 } },
      { jsonrpc: '2.0', id: 'b2', method: 'tools/call', params: { name: 'navigate', arguments: { url: `${site.origin}/hello` } } },
      { jsonrpc: '2.0', id: 'b3', method: 'ping' },
    ]));
    await raw.response('b2');
    assert.equal(raw.batches.length, 1, 'one array line for the whole batch');
    const [batch] = raw.batches;
    assert.deepEqual(batch!.map(m => m.id), ['b1', 'b2', 'b3'], 'one response per request, none for the notification');
    assert.equal((batch![0]!.result!.tools as unknown[]).length, TOOL_NAMES.length);
    assert.equal((batch![1]!.result!.structuredContent as { title: string }).title, 'Hello revision');
    assert.deepEqual(batch![2]!.result, {});

    // A request of a batch that is cancelled gets no response; the rest still arrive, as one array.
    await raw.write(line([
      { jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'execute', arguments: { code: 'await new Promise(r => setTimeout(r, 60000)); return 1;', timeoutSec: 120 } } },
      { jsonrpc: '2.0', id: 'c2', method: 'tools/call', params: { name: 'execute', arguments: { code: 'return 2;' } } },
    ]));
    await raw.notify('notifications/cancelled', { requestId: 'c1', reason: 'test' });
    await raw.response('c2');
    assert.equal(raw.batches.length, 2);
    assert.deepEqual(raw.batches[1]!.map(m => m.id), ['c2']);
    assert.equal((raw.batches[1]![0]!.result!.structuredContent as { value: number }).value, 2);

    // Not a batch: single requests are still answered one line each.
    const single = await raw.request('ping');
    assert.deepEqual(single.result, {});
    assert.deepEqual(raw.junk, []);
    assert.equal((await raw.close()).code, 0, raw.stderr);
  } finally {
    raw.kill('SIGKILL');
  }
});
