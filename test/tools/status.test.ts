// get_bridge_status end to end: before and after the browser starts, the
// negotiated protocol revision, and the connection's capabilities.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useServer } from '../fixtures/harness.js';
import { call, connect, ROOT, TEST_CONNECTION, unlessConnection } from '../fixtures/mcp.js';

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
  role: string;
  leaderPid: number;
  relayProtocol: number;
}

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const tw = useServer({
  pages: {
    '/': '<title>Status</title><p>hello</p>',
  },
});

test('before the browser starts: not running, no tabs, and the call does not start it', unlessConnection(['cdp', 'playwright-server', 'own-chrome', 'extension'], 'an attached browser runs from the start and reports its own kind, endpoint and profile (test/attach/attach.test.ts checks those)'), async () => {
  const status = await call<Status>(tw.client, 'get_bridge_status');
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
    scope: null,
    capabilities: ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console'],
    workspace: tw.workspace,
    // --isolated: a temporary profile nobody can share, so no relay.
    role: 'standalone',
    leaderPid: tw.server.transport.pid,
    relayProtocol: 1,
  });
  // Asking again (and listing tabs) still does not start it.
  await call(tw.client, 'list_tabs');
  assert.equal((await call<Status>(tw.client, 'get_bridge_status')).browserRunning, false);
});

test('after the browser starts: running, its version, tab count and active tab', async () => {
  const nav = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/` });
  const status = await call<Status>(tw.client, 'get_bridge_status');
  assert.equal(status.browserRunning, true);
  assert.match(status.browserVersion ?? '', /^chromium \d+\.\d+\.\d+\.\d+$/);
  assert.equal(status.tabCount, 1);
  assert.equal(status.activeTabId, nav.tabId);
  assert.equal(status.protocolVersion, '2025-11-25');

  const second = await call<{ tabId: number }>(tw.client, 'open_tab', { background: true });
  let now = await call<Status>(tw.client, 'get_bridge_status');
  assert.equal(now.tabCount, 2);
  assert.equal(now.activeTabId, nav.tabId);
  await call(tw.client, 'focus_tab', { tabId: second.tabId });
  now = await call<Status>(tw.client, 'get_bridge_status');
  assert.equal(now.activeTabId, second.tabId);
  await call(tw.client, 'close_tab', { tabId: second.tabId });
  now = await call<Status>(tw.client, 'get_bridge_status');
  assert.equal(now.tabCount, 1);
  assert.equal(now.activeTabId, nav.tabId);
});

test('the text content summarises the same status', async () => {
  const raw = await tw.client.callTool({ name: 'get_bridge_status', arguments: {} });
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
    // (The user's own Chrome is not connected by a status call either: connecting asks the user.)
    assert.equal(status.browserRunning, TEST_CONNECTION !== 'launch' && TEST_CONNECTION !== 'own-chrome');
    assert.deepEqual(status.capabilities, ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console', ...(TEST_CONNECTION === 'own-chrome' ? ['shareTabs'] : [])]);
  } finally {
    await modern.close();
  }
});

test('get_bridge_status and list_tabs are advertised as read-only', async () => {
  const { tools } = await tw.client.listTools();
  for (const name of ['get_bridge_status', 'list_tabs']) {
    const tool = tools.find(t => t.name === name);
    assert.ok(tool, name);
    assert.equal(tool.annotations?.readOnlyHint, true, name);
  }
});
