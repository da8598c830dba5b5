/**
 * The launch connection's lifecycle and configuration (docs/connections.md): Chromium starts lazily; it closes when the server exits for
 * any reason (stdin EOF, SIGTERM, SIGINT, the client killed abruptly, the
 * parent gone while stdin stays open, the SDK closing the connection);
 * browser_unavailable names the variable and the install command; the
 * persistent profile survives restarts and --isolated leaves none behind;
 * --viewport, --browser-arg and TABWRIGHT_BROWSER_ARGS reach the browser; bad
 * flags exit 2; the tabwright-mcp bin serves the same tools.
 *
 * Each run that launches Chromium gets a unique --user-data-dir (or a unique
 * marker switch) so `ps` finds exactly that run's browser processes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { installHint } from '../../src/browser/launch/findBrowser.js';
import { TOOLS } from '../../src/tools/registry.js';

/** The default tool set (`--toolsets core`): what tools/list shows without flags. */
// A human's command (share_tabs) is never listed over MCP.
const CORE_TOOLS = TOOLS.filter(t => (t.toolset ?? 'core') === 'core' && !t.humanOnly);
import { call, callError, CLI, connect, ROOT, serverArgs, TEST_BROWSER_ARGS } from '../fixtures/mcp.js';
import { eventually } from '../fixtures/harness.js';
import { isAlive, killLeftovers, processesWith } from '../fixtures/processes.js';
import { RawSession } from '../fixtures/raw.js';
import { startSite, type Site } from '../fixtures/site.js';

const MCP_MAIN = join(ROOT, 'dist', 'mcpMain.js');
const BROWSER_ARG_FLAGS = TEST_BROWSER_ARGS.flatMap(a => ['--browser-arg', a]);
/** Variables of the surrounding environment that would change what a test means. */
const CLEAN_ENV = {
  TABWRIGHT_BROWSER: undefined,
  TABWRIGHT_BROWSER_ARGS: undefined,
  TABWRIGHT_ISOLATED: undefined,
  TABWRIGHT_USER_DATA_DIR: undefined,
  TABWRIGHT_VIEWPORT: undefined,
  TABWRIGHT_DATA_DIR: undefined,
};
/** How long the browser may take to go away after the server was told to stop. */
const GONE_WITHIN_MS = 10_000;

let site: Site;
const temps: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** A server on a unique persistent profile (no --isolated), so `ps` can find its browser by that path. */
function persistentServer(userDataDir: string, env: Record<string, string | undefined> = {}): RawSession {
  return new RawSession([CLI, 'mcp', '--headless', '--user-data-dir', userDataDir, ...BROWSER_ARG_FLAGS], { env: { ...CLEAN_ENV, ...env } });
}

/** Starts a server, launches its browser with a navigate, and checks that `ps` sees that browser. */
async function launched(): Promise<{ raw: RawSession; userDataDir: string }> {
  const userDataDir = tempDir('tw-life-udd-');
  const raw = persistentServer(userDataDir);
  await raw.initialize('2025-11-25');
  const nav = await raw.callTool('navigate', { url: `${site.origin}/page` });
  assert.notEqual(nav.isError, true, JSON.stringify(nav));
  assert.ok(processesWith(`--user-data-dir=${userDataDir}`).length > 0, 'the browser runs with the unique profile');
  return { raw, userDataDir };
}

/** Asserts (bounded wait) that no process of this run survives. */
async function assertAllGone(userDataDir: string, serverPid: number): Promise<void> {
  const gone = await eventually(() => processesWith(userDataDir).length === 0 && !isAlive(serverPid), GONE_WITHIN_MS);
  const survivors = processesWith(userDataDir);
  const serverAlive = isAlive(serverPid);
  killLeftovers(userDataDir);
  assert.ok(gone, `still running after ${GONE_WITHIN_MS} ms: server ${serverAlive ? 'alive' : 'gone'}; ${survivors.map(s => `${s.pid} ${s.args.slice(0, 120)}`).join('\n')}`);
}

/**
 * The "client": a small Node process that spawns the server, makes it launch
 * Chromium, reports the server's pid on stdout and then waits to be killed.
 * With `sharedStdin` the server inherits the client's stdin (a pipe this test
 * holds and writes the requests into), so the client's death closes nothing
 * the server reads from.
 */
const CLIENT_SCRIPT = `
  import { spawn } from 'node:child_process';
  const [args, url, sharedStdin] = [JSON.parse(process.argv[2]), process.argv[3], process.argv[4] === 'shared'];
  const server = spawn(process.execPath, args, { stdio: [sharedStdin ? 'inherit' : 'pipe', 'pipe', 'pipe'] });
  server.stderr.pipe(process.stderr);
  const send = (msg) => server.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\\n');
  let buf = '';
  server.stdout.setEncoding('utf8');
  server.stdout.on('data', (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\\n')) >= 0) {
      const msg = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (msg.id === 1 && !sharedStdin) {
        send({ method: 'notifications/initialized' });
        send({ id: 2, method: 'tools/call', params: { name: 'navigate', arguments: { url } } });
      } else if (msg.id === 2) {
        process.stdout.write('READY ' + server.pid + ' ' + (msg.result && !msg.result.isError ? 'ok' : JSON.stringify(msg)) + '\\n');
      }
    }
  });
  if (!sharedStdin) send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'doomed-client', version: '1' } } });
  setInterval(() => {}, 1000);
`;

/** Starts the client of CLIENT_SCRIPT and waits until its server's browser runs. */
async function doomedClient(sharedStdin: boolean): Promise<{ client: ChildProcess; userDataDir: string; serverPid: number }> {
  const userDataDir = tempDir('tw-life-kill-');
  const script = join(tempDir('tw-life-client-'), 'client.mjs');
  writeFileSync(script, CLIENT_SCRIPT);
  const args = [CLI, 'mcp', '--headless', '--user-data-dir', userDataDir, ...BROWSER_ARG_FLAGS];
  const env = { ...process.env } as Record<string, string | undefined>;
  for (const key of Object.keys(CLEAN_ENV)) delete env[key];
  const url = `${site.origin}/page`;
  const client = spawn(process.execPath, [script, JSON.stringify(args), url, sharedStdin ? 'shared' : 'own'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  client.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  client.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  client.stdin!.on('error', () => undefined);
  if (sharedStdin) {
    const line = (msg: Record<string, unknown>) => `${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`;
    client.stdin!.write(
      line({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } } }) +
      line({ method: 'notifications/initialized' }) +
      line({ id: 2, method: 'tools/call', params: { name: 'navigate', arguments: { url } } }),
    );
  }
  const ready = await eventually(() => out.includes('\n'), 60_000);
  if (!ready) client.kill('SIGKILL');
  assert.ok(ready, `the client never reported READY; stderr:\n${err}`);
  const m = /^READY (\d+) ok$/m.exec(out);
  assert.ok(m, out);
  const serverPid = Number(m[1]);
  assert.ok(isAlive(serverPid));
  assert.ok(processesWith(`--user-data-dir=${userDataDir}`).length > 0, 'the browser runs');
  return { client, userDataDir, serverPid };
}

before(async () => {
  site = await startSite();
  site.page('/page', '<title>Lifecycle</title><p>hello</p>');
});
after(async () => {
  await site?.close();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe('lazy start', () => {
  test('tools/list answers and no Chromium runs before the first browser tool; stdin EOF closes it', async () => {
    const userDataDir = tempDir('tw-life-lazy-');
    const raw = persistentServer(userDataDir);
    try {
      await raw.initialize('2025-11-25');
      const list = await raw.request('tools/list');
      assert.equal((list.result!.tools as unknown[]).length, CORE_TOOLS.length);
      const status = await raw.callTool('get_bridge_status');
      assert.equal((status.structuredContent as { browserRunning: boolean }).browserRunning, false);
      const tabs = await raw.callTool('list_tabs');
      assert.notEqual(tabs.isError, true, JSON.stringify(tabs));
      assert.equal(await eventually(() => processesWith(userDataDir).some(p => !p.args.includes(CLI)), 1000), false, 'no browser process before a browser tool');
      assert.equal(existsSync(join(userDataDir, 'Default')), false, 'the profile is untouched');

      const nav = await raw.callTool('navigate', { url: `${site.origin}/page` });
      assert.notEqual(nav.isError, true, JSON.stringify(nav));
      assert.ok(processesWith(`--user-data-dir=${userDataDir}`).length > 0, 'navigate started the browser');
      const after = await raw.callTool('get_bridge_status');
      assert.equal((after.structuredContent as { browserRunning: boolean }).browserRunning, true);
      assert.equal((await raw.close()).code, 0, raw.stderr);
      await assertAllGone(userDataDir, raw.pid);
    } finally {
      raw.kill('SIGKILL');
      killLeftovers(userDataDir);
    }
  });
});

describe('the browser closes when the server exits', () => {
  const cases: Array<[string, (raw: RawSession) => void, number]> = [
    ['SIGTERM', raw => raw.kill('SIGTERM'), 143],
    ['SIGINT', raw => raw.kill('SIGINT'), 130],
  ];
  for (const [name, stop, exitCode] of cases) {
    test(name, async () => {
      const { raw, userDataDir } = await launched();
      try {
        stop(raw);
        const exit = await raw.waitExit(GONE_WITHIN_MS);
        assert.deepEqual(exit, { code: exitCode, signal: null }, raw.stderr);
        await assertAllGone(userDataDir, raw.pid);
      } finally {
        raw.kill('SIGKILL');
        killLeftovers(userDataDir);
      }
    });
  }

  test('a message over the SDK\'s 10 MB read limit is answered request_too_large and the connection stays open (docs/mcp.md, "The stream")', async () => {
    const { raw, userDataDir } = await launched();
    try {
      const huge = JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'execute', arguments: { code: `"${'x'.repeat(11 * 1024 * 1024)}".length` } } });
      await raw.write(`${huge}\n`);
      const answer = await raw.response(99);
      assert.equal((answer.error?.data as { type?: string })?.type, 'request_too_large', JSON.stringify(answer));
      assert.deepEqual((await raw.request('ping')).result, {});
      const exit = await raw.close(GONE_WITHIN_MS * 3);
      assert.deepEqual(exit, { code: 0, signal: null }, raw.stderr);
      await assertAllGone(userDataDir, raw.pid);
    } finally {
      raw.kill('SIGKILL');
      killLeftovers(userDataDir);
    }
  });

  test('stdin EOF from the SDK client (client.close())', async () => {
    const userDataDir = tempDir('tw-life-sdk-');
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !(k in CLEAN_ENV))) as Record<string, string>;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--headless', '--user-data-dir', userDataDir, ...BROWSER_ARG_FLAGS],
      env: { ...env, TABWRIGHT_LOG: 'info' },
      stderr: 'pipe',
      cwd: ROOT,
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: 'tabwright-test', version: '0.0.0' });
    try {
      await client.connect(transport);
      const serverPid = transport.pid!;
      await call(client, 'navigate', { url: `${site.origin}/page` });
      assert.ok(processesWith(`--user-data-dir=${userDataDir}`).length > 0);
      await client.close();
      await assertAllGone(userDataDir, serverPid);
      // The SDK sends SIGTERM when the server has not exited 2 s after EOF; it was EOF that stopped it.
      assert.match(stderr, /shutting down: (stdin closed|MCP connection closed)/);
      assert.doesNotMatch(stderr, /shutting down: SIGTERM/);
    } finally {
      await client.close().catch(() => undefined);
      killLeftovers(userDataDir);
    }
  });

  test('the client process is killed abruptly (SIGKILL)', async () => {
    const { client, userDataDir, serverPid } = await doomedClient(false);
    try {
      client.kill('SIGKILL');
      await assertAllGone(userDataDir, serverPid);
    } finally {
      client.kill('SIGKILL');
      killLeftovers(userDataDir);
    }
  });

  test('the parent dies while something else keeps the server\'s stdin open', async () => {
    const { client, userDataDir, serverPid } = await doomedClient(true);
    try {
      client.kill('SIGKILL');
      // This process still holds the write end of the server's stdin: no EOF, only the parent is gone.
      await assertAllGone(userDataDir, serverPid);
    } finally {
      client.stdin?.end();
      client.kill('SIGKILL');
      killLeftovers(userDataDir);
    }
  });
});

describe('browser_unavailable', () => {
  test('TABWRIGHT_BROWSER (or --browser) pointing nowhere names the variable', async () => {
    const [viaEnv, viaFlag] = await Promise.all([
      connect({ env: { TABWRIGHT_BROWSER: '/nonexistent/chromium' } }),
      connect({ args: ['--browser', '/nonexistent/chrome'] }),
    ]);
    try {
      const error = await callError(viaEnv.client, 'navigate', { url: `${site.origin}/page` });
      assert.equal(error.type, 'browser_unavailable');
      assert.match(error.message, /\/nonexistent\/chromium/);
      assert.match(`${error.message} ${error.hint}`, /TABWRIGHT_BROWSER/);
      // The server keeps answering, without a browser.
      const status = await call<{ browserRunning: boolean }>(viaEnv.client, 'get_bridge_status');
      assert.equal(status.browserRunning, false);
      const again = await callError(viaEnv.client, 'execute', { code: '1' });
      assert.equal(again.type, 'browser_unavailable');

      const flagError = await callError(viaFlag.client, 'open_tab', {});
      assert.equal(flagError.type, 'browser_unavailable');
      assert.match(flagError.message, /\/nonexistent\/chrome/);
      assert.match(`${flagError.message} ${flagError.hint}`, /TABWRIGHT_BROWSER/);
    } finally {
      await Promise.all([viaEnv.close(), viaFlag.close()]);
    }
  });

  test('no browser on PATH: the hint names the install command and TABWRIGHT_BROWSER', async () => {
    const emptyPath = tempDir('tw-life-emptypath-');
    const raw = new RawSession(serverArgs(), { env: { ...CLEAN_ENV, PATH: emptyPath } });
    try {
      await raw.initialize('2025-11-25');
      const res = await raw.callTool('navigate', { url: `${site.origin}/page` });
      assert.equal(res.isError, true, JSON.stringify(res));
      const error = (res.structuredContent as { error: { type: string; message: string; hint: string } }).error;
      assert.equal(error.type, 'browser_unavailable');
      assert.ok(error.hint.includes(installHint()), error.hint);
      assert.match(`${error.message} ${error.hint}`, /TABWRIGHT_BROWSER/);
      assert.match(error.message, /chromium/);
      assert.equal((await raw.close()).code, 0, raw.stderr);
    } finally {
      raw.kill('SIGKILL');
    }
  });
});

describe('profiles', () => {
  test('the persistent profile under <data dir>/profile survives a restart', async () => {
    const dataDir = tempDir('tw-life-data-');
    const profile = join(dataDir, 'profile');
    const url = `${site.origin}/page`;
    const first = new RawSession([CLI, 'mcp', '--headless', ...BROWSER_ARG_FLAGS], { env: { ...CLEAN_ENV, TABWRIGHT_DATA_DIR: dataDir } });
    try {
      await first.initialize('2025-11-25');
      const status = await first.callTool('get_bridge_status');
      assert.equal((status.structuredContent as { profile: string }).profile, profile);
      assert.notEqual((await first.callTool('navigate', { url })).isError, true);
      const set = await first.callTool('execute', {
        code: 'localStorage.setItem("tw-key", "kept across restarts"); document.cookie = "tw_cookie=yum; max-age=86400; path=/"; return document.cookie;',
      });
      assert.match((set.structuredContent as { value: string }).value, /tw_cookie=yum/);
      assert.ok(processesWith(`--user-data-dir=${profile}`).length > 0, 'the browser uses <data dir>/profile');
      assert.equal((await first.close()).code, 0, first.stderr);
      await assertAllGone(profile, first.pid);
    } finally {
      first.kill('SIGKILL');
      killLeftovers(profile);
    }
    assert.ok(existsSync(join(profile, 'Default')), 'the profile stays on disk');

    const second = new RawSession([CLI, 'mcp', '--headless', ...BROWSER_ARG_FLAGS], { env: { ...CLEAN_ENV, TABWRIGHT_DATA_DIR: dataDir } });
    try {
      await second.initialize('2025-11-25');
      assert.notEqual((await second.callTool('navigate', { url })).isError, true);
      const got = await second.callTool('execute', { code: 'return [localStorage.getItem("tw-key"), document.cookie];' });
      const [stored, cookie] = (got.structuredContent as { value: [string | null, string] }).value;
      assert.equal(stored, 'kept across restarts');
      assert.match(cookie, /tw_cookie=yum/);
      assert.equal((await second.close()).code, 0, second.stderr);
      await assertAllGone(profile, second.pid);
    } finally {
      second.kill('SIGKILL');
      killLeftovers(profile);
    }
  });

  test('--isolated leaves no profile behind', async () => {
    const dataDir = tempDir('tw-life-iso-');
    const marker = `--tabwright-test-run=${randomUUID()}`;
    const raw = new RawSession(serverArgs(['--browser-arg', marker]), { env: { ...CLEAN_ENV, TABWRIGHT_DATA_DIR: dataDir } });
    let tempProfile: string | undefined;
    try {
      await raw.initialize('2025-11-25');
      assert.equal(((await raw.callTool('get_bridge_status')).structuredContent as { profile: string }).profile, 'isolated');
      assert.notEqual((await raw.callTool('navigate', { url: `${site.origin}/page` })).isError, true);
      await raw.callTool('execute', { code: 'localStorage.setItem("k", "v"); return 1;' });
      const browser = processesWith(marker).find(p => !p.args.includes(CLI));
      assert.ok(browser, 'the browser runs with the marker switch');
      tempProfile = /--user-data-dir=(\S+)/.exec(browser.args)?.[1];
      assert.ok(tempProfile && existsSync(tempProfile), `a temporary profile is in use: ${browser.args.slice(0, 200)}`);
      assert.ok(!tempProfile.startsWith(dataDir), 'the temporary profile is not in the data dir');
      assert.equal((await raw.close()).code, 0, raw.stderr);
      await assertAllGone(tempProfile, raw.pid);
    } finally {
      raw.kill('SIGKILL');
      killLeftovers(marker);
    }
    assert.equal(existsSync(join(dataDir, 'profile')), false, 'no <data dir>/profile');
    assert.deepEqual(readdirSync(dataDir), [], 'nothing written to the data dir');
    assert.equal(existsSync(tempProfile!), false, `the temporary profile ${tempProfile} was removed`);
  });
});

describe('browser switches and viewport', () => {
  const probe = 'return [innerWidth, innerHeight, navigator.userAgent];';

  test('--viewport and --browser-arg reach the page', async () => {
    const server = await connect({ args: ['--viewport', '800x600', '--browser-arg', '--user-agent=TabwrightFlagAgent/1.0'], env: { TABWRIGHT_BROWSER_ARGS: '', TABWRIGHT_VIEWPORT: '' } });
    try {
      await call(server.client, 'navigate', { url: `${site.origin}/page` });
      const { value } = await call<{ value: [number, number, string] }>(server.client, 'execute', { code: probe });
      assert.deepEqual(value, [800, 600, 'TabwrightFlagAgent/1.0']);
    } finally {
      await server.close();
    }
  });

  test('TABWRIGHT_BROWSER_ARGS (space-separated, quotes group) and TABWRIGHT_VIEWPORT reach the browser', async () => {
    const marker = `--tabwright-test-run=${randomUUID()}`;
    const server = await connect({ env: { TABWRIGHT_BROWSER_ARGS: `"--user-agent=Tabwright Env Agent/2.0" ${marker}`, TABWRIGHT_VIEWPORT: '1024x700' } });
    try {
      await call(server.client, 'navigate', { url: `${site.origin}/page` });
      const { value } = await call<{ value: [number, number, string] }>(server.client, 'execute', { code: probe });
      assert.deepEqual(value, [1024, 700, 'Tabwright Env Agent/2.0']);
      const browser = processesWith(marker).find(p => !p.args.includes(CLI));
      assert.ok(browser, 'the second switch reached the browser command line');
      assert.ok(browser.args.includes('--enable-features=WebMCP') || /--enable-features=\S*WebMCP/.test(browser.args), 'WebMCP stays enabled');
    } finally {
      await server.close();
      killLeftovers(marker);
    }
  });

  test('a bad viewport exits 2 with a message on stderr', async () => {
    const runs = await Promise.all(([
      [['--viewport', 'banana'], {}],
      [['--viewport', '10x10'], {}],
      [[], { TABWRIGHT_VIEWPORT: '800' }],
    ] as Array<[string[], Record<string, string>]>).map(([args, env]) => runToExit(args, env)));
    for (const run of runs) {
      assert.equal(run.code, 2, `${run.label}: exit ${run.code}; stderr: ${run.stderr}`);
      assert.match(run.stderr, /Viewport ".*" is not WIDTHxHEIGHT/, run.label);
      assert.match(run.stderr, /--viewport 1280x720/, run.label);
      assert.equal(run.stdout, '', `${run.label}: nothing on stdout`);
    }
  });

  test('an unknown option or a value outside the choices exits 2 with commander\'s message on stderr', async () => {
    const runs = await Promise.all([['--connection', 'bogus'], ['--no-such-flag']].map(args => runToExit(args)));
    assert.deepEqual(runs.map(r => [r.label, r.code, r.stdout]), [['--connection bogus {}', 2, ''], ['--no-such-flag {}', 2, '']]);
    assert.match(runs[0]!.stderr, /argument 'bogus' is invalid\. Allowed choices are launch, own-chrome, extension, userscript/);
    assert.match(runs[1]!.stderr, /unknown option '--no-such-flag'/);
  });
});

test('the tabwright-mcp bin serves the same tools', async () => {
  const cli = connect();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_MAIN, '--headless', '--isolated', '--structured-content', ...BROWSER_ARG_FLAGS],
    stderr: 'pipe',
    cwd: ROOT,
  });
  const client = new Client({ name: 'tabwright-test', version: '0.0.0' });
  try {
    await client.connect(transport);
    assert.equal(client.getServerVersion()?.name, 'tabwright');
    const { tools } = await client.listTools();
    const viaCli = await cli;
    const expected = (await viaCli.client.listTools()).tools;
    await viaCli.close();
    assert.equal(tools.length, CORE_TOOLS.length);
    assert.deepEqual(tools, expected);
    const nav = await call<{ status: number; title: string }>(client, 'navigate', { url: `${site.origin}/page` });
    assert.equal(nav.status, 200);
    assert.equal(nav.title, 'Lifecycle');
  } finally {
    await client.close();
    await cli.then(c => c.close(), () => undefined);
  }
});

/** Runs a test server with `args` and `env` until it exits (killed after 20 s): its exit code and what it wrote. */
function runToExit(args: string[], env: Record<string, string> = {}): Promise<{ label: string; code: number | null; stdout: string; stderr: string }> {
  return new Promise(resolve => {
    const child = spawn(process.execPath, serverArgs(args), { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('close', code => {
      clearTimeout(timer);
      resolve({ label: `${args.join(' ')} ${JSON.stringify(env)}`, code, stdout, stderr });
    });
  });
}
