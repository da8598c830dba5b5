// Who serves the dashboard when several servers share one profile (docs/dashboard.md, "Who serves it"): the leader
// serves it, a follower never does; the follower's calls show in the leader's dashboard, and its get_bridge_status
// names the leader's address; when the leader exits, the follower that takes over serves its own, and the leader's
// discovery file is gone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call } from '../fixtures/mcp.js';
import { eventually, until } from '../fixtures/harness.js';
import { killLeftovers } from '../fixtures/processes.js';
import { browsersOn, machine, startServer, type Machine, type Server } from '../fixtures/relay.js';
import { listDashboards } from '../../src/dashboard/discovery.js';

interface Status { role: string; leaderPid: number; dashboard: { url: string } | null }

let m: Machine;
const servers: Server[] = [];

before(async () => {
  m = await machine();
});

after(async () => {
  for (const s of servers) await s.close();
  await eventually(() => browsersOn(m.profile).length === 0, 15_000);
  killLeftovers(m.profile);
  m.remove();
});

test('the leader serves the dashboard, the follower none; after the leader exits the follower serves its own', async () => {
  const env = { TABWRIGHT_DASHBOARD_PORT: '0' };
  const a = await startServer(m, { env });
  const b = await startServer(m, { env });
  servers.push(a, b);
  const [sa, sb] = [await call<Status>(a.client, 'get_bridge_status'), await call<Status>(b.client, 'get_bridge_status')];
  assert.deepEqual([sa.role, sb.role, sb.leaderPid], ['leader', 'follower', a.pid]);
  const served = listDashboards(m.configDir);
  assert.deepEqual(served.map(d => d.pid), [a.pid]);
  assert.deepEqual([sa.dashboard, sb.dashboard], [{ url: served[0]!.url }, { url: served[0]!.url }]);

  const token = readFileSync(join(m.configDir, 'dashboard-token'), 'utf8').trim();
  const state = await (await fetch(new URL('/api/state', served[0]!.url), { headers: { authorization: `Bearer ${token}` } })).json() as { sessions: Array<{ front: string; client: string }> };
  const fronts = state.sessions.map(s => `${s.client} ${s.front}`);
  assert.ok(fronts.includes('tabwright-relay-test mcp-stdio'), fronts.join('; '));
  assert.ok(fronts.some(f => new RegExp(`^tabwright-relay-test relay follower \\(pid ${b.pid}\\b.*\\) via mcp-stdio$`).test(f)), fronts.join('; '));

  await a.close();
  await until('the follower to serve', () => {
    const now = listDashboards(m.configDir);
    return now.length === 1 && now[0]!.pid === b.pid ? now : undefined;
  });
  const after = await call<Status>(b.client, 'get_bridge_status');
  assert.equal(after.role, 'leader');
  assert.deepEqual(after.dashboard, { url: listDashboards(m.configDir)[0]!.url });
});
