/**
 * Does `--own-chrome` connect as fast with hundreds of the user's tabs as with none, and does a frozen tab hold it
 * up (docs/own-browser.md, "Sharing tabs": tabwright attaches only the tabs in scope)? Standalone, not part of
 * `npm run bench` (after `npm run build`; it runs dist/cli.js):
 *
 *   npx tsx bench/manyTabs.ts [--tabs 0,50,200] [--rounds 3] [--chromium /usr/bin/chromium] [--out FILE]
 *
 * For each N of `--tabs`: a headless Chromium started with `--remote-debugging-port=0` (it writes DevToolsActivePort,
 * so there is no approval dialog; bench/transports.ts startDebuggableBrowser) and `--renderer-process-limit=4`, N
 * tabs of a page the bench serves on 127.0.0.1 opened over the bench's own DevTools socket, one of them frozen
 * (`Page.setWebLifecycleState`; a discarded tab cannot be made over CDP, so only freezing is exercised). Then
 * `--rounds` times, alternating which goes first: a fresh `tabwright mcp --own-chrome --isolated` (run alone: its
 * own temporary config and data dirs and relay port) timed on its first call, `open_tab` (the connect: browser
 * socket, selective attach, the new tab), and on the `list_tabs` after it, then `close_tab` and the server stopped;
 * and, for contrast, Playwright's `connectOverCDP` (which attaches every tab) plus `newPage()` on the same browser.
 * A call that takes over 60 s counts as timed out. Prints a Markdown table (medians, p90 of the first call) and
 * whether tabwright's first call at the largest N is within 1.5× of the smallest N's; `--out FILE` writes it too.
 * Exits non-zero on an error (a failed call, a browser that does not start), not on a slow or timed-out result.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { chromium, type Browser } from 'playwright-core';
import WebSocket from 'ws';
import { startSite } from './pages.js';
import { HOST_RULES } from './servers.js';
import { median, quantile } from './stats.js';
import { relayBrowserArgs, startDebuggableBrowser } from './transports.js';

/** One N of the run: its samples in ms per round, `NaN` for a call that timed out. */
export interface ManyTabsRow {
  tabs: number;
  /** tabwright's first call (`open_tab`: the connect). */
  firstCall: number[];
  /** tabwright's `list_tabs` after it. */
  listTabs: number[];
  /** Playwright's `connectOverCDP` + `newPage()`. */
  playwright: number[];
}

/** The ratio of the largest N's median first call to the smallest N's at or under which connecting counts as flat. */
export const FLAT_RATIO = 1.5;
/** A call slower than this counts as timed out, in ms. */
export const CALL_TIMEOUT_MS = 60_000;

const ms = (v: number) => (Number.isNaN(v) ? 'timed out' : `${Math.round(v)} ms`);

/** "120 ms", with "(p90 150 ms)" when asked, and "k/n timed out" when some did. */
function cell(samples: readonly number[], p90 = false): string {
  const timedOut = samples.filter(v => Number.isNaN(v)).length;
  const done = samples.filter(v => !Number.isNaN(v));
  const parts = done.length ? [`${ms(median(done))}${p90 ? ` (p90 ${ms(quantile(done, 0.9))})` : ''}`] : [];
  if (timedOut) parts.push(`${timedOut}/${samples.length} timed out (> ${CALL_TIMEOUT_MS / 1000} s)`);
  return parts.join(', ') || '–';
}

/**
 * The verdict line: tabwright's median first call at the largest N against the smallest N's (any timeout at the
 * largest N fails it).
 */
export function manyTabsVerdict(rows: readonly ManyTabsRow[]): string {
  const sorted = [...rows].sort((a, b) => a.tabs - b.tabs);
  const base = sorted[0];
  const top = sorted.at(-1);
  if (!base || !top || base === top) return 'Verdict: needs two tab counts to compare.';
  if (top.firstCall.some(Number.isNaN)) return `Verdict: not flat: tabwright's first call timed out with ${top.tabs} tabs.`;
  const ratio = median(top.firstCall) / median(base.firstCall);
  const flat = ratio <= FLAT_RATIO;
  return `Verdict: ${flat ? 'flat' : 'not flat'}: tabwright's first call with ${top.tabs} tabs is ${ratio.toFixed(2)}× its time with ${base.tabs} (${flat ? '≤' : '>'} ${FLAT_RATIO}×).`;
}

/** The Markdown table, one row per N in ascending order, and the verdict under it. */
export function manyTabsTable(rows: readonly ManyTabsRow[]): string {
  const lines = [
    '| tabs open | tabwright first call (`open_tab`): median (p90) | tabwright `list_tabs`: median | Playwright `connectOverCDP` + `newPage`: median |',
    '|---:|---:|---:|---:|',
    ...[...rows].sort((a, b) => a.tabs - b.tabs).map(r => `| ${r.tabs} | ${cell(r.firstCall, true)} | ${cell(r.listTabs)} | ${cell(r.playwright)} |`),
  ];
  return `${lines.join('\n')}\n\n${manyTabsVerdict(rows)}\n`;
}

/** `p`'s time in ms, or NaN when it takes longer than CALL_TIMEOUT_MS (it is left running; its failure is then ignored). */
async function timed(p: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>(resolve => {
    timer = setTimeout(() => resolve('late'), CALL_TIMEOUT_MS);
  });
  const run = p();
  // A late call fails when its server or connection is stopped; that is no error of the run.
  run.catch(() => undefined);
  try {
    return (await Promise.race([run, late])) === 'late' ? NaN : performance.now() - t0;
  } finally {
    clearTimeout(timer);
  }
}

/** A plain CDP socket to the browser (the bench's own, to open and freeze the user's tabs). */
async function cdpSocket(url: string) {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let next = 0;
  const pending = new Map<number, (m: { result?: any; error?: { message: string } }) => void>();
  ws.on('message', data => {
    const m = JSON.parse(data.toString());
    pending.get(m.id)?.(m);
    pending.delete(m.id);
  });
  const send = (method: string, params: object = {}, sessionId?: string) => new Promise<any>((resolve, reject) => {
    pending.set(++next, m => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
    ws.send(JSON.stringify({ id: next, method, params, ...(sessionId ? { sessionId } : {}) }));
  });
  return { send, close: () => ws.close() };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise(resolve => server.close(resolve));
  return port;
}

/** What is running now (browsers, servers, temp dirs), stopped in reverse order when done, on an error or on Ctrl-C. */
const cleanups: Array<() => unknown> = [];
/** Stops what was started after the first `keep` entries. */
async function cleanUp(keep = 0): Promise<void> {
  for (const c of cleanups.splice(keep).reverse()) await Promise.resolve().then(c).catch(() => undefined);
}
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));
  return dir;
};

/** One round of tabwright: a fresh server on the browser of `profile`, its first call and list_tabs timed. */
async function tabwrightRound(cli: string, profile: string, url: string): Promise<{ first: number; list: number }> {
  const mark = cleanups.length;
  try {
    return await tabwrightTimes(cli, profile, url);
  } finally {
    await cleanUp(mark);
  }
}

async function tabwrightTimes(cli: string, profile: string, url: string): Promise<{ first: number; list: number }> {
  const dirs = tempDir('twbench-tabs-server-');
  const env = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => !k.startsWith('TABWRIGHT_') && v !== undefined)) as Record<string, string>;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', '--own-chrome', '--own-chrome-profile', profile, '--isolated'],
    stderr: 'pipe',
    env: { ...env, TABWRIGHT_CONFIG_DIR: join(dirs, 'config'), TABWRIGHT_DATA_DIR: join(dirs, 'data'), TABWRIGHT_WORKSPACE: dirs, TABWRIGHT_WS_PORT: String(await freePort()), TABWRIGHT_STRUCTURED_CONTENT: '1' },
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  const client = new Client({ name: 'tabwright-bench-many-tabs', version: '0.0.0' });
  const stop = async () => {
    const pid = transport.pid;
    await client.close().catch(() => undefined);
    try {
      if (pid) process.kill(pid, 'SIGKILL');
    } catch {
      // exited
    }
  };
  cleanups.push(stop);
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const r = (await client.callTool({ name, arguments: args }, { timeout: CALL_TIMEOUT_MS * 2 })) as { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, unknown> };
    if (r.isError) throw new Error(`${name} failed: ${r.content.map(c => c.text).join(' ')}\n${stderr.trim()}`);
    return r.structuredContent ?? {};
  };
  let tabId: unknown;
  const first = await timed(async () => ({ tabId } = await call('open_tab', { url })));
  const list = Number.isNaN(first) ? NaN : await timed(() => call('list_tabs'));
  if (typeof tabId === 'number') await call('close_tab', { tabId });
  return { first, list };
}

/** One round of Playwright: connectOverCDP + newPage timed, then the page closed and the connection dropped. */
async function playwrightRound(port: number): Promise<number> {
  let browser: Browser | undefined;
  try {
    return await timed(async () => {
      browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`, { timeout: CALL_TIMEOUT_MS });
      const page = await browser.contexts()[0]!.newPage();
      await page.close();
    });
  } finally {
    await (browser as Browser | undefined)?.close().catch(() => undefined);
  }
}

/** Opens `n` tabs of `url` over `socket` and waits until they loaded. @returns what freezes one of them (the middle one). */
async function userTabs(socket: Awaited<ReturnType<typeof cdpSocket>>, n: number, url: string): Promise<() => Promise<void>> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await socket.send('Target.createTarget', { url: `${url}?n=${i}` })).targetId);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { targetInfos } = await socket.send('Target.getTargets');
    const loaded = (targetInfos as Array<{ targetId: string; title: string }>).filter(t => ids.includes(t.targetId) && t.title === 'Help').length;
    if (loaded === n) break;
    if (Date.now() > deadline) throw new Error(`only ${loaded} of ${n} tabs loaded within 120 s`);
    await new Promise(resolve => setTimeout(resolve, 200));
  }
  if (!n) return async () => undefined;
  const { sessionId } = await socket.send('Target.attachToTarget', { targetId: ids[n >> 1], flatten: true });
  // Frozen again before every round: Playwright's attach to every tab must not leave it thawed for the next one.
  return async () => void (await socket.send('Page.setWebLifecycleState', { state: 'frozen' }, sessionId));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { tabs: { type: 'string', default: '0,50,200' }, rounds: { type: 'string', default: '3' }, chromium: { type: 'string', default: '/usr/bin/chromium' }, out: { type: 'string' } } });
  const counts = values.tabs!.split(',').map(Number);
  const rounds = Number(values.rounds);
  if (counts.some(n => !Number.isInteger(n) || n < 0) || !Number.isInteger(rounds) || rounds < 1) throw new Error('--tabs takes counts like 0,50,200 and --rounds a positive integer');
  const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');
  const site = await startSite();
  cleanups.push(() => site.close());
  const page = `${site.origin}/gen/help`;
  const rows: ManyTabsRow[] = [];
  for (const n of counts) {
    const mark = cleanups.length;
    const profile = tempDir('twbench-tabs-browser-');
    const switches = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--headless=new', '--renderer-process-limit=4', HOST_RULES];
    const stopBrowser = await startDebuggableBrowser(values.chromium!, relayBrowserArgs([values.chromium!, ...switches], profile), profile);
    cleanups.push(stopBrowser);
    const [port, path] = readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n');
    const socket = await cdpSocket(`ws://127.0.0.1:${port}${path}`);
    cleanups.push(() => socket.close());
    process.stderr.write(`${n} tabs: opening them\n`);
    const freeze = await userTabs(socket, n, page);
    const row: ManyTabsRow = { tabs: n, firstCall: [], listTabs: [], playwright: [] };
    for (let round = 1; round <= rounds; round++) {
      const runs = [
        async () => {
          const r = await tabwrightRound(cli, profile, `${page}?agent=${round}`);
          row.firstCall.push(r.first);
          row.listTabs.push(r.list);
        },
        async () => void row.playwright.push(await playwrightRound(Number(port))),
      ];
      for (const run of round % 2 ? runs : runs.reverse()) {
        await freeze();
        await run();
      }
      process.stderr.write(`${n} tabs, round ${round}/${rounds}: tabwright ${ms(row.firstCall.at(-1)!)} + list_tabs ${ms(row.listTabs.at(-1)!)}, Playwright ${ms(row.playwright.at(-1)!)}\n`);
    }
    rows.push(row);
    await cleanUp(mark);
  }
  const table = manyTabsTable(rows);
  process.stdout.write(table);
  if (values.out) writeFileSync(values.out, table);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // One way out: Ctrl-C also ends the servers, whose calls then fail; that error must not exit before the browsers stop.
  let finishing: Promise<never> | undefined;
  const finish = (code: number) => (finishing ??= cleanUp().then(() => process.exit(code)));
  // `on`, not `once`: tsx passes Ctrl-C on to this process as well, and a second SIGINT must not cut the cleanup short.
  process.on('SIGINT', () => {
    if (!finishing) process.stderr.write('interrupted: stopping the browsers\n');
    void finish(130);
  });
  main().then(() => finish(0), error => {
    if (!finishing) process.stderr.write(`${(error as Error).stack ?? error}\n`);
    return finish(1);
  });
}
