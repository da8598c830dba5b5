// The daemon's HTTP API and /mcp (docs/daemon.md), end to end
// against the built daemon and real headless Chromium: daemon.json (0600,
// gone after stop), files land in the caller's workspace, SSE progress +
// consent + result with the answer posted to /v1/consent, a client
// disconnect cancelling the page's tool, idle exit, the official MCP client
// over Streamable HTTP (both eras) with the token, and 401 without it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DAEMON, startDaemon, type Daemon } from '../fixtures/daemon.js';
import { until } from '../fixtures/harness.js';
import { descendants, isAlive } from '../fixtures/processes.js';
import { ROOT } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';

let daemon: Daemon;
let site: Site;
const extraDirs: string[] = [];
let started = 0;

const SHOP = `<!doctype html><title>Shop</title><h1>Shop</h1>
<script>
  window.counts = { buy: 0, slowDone: 0, slowAborted: 0 };
  document.modelContext.registerTool({
    name: 'buy', description: 'Buy an item', annotations: { consequentialHint: true },
    inputSchema: { type: 'object', properties: { item: { type: 'string' } } },
    execute: async ({ item }) => { counts.buy++; return { content: [{ type: 'text', text: 'bought ' + item }] }; },
  });
  document.modelContext.registerTool({
    name: 'slow', description: 'Wait three seconds, then count', annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: {} },
    execute: (input, options) => new Promise((resolve, reject) => {
      fetch('/started');
      const timer = setTimeout(() => { counts.slowDone++; resolve({ content: [{ type: 'text', text: 'slow done' }] }); }, 3000);
      options?.signal?.addEventListener('abort', () => { clearTimeout(timer); counts.slowAborted++; reject(new Error('aborted')); });
    }),
  });
</script>`;

before(async () => {
  site = await startSite();
  site.page('/shop', SHOP);
  site.page('/dl', '<!doctype html><title>Downloads</title><a id="d" download="report.txt" href="/report">Get the report</a>');
  site.route('/report', (_req, res) => {
    res.setHeader('content-type', 'application/octet-stream');
    res.end('report data');
  });
  site.route('/started', (_req, res) => {
    started++;
    res.end('ok');
  });
  // The WebMCP calls here test the daemon's call path (progress, consent, cancellation), not the browser's
  // WebMCP: the polyfill passes execute an AbortSignal on every browser (Chromium 150's native one does not).
  daemon = await startDaemon({ args: ['--webmcp', 'polyfill'] });
});

after(async () => {
  await daemon?.stop();
  await site?.close();
  for (const dir of extraDirs) rmSync(dir, { recursive: true, force: true });
});

async function tool(name: string, args: Record<string, unknown>, workspace?: string): Promise<any> {
  const reply = await daemon.request({ path: `/v1/tools/${name}`, body: args, workspace });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.outcome, 'completed');
  return reply.json.result;
}

async function counts(): Promise<{ buy: number; slowDone: number; slowAborted: number }> {
  return (await tool('execute', { code: 'window.counts' })).structuredContent.value;
}

test('daemon.json: mode 0600, the endpoint of the live daemon', async () => {
  const file = join(daemon.configDir, 'daemon.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const e = daemon.endpoint;
  assert.equal(e.pid, daemon.proc.pid);
  assert.match(e.token, /^[0-9a-f]{64}$/);
  assert.equal(e.protocol, 1);
  assert.equal(e.workspaceEncoding, 'uri');
  assert.ok(!Number.isNaN(Date.parse(e.startedAt)));
  const status = await daemon.status();
  assert.equal(status.pid, e.pid);
  assert.equal(status.port, e.port);
  assert.equal(status.version, e.version);
});

test('a screenshot lands in the calling workspace: two workspaces, two files, none crossed', async () => {
  await tool('navigate', { url: `${site.origin}/shop` });
  const a = mkdtempSync(join(tmpdir(), 'tabwright-ws-a-'));
  const b = mkdtempSync(join(tmpdir(), 'tabwright-ws-ü-'));
  extraDirs.push(a, b);
  const shotA = await tool('take_screenshot', { output: 'file' }, a);
  // b has a non-ASCII name: sent URI-encoded.
  const replyB = await daemon.request({ path: '/v1/tools/take_screenshot', body: { output: 'file' }, workspace: encodeURIComponent(b), headers: { 'x-tabwright-workspace-encoding': 'uri' } });
  assert.equal(replyB.status, 200, replyB.text);
  const pathA: string = shotA.structuredContent.path;
  const pathB: string = replyB.json.result.structuredContent.path;
  assert.ok(pathA.startsWith(join(a, '.tabwright') + '/'), pathA);
  assert.ok(pathB.startsWith(join(b, '.tabwright') + '/'), pathB);
  assert.ok(existsSync(pathA) && existsSync(pathB));
  assert.deepEqual(readdirSync(join(a, '.tabwright', 'screenshots')).length, 1);
  assert.deepEqual(readdirSync(join(b, '.tabwright', 'screenshots')).length, 1);
  assert.equal(existsSync(join(daemon.workspace, '.tabwright')), false);
});

test('a download lands in the workspace of the call that started it, not the daemon\'s', async () => {
  const a = mkdtempSync(join(tmpdir(), 'tabwright-ws-dl-a-'));
  const b = mkdtempSync(join(tmpdir(), 'tabwright-ws-dl-b-'));
  extraDirs.push(a, b);
  await tool('navigate', { url: `${site.origin}/dl` }, a);
  // The call of workspace b clicks the link: the file is b's.
  await tool('execute', { code: 'document.getElementById("d").click()' }, b);
  const saved = await until('the download to be saved', async () => {
    const { downloads } = (await tool('list_downloads', {}, b)).structuredContent as { downloads: Array<{ suggestedName: string; state: string; path: string | null }> };
    return downloads.find(d => d.suggestedName === 'report.txt' && d.state === 'completed');
  });
  assert.ok(saved.path!.startsWith(join(b, '.tabwright', 'downloads') + '/'), saved.path!);
  assert.equal(readFileSync(saved.path!, 'utf8'), 'report data');
  assert.equal(existsSync(join(a, '.tabwright', 'downloads')), false);
  assert.equal(existsSync(join(daemon.workspace, '.tabwright')), false);
});

test('consent over HTTP: progress, a consent event, the answer posted back, then the result', async () => {
  await tool('navigate', { url: `${site.origin}/shop` });
  // A plain (non-streaming) call has no way to ask: consent_unavailable, the tool never ran.
  const plain = await tool('call_webmcp_tool', { name: 'buy', arguments: { item: 'tea' } });
  assert.equal(plain.isError, true);
  assert.equal(plain.structuredContent.error.type, 'consent_unavailable');
  assert.equal((await counts()).buy, 0);

  const answers: Array<{ status: number; json: any }> = [];
  let questionId = '';
  const { status, events } = await daemon.stream({ path: '/v1/tools/call_webmcp_tool', body: { name: 'buy', arguments: { item: 'tea' } } }, e => {
    if (e.event !== 'consent') return;
    questionId = e.data.questionId;
    void daemon.request({ path: `/v1/consent/${questionId}`, body: { answer: 'once' }, workspace: null }).then(r => answers.push(r));
  });
  assert.equal(status, 200);
  const names = events.map(e => e.event);
  assert.ok(names.indexOf('progress') >= 0 && names.indexOf('progress') < names.indexOf('consent'), names.join(','));
  assert.equal(names.at(-1), 'result');
  assert.equal(names.filter(n => n === 'result').length, 1);
  const consent = events.find(e => e.event === 'consent')!.data;
  assert.match(consent.questionId, /^[0-9a-f]{32}$/);
  assert.equal(consent.tool, 'buy');
  assert.equal(consent.origin, site.origin);
  assert.match(consent.text, /"buy"/);
  assert.equal(consent.argumentsPreview, '{"item":"tea"}');
  const progress = events.find(e => e.event === 'progress')!.data;
  assert.equal(typeof progress.done, 'number');
  const result = events.at(-1)!.data;
  assert.equal(result.outcome, 'completed');
  assert.equal(result.result.isError, undefined, JSON.stringify(result));
  assert.match(JSON.stringify(result.result.content), /bought tea/);
  assert.equal((await counts()).buy, 1);
  await until('the answer reply', () => answers.length === 1);
  assert.equal(answers[0]!.status, 200);
  assert.deepEqual(answers[0]!.json, { answered: true });
  // The question is gone: a second answer is refused, and it needs the token like every route.
  const again = await daemon.request({ path: `/v1/consent/${questionId}`, body: { answer: 'always' }, workspace: null });
  assert.equal(again.status, 404);
  assert.equal(again.json.error.type, 'unknown_question');
  const noToken = await daemon.request({ path: `/v1/consent/${questionId}`, body: { answer: 'once' }, workspace: null, token: null });
  assert.equal(noToken.status, 401);
});

test('a client disconnect cancels the call: the page tool is aborted and never completes its effect', async () => {
  await tool('navigate', { url: `${site.origin}/shop` });
  const startedBefore = started;
  const req = httpRequest({
    host: '127.0.0.1', port: daemon.endpoint.port, method: 'POST', path: '/v1/tools/call_webmcp_tool',
    headers: { 'x-tabwright-token': daemon.endpoint.token, 'x-tabwright-workspace': daemon.workspace, accept: 'text/event-stream', 'content-type': 'application/json' },
  });
  req.on('error', () => undefined);
  let answered = false;
  req.on('response', res => {
    res.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('event: result')) answered = true;
    });
  });
  req.end(JSON.stringify({ name: 'slow', timeoutSec: 60 }));
  // The page's execute has started (it fetched /started): now the caller goes away.
  await until('the page tool to start', () => started > startedBefore);
  req.destroy();
  await until('the page tool to be aborted', async () => (await counts()).slowAborted === 1);
  await until('the call to settle', async () => (await daemon.status()).activeRequests === 0);
  // Well past the tool's 3 s timer: its effect never happened.
  await new Promise(r => setTimeout(r, 4000));
  const after = await counts();
  assert.deepEqual({ slowDone: after.slowDone, slowAborted: after.slowAborted }, { slowDone: 0, slowAborted: 1 });
  assert.equal(answered, false);
  assert.equal((await daemon.status()).activeRequests, 0);
});

test('MCP over Streamable HTTP: the official client (2025 session and 2026-07-28) with the token calls tools; the workspace header chooses where files go', async () => {
  const url = new URL(`http://127.0.0.1:${daemon.endpoint.port}/mcp`);
  const ws = mkdtempSync(join(tmpdir(), 'tabwright-ws-mcp-'));
  extraDirs.push(ws);
  for (const mode of ['legacy', 'auto'] as const) {
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${daemon.endpoint.token}`, 'x-tabwright-workspace': ws } } });
    const client = new Client({ name: 'daemon-test', version: '0.0.0' }, { versionNegotiation: { mode }, capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async request => {
      asked.push((request.params as { message: string }).message);
      return { action: 'accept', content: { decision: 'once' } };
    });
    await client.connect(transport);
    assert.equal(client.getProtocolEra(), mode === 'legacy' ? 'legacy' : 'modern');
    const { tools } = await client.listTools();
    assert.ok(tools.some(t => t.name === 'navigate') && tools.some(t => t.name === 'take_screenshot'));
    if (mode === 'legacy') assert.equal((await daemon.status()).sessions, 1);
    const nav = await client.callTool({ name: 'navigate', arguments: { url: `${site.origin}/shop` } });
    assert.equal(nav.isError, undefined, JSON.stringify(nav));
    assert.equal((nav.structuredContent as { url: string }).url, `${site.origin}/shop`);
    const shot = await client.callTool({ name: 'take_screenshot', arguments: { output: 'file' } });
    const path = (shot.structuredContent as { path: string }).path;
    assert.ok(path.startsWith(join(ws, '.tabwright') + '/'), path);
    assert.ok(existsSync(path));
    // Consent through MCP elicitation: a 2025 session pushes elicitation/create, 2026-07-28 rides input_required.
    // Read through the client: a 2025 session has a browser context of its own, 2026-07-28 the main one.
    const buys = async () => ((await client.callTool({ name: 'execute', arguments: { code: 'window.counts.buy' } })).structuredContent as { value: number }).value;
    const buysBefore = await buys();
    const buy = await client.callTool({ name: 'call_webmcp_tool', arguments: { name: 'buy', arguments: { item: mode } } });
    assert.equal(buy.isError, undefined, JSON.stringify(buy));
    assert.match(JSON.stringify(buy.content), new RegExp(`bought ${mode}`));
    assert.equal(asked.length, 1);
    assert.match(asked[0]!, /"buy"/);
    assert.equal(await buys(), buysBefore + 1);
    if (mode === 'legacy') await transport.terminateSession();
    await client.close();
  }
  assert.equal(readdirSync(join(ws, '.tabwright', 'screenshots')).length, 2);
  await until('sessions closed', async () => (await daemon.status()).sessions === 0);
});

/** A 2025-era /mcp session of the official client on `d`, with its text for list_tabs. */
async function legacySession(d: Daemon): Promise<{ client: Client; transport: StreamableHTTPClientTransport; tabsText(): Promise<string> }> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${d.endpoint.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${d.endpoint.token}` } } });
  const client = new Client({ name: 'daemon-test', version: '0.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(transport);
  const tabsText = async () => ((await client.callTool({ name: 'list_tabs', arguments: {} })).content as Array<{ text: string }>).map(c => c.text).join('\n');
  return { client, transport, tabsText };
}

test('a /mcp session with no tabs of its own says so, not that the browser is off; --shared-context lets it work in the CLI\'s tabs', async () => {
  const cli = await daemon.request({ path: '/v1/tools/navigate', body: { url: `${site.origin}/shop` } });
  assert.equal(cli.status, 200, cli.text);
  const own = await legacySession(daemon);
  assert.match(await own.tabsText(), /^This MCP session has no tabs yet: it has a browser context of its own, so the tabs of the CLI and of other sessions are not listed\./);
  await own.transport.terminateSession();
  await own.client.close();

  const shared = await startDaemon({ args: ['--shared-context'] });
  try {
    const opened = await shared.request({ path: '/v1/tools/navigate', body: { url: `${site.origin}/shop` } });
    assert.equal(opened.status, 200, opened.text);
    const session = await legacySession(shared);
    assert.match(await session.tabsText(), new RegExp(`^1 tab \\(\\* the active one\\):\\n\\* \\[1\\] Shop — ${site.origin.replace(/[.]/g, '\\.')}/shop`));
    await session.transport.terminateSession();
    await session.client.close();
    const after = await shared.request({ path: '/v1/tools/list_tabs', body: {} });
    assert.equal(after.json.result.structuredContent.tabs.length, 1, 'the session\'s end closes no tab of the main context');
  } finally {
    await shared.stop();
  }
});

test('/mcp without the token is 401, with a wrong bearer too', async () => {
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '0' } } };
  const headers = { accept: 'application/json, text/event-stream' };
  const none = await daemon.request({ path: '/mcp', body: init, token: null, workspace: null, headers });
  assert.equal(none.status, 401);
  assert.equal(none.json.error.type, 'unauthorized');
  const wrong = await daemon.request({ path: '/mcp', body: init, token: null, workspace: null, headers: { ...headers, authorization: 'Bearer 00' } });
  assert.equal(wrong.status, 401);
  assert.equal((await daemon.status()).sessions, 0);
});

test('idle exit: a daemon with a short idle time exits by itself, removes daemon.json, and leaves no browser', async () => {
  // This daemon also has a short call deadline and a small response cap. The call that outlives the deadline
  // comes first: it launches the browser, so the calls after it get the whole deadline for their work.
  const idle = await startDaemon({ env: { TABWRIGHT_DAEMON_IDLE_MS: '2000', TABWRIGHT_DAEMON_REQUEST_TIMEOUT_MS: '8000', TABWRIGHT_DAEMON_MAX_RESPONSE_BYTES: '65536' } });
  try {
    const slow = await idle.request({ path: '/v1/tools/execute', body: { code: 'await new Promise(r => setTimeout(r, 60000)); return 1', timeoutSec: 120 } });
    assert.equal(slow.status, 504, slow.text);
    assert.equal(slow.json.outcome, 'failed');
    assert.equal(slow.json.error.type, 'timeout');
    const reply = await idle.request({ path: '/v1/tools/navigate', body: { url: `${site.origin}/shop` } });
    assert.equal(reply.status, 200, reply.text);
    const big = { code: `'x'.repeat(100000)`, maxBytes: 200000 };
    const large = await idle.request({ path: '/v1/tools/execute', body: big });
    assert.equal(large.status, 500, large.text.slice(0, 300));
    assert.equal(large.json.outcome, 'failed');
    assert.equal(large.json.error.type, 'result_too_large');
    const streamed = await idle.stream({ path: '/v1/tools/execute', body: big });
    assert.deepEqual(streamed.events.map(e => [e.event, e.data.outcome, e.data.error?.type]), [['result', 'failed', 'result_too_large']]);
    const small = await idle.request({ path: '/v1/tools/execute', body: { code: `'x'.repeat(1000)` } });
    assert.equal(small.json.result.structuredContent.value, 'x'.repeat(1000));
    const children = descendants(idle.endpoint.pid);
    assert.ok(children.length > 0, 'the browser runs under the daemon');
    const code = await Promise.race([idle.exited, new Promise(r => setTimeout(() => r('still running'), 30_000))]);
    assert.equal(code, 0, idle.stderr());
    assert.match(idle.stderr(), /stopping \(idle for 2 s\)/);
    assert.equal(existsSync(join(idle.configDir, 'daemon.json')), false);
    await until('no orphan browser', () => children.every(pid => !isAlive(pid)), 15_000);
  } finally {
    await idle.stop();
  }
});

/** Runs the daemon with `env` until it exits; its exit code and stderr. */
function runToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise(resolve => {
    const proc = spawn(process.execPath, [DAEMON, '--headless', '--isolated'], { cwd: ROOT, env: { ...process.env, TABWRIGHT_CONSENT_TTY: '0', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    proc.on('exit', code => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

test('a busy port, or a live daemon for the same config dir, is exit code 3 with a message', async () => {
  const other = mkdtempSync(join(tmpdir(), 'tabwright-dirs-'));
  extraDirs.push(other);
  const busy = await runToExit({ TABWRIGHT_HTTP_PORT: String(daemon.endpoint.port), TABWRIGHT_CONFIG_DIR: join(other, 'config'), TABWRIGHT_DATA_DIR: join(other, 'data') });
  assert.equal(busy.code, 3, busy.stderr);
  assert.match(busy.stderr, new RegExp(`port ${daemon.endpoint.port} on 127\\.0\\.0\\.1 is busy`));
  assert.equal(existsSync(join(other, 'config', 'daemon.json')), false);
  const twin = await runToExit({ TABWRIGHT_HTTP_PORT: '0', TABWRIGHT_CONFIG_DIR: daemon.configDir, TABWRIGHT_DATA_DIR: join(other, 'data') });
  assert.equal(twin.code, 3, twin.stderr);
  assert.match(twin.stderr, new RegExp(`another daemon is running \\(pid ${daemon.endpoint.pid}`));
  // The live daemon's file is untouched.
  assert.equal(JSON.parse(readFileSync(join(daemon.configDir, 'daemon.json'), 'utf8')).token, daemon.endpoint.token);
});

test('POST /v1/shutdown: 202, the daemon exits 0, daemon.json is gone, no orphan Chromium', async () => {
  const children = descendants(daemon.endpoint.pid);
  assert.ok(children.length > 0);
  const reply = await daemon.request({ path: '/v1/shutdown', workspace: null });
  assert.equal(reply.status, 202);
  assert.deepEqual(reply.json, { stopping: true });
  assert.equal(await daemon.exited, 0);
  assert.equal(existsSync(join(daemon.configDir, 'daemon.json')), false);
  await until('no orphan browser', () => children.every(pid => !isAlive(pid)), 15_000);
});
