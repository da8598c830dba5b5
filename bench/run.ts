/**
 * `npm run bench`: tabwright beside Playwright MCP and Chrome DevTools MCP
 * on the same pages, interleaved, written to bench/results/<date>.json
 * (raw samples), .md (the report) and .svg (the headline chart).
 *
 * A peer that fails to install or start is reported and the others go on.
 * Every server (and so every browser) is closed at the end of each round,
 * on errors, and on Ctrl-C / SIGTERM.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, USAGE, type Options } from './args.js';
import { ensurePeer } from './install.js';
import { machine } from './machine.js';
import { coldStart, measureActions, measureCli, measureHar, measurePage, measureStorage, measureTask, measureWebmcp, recordMemory, toolsList, type Ctx } from './measure.js';
import { corpusPages, GENERATED, startSite, type BenchPage } from './pages.js';
import { TreeSampler } from './procs.js';
import { loadReliability } from './reliability.js';
import { writeReport } from './output.js';
import { checkMapping, installedVersion, SPECS, type ServerSpec } from './servers.js';
import type { Session } from './session.js';
import { measureTransports, type Closer } from './transportRun.js';
import type { Results, ServerId, ServerInfo } from './types.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, 'bench', 'cache');
const log = (line: string) => process.stderr.write(`${line}\n`);

/** Sessions alive right now, closed on any exit path. */
const live = new Set<Session>();
/** What the transports phase has running (servers, browsers), stopped on any exit path too. */
const liveTransports = new Set<Closer>();
/** Set by Ctrl-C / SIGTERM: stop measuring, close everything, write nothing. */
let aborted = false;

/** Every close started so far: a later closeAll waits for earlier ones (Ctrl-C starts one mid-round). */
let closing: Promise<void> = Promise.resolve();

function closeAll(): Promise<void> {
  const sessions = [...live];
  live.clear();
  const transports = [...liveTransports];
  liveTransports.clear();
  const now = Promise.all([...sessions.map(s => s.close().catch(() => 0)), ...transports.map(close => close().then(() => 0, () => 0))]).then(killed => {
    const n = killed.reduce((a, b) => a + b, 0);
    if (n) log(`  (had to SIGKILL ${n} leftover process${n === 1 ? '' : 'es'})`);
  });
  closing = Promise.all([closing, now]).then(() => undefined);
  return closing;
}

function tabwrightVersion(): string {
  const version = installedVersion(SPECS[0]!, ROOT, CACHE) ?? '?';
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim() ? '+changes' : '';
    return `${version} (${commit}${dirty})`;
  } catch {
    return version;
  }
}

/** Installs what is missing; returns the server entries for the report. */
async function prepareServers(opts: Options, isRoot: boolean): Promise<ServerInfo[]> {
  const infos: ServerInfo[] = [];
  for (const spec of SPECS.filter(s => opts.servers.includes(s.id))) {
    const info: ServerInfo = { id: spec.id, label: spec.label, version: '', status: 'ok', command: [], browserArgs: spec.browserArgs(isRoot), notes: [...spec.notes] };
    const problem = spec.pkg ? await ensurePeer(spec, ROOT, CACHE, log) : existsSync(join(ROOT, 'dist', 'cli.js')) ? undefined : 'dist/cli.js missing: run npm run build';
    info.version = spec.pkg ? installedVersion(spec, ROOT, CACHE) ?? spec.pkg.version : tabwrightVersion();
    if (problem) {
      info.status = spec.pkg ? 'install_failed' : 'start_failed';
      info.error = problem;
      log(`${spec.label}: ${problem} — going on without it`);
    }
    const script = spec.pkg ? `bench/cache/${spec.id}/node_modules/${spec.pkg.name}/${spec.pkg.bin}` : 'dist/cli.js';
    info.command = ['node', ...spec.argv({ script, chromium: opts.chromium, workspace: '<tmp>', root: isRoot }).map(a => (/\s/.test(a) ? `'${a}'` : a))];
    infos.push(info);
  }
  return infos;
}

function rotate<T>(list: readonly T[], by: number): T[] {
  if (!list.length) return [];
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

/** One round: cold starts, every page with every server, actions, the scripted task, WebMCP, memory; then close all. */
async function round(r: number, specs: ServerSpec[], pages: BenchPage[], ctx: Ctx): Promise<void> {
  const order = rotate(specs, r - 1);
  log(`round ${r}: ${order.map(s => s.id).join(' → ')}`);
  const sessions = new Map<ServerId, Session>();
  const guard = async (spec: ServerSpec, step: string, fn: () => Promise<void>) => {
    if (aborted) return;
    const s = sessions.get(spec.id);
    if (s?.lost) {
      // The server is gone: report it once, then skip its remaining steps this round.
      sessions.delete(spec.id);
      live.delete(s);
      await s.close();
      ctx.results.errors.push({ round: r, server: spec.id, step, message: `server exited; skipped the rest of the round${s.stderr() ? ` [stderr: ${s.stderr()}]` : ''}` });
      return;
    }
    try {
      await fn();
    } catch (error) {
      if (aborted) return;
      const text = (error as Error).message;
      const stderr = sessions.get(spec.id)?.stderr() ?? '';
      const message = `${text}${stderr && (step === 'cold start' || /closed|exited|connected/i.test(text)) ? ` [stderr: ${stderr}]` : ''}`;
      ctx.results.errors.push({ round: r, server: spec.id, step, message });
      log(`  ${spec.id} ${step}: ${message.slice(0, 200)}`);
    }
  };
  for (const spec of order) {
    await guard(spec, 'cold start', async () => {
      const session = await coldStart(spec, ctx, r);
      live.add(session);
      sessions.set(spec.id, session);
      const info = ctx.results.servers.find(i => i.id === spec.id)!;
      info.chromiumCommandLine ??= session.browserCommandLine();
      const tools = await toolsList(session, ctx, r);
      if (r === 1) for (const p of checkMapping(spec, tools)) ctx.results.errors.push({ round: r, server: spec.id, step: 'tool mapping', message: p });
    });
  }
  for (const page of pages) {
    for (const spec of order) {
      const s = sessions.get(spec.id);
      if (s) await guard(spec, `page ${page.id}`, () => measurePage(s, page, ctx, r));
    }
  }
  for (const spec of order) {
    const s = sessions.get(spec.id);
    if (s) await guard(spec, 'actions', () => measureActions(s, ctx, r));
  }
  for (const spec of order) {
    const s = sessions.get(spec.id);
    if (s) await guard(spec, 'task', () => measureTask(s, ctx, r));
  }
  const tw = sessions.get('tabwright');
  if (tw) await guard(tw.spec, 'webmcp', () => measureWebmcp(tw, ctx, r));
  if (tw) await guard(tw.spec, 'cli', () => measureCli(ctx, r));
  if (tw) await guard(tw.spec, 'storage', () => measureStorage(ctx, r));
  if (tw) await guard(tw.spec, 'har', () => measureHar(ctx, r));
  for (const spec of order) {
    const s = sessions.get(spec.id);
    if (!s) continue;
    recordMemory(s, ctx, r);
    live.delete(s);
    const killed = await s.close();
    if (killed) log(`  ${spec.id}: SIGKILLed ${killed} leftover process${killed === 1 ? '' : 'es'}`);
  }
}

function outputBase(dir: string, startedAt: string, quick: boolean): string {
  const stem = `${startedAt.slice(0, 10)}${quick ? '-quick' : ''}`;
  let base = join(dir, stem);
  for (let i = 2; existsSync(`${base}.json`); i++) base = join(dir, `${stem}-${i}`);
  return base;
}

async function main(): Promise<number> {
  let parsed: Options | 'help';
  try {
    parsed = parseArgs(process.argv.slice(2));
  } catch (error) {
    log((error as Error).message);
    return 2;
  }
  if (parsed === 'help') {
    log(USAGE);
    return 0;
  }
  const opts = parsed;
  const isRoot = process.getuid?.() === 0;
  const startedAt = new Date().toISOString();
  const pages = [...GENERATED, ...(opts.corpus ? corpusPages(opts.corpus) : [])];
  const site = await startSite(opts.corpus);
  const results: Results = {
    schema: 1,
    startedAt,
    finishedAt: startedAt,
    options: { rounds: opts.rounds, quick: opts.quick, ...(opts.corpusArg ? { corpus: opts.corpusArg } : {}) },
    machine: machine(opts.chromium),
    servers: [],
    pages: pages.map(p => ({ id: p.id, kind: p.kind, description: p.description, htmlBytes: site.htmlBytes(p.path), census: {} })),
    samples: [],
    errors: [],
  };
  const sampler = new TreeSampler(100);
  const ctx: Ctx = { results, site, root: ROOT, cacheDir: CACHE, chromium: opts.chromium, isRoot, sampler, timeoutMs: opts.timeoutMs, slowTimeoutMs: opts.timeoutMs * 3, log };
  let abortedAt = 0;
  const stop = (signal: string) => {
    if (aborted) {
      // Ctrl-C reaches this process from the terminal and again relayed by npm and tsx: only a later one forces.
      if (Date.now() - abortedAt < 2000) return;
      log(`${signal} again: exiting now`);
      process.exit(130);
    }
    aborted = true;
    abortedAt = Date.now();
    log(`\n${signal}: closing every server and browser (no report is written)...`);
    void closeAll();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  try {
    log(`bench: ${opts.rounds} round(s), ${pages.length} pages, site ${site.origin}`);
    results.servers = await prepareServers(opts, isRoot);
    const specs = SPECS.filter(s => results.servers.some(i => i.id === s.id && i.status === 'ok'));
    for (let r = 1; r <= opts.rounds && !aborted; r++) await round(r, specs, pages, ctx);
    // tabwright per transport, after the peers' rounds (it measures tabwright alone: bench/transportRun.ts).
    if (!aborted && opts.transports.length && specs.some(s => s.id === 'tabwright')) {
      log(`transports: ${opts.transportRounds} round(s) of ${opts.transports.join(', ')}`);
      results.transports = await measureTransports(ctx, { rounds: opts.transportRounds, transports: opts.transports, live: liveTransports, aborted: () => aborted });
    }
  } finally {
    await closeAll();
    await site.close();
  }
  if (aborted) return 130;
  for (const info of results.servers) {
    if (info.status !== 'ok') continue;
    if (!results.samples.some(s => s.server === info.id && s.measure === 'cold_start_ms')) {
      info.status = 'start_failed';
      info.error = results.errors.find(e => e.server === info.id)?.message ?? 'no cold start completed';
    }
  }
  results.finishedAt = new Date().toISOString();
  results.reliability = loadReliability(join(ROOT, 'docs', 'reliability-results.json'));
  const outDir = opts.outDir ?? join(ROOT, 'bench', 'results');
  mkdirSync(outDir, { recursive: true });
  const base = outputBase(outDir, startedAt, opts.quick);
  writeReport(results, base, { json: true });
  log(`\nwrote ${relative(process.cwd(), base)}.{json,md,svg} (${results.samples.length} samples, ${results.errors.length} errors)`);
  return 0;
}

main().then(
  code => process.exit(code),
  async error => {
    log(`bench failed: ${(error as Error).stack ?? error}`);
    await closeAll();
    process.exit(1);
  },
);
