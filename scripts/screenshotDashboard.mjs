// Saves docs/images/dashboard.png: the README's picture of the dashboard, taken from a real session. Starts the built
// MCP server (dist/cli.js mcp, headless, temporary profile and config) with its dashboard on any free port, drives it
// with the official MCP client over a small loopback shop (two tabs, a typed field, one WebMCP prompt left waiting),
// then opens the dashboard in headless Chromium and captures it. `npm run build && node scripts/screenshotDashboard.mjs`
// (TABWRIGHT_TEST_CHROMIUM or /usr/bin/chromium for the browser that takes the picture).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.TABWRIGHT_TEST_CHROMIUM ?? '/usr/bin/chromium';
const OUT = 'docs/images/dashboard.png';

const PAGES = {
  '/shop': `<!doctype html><title>Garden shop</title><style>body{font:16px system-ui;margin:2rem;background:#f3f7f0}h1{color:#2d5a27}.item{display:inline-block;margin:.5rem;padding:1rem;background:#fff;border-radius:8px;width:10rem}</style>
<h1>Garden shop</h1><div class="item">Watering can<br><b>€14</b></div><div class="item">Seed box<br><b>€9</b></div><div class="item">Rake<br><b>€22</b></div>
<script>document.modelContext.registerTool({ name: 'buy', description: 'Buy an item from the garden shop', annotations: { consequentialHint: true },
  inputSchema: { type: 'object', properties: { item: { type: 'string' }, quantity: { type: 'number' } } },
  execute: async ({ item }) => ({ content: [{ type: 'text', text: 'bought ' + item }] }) });</script>`,
  '/search': `<!doctype html><title>Plant search</title><style>body{font:16px system-ui;margin:2rem;background:#eef3fb}h1{color:#1f3f7a}input{font:inherit;padding:.4rem}</style>
<h1>Find a plant</h1><label>Search <input id="q"></label><p>Tomatoes, basil, lavender, rosemary…</p>`,
};

const site = createServer((req, res) => {
  res.writeHead(PAGES[req.url] ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
  res.end(PAGES[req.url] ?? 'not found');
});
await new Promise(resolve => site.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${site.address().port}`;

const home = mkdtempSync(join(tmpdir(), 'tabwright-shot-'));
const configDir = join(home, 'config');
const transport = new StdioClientTransport({
  command: process.execPath,
  args: ['dist/cli.js', 'mcp', '--headless', '--isolated', '--browser-arg', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  env: { ...process.env, TABWRIGHT_CONFIG_DIR: configDir, TABWRIGHT_DATA_DIR: join(home, 'data'), TABWRIGHT_WORKSPACE: home, TABWRIGHT_DASHBOARD_PORT: '0' },
  stderr: 'ignore',
});
const client = new Client({ name: 'claude-code', version: '2.1.0' });
let browser;
try {
  await client.connect(transport);
  const callTool = (name, args) => client.callTool({ name, arguments: args });
  await callTool('navigate', { url: `${origin}/search` });
  // The dashboard page opens first, so each tab gets its thumbnail while it is in front.
  const [entryFile] = readdirSync(join(configDir, 'dashboards'));
  const entry = JSON.parse(readFileSync(join(configDir, 'dashboards', entryFile), 'utf8'));
  const token = readFileSync(join(configDir, 'dashboard-token'), 'utf8').trim();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1360, height: 1000 }, deviceScaleFactor: 1 });
  await page.goto(`${entry.url}#token=${token}`);
  const snap = await callTool('get_page_context', {});
  const ref = /textbox "Search" \[ref=(\w+)\]/.exec(snap.content[0].text)?.[1];
  if (ref) await callTool('type', { ref, text: 'lavender' });
  await page.locator('.tab img').first().waitFor();
  await callTool('open_tab', { url: `${origin}/shop` });
  await callTool('list_webmcp_tools', {});
  void callTool('call_webmcp_tool', { name: 'buy', arguments: { item: 'Watering can', quantity: 1 } }).catch(() => undefined);
  await page.locator('[data-prompt]').waitFor();
  await page.locator('.tab img').nth(1).waitFor();
  await sleep(500);
  mkdirSync('docs/images', { recursive: true });
  await page.screenshot({ path: OUT, fullPage: true });
  process.stdout.write(`wrote ${OUT}\n`);
} finally {
  await browser?.close();
  await client.close().catch(() => undefined);
  site.close();
  rmSync(home, { recursive: true, force: true });
}
