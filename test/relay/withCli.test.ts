// Two `tabwright-mcp` servers and the CLI at once on one managed browser
// (Tests): the CLI's daemon joins the relay as a follower like any
// other process; a tab the CLI opens is listed by both MCP servers and the
// other way round; one Chromium runs on the profile. The leader is killed
// with SIGKILL; the CLI's next command and the other server's next call
// work (one of the survivors took over). No orphan Chromium at the end.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { cli, ok, stopDaemon, daemonPid, type CliHome } from '../fixtures/cli.js';
import { TEST_BROWSER_ARGS } from '../fixtures/mcp.js';
import { eventually, freePort } from '../fixtures/harness.js';
import { killLeftovers } from '../fixtures/processes.js';
import { browsersOn, machine, startServer, type Machine, type Server } from '../fixtures/relay.js';

interface Status { role: string; leaderPid: number }
interface Tab { tabId: number; url: string }

let m: Machine;
let site: Site;
let home: CliHome;
const servers: Server[] = [];

before(async () => {
  m = await machine();
  site = await startSite();
  site.page('/mcp', '<title>From MCP</title><p>mcp</p>');
  site.page('/cli', '<title>From CLI</title><p>cli</p>');
  site.page('/later', '<title>Later</title><p>later</p>');
  const cwd = join(m.dataDir, '..', 'work');
  mkdirSync(cwd, { recursive: true });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('TABWRIGHT_')) env[k] = v;
  Object.assign(env, {
    TABWRIGHT_CONFIG_DIR: m.configDir,
    TABWRIGHT_DATA_DIR: m.dataDir,
    TABWRIGHT_HTTP_PORT: String(await freePort()),
    TABWRIGHT_WS_PORT: String(m.port),
    TABWRIGHT_HEADLESS: '1',
    TABWRIGHT_BROWSER_ARGS: TEST_BROWSER_ARGS.map(a => `"${a}"`).join(' '),
    TABWRIGHT_CONSENT_TTY: '0',
    TABWRIGHT_DASHBOARD_PORT: 'off',
  });
  home = { root: join(m.dataDir, '..'), configDir: m.configDir, dataDir: m.dataDir, cwd, port: Number(env.TABWRIGHT_HTTP_PORT), env, cleanup: async () => stopDaemon(home) };
});

after(async () => {
  for (const s of servers) await s.close();
  await stopDaemon(home);
  const gone = await eventually(() => browsersOn(m.profile).length === 0, 15_000);
  const left = browsersOn(m.profile);
  killLeftovers(m.profile);
  await site?.close();
  m.remove();
  assert.ok(gone, `no Chromium on the test profile within 15 s after every process exited; left: ${left.join(', ')}`);
});

test('two MCP servers and the CLI share one browser; the leader is SIGKILLed and the others carry on', async () => {
  const a = await startServer(m);
  const b = await startServer(m);
  servers.push(a, b);
  const nav = await call<{ tabId: number }>(a.client, 'navigate', { url: `${site.origin}/mcp` });
  const opened = await ok(home, ['tab', 'open', `${site.origin}/cli`]);
  const daemon = daemonPid(home);
  assert.equal(typeof daemon, 'number');
  const status = await ok(home, ['tool', 'get_bridge_status']);
  assert.deepEqual([status.role, status.leaderPid], ['follower', a.pid]);
  const expected = [[nav.tabId, `${site.origin}/mcp`], [opened.tabId, `${site.origin}/cli`]];
  for (const s of [a, b]) {
    assert.deepEqual((await call<{ tabs: Tab[] }>(s.client, 'list_tabs')).tabs.map(t => [t.tabId, t.url]), expected);
  }
  assert.deepEqual((await ok(home, ['tabs'])).tabs.map((t: Tab) => [t.tabId, t.url]), expected);
  assert.equal(browsersOn(m.profile).length, 1, 'one browser on the profile');

  // A userscript the CLI installs goes through the daemon (a follower) to the leader, which saves it: the leader's
  // browser runs it in its next documents (docs/userscripts.md, "Changes").
  const file = join(home.cwd, 'marker.user.js');
  writeFileSync(file, ['// ==UserScript==', '// @name Marker', '// @namespace https://example.test', `// @include ${site.origin}/mcp*`,
    '// @grant none', '// @run-at document-start', '// ==/UserScript==', 'window.__marker = "from the CLI";', ''].join('\n'));
  await ok(home, ['scripts', 'install', file]);
  let seen: unknown;
  assert.ok(await eventually(async () => {
    await call(a.client, 'navigate', { url: `${site.origin}/mcp`, tabId: nav.tabId });
    seen = (await call<{ value: unknown }>(a.client, 'execute', { tabId: nav.tabId, code: 'window.__marker ?? null' })).value;
    return seen === 'from the CLI';
  }, 15_000), `the CLI's script in the leader's browser: ${JSON.stringify(seen)}`);

  process.kill(a.pid, 'SIGKILL');
  // The CLI's next command works once a survivor leads (a command racing the takeover may see leader_lost).
  let last: unknown;
  assert.ok(await eventually(async () => {
    const run = await cli(home, ['tool', 'navigate', '--url', `${site.origin}/later`]);
    last = run.json;
    return run.code === 0 && run.json?.result?.url === `${site.origin}/later`;
  }, 30_000), `CLI after the takeover: ${JSON.stringify(last)}`);
  const roles = [(await call<Status>(b.client, 'get_bridge_status')), await ok(home, ['tool', 'get_bridge_status'])] as Status[];
  assert.deepEqual(roles.map(r => r.role).sort(), ['follower', 'leader']);
  const leaderPid = roles.find(r => r.role === 'leader') === roles[0] ? b.pid : daemon;
  assert.deepEqual(roles.map(r => r.leaderPid), [leaderPid, leaderPid]);
  const urls = (await call<{ tabs: Tab[] }>(b.client, 'list_tabs')).tabs.map(t => t.url);
  assert.deepEqual(urls, [`${site.origin}/later`]);
  assert.equal(browsersOn(m.profile).length, 1, 'one browser on the profile after the takeover');
});
