/**
 * --own-chrome when the relay leader changes (docs/own-browser.md, "Sharing tabs"): the leader holds the one
 * browser socket, and its tabs in scope (the ones the user shared, the ones the agent opened) live in that
 * process. When it exits, the follower that takes over opens a socket of its own and gets the same tabs back from
 * `<dataDir>/own-chrome-scope.json`; a tab unshared before is not among them, and the file of another run of the
 * browser is ignored. A headless Chromium started with --remote-debugging-port stands for the user's Chrome (it
 * writes DevToolsActivePort as approval mode does, minus the dialog: approval.test.ts covers that).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startChromium, type RemoteChromium } from '../fixtures/remote.js';
import { call, CLI, connectClient, ROOT, TEST_BROWSER_ARGS, type ToolClient } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { cliHome, ok, type CliHome } from '../fixtures/cli.js';
import { eventually, freePort } from '../fixtures/harness.js';

interface Tab { tabId: number; url: string }

let site: Site;
let chrome: RemoteChromium;
let profile: string;
let root: string;
let dirs: { config: string; data: string; wsPort: number };

before(async () => {
  site = await startSite();
  site.page('/mail', '<title>Mail</title><h1>Inbox of Ada</h1>');
  site.page('/bank', '<title>Bank</title><h1>Balance</h1>');
  site.page('/agent', '<title>Agent</title><h1>The agent\'s page</h1>');
  profile = mkdtempSync(join(tmpdir(), 'tabwright-own-leader-'));
  chrome = await startChromium({ userDataDir: profile });
  await chrome.openTab(`${site.origin}/mail`);
  await chrome.openTab(`${site.origin}/bank`);
  root = mkdtempSync(join(tmpdir(), 'tabwright-own-leader-dirs-'));
  dirs = { config: join(root, 'config'), data: join(root, 'data'), wsPort: await freePort() };
});

after(async () => {
  await chrome?.stop();
  rmSync(profile, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
  await site?.close();
});

/** An MCP server on the user's Chrome that joins the relay of `dirs` (not --isolated: it may lead or follow). */
async function relayServer(): Promise<{ client: ToolClient; pid: number; close(): Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--headless', ...TEST_BROWSER_ARGS.flatMap(a => ['--browser-arg', a]), '--own-chrome', '--own-chrome-profile', profile],
    stderr: 'pipe',
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), TABWRIGHT_CONFIG_DIR: dirs.config, TABWRIGHT_DATA_DIR: dirs.data, TABWRIGHT_WS_PORT: String(dirs.wsPort), TABWRIGHT_CONSENT_TTY: '0' },
  });
  const { client } = await connectClient(transport, 'own-chrome-leader-test');
  return { client, pid: transport.pid!, close: () => client.close() };
}

const urls = async (client: ToolClient) => (await call<{ tabs: Tab[] }>(client, 'list_tabs')).tabs.map(t => t.url).sort();

test('a follower that takes over keeps the shared tabs and the agent\'s tabs, not the unshared one', async () => {
  let home: CliHome | undefined = await cliHome({ TABWRIGHT_CONFIG_DIR: dirs.config, TABWRIGHT_DATA_DIR: dirs.data, TABWRIGHT_WS_PORT: String(dirs.wsPort), TABWRIGHT_ISOLATED: '0', TABWRIGHT_CONNECTION: 'own-chrome', TABWRIGHT_OWN_CHROME_PROFILE: profile });
  let mcp: Awaited<ReturnType<typeof relayServer>> | undefined;
  try {
    // The daemon leads (the first process on the relay), the MCP server follows it.
    await ok(home, ['share', 'mail']);
    await ok(home, ['share', 'bank']);
    mcp = await relayServer();
    await call(mcp.client, 'open_tab', { url: `${site.origin}/agent` });
    const status = await call<{ role: string; leaderPid: number }>(mcp.client, 'get_bridge_status');
    assert.equal(status.role, 'follower');
    assert.deepEqual(await urls(mcp.client), [`${site.origin}/agent`, `${site.origin}/bank`, `${site.origin}/mail`]);
    const bankTarget = (await chrome.pages()).find(p => p.url === `${site.origin}/bank`)!.id;
    await ok(home, ['share', bankTarget, '--stop']);
    assert.deepEqual(await urls(mcp.client), [`${site.origin}/agent`, `${site.origin}/mail`]);
    // The scope file: 0600, the browser run it belongs to, target ids only.
    const file = join(dirs.data, 'own-chrome-scope.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { profileDir: string; browserPath: string; shared: string[]; agents: string[] };
    assert.equal(kept.profileDir, profile);
    assert.match(kept.browserPath, /^\/devtools\/browser\/[0-9a-f-]{36}$/);
    const pages = await chrome.pages();
    assert.deepEqual(kept.shared, [pages.find(p => p.url === `${site.origin}/mail`)!.id]);
    assert.deepEqual(kept.agents, [pages.find(p => p.url === `${site.origin}/agent`)!.id]);

    // The leader goes; the MCP server takes over with a browser socket of its own.
    await home.cleanup();
    home = undefined;
    assert.ok(await eventually(async () => {
      const res = await mcp.client.callTool({ name: 'get_bridge_status', arguments: {} });
      return !res.isError && (res.structuredContent as { role: string }).role === 'leader';
    }, 20_000), 'the MCP server leads');
    let seen: string[] = [];
    assert.ok(await eventually(async () => (seen = await urls(mcp.client)).length === 2, 10_000), `tabs after the takeover: ${JSON.stringify(seen)}`);
    assert.deepEqual(seen, [`${site.origin}/agent`, `${site.origin}/mail`]);
    const mail = (await call<{ tabs: Tab[] }>(mcp.client, 'list_tabs')).tabs.find(t => t.url === `${site.origin}/mail`)!;
    const page = await call<{ snapshot: string }>(mcp.client, 'get_page_context', { tabId: mail.tabId, output: 'inline' });
    assert.match(page.snapshot, /Inbox of Ada/);
    // The unshared tab stayed out of reach (not listed above), and it is still open in the browser.
    assert.ok((await chrome.pages()).some(p => p.url === `${site.origin}/bank`));
  } finally {
    await home?.cleanup();
    await mcp?.close();
  }
});

test('a scope file of another run of the browser is ignored', async () => {
  const file = join(dirs.data, 'own-chrome-scope.json');
  const mail = (await chrome.pages()).find(p => p.url === `${site.origin}/mail`)!.id;
  writeFileSync(file, JSON.stringify({ profileDir: profile, browserPath: '/devtools/browser/00000000-0000-0000-0000-000000000000', shared: [mail], agents: [] }), { mode: 0o600 });
  const mcp = await relayServer();
  try {
    await call(mcp.client, 'open_tab', { url: `${site.origin}/agent?again` });
    assert.deepEqual(await urls(mcp.client), [`${site.origin}/agent?again`]);
  } finally {
    await mcp.close();
  }
});
