// Relay versions: a process built against other relay frames is
// refused with `relay_version_mismatch`, naming both versions and the older
// process to restart; a leader greeted by a newer package steps down (closes
// its browser, lets go of the port) and rejoins behind the newer process,
// which leads. One build plays both parts through the test-only overrides
// TABWRIGHT_RELAY_ADVERTISE_VERSION / TABWRIGHT_RELAY_ADVERTISE_PROTOCOL.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, callError, ROOT } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { eventually } from '../fixtures/harness.js';
import { killLeftovers } from '../fixtures/processes.js';
import { browsersOn, machine, startServer, type Machine, type Server } from '../fixtures/relay.js';

interface Status { role: string; leaderPid: number; relayProtocol: number; serverVersion: string }

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let m: Machine;
let site: Site;
const servers: Server[] = [];

before(async () => {
  m = await machine();
  site = await startSite();
  site.page('/a', '<title>A</title><p>a</p>');
});

after(async () => {
  for (const s of servers) await s.close();
  const gone = await eventually(() => browsersOn(m.profile).length === 0, 15_000);
  killLeftovers(m.profile);
  await site?.close();
  m.remove();
  assert.ok(gone, 'no Chromium on the test profile within 15 s after every server exited');
});

test('a follower on another relay protocol is refused with relay_version_mismatch naming both and the older one', async () => {
  const leader = await startServer(m);
  servers.push(leader);
  const other = await startServer(m, { env: { TABWRIGHT_RELAY_ADVERTISE_VERSION: '0.0.1', TABWRIGHT_RELAY_ADVERTISE_PROTOCOL: '7' } });
  try {
    const error = await callError(other.client, 'list_tabs');
    assert.equal(error.type, 'relay_version_mismatch');
    assert.equal(error.message, `tabwright 0.0.1 (relay protocol 7, pid ${other.pid}, the follower) and tabwright ${VERSION} (relay protocol 1, pid ${leader.pid}, the leader) cannot share the browser: their relay protocols differ.`);
    assert.equal(error.hint, `Restart the older process, pid ${other.pid} (tabwright 0.0.1, the follower), so that every tabwright process on this machine runs the same relay protocol.`);
    // The leader keeps serving, alone.
    assert.deepEqual((await call<Status>(leader.client, 'get_bridge_status')).role, 'leader');
  } finally {
    await other.close();
  }
});

test('a leader greeted by a newer package steps down and follows it', async () => {
  const [current] = servers;
  await current?.close();
  servers.length = 0;
  const old = await startServer(m, { env: { TABWRIGHT_RELAY_ADVERTISE_VERSION: '0.0.1' } });
  servers.push(old);
  assert.deepEqual((await call<Status>(old.client, 'get_bridge_status')).role, 'leader');
  await call(old.client, 'navigate', { url: `${site.origin}/a` });
  const oldBrowser = browsersOn(m.profile);
  assert.equal(oldBrowser.length, 1);

  const newer = await startServer(m);
  servers.push(newer);
  const status = await call<Status>(newer.client, 'get_bridge_status');
  assert.deepEqual([status.role, status.leaderPid, status.serverVersion], ['leader', newer.pid, VERSION]);
  // The old leader closed its browser and now follows the newer process.
  assert.ok(await eventually(() => !browsersOn(m.profile).includes(oldBrowser[0]!), 15_000), 'the old leader closed its browser');
  let role: Status | undefined;
  assert.ok(await eventually(async () => {
    const res = await old.client.callTool({ name: 'get_bridge_status', arguments: {} });
    role = res.isError ? undefined : res.structuredContent as unknown as Status;
    return role?.role === 'follower';
  }, 20_000), `old process role: ${JSON.stringify(role)}`);
  assert.deepEqual([role!.leaderPid, role!.serverVersion], [newer.pid, VERSION]);
  // The old process's calls now run on the newer one's browser.
  const nav = await call<{ url: string }>(old.client, 'navigate', { url: `${site.origin}/a` });
  assert.equal(nav.url, `${site.origin}/a`);
  assert.equal(browsersOn(m.profile).length, 1);
});
