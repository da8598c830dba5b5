/**
 * The daemon soak (docs/reliability.md, "Soak"): one real daemon (dist/daemon/main.js, headless Chromium) serving
 * calls in blocks: real `tabwright` CLI processes (each a node process that finds the daemon through daemon.json
 * and calls `POST /v1/tools/{name}` with `Accept: text/event-stream`, as users run it), then many more calls
 * straight over that route (JSON and SSE answers), on one tab the first call opens and a second one that opens
 * and closes. Every call succeeds.
 *
 * Measured after each block: the daemon's RSS (its least-squares slope after the first block, MB per 1,000
 * calls, within SLOPE_BOUND_MB), its heap after a full GC, its open fds, its child and descendant processes, and
 * its own counts (the debug stats hook, TABWRIGHT_DEBUG_STATS_FILE). At the end, with the one tab it started
 * with: no more fds, processes, tabs, CDP sessions, listeners, timers or other handles than after the first
 * block (handles within a small slack that does not grow with the calls).
 *
 * TABWRIGHT_SOAK_CLI_CALLS (default CI_CLI_CALLS; `--long`: 10,000) and TABWRIGHT_SOAK_HTTP_CALLS (default
 * CI_HTTP_CALLS; `--long`: 100,000).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, type Daemon } from '../fixtures/daemon.js';
import { cli } from '../fixtures/cli.js';
import { descendants } from '../fixtures/processes.js';
import { startSite, type Site } from '../fixtures/site.js';
import { record, rssMb } from './fuzz.js';
import { serveGenerated } from './soakPages.js';
import { childrenOf, openFds, readStats, round1, slope, soakDirs, soakKnob, total, type SoakDirs } from './soak.js';
import type { DebugStats } from '../../src/dispatch/debugStats.js';

/** CLI processes in the CI form: each is a node process, 0.4 s a call alone on this two-core machine, 1.9 s beside the server soak. */
const CI_CLI_CALLS = 40;
/** HTTP calls in the CI form. */
const CI_HTTP_CALLS = 1_500;
const CLI_CALLS = soakKnob('TABWRIGHT_SOAK_CLI_CALLS', CI_CLI_CALLS);
const HTTP_CALLS = soakKnob('TABWRIGHT_SOAK_HTTP_CALLS', CI_HTTP_CALLS);
/** Blocks of CLI and HTTP calls; the first is the warm-up, a sample is taken after each. */
const BLOCKS = Math.max(6, Math.min(50, Math.round(CLI_CALLS / 20)));
/**
 * HTTP calls in flight at once. One: a get_text or find that runs while a navigation replaces the document fails
 * with `internal` ("Execution context was destroyed"; get_page_context reads the new document instead), which
 * this soak found and leaves to a fix of its own.
 */
const CONCURRENCY = 1;
/** The bound on the RSS slope after warm-up, MB per 1,000 calls. */
const SLOPE_BOUND_MB = 20;
/** The bound on the slope of the heap after a full GC, MB per 1,000 calls. */
const HEAP_SLOPE_BOUND_MB = 10;
/** Timers and other handles the daemon may hold at one moment and not the next (keep-alive sockets, polls), per kind. */
const HANDLE_SLACK = 4;
/** Fds that may come and go (a keep-alive socket, a file being written). */
const FD_SLACK = 6;

let site: Site;
let daemon: Daemon;
let dirs: SoakDirs;

before(async () => {
  site = await startSite();
  serveGenerated(site);
  dirs = soakDirs('soakd');
  daemon = await startDaemon({ env: { ...dirs.env, TABWRIGHT_DAEMON_IDLE_MS: '3600000' } });
});

after(async () => {
  await daemon?.stop();
  await site?.close();
  dirs?.remove();
});

test(`daemon soak: ${CLI_CALLS} CLI processes and ${HTTP_CALLS} HTTP calls; RSS slope, fds, processes, tabs bounded`, async () => {
  const pid = daemon.endpoint.pid;
  const started = Date.now();
  let calls = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  let cliMs = 0;
  let cliRuns = 0;
  let httpMs = 0;
  let httpRuns = 0;
  const fail = (what: string, detail: string) => {
    failures++;
    firstFailure ??= `${what}: ${detail}`.slice(0, 2000);
  };

  // The CLI runs in a folder of its own, against this daemon (its config and data dirs).
  const cwd = mkdtempSync(join(dirs.tmp, 'cli-'));
  const env = { ...(process.env as Record<string, string>), TABWRIGHT_CONFIG_DIR: daemon.configDir, TABWRIGHT_DATA_DIR: daemon.dataDir, TABWRIGHT_CONSENT_TTY: '0', TABWRIGHT_DASHBOARD_PORT: 'off' };
  const home = { root: dirs.tmp, configDir: daemon.configDir, dataDir: daemon.dataDir, cwd, port: daemon.endpoint.port, env, cleanup: async () => undefined };

  /** One call over the route the CLI uses; its structuredContent (a failure is counted, not thrown). */
  const http = async (name: string, args: Record<string, unknown>, sse: boolean): Promise<any> => {
    const t = Date.now();
    calls++;
    httpRuns++;
    try {
      if (sse) {
        const { status, events } = await daemon.stream({ path: `/v1/tools/${name}`, body: args });
        const result = events.find(e => e.event === 'result')?.data;
        if (status !== 200 || result?.outcome !== 'completed' || result.result?.isError) fail(`SSE ${name}`, `${status} ${JSON.stringify(events.at(-1)).slice(0, 500)}`);
        return result?.result?.structuredContent;
      }
      const reply = await daemon.request({ path: `/v1/tools/${name}`, body: args });
      if (reply.status !== 200 || reply.json?.outcome !== 'completed' || reply.json.result?.isError) fail(`HTTP ${name}`, `${reply.status} ${reply.text.slice(0, 500)}`);
      return reply.json?.result?.structuredContent;
    } finally {
      httpMs += Date.now() - t;
    }
  };

  // The tab every call works on: opened first, it stays open to the end.
  const opened = await http('open_tab', { url: `${site.origin}/gen/list?n=0` }, false);
  const tabId = opened?.tabId as number;
  assert.ok(Number.isInteger(tabId), JSON.stringify(opened).slice(0, 500));
  // The CLI calls act on it: `use` remembers it for the CLI's folder.
  const use = await cli(home, ['use', '--tab', String(tabId)]);
  assert.equal(use.code, 0, `${use.stdout} ${use.stderr}`);

  const cliVerbs = (i: number): string[] => [
    ['tabs'],
    ['navigate', `${site.origin}/gen/${i % 3 ? 'list' : 'form'}?n=${i}`],
    ['context', 'text', '--max-chars', '2000'],
    ['context', 'page'],
    ['context', 'console'],
  ][i % 5]!;
  const httpCall = (i: number): [string, Record<string, unknown>] => {
    switch (i % 20) {
      case 0: return ['navigate', { tabId, url: `${site.origin}/gen/${i % 40 ? 'list' : 'timers'}?n=${i}` }];
      case 1: return ['get_page_context', { tabId, level: 'interactive' }];
      case 2: case 12: return ['get_text', { tabId, maxChars: 300 }];
      case 4: case 14: return ['find', { tabId, role: 'button', name: `Mark ${i % 300}`, limit: 2 }];
      case 5: case 15: return ['get_console_context', { tabId, limit: 5 }];
      case 6: case 16: return ['list_network_requests', { tabId, limit: 5 }];
      // A second tab now and then: it opens and closes again at once.
      case 7: return i % 200 === 7 ? ['open_tab', { url: `${site.origin}/gen/console?n=${i}`, background: true }] : ['list_tabs', {}];
      case 8: return ['get_page_context', { tabId, level: 'summary' }];
      default: return ['list_tabs', {}];
    }
  };

  type Sample = { calls: number; rss: number; heap: number; fds: number; children: number; descendants: number; stats: DebugStats };
  const samples: Sample[] = [];
  const sample = async (): Promise<Sample> => {
    const stats = await readStats(pid, dirs.statsFile);
    return { calls, rss: rssMb(pid), heap: stats.memoryMb.heapUsed, fds: openFds(pid), children: childrenOf(pid).length, descendants: descendants(pid).length, stats };
  };

  let cliDone = 0;
  let httpDone = 0;
  for (let block = 0; block < BLOCKS; block++) {
    for (const until = Math.round((CLI_CALLS * (block + 1)) / BLOCKS); cliDone < until; cliDone++) {
      const args = cliVerbs(cliDone);
      const t = Date.now();
      calls++;
      cliRuns++;
      const run = await cli(home, args);
      cliMs += Date.now() - t;
      if (run.code !== 0 || !run.json?.ok) fail(`tabwright ${args.join(' ')}`, `exit ${run.code}: ${run.stdout.slice(0, 300)} ${run.stderr.slice(0, 300)}`);
    }
    const until = Math.round((HTTP_CALLS * (block + 1)) / BLOCKS);
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (httpDone < until) {
        const i = httpDone++;
        const [name, args] = httpCall(i);
        const result = await http(name, args, i % 3 === 0);
        // The second tab closes again a few calls after it opened.
        const extra = name === 'open_tab' ? result?.tabId as number | undefined : undefined;
        if (extra !== undefined && extra !== tabId) await http('close_tab', { tabId: extra }, false);
      }
    }));
    // The tab back on one page between blocks, so the samples compare like with like.
    await http('navigate', { tabId, url: `${site.origin}/gen/list?n=0` }, false);
    samples.push(await sample());
    if (failures > 10) break;
  }

  const [first, ...rest] = samples;
  const last = samples.at(-1)!;
  const perThousand = slope(rest.map(s => [s.calls, s.rss])) * 1000;
  const heapPerThousand = slope(rest.map(s => [s.calls, s.heap])) * 1000;
  const pw = (s: DebugStats, type: string) => s.playwright?.[type] ?? 0;
  const session = (s: DebugStats) => s.sessions[0]!;
  const growth = {
    fdsLeaked: last.fds - first!.fds,
    childrenLeaked: last.children - first!.children,
    descendantsLeaked: last.descendants - first!.descendants,
    tabsLeaked: session(last.stats).tabs - session(first!.stats).tabs,
    cdpSessionsLeaked: pw(last.stats, 'CDPSession') - pw(first!.stats, 'CDPSession'),
    timersLeaked: (last.stats.resources.Timeout ?? 0) - (first!.stats.resources.Timeout ?? 0),
    listenersLeaked: session(last.stats).contextListeners + session(last.stats).pageListeners + session(last.stats).tabCdpListeners + last.stats.processListeners
      - session(first!.stats).contextListeners - session(first!.stats).pageListeners - session(first!.stats).tabCdpListeners - first!.stats.processListeners,
    tempFilesLeaked: total(last.stats.tempEntries) - total(first!.stats.tempEntries),
  };
  record({
    target: 'soak-daemon',
    what: `One daemon on headless Chromium serving real \`tabwright\` CLI processes (tabs, navigate, context text, context page, context console) and calls straight to its \`POST /v1/tools/{name}\` route (JSON and SSE; navigate, snapshots, text, find, console, network, tabs opening and closing), ${CONCURRENCY} at a time: every call succeeds, RSS slope after the first block under ${SLOPE_BOUND_MB} MB per 1,000 calls, and fds, child processes, tabs, CDP sessions, listeners, timers and temp folders no more than after the first block`,
    kind: 'soak',
    inputs: calls,
    failures,
    ms: Date.now() - started,
    ...(firstFailure ? { counterexample: firstFailure } : {}),
    notes: {
      cliCalls: cliRuns, httpCalls: httpRuns, cliMsPerCall: Math.round(cliMs / Math.max(1, cliRuns)), httpMsPerCall: round1(httpMs / Math.max(1, httpRuns)),
      rssStartMb: round1(first!.rss), rssEndMb: round1(last.rss), slopeMbPer1000: round1(perThousand), heapStartMb: first!.heap, heapEndMb: last.heap, heapSlopeMbPer1000: round1(heapPerThousand),
      fdsStart: first!.fds, fdsEnd: last.fds, processesEnd: last.descendants, ...growth,
    },
    at: new Date().toISOString(),
  });
  const row = (s: Sample) => `${s.calls}: rss ${round1(s.rss)} heap ${s.heap} fds ${s.fds} children ${s.children}/${s.descendants} tabs ${session(s.stats).tabs} ${JSON.stringify(s.stats.resources)} pw ${JSON.stringify(s.stats.playwright)}`;
  const detail = `\n${samples.map(row).join('\n')}`;
  console.log(`soak-daemon: ${cliRuns} CLI calls (${Math.round(cliMs / Math.max(1, cliRuns))} ms each), ${httpRuns} HTTP calls (${round1(httpMs / Math.max(1, httpRuns))} ms each) in ${((Date.now() - started) / 1000).toFixed(1)} s; slope ${round1(perThousand)} MB/1000 calls, heap ${round1(heapPerThousand)}; ${JSON.stringify(growth)}${detail}`);
  assert.equal(failures, 0, firstFailure);
  assert.equal(session(last.stats).tabs, 1, 'one tab open at the end');
  assert.ok(growth.fdsLeaked <= FD_SLACK, `fds grew${detail}`);
  assert.ok(growth.childrenLeaked <= 0 && growth.descendantsLeaked <= 2, `processes grew${detail}`);
  assert.ok(growth.cdpSessionsLeaked <= 0, `CDP sessions grew${detail}`);
  assert.ok(growth.listenersLeaked <= 0, `listeners grew${detail}`);
  assert.ok(growth.tempFilesLeaked <= 0, `temp entries grew${detail}`);
  for (const [kind, n] of Object.entries(last.stats.resources)) assert.ok(n <= (first!.stats.resources[kind] ?? 0) + HANDLE_SLACK, `${kind} handles grew${detail}`);
  assert.ok(heapPerThousand < HEAP_SLOPE_BOUND_MB, `the heap after GC grew ${round1(heapPerThousand)} MB per 1,000 calls${detail}`);
  assert.ok(perThousand < SLOPE_BOUND_MB, `RSS grew ${round1(perThousand)} MB per 1,000 calls${detail}`);
});
