/**
 * --own-chrome without the dialog: a headless Chromium started with --remote-debugging-port also writes
 * DevToolsActivePort, so tabwright finds and connects to it exactly as to a Chrome in approval mode, minus the
 * "Allow" click (that part runs under Xvfb in approval.test.ts). What this file checks is what tabwright does
 * once connected: only the tabs in scope are attached (the agent's and the shared ones), `tabwright share` lists
 * and shares the user's tabs, popups of the agent's tabs follow, and leaving leaves the user's tabs as they were.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChromium, CHROMIUM, chromiumArgs, type RemoteChromium } from '../fixtures/remote.js';
import { call, callError, callRaw, connect, snapshot, type Connected } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { cli, cliHome, ok, type CliHome } from '../fixtures/cli.js';
import { until, freePort } from '../fixtures/harness.js';
import { spawn } from 'node:child_process';

let site: Site;
let chrome: RemoteChromium;
let profile: string;

before(async () => {
  site = await startSite();
  site.page('/user-a', '<title>User A</title><h1>Signed in as Ada</h1>');
  site.page('/user-b', '<title>User B</title><h1>Inbox</h1>');
  site.page('/agent', '<title>Agent page</title><h1>Agent</h1><button onclick="window.open(\'/user-b\', \'_blank\')">Pop</button>');
  profile = mkdtempSync(join(tmpdir(), 'tabwright-own-'));
  chrome = await startChromium({ userDataDir: profile });
  await chrome.openTab(`${site.origin}/user-a`);
  await chrome.openTab(`${site.origin}/user-b`);
});

after(async () => {
  await chrome?.stop();
  rmSync(profile, { recursive: true, force: true });
  await site?.close();
});

const ownArgs = () => ['--own-chrome', '--own-chrome-profile', profile];

describe('an MCP server on the user\'s Chrome', () => {
  let server: Connected;
  before(async () => {
    server = await connect({ args: ownArgs() });
  });
  after(async () => {
    await server?.close();
  });

  test('sees none of the user\'s tabs, only the ones it opens; status names the scope', async () => {
    const listed = await callRaw(server.client, 'list_tabs');
    // list_tabs does not connect (that would ask the user): nothing yet, and it says what connecting does.
    assert.deepEqual(listed.structuredContent?.tabs, []);
    assert.match(listed.content[0]!.text!, /Not connected to the user's Chrome yet.*Chrome asks the user "Allow remote debugging\?"/);
    const opened = await call<{ tabId: number; title: string }>(server.client, 'open_tab', { url: `${site.origin}/agent` });
    assert.equal(opened.title, 'Agent page');
    const tabs = await call<{ tabs: Array<{ url: string }> }>(server.client, 'list_tabs');
    assert.deepEqual(tabs.tabs.map(t => t.url), [`${site.origin}/agent`]);
    const status = await call<{ connection: string; scope: string; profile: string; headless: boolean | null }>(server.client, 'get_bridge_status');
    assert.equal(status.connection, 'own-chrome');
    // Headless and profile are the user's browser's own: status does not claim tabwright's defaults.
    assert.equal(status.headless, null);
    assert.equal(status.profile, `profile ${profile}`);
    const text = (await callRaw(server.client, 'get_bridge_status')).content.map(c => c.text ?? '').join('\n');
    assert.match(text, new RegExp(`^the user's own browser \\(its windows, profile ${profile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) · workspace `, 'm'));
    assert.doesNotMatch(text, /Headless|Headed/);
    assert.match(status.scope, /whole-browser access, scoped only by tabwright/);
    const pages = await chrome.pages();
    assert.deepEqual(pages.map(p => p.url).filter(u => u.startsWith(site.origin)).sort(), [`${site.origin}/agent`, `${site.origin}/user-a`, `${site.origin}/user-b`]);
  });

  test('a popup of the agent\'s tab is the agent\'s too', async () => {
    const snap = await snapshot(server.client);
    const ref = /button "Pop" \[ref=(\w+)\]/.exec(snap.snapshot)![1];
    await call(server.client, 'click', { ref });
    const tabs = await until('the popup to show as a tab', async () => {
      const listed = await call<{ tabs: Array<{ url: string }> }>(server.client, 'list_tabs');
      return listed.tabs.length === 2 ? listed.tabs : undefined;
    }, 10_000);
    assert.deepEqual(tabs.map(t => t.url), [`${site.origin}/agent`, `${site.origin}/user-b`]);
  });

  test('share_tabs is a human\'s command: MCP does not list it', async () => {
    const { tools } = await server.client.listTools();
    assert.ok(!tools.some(t => t.name === 'share_tabs'));
    await assert.rejects(server.client.callTool({ name: 'share_tabs', arguments: {} }), /Tool share_tabs not found/);
  });
});

describe('tabwright share through the daemon', () => {
  let home: CliHome;
  before(async () => {
    home = await cliHome({ TABWRIGHT_CONNECTION: 'own-chrome', TABWRIGHT_OWN_CHROME_PROFILE: profile });
  });
  after(async () => {
    await home?.cleanup();
  });

  test('lists the user\'s tabs, shares one, stops sharing it; the tab stays open', async () => {
    const listing = await ok(home, ['share']);
    const userA = listing.browserTabs.find((t: { url: string }) => t.url === `${site.origin}/user-a`);
    assert.ok(userA, JSON.stringify(listing.browserTabs));
    assert.equal(userA.scope, 'not shared');
    // Numbered as `tabwright share N` takes them.
    assert.deepEqual(listing.browserTabs.map((t: { number: number }) => t.number), listing.browserTabs.map((_: unknown, i: number) => i + 1));
    assert.deepEqual(listing.tabs, []);
    const shared = await ok(home, ['share', 'user-a']);
    assert.equal(shared.browserTabs.find((t: { targetId: string }) => t.targetId === userA.targetId).scope, 'shared');
    assert.deepEqual(shared.tabs.map((t: { url: string }) => t.url), [`${site.origin}/user-a`]);
    const page = await ok(home, ['context', 'page', '--tab', String(shared.tabs[0].tabId)]);
    assert.match(JSON.stringify(page), /Signed in as Ada/);
    const stopped = await ok(home, ['share', userA.targetId, '--stop']);
    assert.equal(stopped.browserTabs.find((t: { targetId: string }) => t.targetId === userA.targetId).scope, 'not shared');
    assert.deepEqual(stopped.tabs, []);
    // A call on the tab the user stopped sharing says so, not that it closed.
    const gone = await cli(home, ['context', 'page', '--tab', String(shared.tabs[0].tabId)]);
    assert.equal(gone.json?.error?.type, 'tab_not_found');
    assert.match(gone.json?.error?.message ?? '', /is no longer shared with tabwright: the user stopped sharing it \(it is still open in their browser\)/);
    assert.ok((await chrome.pages()).some(p => p.id === userA.targetId), 'the unshared tab is still open');
  });

  test('an unknown tab is tab_not_found', async () => {
    const run = await cli(home, ['share', 'no-such-tab-anywhere']);
    assert.equal(run.json?.error?.type, 'tab_not_found');
  });
});

describe('finding the browser', () => {
  test('doctor says whether --own-chrome would find the browser, without connecting to it', async () => {
    const home = await cliHome({ TABWRIGHT_OWN_CHROME_PROFILE: profile });
    const empty = mkdtempSync(join(tmpdir(), 'tabwright-own-none-'));
    try {
      const found = (await ok(home, ['doctor'])) as { ownChrome: { found: boolean; port: number; profileDir: string } };
      assert.deepEqual(found.ownChrome, { found: true, profileDir: profile, port: chrome.port });
      const missing = (await ok(home, ['doctor'], { env: { TABWRIGHT_OWN_CHROME_PROFILE: empty, TABWRIGHT_CONNECTION: 'own-chrome' } })) as { healthy: boolean; ownChrome: { found: boolean; hint: string } };
      assert.equal(missing.ownChrome.found, false);
      assert.equal(missing.healthy, false);
      assert.match(missing.ownChrome.hint, /chrome:\/\/inspect\/#remote-debugging/);
      // A bad setting is what doctor reports, and what a CLI call says when the daemon it starts stops on it.
      const bad = (await ok(home, ['doctor'], { env: { TABWRIGHT_CONNECTION: 'bogus' } })) as { healthy: boolean; settings: { ok: boolean; error: { type: string } } };
      assert.deepEqual([bad.healthy, bad.settings.ok, bad.settings.error.type], [false, false, 'invalid_arguments']);
      const run = await cli(home, ['tabs'], { env: { TABWRIGHT_CONNECTION: 'bogus' } });
      assert.equal(run.json?.error?.type, 'daemon_unavailable');
      assert.match(run.json?.error?.message ?? '', /Connection "bogus" is unknown/);
    } finally {
      await home.cleanup();
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test('a profile without DevToolsActivePort: browser_unavailable saying what to turn on', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'tabwright-own-none-'));
    const server = await connect({ args: ['--own-chrome', '--own-chrome-profile', empty] });
    try {
      const error = await callError(server.client, 'navigate', { url: `${site.origin}/agent` });
      assert.equal(error.type, 'browser_unavailable');
      assert.match(error.message, /No DevToolsActivePort in/);
      assert.match(error.hint, /chrome:\/\/inspect\/#remote-debugging/);
    } finally {
      await server.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test('a stale DevToolsActivePort (nothing listens): browser_unavailable naming the port', async () => {
    const stale = mkdtempSync(join(tmpdir(), 'tabwright-own-stale-'));
    const port = await freePort();
    writeFileSync(join(stale, 'DevToolsActivePort'), `${port}\n/devtools/browser/00000000-0000-0000-0000-000000000000`);
    const server = await connect({ args: ['--own-chrome', '--own-chrome-profile', stale] });
    try {
      const error = await callError(server.client, 'navigate', { url: `${site.origin}/agent` });
      assert.equal(error.type, 'browser_unavailable');
      assert.match(error.message, new RegExp(`port ${port} does not answer`));
    } finally {
      await server.close();
      rmSync(stale, { recursive: true, force: true });
    }
  });

  test('nobody answers the dialog: approval_timeout saying what to click (headless Chromium in approval mode keeps it pending)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tabwright-own-pending-'));
    writeFileSync(join(dir, 'Local State'), JSON.stringify({ devtools: { remote_debugging: { 'user-enabled': true } } }));
    const port = await freePort();
    // The port of a previous DevToolsActivePort is the one approval mode binds (OWN-BROWSER.md §2).
    writeFileSync(join(dir, 'DevToolsActivePort'), `${port}\n/devtools/browser/x`);
    const child = spawn(CHROMIUM, [...chromiumArgs(), `--user-data-dir=${dir}`, 'about:blank'], { stdio: 'ignore', detached: true });
    try {
      await until('approval mode to write DevToolsActivePort', async () => {
        const { readFileSync } = await import('node:fs');
        return /\/devtools\/browser\/[0-9a-f-]{36}/.test(readFileSync(join(dir, 'DevToolsActivePort'), 'utf8'));
      }, 30_000);
      const server = await connect({ args: ['--own-chrome', '--own-chrome-profile', dir, '--max-wait', '1'], env: { TABWRIGHT_APPROVAL_TIMEOUT_MS: '4000' } });
      try {
        // Past the max-wait, a pending answer says what the call waits for and what to tell the user. The first one
        // can come before the server has reached the browser (a loaded machine spends the 1 s max-wait starting
        // the session): each wait_for_call answers with what the call waits for by then.
        const pending = await callRaw(server.client, 'navigate', { url: `${site.origin}/agent` });
        const first = pending.content.map(c => c.text ?? '').join('\n');
        const callId = /"callId":"([^"]+)"|callId[^\w]+(\w+)/.exec(JSON.stringify(pending.structuredContent ?? first));
        assert.ok(callId, first);
        const texts = [first];
        // Each wait_for_call waits at most the max-wait (1 s): ask until the outcome comes.
        const outcome = await until('the call\'s outcome', async () => {
          const raw = await callRaw(server.client, 'wait_for_call', { callId: callId[1] ?? callId[2] });
          if (!raw.isError) texts.push(raw.content.map(c => c.text ?? '').join('\n'));
          return raw.isError ? raw : undefined;
        }, 20_000);
        const asking = texts.find(text => /waiting for the user to click Allow/.test(text));
        assert.ok(asking, `no pending answer named the dialog:\n${texts.join('\n---\n')}`);
        assert.match(asking, /waiting for the user to click Allow in Chrome's "Allow remote debugging\?" dialog/);
        assert.match(asking, /Tell the user Chrome is asking "Allow remote debugging\?"/);
        const error = (outcome.structuredContent as { error: { type: string; message: string } }).error;
        assert.equal(error.type, 'approval_timeout');
        assert.match(error.message, /Allow remote debugging\?.*click Allow/);
        assert.match(server.stderr(), /click Allow/);
      } finally {
        await server.close();
      }
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    }
  });
});

/** A raw DevTools client of the test browser (the harness plays another program looking at the user's tabs). */
async function rawCdp(endpoint: string): Promise<{ send(method: string, params?: object, sessionId?: string): Promise<any>; close(): void }> {
  const { default: WebSocket } = await import('ws');
  const { webSocketDebuggerUrl } = await (await fetch(`${endpoint}/json/version`)).json() as { webSocketDebuggerUrl: string };
  const socket = new WebSocket(webSocketDebuggerUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let id = 0;
  const pending = new Map<number, (m: any) => void>();
  socket.on('message', data => {
    const m = JSON.parse(data.toString());
    if (m.id) pending.get(m.id)?.(m);
  });
  return {
    send: (method, params = {}, sessionId) => new Promise((resolve, reject) => {
      const n = ++id;
      pending.set(n, m => (m.error ? reject(new Error(m.error.message)) : resolve(m.result)));
      socket.send(JSON.stringify({ id: n, method, params, ...(sessionId ? { sessionId } : {}) }));
    }),
    close: () => socket.close(),
  };
}

describe('many tabs, a frozen one, and leaving no trace', () => {
  test('40 more user tabs stay out of sight; a shared frozen tab does not hold the connection; leaving restores nothing because nothing changed', async () => {
    for (let i = 0; i < 40; i++) await chrome.openTab(`${site.origin}/user-b?n=${i}`);
    const raw = await rawCdp(chrome.endpoint);
    const home = await cliHome({ TABWRIGHT_CONNECTION: 'own-chrome', TABWRIGHT_OWN_CHROME_PROFILE: profile });
    try {
      const userA = (await chrome.pages()).find(p => p.url === `${site.origin}/user-a`)!;
      const frozen = (await chrome.pages()).find(p => p.url.endsWith('?n=7'))!;
      const { sessionId } = await raw.send('Target.attachToTarget', { targetId: frozen.id, flatten: true });
      await raw.send('Page.setWebLifecycleState', { state: 'frozen' }, sessionId);
      // Not document.hasFocus(): a screenshot brings its tab to the front (docs/own-browser.md).
      const look = `JSON.stringify({ w: innerWidth, h: innerHeight, dpr: devicePixelRatio, dark: matchMedia('(prefers-color-scheme: dark)').matches, reduced: matchMedia('(prefers-reduced-motion: reduce)').matches, html: document.documentElement.outerHTML.length })`;
      const { sessionId: aSession } = await raw.send('Target.attachToTarget', { targetId: userA.id, flatten: true });
      const beforeLook = (await raw.send('Runtime.evaluate', { expression: look, returnByValue: true }, aSession)).result.value;
      const beforeTabs = (await chrome.pages()).map(p => p.id).sort();

      const listing = await ok(home, ['share']);
      assert.equal(listing.browserTabs.length, beforeTabs.length);
      assert.deepEqual(listing.tabs, []);
      const shared = await ok(home, ['share', userA.id, frozen.id]);
      assert.equal(shared.browserTabs.filter((t: { scope?: string }) => t.scope === 'shared').length, 2);
      const active = shared.tabs.find((t: { url: string }) => t.url === `${site.origin}/user-a`);
      assert.ok(active, JSON.stringify(shared.tabs));
      // The shared tab works while the frozen one is in scope too.
      assert.match(JSON.stringify(await ok(home, ['context', 'page', '--tab', String(active.tabId)])), /Signed in as Ada/);
      await ok(home, ['tab', 'shot', String(active.tabId)]);
      await ok(home, ['tool', 'execute', '--args', JSON.stringify({ tabId: active.tabId, code: 'return document.title' })]);
      await ok(home, ['daemon', 'stop']);

      const afterLook = (await raw.send('Runtime.evaluate', { expression: look, returnByValue: true }, aSession)).result.value;
      assert.deepEqual(JSON.parse(afterLook), JSON.parse(beforeLook));
      assert.deepEqual((await chrome.pages()).map(p => p.id).sort(), beforeTabs, 'no tab opened or closed');
    } finally {
      raw.close();
      await home.cleanup();
    }
  });
});
