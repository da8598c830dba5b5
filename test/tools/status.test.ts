// get_bridge_status end to end: before and after the browser starts, the
// negotiated protocol revision, and the connection's capabilities.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, connect, ROOT, TEST_CONNECTION, unlessConnection, type Connected } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';

interface Status {
  connection: string;
  endpoint: string | null;
  browserRunning: boolean;
  browserVersion: string | null;
  tabCount: number;
  activeTabId: number | null;
  serverVersion: string;
  protocolVersion: string | null;
  era: string | null;
  headless: boolean;
  profile: string;
  capabilities: string[];
  workspace: string;
}

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let site: Site;
let server: Connected;

before(async () => {
  site = await startSite();
  site.page('/', '<title>Status</title><p>hello</p>');
  server = await connect();
});
after(async () => {
  await server?.close();
  await site?.close();
});

test('before the browser starts: not running, no tabs, and the call does not start it', unlessConnection(['cdp', 'playwright-server'], 'an attached browser runs from the start and reports its own kind, endpoint and profile (test/attach/attach.test.ts checks those)'), async () => {
  const status = await call<Status>(server.client, 'get_bridge_status');
  assert.deepEqual(status, {
    connection: 'launch',
    endpoint: null,
    browserRunning: false,
    browserVersion: null,
    tabCount: 0,
    activeTabId: null,
    serverVersion: VERSION,
    protocolVersion: '2025-11-25',
    era: 'legacy',
    headless: true,
    profile: 'isolated',
    capabilities: ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console'],
    workspace: server.workspace,
  });
  // Asking again (and listing tabs) still does not start it.
  await call(server.client, 'list_tabs');
  assert.equal((await call<Status>(server.client, 'get_bridge_status')).browserRunning, false);
});

test('after the browser starts: running, its version, tab count and active tab', async () => {
  const nav = await call<{ tabId: number }>(server.client, 'navigate', { url: `${site.origin}/` });
  const status = await call<Status>(server.client, 'get_bridge_status');
  assert.equal(status.browserRunning, true);
  assert.match(status.browserVersion ?? '', /^chromium \d+\.\d+\.\d+\.\d+$/);
  assert.equal(status.tabCount, 1);
  assert.equal(status.activeTabId, nav.tabId);
  assert.equal(status.protocolVersion, '2025-11-25');

  const second = await call<{ tabId: number }>(server.client, 'open_tab', { background: true });
  let now = await call<Status>(server.client, 'get_bridge_status');
  assert.equal(now.tabCount, 2);
  assert.equal(now.activeTabId, nav.tabId);
  await call(server.client, 'focus_tab', { tabId: second.tabId });
  now = await call<Status>(server.client, 'get_bridge_status');
  assert.equal(now.activeTabId, second.tabId);
  await call(server.client, 'close_tab', { tabId: second.tabId });
  now = await call<Status>(server.client, 'get_bridge_status');
  assert.equal(now.tabCount, 1);
  assert.equal(now.activeTabId, nav.tabId);
});

test('the text content summarises the same status', async () => {
  const raw = await server.client.callTool({ name: 'get_bridge_status', arguments: {} });
  const text = (raw.content as Array<{ type: string; text: string }>)[0]!.text;
  assert.ok(text.includes(VERSION));
  assert.ok(text.includes('2025-11-25'));
});

test('a client on the 2026 handshake sees protocolVersion 2026-07-28', async () => {
  const modern = await connect({ mode: 'auto' });
  try {
    const status = await call<Status>(modern.client, 'get_bridge_status');
    assert.equal(status.protocolVersion, '2026-07-28');
    assert.equal(status.era, 'modern');
    // An attached browser runs from the start (get_bridge_status attaches); a launched one is not started by the call.
    assert.equal(status.browserRunning, TEST_CONNECTION !== 'launch');
    assert.deepEqual(status.capabilities, ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console']);
  } finally {
    await modern.close();
  }
});

test('get_bridge_status and list_tabs are advertised as read-only', async () => {
  const { tools } = await server.client.listTools();
  for (const name of ['get_bridge_status', 'list_tabs']) {
    const tool = tools.find(t => t.name === name);
    assert.ok(tool, name);
    assert.equal(tool.annotations?.readOnlyHint, true, name);
  }
});
