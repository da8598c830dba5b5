/**
 * What a HAR recording (start_har, docs/network.md "HAR") costs the benchmark's navigate, snapshot and click rows.
 * `npm run bench` runs it (3 passes each way a round: the rows snapshot_har_off_ms / snapshot_har_on_ms and
 * click_har_off_ms / click_har_on_ms); standalone, for more rounds:
 *
 *   npm run build && npx tsx bench/harOverhead.ts [--rounds 20]
 *
 * Starts the built server (dist/cli.js mcp --headless --isolated --toolsets all) with the official MCP client over
 * stdio and serves the benchmark's generated pages on 127.0.0.1 (bench/pages.ts), each also fetching 10 small JSON
 * answers so the recording has traffic besides the document. Per round, with the recording off and then on (the
 * order alternating between rounds): navigate to the app page and take its snapshot (get_page_context), then navigate
 * to the login page and click Sign in by ref. Prints the median and p90 of each row in ms, off and on, and on ÷ off;
 * and the HAR stop_har wrote at the end.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { appPage, loginPage } from './pages.js';
import { median, quantile } from './stats.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const FETCHES = '<script>for (let i = 0; i < 10; i++) fetch("/api/n/" + i).then(r => r.json());</script>';
const PAGES: Record<string, string> = { '/app': appPage().replace('</body>', `${FETCHES}</body>`), '/login': loginPage().replace('</body>', `${FETCHES}</body>`) };

/** Each row's times in ms, with the recording off and on. */
export type HarOverhead = Record<'navigate' | 'snapshot' | 'click', { off: number[]; on: number[] }>;

/**
 * Runs `rounds` passes each way (after one warm-up pass off) on a server of its own and returns the times, plus the
 * first line of the last stop_har's text.
 * @throws Error when a call fails or the login page has no Sign in ref.
 */
export async function measureHarOverhead(rounds: number, chromium?: string): Promise<{ rows: HarOverhead; lastStop?: string }> {
  const site = createServer((req, res) => {
    const page = PAGES[req.url ?? ''];
    if (page) return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    if (req.url?.startsWith('/api/n/')) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ n: req.url.slice(7), pad: 'x'.repeat(2000) }));
    res.writeHead(404).end();
  });
  await new Promise<void>(resolve => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const dirs = mkdtempSync(join(tmpdir(), 'tabwright-har-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'dist', 'cli.js'), 'mcp', '--headless', '--isolated', '--toolsets', 'all', '--browser-arg', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', ...(chromium ? ['--browser', chromium] : [])],
    stderr: 'ignore',
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), TABWRIGHT_WORKSPACE: join(dirs, 'ws'), TABWRIGHT_CONFIG_DIR: join(dirs, 'config'), TABWRIGHT_DATA_DIR: join(dirs, 'data') },
  });
  const client = new Client({ name: 'har-overhead', version: '0.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  const rows: HarOverhead = { navigate: { off: [] as number[], on: [] as number[] }, snapshot: { off: [] as number[], on: [] as number[] }, click: { off: [] as number[], on: [] as number[] } };
  try {
    await client.connect(transport);
    const ok = async (name: string, args: Record<string, unknown>): Promise<{ ms: number; out: Record<string, unknown>; text: string }> => {
      const t0 = performance.now();
      const result = await client.callTool({ name, arguments: args }) as { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, unknown> };
      const ms = performance.now() - t0;
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      return { ms, out: result.structuredContent ?? {}, text: result.content.map(c => c.text ?? '').join('\n') };
    };
    const pass = async (mode: 'off' | 'on') => {
      if (mode === 'on') await ok('start_har', {});
      const nav = await ok('navigate', { url: `${origin}/app`, waitUntil: 'load' });
      rows.navigate[mode].push(nav.ms);
      rows.snapshot[mode].push((await ok('get_page_context', {})).ms);
      await ok('navigate', { url: `${origin}/login`, waitUntil: 'load' });
      const ref = /button "Sign in" \[ref=(e\d+)\]/.exec((await ok('get_page_context', {})).text)?.[1];
      if (!ref) throw new Error('no ref for the Sign in button');
      rows.click[mode].push((await ok('click', { ref })).ms);
      if (mode === 'on') return await ok('stop_har', {});
      return undefined;
    };
    await pass('off'); // warm-up
    let last: Awaited<ReturnType<typeof pass>>;
    for (const row of Object.values(rows)) row.off.length = 0;
    for (let r = 0; r < rounds; r++) {
      for (const mode of (r % 2 ? ['on', 'off'] : ['off', 'on']) as Array<'off' | 'on'>) last = (await pass(mode)) ?? last;
    }
    return { rows, lastStop: last?.text.split('\n')[0] };
  } finally {
    await client.close().catch(() => undefined);
    await new Promise(resolve => site.close(resolve));
    rmSync(dirs, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' } } });
  const rounds = Number(values.rounds);
  const { rows, lastStop } = await measureHarOverhead(rounds);
  const fmt = (n: number) => n.toFixed(1);
  console.log(`HAR recording overhead, ${rounds} rounds (ms; median / p90):`);
  console.log('| row | off | on | on ÷ off |');
  console.log('|---|---|---|---|');
  for (const [name, { off, on }] of Object.entries(rows)) {
    console.log(`| ${name} | ${fmt(median(off))} / ${fmt(quantile(off, 0.9))} | ${fmt(median(on))} / ${fmt(quantile(on, 0.9))} | ${(median(on) / median(off)).toFixed(2)}× |`);
  }
  if (lastStop) console.log(`last stop_har: ${lastStop}`);
}
