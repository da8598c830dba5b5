// Takeover: three `tabwright-mcp` servers on one profile; the
// leader is killed with SIGKILL mid-session, with a follower's call in
// flight. That call fails with `leader_lost`; one follower takes the port
// and relaunches the browser on the same profile (the old Chromium exits
// when its CDP pipe closes and lets go of the profile), the other follows
// it, and both followers' next calls work (navigate + snapshot). No orphan
// Chromium at the end.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { eventually } from '../fixtures/harness.js';
import { killLeftovers } from '../fixtures/processes.js';
import { browsersOn, machine, startServer, type Machine, type Server } from '../fixtures/relay.js';

interface Status { role: string; leaderPid: number; browserRunning: boolean }

let m: Machine;
let site: Site;
const servers: Server[] = [];

before(async () => {
  m = await machine();
  site = await startSite();
  site.page('/a', '<title>A</title><p>before</p>');
  site.page('/b', '<title>B</title><button>After takeover</button>');
  site.route('/slow', (_req, res) => {
    setTimeout(() => res.end('late'), 30_000).unref();
  });
});

after(async () => {
  for (const s of servers) await s.close();
  const gone = await eventually(() => browsersOn(m.profile).length === 0, 15_000);
  const left = browsersOn(m.profile);
  killLeftovers(m.profile);
  await site?.close();
  m.remove();
  assert.ok(gone, `no Chromium on the test profile within 15 s after every server exited; left: ${left.join(', ')}`);
});

test('the leader killed with SIGKILL: a follower takes over and the next calls work', async () => {
  const a = await startServer(m);
  const b = await startServer(m);
  const c = await startServer(m);
  servers.push(a, b, c);
  assert.deepEqual((await Promise.all([a, b, c].map(s => call<Status>(s.client, 'get_bridge_status')))).map(s => [s.role, s.leaderPid]),
    [['leader', a.pid], ['follower', a.pid], ['follower', a.pid]]);
  const nav = await call<{ tabId: number }>(b.client, 'navigate', { url: `${site.origin}/a` });
  assert.equal(typeof nav.tabId, 'number');
  const firstBrowser = browsersOn(m.profile);
  assert.equal(firstBrowser.length, 1);

  // A call of B in flight when the leader dies.
  const inFlight = b.client.callTool({ name: 'execute', arguments: { code: `await fetch('/slow'); return 1`, timeoutSec: 60 } });
  await new Promise(resolve => setTimeout(resolve, 500));
  process.kill(a.pid, 'SIGKILL');
  const lost = await inFlight;
  assert.equal(lost.isError, true);
  assert.equal((lost.structuredContent as { error: { type: string } }).error.type, 'leader_lost');

  // The killed leader's Chromium exits on its own (its CDP pipe closed).
  assert.ok(await eventually(() => !browsersOn(m.profile).includes(firstBrowser[0]!), 15_000), 'the old browser exited');

  // One of B and C leads now, the other follows it.
  let roles: Array<[string, number]> = [];
  assert.ok(await eventually(async () => {
    roles = (await Promise.all([b, c].map(s => call<Status>(s.client, 'get_bridge_status')))).map(s => [s.role, s.leaderPid]);
    return roles.filter(r => r[0] === 'leader').length === 1 && roles.filter(r => r[0] === 'follower').length === 1;
  }, 20_000), `roles after takeover: ${JSON.stringify(roles)}`);
  const newLeader = roles[0]![0] === 'leader' ? b : c;
  assert.deepEqual(roles.map(r => r[1]), [newLeader.pid, newLeader.pid]);

  // Both followers' next calls work, on a relaunched browser on the same profile.
  for (const s of [b, c]) {
    const again = await call<{ tabId: number; url: string }>(s.client, 'navigate', { url: `${site.origin}/b` });
    assert.equal(again.url, `${site.origin}/b`);
    const snap = await call<{ snapshot: string }>(s.client, 'get_page_context', { tabId: again.tabId, output: 'inline' });
    assert.match(JSON.stringify(snap), /After takeover/);
  }
  assert.equal(browsersOn(m.profile).length, 1, 'one browser on the profile after the takeover');
});

test('a leader that exits normally hands over as well, and the last one closes the browser', async () => {
  const [, b, c] = servers;
  const roles = await Promise.all([b!, c!].map(s => call<Status>(s.client, 'get_bridge_status')));
  const leader = roles[0]!.role === 'leader' ? b! : c!;
  const follower = leader === b ? c! : b!;
  await leader.close();
  // A call sent while the old leader shuts down may come back leader_lost: poll the (read-only) status.
  assert.ok(await eventually(async () => {
    const res = await follower.client.callTool({ name: 'get_bridge_status', arguments: {} });
    return !res.isError && (res.structuredContent as unknown as Status).role === 'leader';
  }, 20_000), 'the remaining server leads');
  const nav = await call<{ url: string }>(follower.client, 'navigate', { url: `${site.origin}/a` });
  assert.equal(nav.url, `${site.origin}/a`);
});
