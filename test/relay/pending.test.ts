// Pending calls through the relay (docs/pending.md):
// a follower's call runs in the leader, but the follower's front answers
// pending and keeps the call, so the follower's wait_for_call returns its
// outcome and the leader's does not know the callId. What the call waits
// for crosses the relay (the `waiting` frame): a consent prompt asked
// through the follower's own client, answered after the call went pending,
// reaches the leader's gate, and the follower's wait_for_call gets the
// result; the follower's heartbeat reports progress meanwhile.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client, ElicitResult } from '@modelcontextprotocol/client';
import { seenBy } from '../fixtures/clientLens.js';
import { startSite, type Site } from '../fixtures/site.js';
import { callRaw, type RawResult } from '../fixtures/mcp.js';
import { eventually } from '../fixtures/harness.js';
import { killLeftovers } from '../fixtures/processes.js';
import { browsersOn, machine, startServer, type Machine, type Server } from '../fixtures/relay.js';
import { PENDING_SHOP } from '../fixtures/pendingShop.js';

const MAX_WAIT = 2;

interface Pending { pending: true; callId: string; tool: string; waitingFor: { kind: string; tool?: string; origin?: string; text: string } }



let m: Machine;
let site: Site;
let leader: Server;
let follower: Server;
let tabId: number;
let answerAfterMs = 0;
const asked: string[] = [];

/** wait_for_call until the outcome comes (a few pending rounds allowed). */
async function outcomeOf(client: Client, callId: string, rounds = 10): Promise<RawResult> {
  for (let i = 0; ; i++) {
    const res = await callRaw(client, 'wait_for_call', { callId });
    if ((res.structuredContent as { pending?: boolean } | undefined)?.pending !== true) return res;
    assert.ok(i < rounds, 'still pending');
  }
}

async function settled<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const first = await callRaw(client, name, args);
  const p = first.structuredContent as { pending?: boolean; callId?: string };
  const res = p.pending ? await outcomeOf(client, p.callId!) : first;
  assert.equal(res.isError, undefined, JSON.stringify(res));
  return res.structuredContent as T;
}

before(async () => {
  m = await machine();
  site = await startSite();
  site.page('/shop', PENDING_SHOP);
  const env = { TABWRIGHT_MAX_WAIT: String(MAX_WAIT) };
  leader = await startServer(m, { env });
  follower = await startServer(m, {
    env,
    elicit: async (params): Promise<ElicitResult> => {
      asked.push(params.message);
      await new Promise(resolve => setTimeout(resolve, answerAfterMs));
      return { action: 'accept', content: { decision: 'once' } };
    },
  });
  assert.equal((await settled<{ role: string }>(follower.client, 'get_bridge_status', {})).role, 'follower');
  tabId = (await settled<{ tabId: number }>(follower.client, 'navigate', { url: `${site.origin}/shop` })).tabId;
});

after(async () => {
  await follower?.close();
  await leader?.close();
  const gone = await eventually(() => browsersOn(m.profile).length === 0, 15_000);
  killLeftovers(m.profile);
  await site?.close();
  m.remove();
  assert.ok(gone, 'no Chromium on the test profile within 15 s after both servers exited');
});

test("a follower's long call answers pending from the follower; its wait_for_call gets the outcome, the leader's does not know the callId", async () => {
  const started = Date.now();
  const ticks: number[] = [];
  const raw = await follower.client.callTool({ name: 'call_webmcp_tool', arguments: { tabId, name: 'sleep', arguments: { ms: 3500 } } }, { onprogress: () => ticks.push(Date.now()) }) as RawResult;
  assert.ok(Date.now() - started < MAX_WAIT * 1000 + 1000, `answered after ${Date.now() - started} ms`);
  const p = raw.structuredContent as unknown as Pending;
  assert.equal(p.pending, true, JSON.stringify(raw));
  // What the call waits for came from the leader (the waiting frame).
  assert.deepEqual([p.waitingFor.kind, p.waitingFor.tool, p.waitingFor.origin], ['page_tool', 'sleep', site.origin]);
  const text = seenBy('cursor', raw).text;
  assert.ok(text.includes(`callId: ${p.callId}`) && text.includes(`wait_for_call {"callId":"${p.callId}"}`), text);
  assert.ok(ticks.length >= 1, 'no progress from the follower while the relayed call ran');

  const unknown = await callRaw(leader.client, 'wait_for_call', { callId: p.callId });
  assert.equal((unknown.structuredContent as { error: { type: string } }).error.type, 'call_not_found');
  const outcome = await outcomeOf(follower.client, p.callId);
  assert.equal(seenBy('cursor', outcome).text, 'slept 3500');
  const again = await callRaw(follower.client, 'wait_for_call', { callId: p.callId });
  assert.equal((again.structuredContent as { error: { type: string } }).error.type, 'call_not_found');
});

test("a consent prompt through the follower's client answered after the call went pending: the leader's gate gets the answer, the follower's wait_for_call the result", async () => {
  answerAfterMs = 3500;
  const askedBefore = asked.length;
  const raw = await callRaw(follower.client, 'call_webmcp_tool', { tabId, name: 'buy', arguments: { item: 'lamp' } });
  const p = raw.structuredContent as unknown as Pending;
  assert.equal(p.pending, true, JSON.stringify(raw));
  assert.deepEqual([p.waitingFor.kind, p.waitingFor.tool, p.waitingFor.origin], ['consent', 'buy', site.origin]);
  assert.match(seenBy('cursor', raw).text, /waiting for the user's answer to the consent prompt for WebMCP tool "buy"/);
  assert.equal(asked.length, askedBefore + 1);
  const outcome = await outcomeOf(follower.client, p.callId);
  assert.equal(outcome.isError, undefined, JSON.stringify(outcome));
  assert.equal(seenBy('cursor', outcome).text, 'bought lamp');
  assert.equal((await settled<{ value: number }>(follower.client, 'execute', { tabId, code: 'counts.buy' })).value, 1);
});
