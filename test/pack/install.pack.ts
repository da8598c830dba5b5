/**
 * `npm run test:pack` (not in `npm test`: installing compiles better-sqlite3's native addon when no prebuilt binary
 * can be fetched, 2 to 8 minutes on two cores; .ci/run runs it after the suite). What a new user's one-liner does:
 * `npm pack` builds the tarball (the `prepare` script), and `npx -y --package=<tarball> tabwright` installs it from
 * the registry and the local npm cache into npx's own folder and runs it. Then `tabwright --version`, and
 * `tabwright-mcp` with the Claude Desktop bundle's flags (mcpb/manifest.json) over stdio with the official MCP client:
 * initialize, tools/list, a page read through the shipped in-page runtime, and the script store through the
 * better-sqlite3 addon the install built. Skipped when npm cannot reach its registry. npx's folder for the tarball
 * is removed at the end.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ROOT, TEST_BROWSER_ARGS } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const root = mkdtempSync(join(tmpdir(), 'tabwright-pack-'));
const tarball = join(root, `${pkg.name}-${pkg.version}.tgz`);
const npxSpec = `--package=${tarball}`;
let site: Site;

/** Runs a command to its end; resolves with its exit code and output (stdout + stderr, in order). */
function run(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<{ code: number | null; out: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd: opts.cwd ?? root, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('error', reject);
    child.on('close', code => {
      clearTimeout(timer);
      resolve({ code, out, ms: Date.now() - started });
    });
  });
}

/** npx's folders (`<npm cache>/_npx/<hash>`) that hold this run's tarball. */
function npxFolders(): string[] {
  const cache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim();
  const dir = join(cache, '_npx');
  if (!cache || !existsSync(dir)) return [];
  return readdirSync(dir).map(name => join(dir, name)).filter(folder => {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { _npx?: { packages?: string[] } };
      return manifest._npx?.packages?.includes(tarball) ?? false;
    } catch {
      return false;
    }
  });
}

before(async () => {
  site = await startSite();
  site.page('/shop', '<!doctype html><title>Tea shop</title><h1>Teapots</h1><button>Add Quartz Teapot</button>');
});
after(async () => {
  await site?.close();
  for (const folder of npxFolders()) rmSync(folder, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

test('npm pack builds a tarball of dist and the docs: no sources, tests or source maps, and everything the runtime loads', async () => {
  const packed = await run('npm', ['pack', '--pack-destination', root], { cwd: ROOT, timeoutMs: 300_000 });
  assert.equal(packed.code, 0, packed.out);
  assert.match(packed.out, /> node scripts\/build\.mjs/, 'npm pack ran the prepare script (the build)');
  const files = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(f => f.replace(/^package\//, ''));
  for (const needed of ['package.json', 'README.md', 'dist/cli.js', 'dist/mcpMain.js', 'dist/daemon/main.js', 'dist/cli/toolTree.json',
    'dist/page/runtime.js', 'dist/page/picker.js', 'dist/page/userscripts.js', 'dist/extension/manifest.json', 'dist/extension/worker.js',
    'dist/userscript/tabwright.user.js', 'dist/dashboard/static/index.html', 'docs/tools.md']) {
    assert.ok(files.includes(needed), `${needed} is in the tarball`);
  }
  assert.ok(files.some(f => f.startsWith('dist/userscripts/handbooks/')), 'the handbooks the tools serve');
  assert.deepEqual(files.filter(f => /^(src|test|scripts|bench|extension|userscript)\/|\.map$/.test(f)), []);
});

test('npx -y --package=<tarball> tabwright installs it on a fresh folder, says what it builds, and runs', async t => {
  const ping = await run('npm', ['ping', '--fetch-timeout=20000', '--fetch-retries=0'], { timeoutMs: 30_000 });
  if (ping.code !== 0) {
    t.skip(`npm cannot reach its registry: ${ping.out.trim().split('\n').pop()}`);
    return;
  }
  // --foreground-scripts shows the dependencies' install scripts (npm hides them otherwise): better-sqlite3's says
  // whether it fetched a prebuilt binary or compiles, and the compiler's lines while it compiles.
  const cwd = join(root, 'fresh');
  mkdirSync(cwd);
  const first = await run('npx', ['-y', '--prefer-offline', '--foreground-scripts', npxSpec, 'tabwright', '--version'], { cwd, timeoutMs: 900_000 });
  assert.equal(first.code, 0, first.out);
  // npm's "> better-sqlite3@… install" banner shows on a terminal only; prebuild-install and the compiler print anyway.
  if (/prebuild-install warn/.test(first.out)) {
    assert.match(first.out, /CC\(target\) Release\/obj\.target\/sqlite3\/gen\/sqlite3\/sqlite3\.o/, 'no prebuilt binary: the compiler says what it compiles');
  }
  assert.ok(existsSync(join(npxFolders()[0] ?? '', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')), 'the addon is there, fetched or built');
  assert.ok(first.out.split('\n').includes(pkg.version), 'it printed the version');
  t.diagnostic(`first npx run (install + build of better-sqlite3): ${(first.ms / 1000).toFixed(0)} s`);
  const again = await run('npx', ['-y', npxSpec, 'tabwright', '--version'], { cwd, timeoutMs: 120_000 });
  assert.deepEqual([again.code, again.out.trim()], [0, pkg.version]);
  t.diagnostic(`second npx run (installed): ${(again.ms / 1000).toFixed(1)} s`);
});

test('the installed tabwright-mcp, with the Claude Desktop bundle\'s flags, serves MCP over stdio: tools/list, a page, the script store', async t => {
  const installed = npxFolders()[0];
  if (!installed) {
    t.skip('the npx install did not run (no registry)');
    return;
  }
  const bin = join(installed, 'node_modules', '.bin');
  const manifest = JSON.parse(readFileSync(join(ROOT, 'mcpb', 'manifest.json'), 'utf8')) as { server: { mcp_config: { args: string[] } } };
  const workspace = join(root, 'workspace');
  mkdirSync(workspace);
  // The bundle's flags after its bin (--output inline, --workspace ${user_config.workspace}), with a folder for the
  // workspace, plus what every test server gets: headless, a temporary profile, loopback-only host rules.
  const bundleFlags = manifest.server.mcp_config.args.slice(3).map(a => a.replace('${user_config.workspace}', workspace));
  const dirs = join(root, 'dirs');
  const transport = new StdioClientTransport({
    command: join(bin, 'tabwright-mcp'),
    args: [...bundleFlags, '--headless', '--isolated', '--toolsets', 'all', ...TEST_BROWSER_ARGS.flatMap(a => ['--browser-arg', a])],
    env: { ...process.env as Record<string, string>, TABWRIGHT_CONFIG_DIR: join(dirs, 'config'), TABWRIGHT_DATA_DIR: join(dirs, 'data'), TABWRIGHT_DASHBOARD_PORT: 'off', TABWRIGHT_STRUCTURED_CONTENT: '0' },
    cwd: root,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: 'pack-test', version: '0.0.0' });
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion()?.version, pkg.version);
    const names = (await client.listTools()).tools.map(tool => tool.name);
    for (const name of ['navigate', 'get_page_context', 'take_screenshot', 'list_scripts']) assert.ok(names.includes(name), name);
    const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ type: string; text?: string }>).map(c => c.text ?? '').join('\n');
    const nav = await client.callTool({ name: 'navigate', arguments: { url: `${site.origin}/shop` } });
    assert.notEqual(nav.isError, true, text(nav));
    const page = await client.callTool({ name: 'get_page_context', arguments: {} });
    assert.notEqual(page.isError, true, text(page));
    assert.match(text(page), /button "Add Quartz Teapot" \[ref=e\d+\]/);
    const scripts = await client.callTool({ name: 'list_scripts', arguments: {} });
    assert.notEqual(scripts.isError, true, `${text(scripts)}\n${stderr}`);
    assert.ok(existsSync(join(dirs, 'data', 'scripts.db')), 'better-sqlite3 opened the script store');
  } finally {
    await client.close();
  }
});
