// The leader killed mid-relay under load (docs/reliability.md, "Chaos"; docs/errors.md, leader_lost): servers on
// one profile, every follower with several calls in flight through the leader (a navigation the site holds, a
// wait_for, an execute that waits, a get_page_context on a busy page); the leader is SIGKILLed. Every call in flight
// answers leader_lost within a bound, a follower takes over, every remaining server's next calls work; then the new
// leader is killed too, with the same checks. No Chromium is left on the profile. Four servers, so that both rounds
// have two followers with calls in flight.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerResponse } from 'node:http';
import { call, callRaw, type RawResult } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { eventually } from '../fixtures/harness.js';
import { killLeftovers } from '../fixtures/processes.js';
import { browsersOn, machine, startServer, type Machine, type Server } from '../fixtures/relay.js';
import { record } from './fuzz.js';

interface Status { role: string; leaderPid: number }

/** An in-flight call's answer must come within this after the leader's death (ms). */
const BOUND_MS = 15_000;

let m: Machine;
let site: Site;
const servers: Server[] = [];
const held = new Set<ServerResponse>();

before(async () => {
  m = await machine();
  site = await startSite();
  site.page('/a', '<title>A</title><p>Calm page</p>');
  site.page('/b', '<title>B</title><button>After takeover</button>');
  site.route('/held', (_req, res) => {
    held.add(res);
    res.on('close', () => held.delete(res));
  });
});

after(async () => {
  for (const s of servers) await s.close();
  const gone = await eventually(() => browsersOn(m.profile).length === 0, 15_000);
  const left = browsersOn(m.profile);
  killLeftovers(m.profile);
  for (const res of held) res.destroy();
  await site?.close();
  m.remove();
  assert.ok(gone, `no Chromium on the test profile within 15 s after every server exited; left: ${left.join(', ')}`);
});

/** Starts one call of each kind on `s`, each on a tab of its own (opened first; the busy page last). */
async function loadUp(s: Server): Promise<Array<{ tool: string; answer: Promise<{ result: RawResult; at: number }> }>> {
  const tabs: number[] = [];
  for (let i = 0; i < 4; i++) tabs.push((await call<{ tabId: number }>(s.client, 'open_tab', { url: `${site.origin}/a` })).tabId);
  await call(s.client, 'execute', { tabId: tabs[3], code: 'setTimeout(() => { const end = Date.now() + 20000; while (Date.now() < end); }, 0); return 1' });
  await sleep(300);
  const calls: Array<[string, Record<string, unknown>]> = [
    ['navigate', { tabId: tabs[0], url: `${site.origin}/held`, timeoutMs: 60_000 }],
    ['wait_for', { tabId: tabs[1], text: 'never shown', timeoutSec: 60 }],
    ['execute', { tabId: tabs[2], code: 'await new Promise(() => {})', timeoutSec: 60 }],
    ['get_page_context', { tabId: tabs[3], output: 'inline' }],
  ];
  return calls.map(([tool, args]) => ({ tool, answer: callRaw(s.client, tool, args).then(result => ({ result, at: Date.now() })) }));
}

/** The one leader among `live`, once the others follow it (within 20 s). */
async function settledLeader(live: Server[]): Promise<Server> {
  let roles: Array<[string, number]> = [];
  const settled = await eventually(async () => {
    roles = (await Promise.all(live.map(s => call<Status>(s.client, 'get_bridge_status')))).map(s => [s.role, s.leaderPid]);
    const leaders = roles.filter(r => r[0] === 'leader');
    return leaders.length === 1 && roles.every(r => r[1] === live[roles.indexOf(leaders[0]!)]!.pid);
  }, 20_000);
  assert.ok(settled, `roles after takeover: ${JSON.stringify(roles)}`);
  return live[roles.findIndex(r => r[0] === 'leader')]!;
}

test('the leader SIGKILLed with calls of every follower in flight, twice: each call answers leader_lost within a bound, a follower takes over, the next calls work', async () => {
  const started = Date.now();
  for (let i = 0; i < 4; i++) servers.push(await startServer(m));
  let live = [...servers];
  let leader = await settledLeader(live);
  assert.equal(leader, servers[0]);
  const outcomes: Array<{ round: number; tool: string; type?: string; ms: number; broke?: string }> = [];
  let takeoverMs = 0;
  for (const round of [1, 2]) {
    const followers = live.filter(s => s !== leader);
    const inFlight = (await Promise.all(followers.map(loadUp))).flat();
    const oldBrowsers = browsersOn(m.profile);
    await sleep(1000);
    const killedAt = Date.now();
    process.kill(leader.pid, 'SIGKILL');
    for (const { tool, answer } of inFlight) {
      const { result, at } = await answer;
      const error = result.isError ? (result.structuredContent as { error: { type: string; hint: string } }).error : undefined;
      const ms = at - killedAt;
      const broke = at < killedAt ? 'answered before the leader died'
        : !error ? `succeeded: ${JSON.stringify(result.structuredContent).slice(0, 300)}`
          : error.type !== 'leader_lost' ? `${error.type} instead of leader_lost`
            : !error.hint ? 'no hint'
              : ms > BOUND_MS ? `answered ${ms} ms after the leader died` : undefined;
      outcomes.push({ round, tool, type: error?.type, ms, broke });
    }
    // The killed leader's Chromium exits on its own (its CDP pipe closed).
    assert.ok(await eventually(() => oldBrowsers.every(pid => !browsersOn(m.profile).includes(pid)), 15_000), `round ${round}: the old browser exited`);
    live = followers;
    leader = await settledLeader(live);
    takeoverMs = Math.max(takeoverMs, Date.now() - killedAt);
    for (const s of live) {
      const again = await call<{ tabId: number; url: string }>(s.client, 'navigate', { url: `${site.origin}/b` });
      assert.equal(again.url, `${site.origin}/b`, `round ${round}: the next navigate of server ${s.pid}`);
      const snap = await call<{ snapshot: string }>(s.client, 'get_page_context', { tabId: again.tabId, output: 'inline' });
      assert.match(snap.snapshot, /After takeover/, `round ${round}: the next snapshot of server ${s.pid}`);
    }
    assert.equal(browsersOn(m.profile).length, 1, `round ${round}: one browser on the profile after the takeover`);
  }
  const broken = outcomes.filter(o => o.broke);
  record({
    target: 'chaos-leader-killed',
    what: 'The relay leader SIGKILLed twice (4 servers on one profile, then 3), each time with 4 calls of every follower in flight through it (a navigation the site holds, wait_for, an execute that never settles, get_page_context on a page busy in a loop): each answers leader_lost with a hint within 15 s of the kill, a follower takes over, every remaining server\'s next navigate and snapshot work, one browser on the profile, none left at the end',
    kind: 'chaos',
    inputs: outcomes.length,
    failures: broken.length,
    ms: Date.now() - started,
    notes: {
      kills: 2,
      typed: outcomes.filter(o => o.type === 'leader_lost').length,
      maxAnswerMs: Math.max(...outcomes.map(o => o.ms)),
      takeoverMs,
      ...(broken.length ? { broken: broken.map(o => `round ${o.round} ${o.tool}: ${o.broke}`).join('; ') } : {}),
    },
    at: new Date().toISOString(),
  });
  assert.equal(broken.length, 0, `calls not answered leader_lost within ${BOUND_MS} ms:\n${broken.map(o => `round ${o.round} ${o.tool}: ${o.broke}`).join('\n')}`);
});
