// The local dashboard, end to end (docs/dashboard.md): the built MCP server over stdio with its dashboard on (any free
// port), its page in a real headless Chromium driven by Playwright, the official MCP client without elicitation as
// the agent, and the CLI from other processes. Covers: the page renders the sessions and the tabs with a thumbnail; a
// WebMCP prompt answered in the page unblocks the waiting call (progress names the dashboard, the audit the surface),
// and one that outlives --max-wait answers pending with the dashboard's address;
// "Always deny" saves a permission the page shows and resets; the key, Host and Origin guard, and a page of another
// site that cannot act; `tabwright consent list|answer` answering from another shell, for an MCP call and for a
// waiting CLI call; the call log without typed text; get_bridge_status naming the address.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CLI, call, callError, connect, refOf, snapshot, type Connected } from '../fixtures/mcp.js';
import { CHROMIUM } from '../fixtures/remote.js';
import { startSite, type Site } from '../fixtures/site.js';
import { cli, cliHome, ok, type CliHome, type CliRun } from '../fixtures/cli.js';
import { until } from '../fixtures/harness.js';

const SHOP = `<!doctype html><title>Shop</title><h1>Shop</h1>
<script>
  window.bought = [];
  document.modelContext.registerTool({ name: 'buy', description: 'Buy an item', annotations: { consequentialHint: true },
    inputSchema: { type: 'object', properties: { item: { type: 'string' } } },
    execute: async ({ item }) => { bought.push(item); return { content: [{ type: 'text', text: 'bought ' + item }] }; } });
</script>`;
const FORM = '<!doctype html><title>Form</title><label>Name <input id="name"></label>';
/** A page of another site (another port of 127.0.0.1) that tries to answer a prompt of the dashboard at ?d=…&id=…. */
const CROSS_SITE = `<!doctype html><title>Cross</title>
<iframe name="sink"></iframe>
<form id="f" method="POST" target="sink" enctype="text/plain"><input name='{"answer":"once","x":"' value='"}'></form>
<script>
  const q = new URLSearchParams(location.search);
  const target = q.get('d') + 'api/prompts/' + q.get('id');
  window.tries = [];
  const form = document.getElementById('f');
  form.action = target;
  document.querySelector('iframe').addEventListener('load', () => tries.push('form'), { once: true });
  form.submit();
  fetch(target, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{"answer":"once"}' }).then(() => tries.push('no-cors'), () => tries.push('no-cors failed'));
  fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + '0'.repeat(64) }, body: '{"answer":"once"}' }).then(() => tries.push('cors'), () => tries.push('cors failed'));
</script>`;
const SECRET = 'hunter2-typed-secret';

let site: Site;
let server: Connected;
let browser: Browser;
let page: Page;
let dashboard: { url: string; pid: number; port: number };
let token: string;
let shopTab: number;
const homes: CliHome[] = [];

/** The discovery file the server wrote: `<config dir>/dashboards/<pid>.json`. */
function entryOf(configDir: string): { url: string; pid: number; port: number } {
  const dir = join(configDir, 'dashboards');
  const [file] = readdirSync(dir);
  return JSON.parse(readFileSync(join(dir, file!), 'utf8'));
}

/** A request to the dashboard with raw headers (node:http: fetch may not set Host). */
function raw(path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: dashboard.port, path, method, headers }, res => {
      let text = '';
      res.on('data', c => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const bearer = () => ({ authorization: `Bearer ${token}` });
const prompts = async () => (await raw('/api/prompts', bearer())).body.prompts as Array<{ id: string; tool: string }>;

/** Runs the CLI against the MCP server's config dir (never starting a daemon). */
function cliHere(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, TABWRIGHT_CONFIG_DIR: server.configDir, TABWRIGHT_DATA_DIR: server.dataDir, TABWRIGHT_DAEMON_AUTOSTART: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', c => (stdout += c));
    child.stderr.on('data', c => (stderr += c));
    child.on('error', reject);
    child.on('close', code => resolve({ code, stdout, stderr, json: stdout ? JSON.parse(stdout) : undefined }));
  });
}

function auditLast(dataDir: string): { tool: string; decision: string; channel: string; answer?: string } {
  const lines = readFileSync(join(dataDir, 'consent-audit.jsonl'), 'utf8').trim().split('\n');
  return JSON.parse(lines.at(-1)!);
}

before(async () => {
  site = await startSite();
  site.page('/shop', SHOP);
  site.page('/form', FORM);
  site.page('/cross', CROSS_SITE);
  server = await connect({ env: { TABWRIGHT_DASHBOARD_PORT: '0' } });
  dashboard = entryOf(server.configDir);
  token = readFileSync(join(server.configDir, 'dashboard-token'), 'utf8').trim();
  shopTab = (await call<{ tabId: number }>(server.client, 'navigate', { url: `${site.origin}/shop` })).tabId;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  page = await browser.newPage();
  await page.goto(`${dashboard.url}#token=${token}`);
});

after(async () => {
  await browser?.close();
  await server?.close();
  for (const home of homes) await home.cleanup();
  await site?.close();
});

test('the key file and the discovery file are 0600; get_bridge_status names the address without the key', async () => {
  for (const file of [join(server.configDir, 'dashboard-token'), join(server.configDir, 'dashboards', `${dashboard.pid}.json`)]) {
    assert.equal(statSync(file).mode & 0o777, 0o600, file);
  }
  assert.match(dashboard.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const result = await server.client.callTool({ name: 'get_bridge_status', arguments: {} });
  const text = (result.content as Array<{ text: string }>).map(c => c.text).join('\n');
  assert.ok(text.includes(`Dashboard: ${dashboard.url} (\`tabwright dashboard\` prints the address with its key)`), text);
  assert.deepEqual((result.structuredContent as { dashboard: unknown }).dashboard, { url: dashboard.url });
  assert.ok(!JSON.stringify(result).includes(token));
});

test('the page renders the session and the tabs, with a thumbnail; the key leaves the address bar', async () => {
  assert.equal(new URL(page.url()).hash, '');
  await page.locator(`[data-tab="${shopTab}"] img`).waitFor();
  const natural = await page.locator(`[data-tab="${shopTab}"] img`).evaluate(img => (img as HTMLImageElement).naturalWidth);
  assert.equal(natural, 320);
  assert.match(await page.locator(`[data-tab="${shopTab}"]`).innerText(), new RegExp(`${shopTab} · Shop[\\s\\S]*${site.origin}/shop`));
  const sessions = await page.locator('#sessions tbody').innerText();
  assert.match(sessions, /tabwright-test/);
  assert.match(sessions, /mcp-stdio/);
  assert.match(await page.locator('#calls tbody').innerText(), /navigate[\s\S]*ok/);
  assert.match(await page.locator('#where').innerText(), new RegExp(`${dashboard.url.replace(/[/.]/g, '\\$&')} · pid ${dashboard.pid}`));
});

test('a prompt answered "Allow once" in the page unblocks the waiting call; progress names the dashboard; the audit says dashboard', async () => {
  const messages: string[] = [];
  const waiting = server.client.callTool({ name: 'call_webmcp_tool', arguments: { name: 'buy', arguments: { item: 'book' } } }, { onprogress: p => void messages.push(p.message ?? '') });
  const prompt = page.locator('[data-prompt]');
  await prompt.waitFor();
  assert.match(await prompt.innerText(), /Allow WebMCP tool "buy" of http:\/\/127\.0\.0\.1:\d+ \(tab \d+\)\?[\s\S]*\{"item":"book"\}/);
  await prompt.locator('button[data-answer="once"]').click();
  const result = await waiting;
  assert.equal(result.isError, undefined, JSON.stringify(result));
  assert.match((result.content as Array<{ text: string }>)[0]!.text, /bought book/);
  assert.ok(messages.some(m => m.includes(`answer in the tabwright dashboard: ${dashboard.url}`)), JSON.stringify(messages));
  const last = auditLast(server.dataDir);
  assert.deepEqual([last.tool, last.decision, last.channel, last.answer], ['buy', 'allowed', 'dashboard', 'once']);
  await page.locator('[data-prompt]').waitFor({ state: 'detached' });
  await until('the audit row', async () => /buy\s+allowed\s+dashboard \(once\)/.test(await page.locator('#audit tbody').innerText()));
});

test('"Always deny" in the page saves a permission; the page shows it and resets it', async () => {
  const waiting = callError(server.client, 'call_webmcp_tool', { name: 'buy', arguments: { item: 'boat' } });
  await page.locator('[data-prompt] button[data-answer="never"]').click();
  assert.equal((await waiting).type, 'consent_denied');
  const row = page.locator('#permissions tbody tr', { hasText: 'always deny' });
  await row.waitFor();
  assert.match(await row.innerText(), new RegExp(`${site.origin}\\s+buy`));
  // Saved: the next call is refused at once, without a prompt.
  assert.equal((await callError(server.client, 'call_webmcp_tool', { name: 'buy', arguments: { item: 'car' } })).type, 'consent_denied');
  assert.equal(auditLast(server.dataDir).channel, 'override');
  await row.locator('button', { hasText: 'Reset' }).click();
  await row.waitFor({ state: 'detached' });
  assert.deepEqual(JSON.parse(readFileSync(join(server.configDir, 'permission-overrides.json'), 'utf8')).overrides, []);
});

test('a code prompt (execute under a tabwright rule) offers six answers; "this exact code" saves a grant the page lists and resets; a WebMCP prompt refuses code', async () => {
  const rules = join(server.configDir, 'permissions.json');
  writeFileSync(rules, JSON.stringify({ rules: [{ tool: 'execute', source: 'tabwright', permission: 'prompt' }] }));
  try {
    const waiting = call<{ value: unknown }>(server.client, 'execute', { code: 'window.bought.length' });
    const prompt = page.locator('[data-prompt]');
    await prompt.waitFor();
    assert.match(await prompt.innerText(), /Allow execute \(code the agent wrote\) on http:\/\/127\.0\.0\.1:\d+ \(tab \d+\)\?[\s\S]*Code: "window\.bought\.length"/);
    assert.deepEqual(await prompt.locator('button').evaluateAll(bs => bs.map(b => b.getAttribute('data-answer'))), ['once', 'code', 'always', 'everywhere', 'deny', 'never']);
    await prompt.locator('button[data-answer="code"]').click();
    assert.equal(typeof (await waiting).value, 'number');
    const last = auditLast(server.dataDir);
    assert.deepEqual([last.tool, last.decision, last.channel, last.answer], ['execute', 'allowed', 'dashboard', 'code']);
    // The same code runs unasked; the page lists the grant with the start of its hash.
    await call(server.client, 'execute', { code: 'window.bought.length' });
    assert.equal(auditLast(server.dataDir).channel, 'override');
    const row = page.locator('#permissions tbody tr', { hasText: 'execute' });
    await row.waitFor();
    assert.match(await row.innerText(), /execute\s+code [0-9a-f]{12}…\s+always allow/);
    await row.locator('button', { hasText: 'Reset' }).click();
    await row.waitFor({ state: 'detached' });
    // A WebMCP prompt offers its four answers: "code" is refused there, and the prompt still waits.
    const buying = call(server.client, 'call_webmcp_tool', { name: 'buy', arguments: { item: 'pen' } });
    await page.locator('[data-prompt] button[data-answer="once"]').waitFor();
    assert.equal(await page.locator('[data-prompt] button[data-answer="code"]').count(), 0);
    const [waitingBuy] = await prompts();
    const refused = await raw(`/api/prompts/${waitingBuy!.id}`, { ...bearer(), 'content-type': 'application/json' }, 'POST', '{"answer":"code"}');
    assert.equal(refused.status, 400);
    assert.match(refused.body.error.message, /does not offer "code"/);
    await page.locator('[data-prompt] button[data-answer="once"]').click();
    await buying;
  } finally {
    rmSync(rules, { force: true });
  }
});

test('without the key 401, another Host or a foreign Origin 403; a page of another site cannot answer; the CLI answers from another shell', async () => {
  assert.equal((await raw('/api/state', {})).status, 401);
  assert.equal((await raw('/api/state', { authorization: `Bearer ${'0'.repeat(64)}` })).body.error.type, 'unauthorized');
  const host = await raw('/api/state', { ...bearer(), host: `evil.test:${dashboard.port}` });
  assert.deepEqual([host.status, host.body.error.type], [403, 'forbidden_host']);
  const origin = await raw('/api/state', { ...bearer(), origin: site.origin });
  assert.deepEqual([origin.status, origin.body.error.type], [403, 'forbidden_origin']);
  assert.equal((await raw('/api/state', bearer())).status, 200);
  const json = { ...bearer(), 'content-type': 'application/json' };
  const big = await raw('/api/permissions/reset', json, 'POST', JSON.stringify({ origin: 'x'.repeat(17 * 1024) }));
  assert.deepEqual([big.status, big.body.error.type, big.body.error.message], [413, 'payload_too_large', 'The body is over 16384 bytes.']);
  const notJson = await raw('/api/permissions/reset', json, 'POST', '{"origin": ');
  assert.deepEqual([notJson.status, notJson.body.error.type], [400, 'bad_request']);

  const waiting = server.client.callTool({ name: 'call_webmcp_tool', arguments: { name: 'buy', arguments: { item: 'lamp' } } });
  const [prompt] = await until('a prompt', async () => (await prompts()).length ? prompts() : undefined);
  const cross = await browser.newPage();
  await cross.goto(`${site.origin}/cross?d=${encodeURIComponent(dashboard.url)}&id=${prompt!.id}`);
  await until('the three tries', () => cross.evaluate(() => (window as unknown as { tries: string[] }).tries.length === 3));
  await cross.close();
  assert.deepEqual((await prompts()).map(p => p.id), [prompt!.id], 'the prompt still waits');

  const listed = await cliHere(['consent', 'list']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(listed.json.result.prompts.map((p: { id: string; tool: string; dashboard: string }) => [p.id, p.tool, p.dashboard]), [[prompt!.id, 'buy', dashboard.url]]);
  const bad = await cliHere(['consent', 'answer', prompt!.id, 'maybe']);
  assert.deepEqual([bad.code, bad.json.error.type], [2, 'invalid_arguments']);
  const answered = await cliHere(['consent', 'answer', prompt!.id, 'deny']);
  assert.equal(answered.code, 0, answered.stderr);
  const result = await waiting;
  assert.equal((result.structuredContent as { error: { type: string } }).error.type, 'consent_denied');
  assert.deepEqual([auditLast(server.dataDir).channel, auditLast(server.dataDir).answer], ['consent_cli', 'deny']);
  const again = await cliHere(['consent', 'answer', prompt!.id, 'once']);
  assert.deepEqual([again.code, again.json.error.type], [1, 'prompt_not_found']);
  const printed = await cliHere(['dashboard']);
  assert.equal(printed.json.result.url, `${dashboard.url}#token=${token}`);
});

test('`tabwright dashboard --open` hands the opener a 0600 page that forwards to the address: the key is in no argv', async () => {
  const bin = mkdtempSync(join(tmpdir(), 'tabwright-opener-'));
  try {
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$@" > ${join(bin, 'argv')}\n`, { mode: 0o755 });
    const run = await cliHere(['dashboard', '--open'], { PATH: `${bin}:${process.env.PATH}` });
    assert.equal(run.json.result.opened, true, run.stderr);
    const argv = await until('the opener to run', () => existsSync(join(bin, 'argv')) && readFileSync(join(bin, 'argv'), 'utf8').trim());
    const page = join(server.configDir, 'dashboard-open.html');
    assert.equal(argv, page);
    assert.equal(statSync(page).mode & 0o777, 0o600);
    assert.ok(readFileSync(page, 'utf8').includes(`url=${dashboard.url}#token=${token}`));
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

test('the call log never holds typed text', async () => {
  const { tabId } = await call<{ tabId: number }>(server.client, 'open_tab', { url: `${site.origin}/form` });
  const ref = refOf((await snapshot(server.client, { tabId })).snapshot, 'textbox', 'Name');
  await call(server.client, 'type', { ref, text: SECRET });
  const res = await fetch(new URL('/api/events', dashboard.url), { headers: bearer() });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!text.includes('\n\n')) text += (await reader.read()).value ?? '';
  await reader.cancel();
  const state = JSON.parse(/^data: (.*)$/m.exec(text)![1]!) as { calls: Array<{ tool: string; tabId?: number; outcome: string }> };
  assert.ok(state.calls.some(c => c.tool === 'type' && c.tabId === tabId && c.outcome === 'ok'), JSON.stringify(state.calls));
  assert.ok(!text.includes(SECRET), 'the typed text is not in the feed');
  assert.ok(!text.includes('hunter2'));
});

test('a CLI call without a terminal waits for the dashboard; `tabwright consent answer` from another shell lets it through', async () => {
  const home = await cliHome({ TABWRIGHT_DASHBOARD_PORT: '0' });
  homes.push(home);
  await ok(home, ['tab', 'open', `${site.origin}/shop`]);
  const waiting = cli(home, ['call', 'buy', '--args', '{"item":"tent"}']);
  const list = await until('a prompt in the daemon\'s dashboard', async () => {
    const run = await cli(home, ['consent', 'list']);
    return run.json?.ok && run.json.result.prompts.length ? run.json.result.prompts : undefined;
  });
  const answered = await cli(home, ['consent', 'answer', list[0].id, 'once']);
  assert.equal(answered.code, 0, answered.stderr);
  const run = await waiting;
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(JSON.stringify(run.json), /bought tent/);
  assert.match(run.stderr, /answer in the tabwright dashboard: http:\/\/127\.0\.0\.1:\d+\//);
});

test('a call that outlives --max-wait while the dashboard asks answers pending, naming the dashboard; wait_for_call gets the outcome', async () => {
  const short = await connect({ env: { TABWRIGHT_DASHBOARD_PORT: '0', TABWRIGHT_MAX_WAIT: '2' } });
  try {
    const own = entryOf(short.configDir);
    const key = readFileSync(join(short.configDir, 'dashboard-token'), 'utf8').trim();
    /** Calls `name`, then wait_for_call while the result is pending. */
    const settle = async (name: string, args: Record<string, unknown>, onPending?: (text: string, fields: Record<string, any>) => Promise<void>) => {
      let result = await short.client.callTool({ name, arguments: args });
      while ((result.structuredContent as { pending?: boolean } | undefined)?.pending) {
        const fields = result.structuredContent as Record<string, any>;
        await onPending?.((result.content as Array<{ text: string }>).map(c => c.text).join('\n'), fields);
        onPending = undefined;
        result = await short.client.callTool({ name: 'wait_for_call', arguments: { callId: fields.callId } });
      }
      return result;
    };
    await settle('navigate', { url: `${site.origin}/shop` });
    let pendingText = '';
    const result = await settle('call_webmcp_tool', { name: 'buy', arguments: { item: 'kite' } }, async (text, fields) => {
      pendingText = text;
      assert.equal(fields.waitingFor.kind, 'consent');
      assert.equal(fields.waitingFor.dashboardUrl, own.url);
      const res = await fetch(new URL('/api/prompts', own.url), { headers: { authorization: `Bearer ${key}` } });
      const [prompt] = (await res.json() as { prompts: Array<{ id: string }> }).prompts;
      const answered = await fetch(new URL(`/api/prompts/${prompt!.id}`, own.url), { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"answer":"once"}' });
      assert.equal(answered.status, 200);
    });
    assert.ok(pendingText.includes(`they can answer it in the tabwright dashboard at ${own.url}`), pendingText);
    assert.ok(!pendingText.includes(key));
    assert.match((result.content as Array<{ text: string }>)[0]!.text, /bought kite/);
  } finally {
    await short.close();
  }
});

test('the dashboard and elicitation ask at once: the dashboard answers first, the elicitation request is withdrawn', async () => {
  const asked: string[] = [];
  let withdrawn = false;
  const elicit = (params: { message: string }, signal: AbortSignal) => new Promise<never>((_resolve, reject) => {
    asked.push(params.message);
    signal.addEventListener('abort', () => {
      withdrawn = true;
      reject(signal.reason);
    }, { once: true });
  });
  const both = await connect({ mode: 'legacy', elicit, env: { TABWRIGHT_DASHBOARD_PORT: '0' } });
  try {
    const own = entryOf(both.configDir);
    const key = readFileSync(join(both.configDir, 'dashboard-token'), 'utf8').trim();
    await call(both.client, 'navigate', { url: `${site.origin}/shop` });
    const waiting = both.client.callTool({ name: 'call_webmcp_tool', arguments: { name: 'buy', arguments: { item: 'rope' } } });
    await until('the elicitation request', () => asked.length === 1);
    const listed = await (await fetch(new URL('/api/prompts', own.url), { headers: { authorization: `Bearer ${key}` } })).json() as { prompts: Array<{ id: string; alsoAskedBy: string[] }> };
    assert.deepEqual(listed.prompts[0]!.alsoAskedBy, ['elicitation']);
    const res = await fetch(new URL(`/api/prompts/${listed.prompts[0]!.id}`, own.url), { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"answer":"once"}' });
    assert.equal(res.status, 200);
    const result = await waiting;
    assert.match((result.content as Array<{ text: string }>)[0]!.text, /bought rope/);
    await until('the elicitation request to be withdrawn', () => withdrawn);
    assert.equal(auditLast(both.dataDir).channel, 'dashboard');
  } finally {
    await both.close();
  }
});
