// Tab leases across two agents on one browser (docs/relay.md, "Leases"): a leader and a follower share tabs; the
// one that leases a tab keeps the other's page-changing calls off it (lease_held names the holder and the expiry,
// nothing reaches the page), reads stay free, a batch step meets the same refusal, renewing and releasing work, the
// other cannot release or take it, and an expired lease frees the tab by itself.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, callError, callRaw, evaluate } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { eventually } from '../fixtures/harness.js';
import { killLeftovers } from '../fixtures/processes.js';
import { browsersOn, machine, startServer, type Machine, type Server } from '../fixtures/relay.js';

let m: Machine;
let site: Site;
let leader: Server;
let follower: Server;

before(async () => {
  m = await machine();
  site = await startSite();
  site.page('/keys', '<!doctype html><title>Keys</title><p>Keys</p><script>window.keys = 0; addEventListener("keydown", () => window.keys++);</script>');
  leader = await startServer(m);
  follower = await startServer(m);
});

after(async () => {
  await follower?.close();
  await leader?.close();
  await eventually(() => browsersOn(m.profile).length === 0, 15_000);
  killLeftovers(m.profile);
  await site?.close();
  m.remove();
});

interface Held { error: { type: string; message: string; hint: string }; tabId: number; holder: string; holderId: string; expiresAt: string }

test('a lease keeps the other agent\'s page-changing calls off the tab; reads stay free; release frees it', async () => {
  const { tabId } = await call<{ tabId: number }>(leader.client, 'open_tab', { url: `${site.origin}/keys` });
  const { leaderPid } = await call<{ leaderPid: number }>(leader.client, 'get_bridge_status');
  const lease = await callRaw(leader.client, 'lease_tab', { tabId, ttlSec: 120 });
  assert.equal(lease.isError, undefined, JSON.stringify(lease.content));
  const leased = lease.structuredContent as { expiresAt: string; renewed: boolean };
  assert.equal(leased.renewed, false);
  assert.match(lease.content[0]!.text!, new RegExp(`^Leased tab ${tabId} until ${leased.expiresAt.replace(/[.]/g, '\\.')} \\(120 s\\)`));

  // The follower's key press is refused, naming the holder and the expiry; the page never sees it.
  const refused = (await callRaw(follower.client, 'press_key', { tabId, key: 'a' })).structuredContent as unknown as Held;
  assert.equal(refused.error.type, 'lease_held');
  assert.deepEqual([refused.tabId, refused.holder, refused.holderId, refused.expiresAt], [tabId, 'tabwright-relay-test', `pid ${leaderPid}`, leased.expiresAt]);
  assert.match(refused.error.message, new RegExp(`^Tab ${tabId} is leased by tabwright-relay-test \\(pid ${leaderPid}\\) until ${leased.expiresAt.replace(/[.]/g, '\\.')} \\(in \\d+ s\\): press_key was refused; nothing was done\\.$`));
  assert.equal(await evaluate(leader.client, 'window.keys', tabId), 0);
  // So is a batch step, and the follower can neither take nor release the lease.
  const batch = (await callRaw(follower.client, 'batch', { mode: 'chain', steps: [{ tool: 'press_key', args: { tabId, key: 'b' } }] })).structuredContent as { error: { type: string }; steps: Array<{ status: string }> };
  assert.deepEqual([batch.error.type, batch.steps[0]!.status], ['lease_held', 'failed']);
  assert.equal((await callError(follower.client, 'lease_tab', { tabId })).type, 'lease_held');
  assert.equal((await callError(follower.client, 'release_tab', { tabId })).type, 'lease_held');
  // Reads stay free.
  assert.match((await call<{ snapshot: string }>(follower.client, 'get_page_context', { tabId, output: 'inline' })).snapshot, /Keys/);

  // The holder acts, and renews.
  await call(leader.client, 'press_key', { tabId, key: 'a' });
  assert.equal(await evaluate(leader.client, 'window.keys', tabId), 1);
  assert.equal((await call<{ renewed: boolean }>(leader.client, 'lease_tab', { tabId, ttlSec: 60 })).renewed, true);

  // Released: the follower acts again.
  assert.equal((await call<{ released: boolean }>(leader.client, 'release_tab', { tabId })).released, true);
  await call(follower.client, 'press_key', { tabId, key: 'a' });
  assert.equal(await evaluate(follower.client, 'window.keys', tabId), 2);
  assert.equal((await call<{ released: boolean }>(leader.client, 'release_tab', { tabId })).released, false);
});

test('an expired lease frees the tab by itself', async () => {
  const { tabId } = await call<{ tabId: number }>(follower.client, 'open_tab', { url: `${site.origin}/keys` });
  await call(follower.client, 'lease_tab', { tabId, ttlSec: 1 });
  assert.equal((await callError(leader.client, 'press_key', { tabId, key: 'a' })).type, 'lease_held');
  assert.ok(await eventually(async () => !(await callRaw(leader.client, 'press_key', { tabId, key: 'a' })).isError, 10_000), 'the leader acts once the lease ran out');
  assert.equal(await evaluate(leader.client, 'window.keys', tabId), 1);
});
