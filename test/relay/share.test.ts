// Two `tabwright-mcp` servers at once on one managed browser (docs/relay.md): the first leads and owns the only
// Chromium, the second follows and relays through it. Both see the same
// tabs; get_bridge_status reports the roles; two execute calls on the same
// tab never interleave, on different tabs they overlap; a follower's call
// cancelled while it waits for the tab never runs; consent questions of the
// follower's calls go to the follower's own client (both protocol eras),
// with progress relayed while they wait; no orphan Chromium at the end.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import WebSocket from 'ws';
import { join } from 'node:path';
import type { ElicitResult } from '@modelcontextprotocol/client';
import { call, callError, ROOT } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { eventually } from '../fixtures/harness.js';
import { killLeftovers } from '../fixtures/processes.js';
import { browsersOn, machine, startServer, type Machine, type Server } from '../fixtures/relay.js';

interface Status { role: string; leaderPid: number; relayProtocol: number; tabCount: number; browserRunning: boolean; workspace: string }
interface Tab { tabId: number; url: string }

const SHOP = `<!doctype html><title>Shop</title><h1>Shop</h1>
<script>
  window.counts = { buy: 0 };
  document.modelContext.registerTool({
    name: 'buy', description: 'Buy an item', annotations: { consequentialHint: true },
    inputSchema: { type: 'object', properties: { item: { type: 'string' } } },
    execute: async ({ item }) => { counts.buy++; return { content: [{ type: 'text', text: 'bought ' + (item ?? '') }] }; },
  });
</script>`;

let m: Machine;
let site: Site;
let leader: Server;
let follower: Server;
/** What the follower's human was asked, and how it answers next. */
const asked: string[] = [];
let nextAnswer: () => Promise<ElicitResult> = async () => ({ action: 'decline' });
/** Requests the pages made to /mark?x=..., in arrival order. */
const marks: string[] = [];
let flag = false;

before(async () => {
  m = await machine();
  site = await startSite();
  site.page('/a', '<title>A</title><p>a</p>');
  site.page('/b', '<title>B</title><p>b</p>');
  site.page('/shop', SHOP);
  site.route('/mark', (req, res) => {
    marks.push(new URL(req.url ?? '', site.origin).searchParams.get('x') ?? '');
    res.setHeader('access-control-allow-origin', '*');
    res.end('ok');
  });
  site.route('/flag', (req, res) => {
    if (req.url?.includes('set=1')) flag = true;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ set: flag }));
  });
  leader = await startServer(m);
  // A viewport of its own: it cannot apply to the leader's browser, and the follower says so.
  follower = await startServer(m, {
    env: { TABWRIGHT_VIEWPORT: '1024x700' },
    elicit: async params => {
      asked.push(params.message);
      return await nextAnswer();
    },
  });
});

after(async () => {
  await follower?.close();
  await leader?.close();
  const gone = await eventually(() => browsersOn(m.profile).length === 0, 15_000);
  killLeftovers(m.profile);
  await site?.close();
  m.remove();
  assert.ok(gone, 'no Chromium on the test profile within 15 s after both servers exited');
});

test('roles: the first server leads, the second follows it; same relay protocol', async () => {
  const a = await call<Status>(leader.client, 'get_bridge_status');
  const b = await call<Status>(follower.client, 'get_bridge_status');
  assert.deepEqual([a.role, a.leaderPid, a.relayProtocol], ['leader', leader.pid, 1]);
  assert.deepEqual([b.role, b.leaderPid, b.relayProtocol], ['follower', leader.pid, 1]);
  // The text says the same: the tool words the role it is given (the leader runs the follower's call).
  const text = async (client: typeof leader.client) => ((await client.callTool({ name: 'get_bridge_status', arguments: {} })).content as Array<{ type: string; text?: string }>).map(block => block.text ?? '').join('\n');
  assert.match(await text(leader.client), / · relay leader\n/);
  assert.match(await text(follower.client), new RegExp(` · relay follower of pid ${leader.pid}\n`));
  // The follower's own viewport does not apply: it says so on stderr; the status names the leader's settings.
  assert.match(follower.stderr(), /follows the tabwright leader \(pid \d+\) and works in its browser, so these settings do not apply: --viewport \(1024x700 here, 1280x720 in the leader's browser\)\./);
  assert.doesNotMatch(leader.stderr(), /do not apply/);
  assert.equal((b as Status & { viewport: string }).viewport, '1280x720');
  assert.match(await text(follower.client), /Headless · viewport 1280x720 · browser /);
  // The follower's calls write into the follower's own workspace.
  assert.equal(b.workspace, follower.workspace);
  assert.equal(a.workspace, leader.workspace);
});

test('bridge.json (0600) names the leader; a wrong token or a web page Origin is turned away', async () => {
  const path = join(m.configDir, 'bridge.json');
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const file = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  assert.match(String(file.token), /^[0-9a-f]{64}$/);
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  assert.deepEqual({ ...file, token: 'x' }, { pid: leader.pid, port: m.port, token: 'x', version, relayProtocol: 1, profile: m.profile });
  const attempt = (headers: Record<string, string>, hello: unknown) => new Promise<{ frames: string[]; code: number }>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${m.port}/`, { headers });
    const frames: string[] = [];
    ws.on('open', () => ws.send(JSON.stringify(hello)));
    ws.on('message', data => frames.push(String(data)));
    ws.on('close', code => resolve({ frames, code }));
    ws.on('error', reject);
  });
  const hello = { t: 'hello', token: 'f'.repeat(64), version, relayProtocol: 1, pid: process.pid, profile: m.profile };
  const wrong = await attempt({}, hello);
  assert.equal(wrong.code, 4001);
  assert.equal((JSON.parse(wrong.frames[0]!) as { t: string }).t, 'refused');
  const page = await attempt({ origin: 'http://127.0.0.1:1' }, { ...hello, token: file.token });
  assert.deepEqual([page.code, page.frames], [4003, []]);
});

test('both see the same tabs, and only one Chromium runs on the profile', async () => {
  const nav = await call<{ tabId: number }>(leader.client, 'navigate', { url: `${site.origin}/a` });
  const seen = await call<{ tabs: Tab[] }>(follower.client, 'list_tabs');
  assert.deepEqual(seen.tabs.map(t => [t.tabId, t.url]), [[nav.tabId, `${site.origin}/a`]]);
  const opened = await call<{ tabId: number }>(follower.client, 'open_tab', { url: `${site.origin}/b`, background: true });
  const fromLeader = await call<{ tabs: Tab[] }>(leader.client, 'list_tabs');
  assert.deepEqual(fromLeader.tabs.map(t => [t.tabId, t.url]), [[nav.tabId, `${site.origin}/a`], [opened.tabId, `${site.origin}/b`]]);
  assert.equal(browsersOn(m.profile).length, 1, `one browser process on ${m.profile}`);
  const b = await call<Status>(follower.client, 'get_bridge_status');
  assert.deepEqual([b.browserRunning, b.tabCount], [true, 2]);
  await call(follower.client, 'close_tab', { tabId: opened.tabId });
});

/** Code that marks start, waits `ms` on a page timer, marks end. */
function marked(n: string, ms: number): string {
  return `await fetch('/mark?x=start-${n}'); await new Promise(r => setTimeout(r, ${ms})); await fetch('/mark?x=end-${n}'); return '${n}'`;
}

test('two agents on the same tab are serialized, never interleaved', async () => {
  const tab = (await call<{ tabs: Tab[] }>(leader.client, 'list_tabs')).tabs[0]!.tabId;
  marks.length = 0;
  const [one, two] = await Promise.all([
    call<{ value: string }>(leader.client, 'execute', { tabId: tab, code: marked('1', 600) }),
    call<{ value: string }>(follower.client, 'execute', { tabId: tab, code: marked('2', 600) }),
  ]);
  assert.deepEqual([one.value, two.value], ['1', '2']);
  const first = marks[0]!.slice(-1);
  const second = first === '1' ? '2' : '1';
  assert.deepEqual(marks, [`start-${first}`, `end-${first}`, `start-${second}`, `end-${second}`]);
});

test('calls on different tabs run at the same time', async () => {
  const tab = (await call<{ tabs: Tab[] }>(leader.client, 'list_tabs')).tabs[0]!.tabId;
  const other = (await call<{ tabId: number }>(follower.client, 'open_tab', { url: `${site.origin}/b`, background: true })).tabId;
  flag = false;
  // The first call returns only once the second has run: were they serialized, it would time out.
  const waiter = `for (let i = 0; i < 200; i++) { if ((await (await fetch('/flag')).json()).set) return 'saw'; await new Promise(r => setTimeout(r, 50)); } return 'never'`;
  const [one, two] = await Promise.all([
    call<{ value: string }>(leader.client, 'execute', { tabId: tab, code: waiter }),
    call<{ value: string }>(follower.client, 'execute', { tabId: other, code: `await fetch('/flag?set=1'); return 'set'` }),
  ]);
  assert.deepEqual([one.value, two.value], ['saw', 'set']);
  await call(follower.client, 'close_tab', { tabId: other });
});

test('a follower call cancelled while it waits for the tab never runs', async () => {
  const tab = (await call<{ tabs: Tab[] }>(leader.client, 'list_tabs')).tabs[0]!.tabId;
  marks.length = 0;
  const holding = call<{ value: string }>(leader.client, 'execute', { tabId: tab, code: marked('hold', 1500) });
  assert.ok(await eventually(() => marks.includes('start-hold'), 10_000), 'the first call runs');
  const controller = new AbortController();
  const cancelled = follower.client.callTool({ name: 'execute', arguments: { tabId: tab, code: `await fetch('/mark?x=effect'); return 1` } }, { signal: controller.signal });
  // Give the call time to reach the leader and queue behind the first (were it not queued, the effect would show).
  await new Promise(resolve => setTimeout(resolve, 300));
  controller.abort();
  await assert.rejects(cancelled);
  assert.equal((await holding).value, 'hold');
  // The next call on the tab runs after the cancelled one would have: the effect never happened.
  await call(follower.client, 'execute', { tabId: tab, code: `await fetch('/mark?x=after'); return 1` });
  assert.deepEqual(marks, ['start-hold', 'end-hold', 'after']);
});

test("a follower's consent question goes to the follower's client, with progress relayed while it waits", async () => {
  const tab = (await call<{ tabId: number }>(follower.client, 'navigate', { url: `${site.origin}/shop` })).tabId;
  asked.length = 0;
  nextAnswer = async () => {
    await new Promise(resolve => setTimeout(resolve, 300));
    return { action: 'accept', content: { decision: 'once' } };
  };
  const progress: string[] = [];
  const result = await follower.client.callTool(
    { name: 'call_webmcp_tool', arguments: { name: 'buy', arguments: { item: 'lamp' }, tabId: tab } },
    { onprogress: p => progress.push(p.message ?? '') },
  );
  assert.notEqual(result.isError, true, JSON.stringify(result));
  assert.equal(asked.length, 1);
  assert.match(asked[0]!, /WebMCP tool "buy"/);
  assert.ok(progress.length >= 1 && /Waiting for the user to allow buy/.test(progress[0]!), `progress: ${JSON.stringify(progress)}`);
  const audit = readFileSync(join(m.dataDir, 'consent-audit.jsonl'), 'utf8').trim().split('\n').map(l => JSON.parse(l) as { tool: string; decision: string; channel: string; answer?: string });
  assert.deepEqual(audit.at(-1) && [audit.at(-1)!.tool, audit.at(-1)!.decision, audit.at(-1)!.channel, audit.at(-1)!.answer], ['buy', 'allowed', 'elicitation', 'once']);
  // The leader's client declared no elicitation: its own call has no way to ask.
  assert.equal((await callError(leader.client, 'call_webmcp_tool', { name: 'buy', tabId: tab })).type, 'consent_unavailable');
  nextAnswer = async () => ({ action: 'decline' });
  assert.equal((await callError(follower.client, 'call_webmcp_tool', { name: 'buy', tabId: tab })).type, 'consent_denied');
  assert.equal((await call<{ value: number }>(follower.client, 'execute', { tabId: tab, code: 'counts.buy' })).value, 1);
});

test('2026-07-28 follower: the question rides input_required through the relay and the retry brings the answer', async () => {
  const modernAsked: string[] = [];
  const modern = await startServer(m, {
    mode: 'auto',
    elicit: async params => {
      modernAsked.push(params.message);
      return { action: 'accept', content: { decision: 'once' } };
    },
  });
  try {
    assert.equal(modern.client.getProtocolEra(), 'modern');
    assert.equal((await call<Status>(modern.client, 'get_bridge_status')).role, 'follower');
    const tab = (await call<{ tabs: Tab[] }>(modern.client, 'list_tabs')).tabs.find(t => t.url.endsWith('/shop'))!.tabId;
    const res = await call<{ result: { content: Array<{ text: string }> } }>(modern.client, 'call_webmcp_tool', { name: 'buy', arguments: { item: 'desk' }, tabId: tab });
    assert.equal(res.result.content[0]!.text, 'bought desk');
    assert.equal(modernAsked.length, 1);
    assert.match(modernAsked[0]!, /WebMCP tool "buy"/);
    assert.equal((await call<{ value: number }>(modern.client, 'execute', { tabId: tab, code: 'counts.buy' })).value, 2);
  } finally {
    await modern.close();
  }
});
