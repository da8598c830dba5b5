// Each exit code of the CLI (README "CLI", exit codes table),
// produced for real by `node dist/cli.js` subprocesses against real daemons
// (headless Chromium): 0 success, 2 usage, 3 unreachable, 4 auth, 5 cap,
// 6 consent denied, 7 consent expired, 8 rejected by validation, 1 other.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, ROOT } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { cli, cliHome, ok, type CliHome } from '../fixtures/cli.js';

let site: Site;
let home: CliHome;
const homes: CliHome[] = [];
const tree = JSON.parse(readFileSync(join(ROOT, 'dist', 'cli', 'toolTree.json'), 'utf8')) as { tools: Array<{ name: string }> };

const SHOP = `<!doctype html><title>Shop</title><h1>Shop</h1>
<script>
  document.modelContext.registerTool({ name: 'buy', description: 'Buy an item', annotations: { consequentialHint: true },
    inputSchema: { type: 'object', properties: { item: { type: 'string' } } },
    execute: async ({ item }) => ({ content: [{ type: 'text', text: 'bought ' + item }] }) });
</script>`;

async function newHome(env: Record<string, string> = {}): Promise<CliHome> {
  const h = await cliHome(env);
  homes.push(h);
  return h;
}

before(async () => {
  site = await startSite();
  site.page('/shop', SHOP);
  site.page('/plain', '<!doctype html><title>Plain</title><p>plain');
  home = await newHome();
  await ok(home, ['tab', 'open', `${site.origin}/plain`]);
});

after(async () => {
  for (const h of homes) await h.cleanup();
  await site.close();
});

test('0: success', async () => {
  const run = await cli(home, ['exec', '1 + 1']);
  assert.equal(run.code, 0);
  assert.deepEqual(run.json, { ok: true, result: { tabId: 1, value: 2, bytes: 1 } });
});

test('2: usage errors (commander, bad --args, invalid_arguments from the tool)', async () => {
  const missing = await cli(home, ['tab', 'close']);
  assert.equal(missing.code, 2);
  assert.equal(missing.json?.ok, false);
  assert.equal(missing.json?.error?.type, 'invalid_arguments');
  assert.match(missing.json!.error!.message, /missing required argument 'tabId'/);
  const notNumber = await cli(home, ['tab', 'close', 'abc']);
  assert.equal(notNumber.code, 2);
  const unknownVerb = await cli(home, ['frobnicate']);
  assert.equal(unknownVerb.code, 2);
  assert.match(unknownVerb.json!.error!.message, /unknown command 'frobnicate'/);
  const badJson = await cli(home, ['call', 'x', '--args', '{bad']);
  assert.equal(badJson.code, 2);
  assert.match(badJson.json!.error!.message, /--args is not valid JSON/);
  const invalid = await cli(home, ['tool', 'execute', '--args', '{}']);
  assert.equal(invalid.code, 2);
  assert.equal(invalid.json?.error?.type, 'invalid_arguments');
  const unknownTool = await cli(home, ['tool', 'no_such_tool']);
  assert.equal(unknownTool.code, 2);
});

test('1: anything else (the page threw)', async () => {
  const run = await cli(home, ['exec', 'throw new Error("boom")']);
  assert.equal(run.code, 1);
  assert.equal(run.json?.error?.type, 'evaluation_failed');
  assert.match(run.stderr, /boom/);
});

test('1: a verb the connection cannot do (share on the launched browser) names the flags that can, and the daemon restart', async () => {
  const run = await cli(home, ['share']);
  assert.equal(run.code, 1);
  assert.deepEqual(run.json?.error, {
    type: 'capability_unavailable',
    message: 'The launch connection cannot do this: it lacks the "shareTabs" capability.',
    hint: 'Start the server with --own-chrome (a daemon: `tabwright daemon stop`, then `tabwright daemon start --own-chrome`).',
  });
});

test('3: no daemon and autostart off; a browser that does not exist', async () => {
  const off = await newHome({ TABWRIGHT_DAEMON_AUTOSTART: '0' });
  const run = await cli(off, ['tabs']);
  assert.equal(run.code, 3);
  assert.equal(run.json?.error?.type, 'daemon_unavailable');
  assert.match(run.json!.error!.hint, /tabwright daemon start/);
  const bad = await newHome({ TABWRIGHT_BROWSER: '/nonexistent/chromium' });
  const open = await cli(bad, ['tab', 'open', `${site.origin}/plain`]);
  assert.equal(open.code, 3);
  assert.equal(open.json?.error?.type, 'browser_unavailable');
  const doctor = await cli(bad, ['doctor']);
  assert.equal(doctor.code, 3);
  assert.equal(doctor.json?.error?.type, 'browser_unavailable');
  assert.equal((doctor.json as { report: { browser: { ok: boolean } } }).report.browser.ok, false);
});

test('4: a token the daemon does not know (HTTP 401)', async () => {
  const file = join(home.configDir, 'daemon.json');
  const original = readFileSync(file, 'utf8');
  try {
    writeFileSync(file, JSON.stringify({ ...JSON.parse(original), token: '0'.repeat(64) }), { mode: 0o600 });
    const run = await cli(home, ['tabs']);
    assert.equal(run.code, 4);
    assert.equal(run.json?.error?.type, 'unauthorized');
    assert.equal(run.json?.outcome, 'not_dispatched');
  } finally {
    writeFileSync(file, original, { mode: 0o600 });
  }
});

test('5: an argument over 8 MiB (HTTP 413), and a 17th call while 16 are in flight (HTTP 429)', async () => {
  const big = join(home.cwd, 'big.json');
  writeFileSync(big, JSON.stringify({ code: `'${'a'.repeat(8 * 1024 * 1024)}'` }));
  const large = await cli(home, ['tool', 'execute', '--args', `@${big}`]);
  assert.equal(large.code, 5, large.stdout + large.stderr);
  assert.equal(large.json?.error?.type, 'payload_too_large');
  assert.equal(large.json?.outcome, 'not_dispatched');

  // 16 slow calls in flight (counted by GET /v1/status), then one more.
  const slow: ChildProcess[] = [];
  try {
    for (let i = 0; i < 16; i++) {
      slow.push(spawn(process.execPath, [CLI, 'exec', 'await new Promise(r => setTimeout(r, 120000))', '--timeout-sec', '300'], { cwd: home.cwd, env: home.env, stdio: 'ignore' }));
    }
    for (;;) {
      const status = await ok(home, ['daemon', 'status']);
      if (status.activeRequests >= 16) break;
      await new Promise(r => setTimeout(r, 200));
    }
    const run = await cli(home, ['exec', '1']);
    assert.equal(run.code, 5);
    assert.equal(run.json?.error?.type, 'too_many_requests');
    assert.equal(run.json?.outcome, 'not_dispatched');
  } finally {
    // Killing the clients disconnects them, which cancels their calls.
    for (const child of slow) child.kill('SIGKILL');
  }
  for (;;) {
    const status = await ok(home, ['daemon', 'status']);
    if (status.activeRequests === 0) break;
    await new Promise(r => setTimeout(r, 200));
  }
  assert.equal((await ok(home, ['exec', '1'])).value, 1);
});

test('6: consent denied (daemon started with --auto-deny)', async () => {
  const deny = await newHome();
  const started = await ok(deny, ['daemon', 'start', '--auto-deny']);
  assert.equal(started.started, true);
  await ok(deny, ['tab', 'open', `${site.origin}/shop`]);
  const run = await cli(deny, ['call', 'buy', '--args', '{"item":"book"}']);
  assert.equal(run.code, 6, run.stdout + run.stderr);
  assert.equal(run.json?.error?.type, 'consent_denied');
});

test('7: consent expired: without a terminal the call waits for the dashboard (shortened expiry), and says where to answer', async () => {
  const expire = await newHome({ TABWRIGHT_CONSENT_TIMEOUT_MS: '3000', TABWRIGHT_DASHBOARD_PORT: '0' });
  await ok(expire, ['tab', 'open', `${site.origin}/shop`]);
  const run = await cli(expire, ['call', 'buy', '--args', '{"item":"book"}']);
  assert.equal(run.code, 7, run.stdout + run.stderr);
  assert.equal(run.json?.error?.type, 'consent_expired');
  assert.match(run.stderr, /Waiting for the user to allow buy \(\d+ s left\); answer in the tabwright dashboard: http:\/\/127\.0\.0\.1:\d+\//);
});

test('1: without a terminal and without a dashboard, a prompt fails at once (consent_unavailable)', async () => {
  const off = await newHome({ TABWRIGHT_DASHBOARD_PORT: 'off' });
  await ok(off, ['tab', 'open', `${site.origin}/shop`]);
  const run = await cli(off, ['call', 'buy', '--args', '{"item":"book"}']);
  assert.equal(run.code, 1, run.stdout + run.stderr);
  assert.equal(run.json?.error?.type, 'consent_unavailable');
  assert.match(run.json!.error!.message, /no dashboard runs/);
});

test('8: a script validation rejects (script_rejected, diagnostics in the payload)', { skip: tree.tools.some(t => t.name === 'export_script') ? false : 'the script tools are not in this build' }, async () => {
  writeFileSync(join(home.cwd, 'broken.user.js'), '// ==UserScript==\n// @name Broken\n// @match http://127.0.0.1/*\n// ==/UserScript==\nfunction (\n');
  const run = await cli(home, ['scripts', 'install', 'broken.user.js']);
  assert.equal(run.code, 8, run.stdout + run.stderr);
  assert.equal(run.json?.error?.type, 'script_rejected');
  assert.ok(JSON.stringify(run.json).includes('diagnostics'), run.stdout);
});
