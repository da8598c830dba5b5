/**
 * --own-chrome against a real headed Chromium in approval mode under Xvfb, xdotool playing the user who answers
 * "Allow remote debugging?" (test/fixtures/ownChrome.ts): one dialog however many clients and CLI calls come (the
 * relay leader holds the one connection), trusted input once allowed, Cancel as approval_denied with no retry.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ownChromeMissing, startOwnChrome, type OwnChrome } from '../fixtures/ownChrome.js';
import { call, callError, CLI, connect, connectClient, evaluate, refOf, ROOT, snapshot, TEST_BROWSER_ARGS, type ToolClient } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { cliHome, ok, type CliHome } from '../fixtures/cli.js';
import { freePort } from '../fixtures/harness.js';

const skip = ownChromeMissing();
let site: Site;
let chrome: OwnChrome;

before(async () => {
  if (skip) return;
  site = await startSite();
  site.page('/user', '<title>User tab</title><h1>Your inbox</h1>');
  site.page('/agent', '<title>Agent</title><button onclick="window.trusted = event.isTrusted; this.textContent = \'pressed\'">Press</button>');
  chrome = await startOwnChrome({ urls: [`${site.origin}/user`] });
});

after(async () => {
  await chrome?.stop();
  await site?.close();
});

/** An MCP server on the user's Chrome that joins the relay of `dirs` (not --isolated: it may lead or follow). */
async function relayServer(dirs: { config: string; data: string; wsPort: number }): Promise<{ client: ToolClient; close(): Promise<void>; stderr(): string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--headless', ...TEST_BROWSER_ARGS.flatMap(a => ['--browser-arg', a]), '--own-chrome', '--own-chrome-profile', chrome.userDataDir],
    stderr: 'pipe',
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), TABWRIGHT_CONFIG_DIR: dirs.config, TABWRIGHT_DATA_DIR: dirs.data, TABWRIGHT_WS_PORT: String(dirs.wsPort), TABWRIGHT_CONSENT_TTY: '0' },
  });
  const { client, stderr } = await connectClient(transport, 'own-chrome-test');
  return { client, stderr, close: () => client.close() };
}

test('3 MCP clients and 10 CLI calls raise exactly one "Allow remote debugging?"; input is trusted', { skip }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'tabwright-own-relay-'));
  const dirs = { config: join(root, 'config'), data: join(root, 'data'), wsPort: await freePort() };
  const before = chrome.dialogsShown();
  chrome.autoApprove();
  const servers: Awaited<ReturnType<typeof relayServer>>[] = [];
  let home: CliHome | undefined;
  try {
    for (let i = 0; i < 3; i++) servers.push(await relayServer(dirs));
    // The first page tool connects (the dialog); the others go through the same connection.
    const opened = await call<{ tabId: number }>(servers[0]!.client, 'open_tab', { url: `${site.origin}/agent` });
    const snap = await snapshot(servers[1]!.client, { tabId: opened.tabId });
    await call(servers[2]!.client, 'click', { ref: refOf(snap.snapshot, 'button', 'Press') });
    assert.equal(await evaluate(servers[0]!.client, 'window.trusted', opened.tabId), true);
    home = await cliHome({ TABWRIGHT_CONFIG_DIR: dirs.config, TABWRIGHT_DATA_DIR: dirs.data, TABWRIGHT_WS_PORT: String(dirs.wsPort), TABWRIGHT_ISOLATED: '0', TABWRIGHT_CONNECTION: 'own-chrome', TABWRIGHT_OWN_CHROME_PROFILE: chrome.userDataDir });
    for (let i = 0; i < 10; i++) {
      const tabs = await ok(home, ['tabs']);
      assert.ok(tabs.tabs.some((t: { url: string }) => t.url === `${site.origin}/agent`), JSON.stringify(tabs));
    }
    const status = await call<{ role: string; connection: string }>(servers[2]!.client, 'get_bridge_status');
    assert.equal(status.connection, 'own-chrome');
    assert.equal(chrome.dialogsShown() - before, 1, 'one dialog for the whole session');
    // The user's own tab was never attached: the agent does not see it.
    const tabs = await call<{ tabs: Array<{ url: string }> }>(servers[1]!.client, 'list_tabs');
    assert.deepEqual(tabs.tabs.map(t => t.url), [`${site.origin}/agent`]);
  } finally {
    chrome.autoApprove(false);
    await home?.cleanup();
    for (const server of servers) await server.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('Cancel: approval_denied saying what to do, and no second dialog', { skip }, async () => {
  const server = await connect({ args: ['--own-chrome', '--own-chrome-profile', chrome.userDataDir] });
  try {
    const shown = chrome.dialogsShown();
    const [error] = await Promise.all([
      callError(server.client, 'navigate', { url: `${site.origin}/agent` }),
      chrome.denyNext(),
    ]);
    assert.equal(error.type, 'approval_denied');
    assert.match(error.message, /HTTP 403/);
    assert.match(error.hint, /click Allow/);
    await new Promise(resolve => setTimeout(resolve, 1500));
    assert.equal(chrome.dialogsShown() - shown, 1, 'tabwright did not try again on its own');
    // The next call asks again, once.
    const [opened] = await Promise.all([
      call<{ title: string }>(server.client, 'open_tab', { url: `${site.origin}/agent` }),
      chrome.approveNext(),
    ]);
    assert.equal(opened.title, 'Agent');
    assert.equal(chrome.dialogsShown() - shown, 2);
  } finally {
    await server.close();
  }
});
