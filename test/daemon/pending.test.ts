// Pending calls on the daemon (docs/daemon.md; docs/pending.md), started with --max-wait 2: at /mcp a 2025 session's
// consent prompt answered after the call went pending reaches the gate (the
// elicitation answer comes back as its own POST), and a 2026-07-28 client's
// next, stateless request finds the pending call by its callId. The HTTP API
// the CLI uses never answers pending: a long call there gives its real
// result, and wait_for_call there is call_not_found.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport, type ElicitResult } from '@modelcontextprotocol/client';
import { seenBy } from '../fixtures/clientLens.js';
import { startDaemon, type Daemon } from '../fixtures/daemon.js';
import { startSite, type Site } from '../fixtures/site.js';
import { type RawResult } from '../fixtures/mcp.js';
import { PENDING_SHOP } from '../fixtures/pendingShop.js';

const MAX_WAIT = 2;



let daemon: Daemon;
let site: Site;

before(async () => {
  site = await startSite();
  site.page('/shop', PENDING_SHOP);
  daemon = await startDaemon({ args: ['--max-wait', String(MAX_WAIT)] });
  // Through the HTTP API, which waits for the outcome however long the browser takes to start.
  const nav = await daemon.request({ path: '/v1/tools/navigate', body: { url: `${site.origin}/shop` } });
  assert.equal(nav.json.result.isError, undefined, nav.text);
});
after(async () => {
  await daemon?.stop();
  await site?.close();
});

async function mcpClient(mode: 'legacy' | 'auto', elicit: () => Promise<ElicitResult>): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${daemon.endpoint.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${daemon.endpoint.token}` } } });
  const client = new Client({ name: 'pending-test', version: '0.0.0' }, { versionNegotiation: { mode }, capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', elicit);
  await client.connect(transport);
  return { client, transport };
}

async function outcomeOf(client: Client, callId: string): Promise<RawResult> {
  for (let i = 0; i < 10; i++) {
    const res = await client.callTool({ name: 'wait_for_call', arguments: { callId } }) as RawResult;
    if ((res.structuredContent as { pending?: boolean } | undefined)?.pending !== true) return res;
  }
  throw new Error('still pending after 10 rounds');
}

/** Calls until it is not pending; the first answer is returned too. */
async function pendingCall(client: Client, name: string, args: Record<string, unknown>): Promise<{ callId: string; kind: string; text: string }> {
  const started = Date.now();
  const raw = await client.callTool({ name, arguments: args }) as RawResult;
  assert.ok(Date.now() - started < MAX_WAIT * 1000 + 1500, `answered after ${Date.now() - started} ms`);
  const p = raw.structuredContent as { pending?: boolean; callId: string; waitingFor: { kind: string } };
  assert.equal(p.pending, true, JSON.stringify(raw));
  return { callId: p.callId, kind: p.waitingFor.kind, text: seenBy('cursor', raw).text };
}

test('/mcp, 2025 session: a consent prompt answered after the call went pending reaches the gate; wait_for_call returns the result', async () => {
  const { client, transport } = await mcpClient('legacy', async () => {
    await new Promise(resolve => setTimeout(resolve, MAX_WAIT * 1000 + 1500));
    return { action: 'accept', content: { decision: 'once' } };
  });
  try {
    // A 2025 session has a browser context of its own: open the shop there (the first call may go pending too).
    const nav = await client.callTool({ name: 'navigate', arguments: { url: `${site.origin}/shop` } }) as RawResult;
    const navPending = nav.structuredContent as { pending?: boolean; callId?: string };
    if (navPending.pending) assert.equal((await outcomeOf(client, navPending.callId!)).isError, undefined);
    const p = await pendingCall(client, 'call_webmcp_tool', { name: 'buy', arguments: { item: 'tea' } });
    assert.equal(p.kind, 'consent');
    assert.ok(p.text.includes(`wait_for_call {"callId":"${p.callId}"}`), p.text);
    const outcome = await outcomeOf(client, p.callId);
    assert.equal(outcome.isError, undefined, JSON.stringify(outcome));
    assert.equal(seenBy('cursor', outcome).text, 'bought tea');
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }
});

test('/mcp, 2026-07-28: the next stateless request finds the pending call by its callId', async () => {
  const { client } = await mcpClient('auto', async () => ({ action: 'decline' }));
  try {
    assert.equal(client.getProtocolEra(), 'modern');
    const p = await pendingCall(client, 'call_webmcp_tool', { name: 'sleep', arguments: { ms: 3500 } });
    assert.equal(p.kind, 'page_tool');
    const outcome = await outcomeOf(client, p.callId);
    assert.equal(seenBy('cursor', outcome).text, 'slept 3500');
  } finally {
    await client.close();
  }
});

test('the HTTP API (the CLI\'s) waits for the outcome past the max-wait; wait_for_call there is call_not_found', async () => {
  const started = Date.now();
  const res = await daemon.request({ path: '/v1/tools/call_webmcp_tool', body: { name: 'sleep', arguments: { ms: 3500 } } });
  assert.ok(Date.now() - started >= 3400, `answered after ${Date.now() - started} ms`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.outcome, 'completed');
  assert.equal(res.json.result.structuredContent.pending, undefined);
  assert.deepEqual(res.json.result.structuredContent.result, { content: [{ type: 'text', text: 'slept 3500' }] });
  const wait = await daemon.request({ path: '/v1/tools/wait_for_call', body: { callId: 'anything' } });
  assert.equal(wait.json.result.structuredContent.error.type, 'call_not_found');
  assert.match(wait.json.result.structuredContent.error.message, /only MCP clients get pending results/);
});
