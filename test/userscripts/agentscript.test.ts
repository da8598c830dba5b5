// AgentScripts end to end (docs/userscripts.md, "AgentScripts and consent"): an AgentScript the agent writes is saved through export_script,
// its tools are listed with source `agentscript` and its scriptId, its
// `allow` tool prompts (the agent cannot grant itself allow), an approval
// runs it once, "always allow" makes it allow, its `deny` tool is refused,
// and a page script cannot run it through executeTool. Under both
// `--webmcp polyfill` and `--webmcp native`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ElicitResult } from '@modelcontextprotocol/client';
import { call, callError, connect, type Connected, type ElicitHandler, evaluate, ROOT } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'userscripts');

/** What the agent writes: one read-only tool it declares `allow`. */
const NOTES = `// ==AgentScript==
// @name         Order notes (agent-written)
// @namespace    https://agent.example/scripts
// @version      0.1
// @match        http://127.0.0.1/*orders.html*
// @grant        GM_getValue
// @grant        GM_setValue
// @webmcp       order_summary allow
// ==/AgentScript==
(function () {
  'use strict';
  document.modelContext.registerTool({
    name: 'order_summary',
    description: 'Summarise the orders on this page by status.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
    execute() {
      const calls = GM_getValue('calls', 0) + 1;
      GM_setValue('calls', calls);
      const counts = {};
      for (const cell of document.querySelectorAll('#orders td.status')) counts[cell.textContent] = (counts[cell.textContent] || 0) + 1;
      return { content: [{ type: 'text', text: JSON.stringify(counts) + ' call ' + calls }] };
    },
  });
})();
`;

/** The human at the MCP client: answers consent questions from a queue, records what was asked. */
class Human {
  asked: string[] = [];
  private queue: Array<'once' | 'always' | 'deny' | 'never'> = [];
  readonly handler: ElicitHandler = async params => {
    this.asked.push(params.message);
    const decision = this.queue.shift();
    return (decision ? { action: 'accept', content: { decision } } : { action: 'decline' }) as ElicitResult;
  };
  answer(decision: 'once' | 'always' | 'deny' | 'never'): void {
    this.queue.push(decision);
  }
}

interface ListedTool {
  name: string;
  source: string;
  scriptId?: string;
  permission: string;
}

let site: Site;

before(async () => {
  site = await startSite();
  site.page('/us/orders.html', readFileSync(join(FIXTURES, 'pages', 'orders.html'), 'utf8'));
});

after(async () => {
  await site?.close();
});

for (const mode of ['polyfill', 'native'] as const) {
  test(`--webmcp ${mode}: an agent-written AgentScript is listed, prompts for its allow tool, then works; always allow sticks`, async () => {
    const human = new Human();
    const server: Connected = await connect({ args: ['--toolsets', 'all', '--webmcp', mode], elicit: human.handler, env: { TABWRIGHT_CONSENT_TTY: '0' } });
    try {
      const notes = await call<{ scriptId: string; kind: string }>(server.client, 'export_script', { code: NOTES });
      assert.equal(notes.kind, 'agentscript');
      const actions = await call<{ scriptId: string }>(server.client, 'export_script', { code: readFileSync(join(FIXTURES, 'order-actions.agent.js'), 'utf8') });
      const { tabId } = await call<{ tabId: number }>(server.client, 'navigate', { url: `${site.origin}/us/orders.html` });
      const end = Date.now() + 10_000;
      let tools: ListedTool[] = [];
      while (Date.now() < end) {
        tools = (await call<{ tools: ListedTool[] }>(server.client, 'list_webmcp_tools', { tabId })).tools;
        if (tools.length >= 4) break;
        await new Promise(r => setTimeout(r, 100));
      }
      assert.deepEqual(tools.map(t => [t.name, t.source, t.scriptId, t.permission]).sort(), [
        // Declared allow, written by the agent: prompt. prompt and deny hold as declared.
        ['cancel_order', 'agentscript', actions.scriptId, 'prompt'],
        ['count_orders', 'agentscript', actions.scriptId, 'prompt'],
        ['delete_all_orders', 'agentscript', actions.scriptId, 'deny'],
        ['order_summary', 'agentscript', notes.scriptId, 'prompt'],
      ]);

      // Approved once: runs, and asks again next time.
      human.answer('once');
      const first = await call<{ result: { content: Array<{ text: string }> } }>(server.client, 'call_webmcp_tool', { tabId, name: 'order_summary' });
      assert.equal(first.result.content[0]!.text, '{"open":2,"shipped":1} call 1');
      assert.equal(human.asked.length, 1);
      assert.match(human.asked[0]!, /order_summary/);
      // "Always allow": saved as an override for this script + tool; no question after that.
      human.answer('always');
      await call(server.client, 'call_webmcp_tool', { tabId, name: 'order_summary' });
      assert.equal(human.asked.length, 2);
      const third = await call<{ result: { content: Array<{ text: string }> } }>(server.client, 'call_webmcp_tool', { tabId, name: 'order_summary' });
      assert.equal(third.result.content[0]!.text, '{"open":2,"shipped":1} call 3');
      assert.equal(human.asked.length, 2);
      const listed = (await call<{ tools: ListedTool[] }>(server.client, 'list_webmcp_tools', { tabId })).tools;
      assert.equal(listed.find(t => t.name === 'order_summary')!.permission, 'allow');
      assert.equal(listed.find(t => t.name === 'count_orders')!.permission, 'prompt');

      // deny: refused without asking, the page untouched.
      const denied = await callError(server.client, 'call_webmcp_tool', { tabId, name: 'delete_all_orders' });
      assert.equal(denied.type, 'consent_denied');
      assert.match(denied.message, /@webmcp declaration/);
      assert.equal(human.asked.length, 2);
      // prompt: approved once, the tool changes the page.
      human.answer('once');
      await call(server.client, 'call_webmcp_tool', { tabId, name: 'cancel_order', arguments: { orderId: 'A-1001' } });
      assert.deepEqual(await evaluate(server.client, '[document.documentElement.dataset.twCancelled, document.documentElement.dataset.twDeletedAll ?? null]', tabId), ['A-1001', null]);

      // A page script cannot run an AgentScript's tool through executeTool.
      const fromPage = await evaluate<string>(server.client, `(async () => {
        const mc = document.modelContext;
        if (!mc || typeof mc.executeTool !== 'function') return 'no executeTool';
        try { return 'ran: ' + await mc.executeTool('delete_all_orders', {}); } catch (e) { return e.name; }
      })()`, tabId);
      assert.equal(fromPage, 'NotAllowedError');
      assert.equal(await evaluate(server.client, 'document.documentElement.dataset.twDeletedAll ?? null', tabId), null);
      assert.equal(await evaluate(server.client, 'document.querySelectorAll("#orders tbody tr").length', tabId), 3);
    } finally {
      await server.close();
    }
  });
}
