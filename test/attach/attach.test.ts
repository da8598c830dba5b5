// Attaching to a running browser: the `cdp` connection on a Chromium
// started separately with --remote-debugging-port, and the `playwright-server`
// connection on `playwright-core run-server`. Tabs open before attach, leaving
// without closing anything, --new-context, get_bridge_status without secrets,
// the WebMCP polyfill on a browser without native WebMCP, and a remote browser
// killed mid-call and restarted on the same port.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seenBy, type LensInput } from '../fixtures/clientLens.js';
import { call, callError, callRaw, connect, type Connected } from '../fixtures/mcp.js';
import { startChromium, startPlaywrightServer, type RemoteChromium } from '../fixtures/remote.js';
import { startSite, type Site } from '../fixtures/site.js';

const SECRET = 'sekrit-token-4711';
const HEADER_SECRET = 'Bearer header-secret-0815';
const CAPABILITIES = ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console', 'network', 'storage', 'routing', 'emulation', 'recording'];

interface TabInfo { tabId: number; url: string; title: string; active: boolean }

let site: Site;
before(async () => {
  site = await startSite();
  site.page('/a', '<!doctype html><title>Page A</title><h1>A</h1>');
  site.page('/b', '<!doctype html><title>Page B</title><button>B</button>');
  site.page('/mine', '<!doctype html><title>Mine</title><p>opened by tabwright</p>');
  site.page('/tool', `<!doctype html><title>Tool page</title>
<script>
  window.register = () => document.modelContext.registerTool({ name: 'later', description: 'Registered after attach', inputSchema: { type: 'object', properties: {} },
    execute: async () => ({ content: [{ type: 'text', text: 'later ran' }] }) });
</script>`);
  site.page('/early', `<!doctype html><title>Early</title>
<script>
  document.modelContext.registerTool({ name: 'early', description: 'Registered at load', inputSchema: { type: 'object', properties: {} },
    execute: async () => ({ content: [{ type: 'text', text: 'early ran' }] }) });
</script>`);
});
after(async () => {
  await site?.close();
});

describe('cdp: attach to a running Chromium', () => {
  let chrome: RemoteChromium;
  before(async () => {
    chrome = await startChromium({ webmcp: false });
    await chrome.openTab(`${site.origin}/a`);
    await chrome.openTab(`${site.origin}/b`);
  });
  after(async () => {
    await chrome?.stop();
  });

  test('list_tabs shows the tabs already open; leaving keeps the browser and every tab', async () => {
    const before = (await chrome.pages()).map(p => p.url).sort();
    assert.deepEqual(before, ['about:blank', `${site.origin}/a`, `${site.origin}/b`]);
    const server = await connect({ args: ['--cdp-endpoint', chrome.endpoint] });
    try {
      const { tabs } = await call<{ tabs: TabInfo[] }>(server.client, 'list_tabs');
      assert.deepEqual(tabs.map(t => t.url).sort(), before);
      assert.deepEqual(tabs.map(t => t.tabId), [1, 2, 3]);
      const b = tabs.find(t => t.url.endsWith('/b'))!;
      assert.equal(b.title, 'Page B');
      // A page loaded before attach: snapshot, click and console work on it.
      const ctx = await call<{ snapshot: string }>(server.client, 'get_page_context', { tabId: b.tabId, output: 'inline' });
      assert.match(ctx.snapshot, /- button "B" \[ref=e\d+\]/);
      await call(server.client, 'execute', { tabId: b.tabId, code: 'console.log("hello from before")' });
      const consoleCtx = await call<{ entries: Array<{ text: string }> }>(server.client, 'get_console_context', { tabId: b.tabId });
      assert.deepEqual(consoleCtx.entries.map(e => e.text), ['hello from before']);
      // A tab of our own in the browser's default context.
      await call(server.client, 'open_tab', { url: `${site.origin}/mine` });
      assert.equal((await chrome.pages()).length, 4);
    } finally {
      await server.close();
    }
    // The server process has exited (client.close waits for it): the browser is alive, with every tab.
    process.kill(chrome.pid, 0);
    const left = (await chrome.pages()).map(p => p.url).sort();
    assert.deepEqual(left, ['about:blank', `${site.origin}/a`, `${site.origin}/b`, `${site.origin}/mine`]);
  });

  test('--new-context: only our tabs, isolated cookies, and the context is closed on exit', async () => {
    const server = await connect({ args: ['--cdp-endpoint', chrome.endpoint, '--new-context'] });
    let url: string;
    try {
      assert.deepEqual((await call<{ tabs: TabInfo[] }>(server.client, 'list_tabs')).tabs, []);
      const nav = await call<{ tabId: number; url: string }>(server.client, 'navigate', { url: `${site.origin}/a?own` });
      url = nav.url;
      assert.equal(nav.tabId, 1);
      await call(server.client, 'execute', { code: 'document.cookie = "ctx=own; path=/"' });
      assert.ok((await chrome.pages()).some(p => p.url === url), 'our tab is a target of the remote browser');
      const { tabs } = await call<{ tabs: TabInfo[] }>(server.client, 'list_tabs');
      assert.deepEqual(tabs.map(t => t.url), [url]);
    } finally {
      await server.close();
    }
    const left = (await chrome.pages()).map(p => p.url);
    assert.ok(!left.includes(url), `our context's tab is gone: ${left.join(', ')}`);
    assert.ok(left.includes(`${site.origin}/a`), 'the user\'s tabs stay');
    // The cookie lived in our context only: the default context's tab does not have it.
    const server2 = await connect({ args: ['--cdp-endpoint', chrome.endpoint] });
    try {
      const { tabs } = await call<{ tabs: TabInfo[] }>(server2.client, 'list_tabs');
      const a = tabs.find(t => t.url === `${site.origin}/a`)!;
      assert.equal((await call<{ value: string }>(server2.client, 'execute', { tabId: a.tabId, code: 'document.cookie' })).value, '');
    } finally {
      await server2.close();
    }
  });

  test('get_bridge_status: kind, redacted endpoint, version and capabilities; secrets never logged', async () => {
    const server = await connect({
      args: ['--cdp-endpoint', `${chrome.endpoint}/?token=${SECRET}`, '--cdp-header', `Authorization: ${HEADER_SECRET}`, '--new-context'],
      env: { TABWRIGHT_LOG: 'debug' },
    });
    try {
      const status = await call<Record<string, unknown>>(server.client, 'get_bridge_status');
      assert.equal(status.connection, 'cdp');
      assert.equal(status.endpoint, `${chrome.endpoint}/?token=***`);
      assert.equal(status.browserRunning, true);
      assert.match(String(status.browserVersion), /^chromium \d+\.\d+\.\d+\.\d+$/);
      assert.deepEqual(status.capabilities, CAPABILITIES);
      assert.equal(status.profile, 'remote');
      assert.equal(status.headless, null);
      assert.match((await callRaw(server.client, 'get_bridge_status')).content.map(c => c.text ?? '').join('\n'), /^an attached browser \(its own windows and profile\) · workspace /m);
      assert.ok(!JSON.stringify(status).includes(SECRET));
      await call(server.client, 'navigate', { url: `${site.origin}/a` });
    } finally {
      await server.close();
    }
    assert.match(server.stderr(), /attached to http:\/\/127\.0\.0\.1:\d+\/\?token=\*\*\*/);
    assert.ok(!server.stderr().includes(SECRET), 'the URL token is not logged');
    assert.ok(!server.stderr().includes('header-secret'), 'the header value is not logged');
  });

  test('an endpoint that does not answer: browser_unavailable naming the endpoint, secrets redacted', async () => {
    const server = await connect({ args: ['--cdp-endpoint', `http://127.0.0.1:9/?token=${SECRET}`], env: { TABWRIGHT_CONNECT_TIMEOUT_MS: '5000' } });
    try {
      const started = Date.now();
      const error = await callError(server.client, 'navigate', { url: `${site.origin}/a` });
      assert.equal(error.type, 'browser_unavailable');
      assert.ok(Date.now() - started < 30_000, 'bounded by the connect timeout');
      assert.match(error.message, /http:\/\/127\.0\.0\.1:9\/\?token=\*\*\*/);
      assert.match(error.hint, /--remote-debugging-port/);
      assert.ok(!JSON.stringify(error).includes(SECRET));
      assert.equal((await call<{ browserRunning: boolean }>(server.client, 'get_bridge_status')).browserRunning, false);
    } finally {
      await server.close();
    }
  });
});

describe('cdp: WebMCP polyfill on a browser without native WebMCP', () => {
  let chrome: RemoteChromium;
  before(async () => {
    chrome = await startChromium({ webmcp: false });
    await chrome.openTab(`${site.origin}/tool`);
  });
  after(async () => {
    await chrome?.stop();
  });

  test('--webmcp auto picks the polyfill, in tabs open before attach and in new ones', async () => {
    const server = await connect({ args: ['--cdp-endpoint', chrome.endpoint, '--webmcp', 'auto', '--auto-allow'] });
    try {
      const { tabs } = await call<{ tabs: TabInfo[] }>(server.client, 'list_tabs');
      const pre = tabs.find(t => t.url.endsWith('/tool'))!;
      // Injected at attach: the page's own script can register through the polyfill now.
      assert.deepEqual(await call<{ value: unknown }>(server.client, 'execute', { tabId: pre.tabId, code: '({ native: Function.prototype.toString.call(Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")?.get ?? (() => 0)).includes("[native code]"), polyfill: "modelContext" in Document.prototype, own: Object.getOwnPropertyNames(document).includes("modelContext") })' }).then(r => r.value), { native: false, polyfill: true, own: false });
      await call(server.client, 'execute', { tabId: pre.tabId, code: 'window.register()' });
      const listed = await call<{ tools: Array<{ name: string }>; partial?: unknown }>(server.client, 'list_webmcp_tools', { tabId: pre.tabId });
      assert.deepEqual(listed.tools.map(t => t.name), ['later']);
      // The listing says the polyfill came late there: tools registered at load would be missing.
      assert.deepEqual(listed.partial, [{ tabId: pre.tabId, reason: 'late' }]);
      const raw = await callRaw(server.client, 'list_webmcp_tools', { tabId: pre.tabId }) as LensInput;
      assert.match(seenBy('claude-code', raw).text, /"partial":\[\{"tabId":\d+,"reason":"late"\}\]/);
      assert.match(seenBy('cursor', raw).text, new RegExp(`^Tab ${pre.tabId} may have more tools: tabwright's WebMCP polyfill came into the document after the page's scripts had started .*reload_tab loads a tab with the polyfill from the start\\.$`, 'm'));
      const ran = await call<{ content?: unknown }>(server.client, 'call_webmcp_tool', { tabId: pre.tabId, name: 'later', arguments: {} });
      assert.match(JSON.stringify(ran), /later ran/);
      // A page loaded after attach gets the polyfill at document start: nothing missed.
      const nav = await call<{ tabId: number }>(server.client, 'open_tab', { url: `${site.origin}/early` });
      const early = await call<{ tools: Array<{ name: string }>; partial?: unknown }>(server.client, 'list_webmcp_tools', { tabId: nav.tabId });
      assert.deepEqual([early.tools.map(t => t.name), early.partial], [['early'], undefined]);
      // Reloaded, the tab open before attach has the polyfill from the start too.
      await call(server.client, 'reload_tab', { tabId: pre.tabId });
      assert.equal((await call<{ partial?: unknown }>(server.client, 'list_webmcp_tools', { tabId: pre.tabId })).partial, undefined);
    } finally {
      await server.close();
    }
  });
});

describe('cdp: the remote browser dies mid-call and comes back', () => {
  let chrome: RemoteChromium;
  let profile: string;
  before(async () => {
    profile = mkdtempSync(join(tmpdir(), 'tabwright-restart-'));
    chrome = await startChromium({ userDataDir: profile });
  });
  after(async () => {
    await chrome?.stop();
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  });

  test('a call in flight fails with browser_disconnected; the next call reattaches', async () => {
    const server = await connect({ args: ['--cdp-endpoint', chrome.endpoint, '--new-context'] });
    try {
      const nav = await call<{ tabId: number }>(server.client, 'navigate', { url: `${site.origin}/a` });
      assert.equal(nav.tabId, 1);
      const started = Date.now();
      const inFlight = callError(server.client, 'execute', { code: 'await new Promise(r => setTimeout(r, 120000)); return 1', timeoutSec: 200 });
      await new Promise(resolve => setTimeout(resolve, 1500));
      await chrome.kill();
      const error = await inFlight;
      assert.equal(error.type, 'browser_disconnected');
      assert.match(error.message, new RegExp(`at ${chrome.endpoint.replace(/[.]/g, '\\.')}`));
      assert.ok(Date.now() - started < 60_000, `failed within its deadline, not after 120 s (${Date.now() - started} ms)`);
      // Restarted on the same port: the next call attaches again; tab ids are never reused.
      chrome = await startChromium({ port: chrome.port });
      const again = await call<{ tabId: number; title: string }>(server.client, 'navigate', { url: `${site.origin}/b` });
      assert.equal(again.title, 'Page B');
      assert.equal(again.tabId, 2);
      const { tabs } = await call<{ tabs: TabInfo[] }>(server.client, 'list_tabs');
      assert.deepEqual(tabs.map(t => [t.tabId, t.url]), [[2, `${site.origin}/b`]]);
    } finally {
      await server.close();
    }
  });
});

describe('playwright-server: attach to playwright-core run-server', () => {
  test('status, a page, and the server closes its browser when we leave', async () => {
    const pw = await startPlaywrightServer();
    try {
      const server = await connect({ args: ['--ws-endpoint', `${pw.endpoint}?token=${SECRET}`, ...pw.headers.flatMap(h => ['--cdp-header', h]), '--cdp-header', `Authorization: ${HEADER_SECRET}`], env: { TABWRIGHT_LOG: 'debug' } });
      try {
        const nav = await call<{ title: string; tabId: number }>(server.client, 'navigate', { url: `${site.origin}/b` });
        assert.equal(nav.title, 'Page B');
        const status = await call<Record<string, unknown>>(server.client, 'get_bridge_status');
        assert.equal(status.connection, 'playwright-server');
        assert.equal(status.endpoint, `${pw.endpoint}?token=***`);
        assert.match(String(status.browserVersion), /^chromium \d+/);
        assert.deepEqual(status.capabilities, CAPABILITIES);
      } finally {
        await server.close();
      }
      assert.ok(!server.stderr().includes(SECRET) && !server.stderr().includes('header-secret'), 'no secret in the log');
    } finally {
      await pw.stop();
    }
  });
});
