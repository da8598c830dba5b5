// Sessions at scale over the daemon's HTTP /mcp (docs/daemon.md
// "One browser context per /mcp session"): 8 MCP sessions at once with the
// official client (2025-era Streamable HTTP sessions), each in its own
// browser context, each navigating and snapshotting its own pages 20 times.
// No cross-talk (a cookie set in one is absent in the others and in the
// main context), no errors, and a session's context (its tabs) is closed
// when the session ends. Run against the daemon's default managed Chromium
// (a persistent profile) and against a separately started Chromium (cdp).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startDaemon, type Daemon } from '../fixtures/daemon.js';
import { until } from '../fixtures/harness.js';
import { startChromium, type RemoteChromium } from '../fixtures/remote.js';
import { startSite, type Site } from '../fixtures/site.js';

const SESSIONS = 8;
const ROUNDS = 10;

let site: Site;

before(async () => {
  site = await startSite();
  site.route('/s', (req, res) => {
    const page = new URL(req.url ?? '/', 'http://x').searchParams.get('p') ?? '';
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><title>${page}</title><h1>${page}</h1><button>Go ${page}</button>`);
  });
});
after(async () => {
  await site?.close();
});

interface Agent { key: string; client: Client; transport: StreamableHTTPClientTransport }

async function connect(daemon: Daemon, key: string): Promise<Agent> {
  const url = new URL(`http://127.0.0.1:${daemon.endpoint.port}/mcp`);
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${daemon.endpoint.token}`, 'x-tabwright-workspace': daemon.workspace } } });
  const client = new Client({ name: `agent-${key}`, version: '0.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(transport);
  assert.equal(client.getProtocolEra(), 'legacy');
  return { key, client, transport };
}

async function ok(agent: Agent, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await agent.client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${agent.key}: ${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown>;
}

async function viaHttp(daemon: Daemon, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const reply = await daemon.request({ path: `/v1/tools/${name}`, body: args });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.result.isError, undefined, reply.text);
  return reply.json.result.structuredContent;
}

/**
 * The scenario on a running daemon; `pageUrls` lists the URLs of every page
 * the browser has open, in every context (its DevTools /json/list).
 */
async function eightSessions(daemon: Daemon, pageUrls: () => Promise<string[]>): Promise<void> {
  const keys = Array.from({ length: SESSIONS }, (_, i) => `s${i}`);
  const agents = await Promise.all(keys.map(key => connect(daemon, key)));
  try {
    assert.equal((await daemon.status()).sessions, SESSIONS);
    await Promise.all(agents.map(async agent => {
      for (let round = 0; round < ROUNDS; round++) {
        const page = `${agent.key}-${round}`;
        const nav = await ok(agent, 'navigate', { url: `${site.origin}/s?p=${page}` });
        assert.equal(nav.url, `${site.origin}/s?p=${page}`);
        if (round === 0) await ok(agent, 'execute', { code: `document.cookie = "owner=${agent.key}; path=/"` });
        const snap = await ok(agent, 'get_page_context', { output: 'inline' });
        assert.match(String(snap.snapshot), new RegExp(`- button "Go ${page}" \\[ref=e\\d+\\]`));
      }
    }));
    for (const agent of agents) {
      // Its own cookie only, and one tab (tabIds start at 1 in every session): its own last page.
      assert.equal((await ok(agent, 'execute', { code: 'document.cookie' })).value, `owner=${agent.key}`);
      const tabs = (await ok(agent, 'list_tabs', {})).tabs as Array<{ tabId: number; url: string }>;
      assert.deepEqual(tabs.map(t => [t.tabId, t.url]), [[1, `${site.origin}/s?p=${agent.key}-${ROUNDS - 1}`]]);
    }
    // The main context (POST /v1/tools, stateless /mcp) saw none of it.
    await viaHttp(daemon, 'navigate', { url: `${site.origin}/s?p=main` });
    assert.equal((await viaHttp(daemon, 'execute', { code: 'document.cookie' })).value, '');
    const ours = async () => (await pageUrls()).filter(u => u.startsWith(`${site.origin}/s?p=s`)).sort();
    assert.deepEqual(await ours(), keys.map(k => `${site.origin}/s?p=${k}-${ROUNDS - 1}`));

    // DELETE /mcp ends a session: its context closes with it, before the DELETE is answered.
    await agents[0]!.transport.terminateSession();
    await agents[0]!.client.close();
    assert.deepEqual(await ours(), keys.slice(1).map(k => `${site.origin}/s?p=${k}-${ROUNDS - 1}`));
    assert.equal((await daemon.status()).sessions, SESSIONS - 1);
    // The others are untouched.
    assert.equal((await ok(agents[1]!, 'execute', { code: 'document.cookie' })).value, 'owner=s1');
    // A new session starts clean even though it arrives after the others set cookies.
    const late = await connect(daemon, 'late');
    agents.push(late);
    await ok(late, 'navigate', { url: `${site.origin}/s?p=late` });
    assert.equal((await ok(late, 'execute', { code: 'document.cookie' })).value, '');
    const lateTabs = (await ok(late, 'list_tabs', {})).tabs as Array<{ tabId: number; url: string }>;
    assert.deepEqual(lateTabs.map(t => [t.tabId, t.url]), [[1, `${site.origin}/s?p=late`]]);
  } finally {
    for (const agent of agents.slice(1)) {
      await agent.transport.terminateSession().catch(() => undefined);
      await agent.client.close().catch(() => undefined);
    }
  }
  await until('every session closed', async () => (await daemon.status()).sessions === 0);
  assert.deepEqual((await pageUrls()).filter(u => u.includes('/s?p=') && !u.endsWith('p=main')), []);
}

test(`daemon with its managed Chromium (persistent profile): ${SESSIONS} /mcp sessions, ${ROUNDS} rounds each, own contexts`, async () => {
  // --remote-debugging-port lets the test read every page of the browser, in every context, from DevToolsActivePort.
  const daemon = await startDaemon({ persistent: true, args: ['--browser-arg', '--remote-debugging-address=127.0.0.1', '--browser-arg', '--remote-debugging-port=0'] });
  try {
    const devtools = () => `http://127.0.0.1:${readFileSync(join(daemon.dataDir, 'profile', 'DevToolsActivePort'), 'utf8').split('\n')[0]}`;
    const pageUrls = async () => {
      const list = await (await fetch(`${devtools()}/json/list`)).json() as Array<{ type: string; url: string }>;
      return list.filter(t => t.type === 'page').map(t => t.url);
    };
    await eightSessions(daemon, pageUrls);
  } finally {
    await daemon.stop();
  }
});

test(`daemon attached to a separately started Chromium (--cdp-endpoint): ${SESSIONS} /mcp sessions, own contexts, closed at session end`, async () => {
  let chrome: RemoteChromium | undefined;
  let daemon: Daemon | undefined;
  try {
    chrome = await startChromium();
    daemon = await startDaemon({ args: ['--cdp-endpoint', chrome.endpoint] });
    const browser = chrome;
    await eightSessions(daemon, async () => (await browser.pages()).map(p => p.url));
    await daemon.stop();
    daemon = undefined;
    // Leaving detached: the user's browser is still up, our contexts are gone.
    process.kill(browser.pid, 0);
    assert.deepEqual((await browser.pages()).filter(p => p.url.includes('/s?p=s')), []);
  } finally {
    await daemon?.stop();
    await chrome?.stop();
  }
});
