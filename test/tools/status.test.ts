// get_bridge_status end to end: before and after the browser starts, the
// negotiated protocol revision, and the connection's capabilities.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useServer } from '../fixtures/harness.js';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { call, connect, connectClient, connectionArgs, ROOT, serverArgs, TEST_CONNECTION, unlessConnection } from '../fixtures/mcp.js';

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
  viewport: string | null;
  browserPath: string | null;
  capabilities: string[];
  capabilityManifest: Record<string, { status: string; reason?: string }>;
  workspace: string;
  role: string;
  leaderPid: number;
  relayProtocol: number;
  policy: unknown;
  budget: unknown;
}

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The capability manifest of the launch connection (src/browser/capabilities.ts). */
const LAUNCH_MANIFEST = {
  trustedInput: { status: 'available' },
  screenshot: { status: 'available' },
  snapshot: { status: 'available' },
  evaluate: { status: 'available' },
  webmcp: { status: 'experimental', reason: 'a draft web API: native in the browser tabwright launches (its WebMCP feature, unless --webmcp polyfill), else tabwright\'s polyfill' },
  userscriptManager: { status: 'unavailable', reason: 'the API of a userscript manager such as Tampermonkey, reached only by the userscript connection kind; tabwright\'s own userscripts (the scripts tools) do work here' },
  console: { status: 'available' },
  network: { status: 'available' },
  shareTabs: { status: 'unavailable', reason: 'tabwright opened every tab of the browser it launched: there is nothing to share' },
  storage: { status: 'available' },
  routing: { status: 'available' },
  emulation: { status: 'available' },
  recording: { status: 'available' },
  downloads: { status: 'available' },
  viewportEmulation: { status: 'available' },
  stopStuckScript: { status: 'available' },
};

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
    // The launch settings: the default viewport, and no --browser (the browser is found on PATH).
    viewport: '1280x720',
    browserPath: 'found on PATH',
    scope: null,
    capabilities: ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console', 'network', 'storage', 'routing', 'emulation', 'recording'],
    capabilityManifest: LAUNCH_MANIFEST,
    workspace: tw.workspace,
    // --isolated: a temporary profile nobody can share, so no relay.
    role: 'standalone',
    leaderPid: tw.server.transport.pid,
    relayProtocol: 1,
    // No policy flags, no --max-calls (test/tools/policy.test.ts and test/dispatch/callBudget.test.ts have them).
    policy: { mode: 'default', allowHosts: [], denyHosts: [], requestsRouted: false, requestGaps: [], off: [] },
    budget: null,
    // The test servers run without a dashboard (test/dashboard/dashboard.test.ts has one).
    dashboard: null,
    // No model configured: the task tools are not listed (test/tasks/server.test.ts lists them with one).
    tasks: { available: false, listed: false, reason: 'no model configured: set TABWRIGHT_LLM_URL (with /v1) and TABWRIGHT_LLM_MODEL where the server starts (docs/tasks.md); run_task, extract, run_status, run_respond and run_abort are not listed until then.' },
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
    assert.deepEqual(status.capabilities, ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console', 'network', ...(TEST_CONNECTION === 'own-chrome' ? ['shareTabs'] : []), 'storage', 'routing', 'emulation', 'recording']);
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

test('the capability manifest: every capability with its status on this connection, the flat list its available and experimental ones', async () => {
  const status = await call<Status>(tw.client, 'get_bridge_status');
  const manifest = status.capabilityManifest;
  assert.deepEqual(Object.keys(manifest), ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'userscriptManager', 'console', 'network', 'shareTabs', 'storage', 'routing', 'emulation', 'recording', 'downloads', 'viewportEmulation', 'stopStuckScript']);
  // The flat list (kept for compatibility) is the manifest's needed capabilities that are not unavailable.
  const needed = ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'userscriptManager', 'console', 'network', 'shareTabs', 'storage', 'routing', 'emulation', 'recording'];
  assert.deepEqual(status.capabilities, needed.filter(name => manifest[name]!.status !== 'unavailable'));
  for (const [name, state] of Object.entries(manifest)) {
    assert.ok(['available', 'unavailable', 'experimental'].includes(state.status), name);
    if (state.status !== 'available') assert.ok(state.reason && state.reason.length > 10, `${name} has a reason`);
  }
  if (TEST_CONNECTION === 'launch') assert.deepEqual(manifest, LAUNCH_MANIFEST);
  if (TEST_CONNECTION === 'cdp' || TEST_CONNECTION === 'playwright-server') {
    assert.deepEqual(manifest.shareTabs!.status, 'unavailable');
    assert.equal(manifest.webmcp!.reason, 'a draft web API: native only where the browser has its WebMCP feature on (tabwright cannot switch it on here), else tabwright\'s polyfill');
  }
  if (TEST_CONNECTION === 'cdp') {
    assert.deepEqual(manifest.downloads, { status: 'available', reason: 'the browser writes the file on its own machine: this works only when it runs on the same machine as tabwright (a Playwright server streams it)' });
  }
  if (TEST_CONNECTION === 'own-chrome') assert.equal(manifest.shareTabs!.status, 'available');
  if (TEST_CONNECTION === 'own-chrome' || TEST_CONNECTION === 'extension') assert.equal(manifest.downloads!.status, 'unavailable');
  // The text lists what is not plainly available, with the reasons.
  const raw = await tw.client.callTool({ name: 'get_bridge_status', arguments: {} });
  const text = (raw.content as Array<{ type: string; text: string }>).map(c => c.text).join('\n');
  const unavailable = Object.entries(manifest).filter(([, s]) => s.status === 'unavailable').map(([name, s]) => `${name} (${s.reason})`).join('; ');
  const experimental = Object.entries(manifest).filter(([, s]) => s.status === 'experimental').map(([name, s]) => `${name} (${s.reason})`).join('; ');
  assert.ok(text.includes(`Unavailable here: ${unavailable}. Experimental: ${experimental}.`), text);
});

test('the initialize result carries the configured connection\'s manifest in _meta["io.tabwright/capabilities"], before any browser runs', unlessConnection(['extension'], 'each server of the extension lane is paired with a browser of its own by the harness\'s connect(); the manifest is the same declaration get_bridge_status reports'), async () => {
  const messages: unknown[] = [];
  const dirs = mkdtempSync(join(tmpdir(), 'tabwright-manifest-'));
  // Read through the SDK client: its transport's incoming messages, tapped before the client's own handler.
  const transport = new StdioClientTransport({ command: process.execPath, args: serverArgs(await connectionArgs([])), stderr: 'pipe', cwd: ROOT, env: { ...(process.env as Record<string, string>), TABWRIGHT_WORKSPACE: dirs, TABWRIGHT_CONFIG_DIR: join(dirs, 'config'), TABWRIGHT_DATA_DIR: join(dirs, 'data') } });
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const handler = transport.onmessage;
    transport.onmessage = (message, extra) => {
      messages.push(message);
      handler?.(message, extra);
    };
    await start();
  };
  const { client } = await connectClient(transport, 'manifest-test');
  try {
    const init = messages.find(m => (m as { result?: { protocolVersion?: string } }).result?.protocolVersion) as { result: { _meta?: Record<string, unknown> } };
    assert.ok(init, 'the initialize response was seen');
    const meta = init.result._meta?.['io.tabwright/capabilities'] as { connection: string; capabilities: Record<string, { status: string }> };
    assert.equal(meta.connection, TEST_CONNECTION);
    const status = await call<Status>(client, 'get_bridge_status');
    assert.deepEqual(meta.capabilities, status.capabilityManifest);
  } finally {
    await client.close();
    rmSync(dirs, { recursive: true, force: true });
  }
});
