/**
 * The server soak (docs/reliability.md, "Soak"): one real `tabwright mcp` over stdio (the official SDK client) on
 * the managed headless Chromium, driven through rounds of what a long agent session does. Each round loads a page
 * in a tab (a new one, or one of those open), takes its snapshot and acts on it; pages alternate between the real
 * corpus (../shared/corpus/pages, skipped with a message when absent) and generated ones (./soakPages.ts: forms,
 * lists, iframes, WebMCP tools, console logs, timers, popups). Tabs open and close so that 1 to 4 are open.
 *
 * Measured: the server's RSS every few rounds, and its least-squares slope after the warm-up (MB per 100
 * navigations), within SLOPE_BOUND_MB, with the heap after a full GC beside it (HEAP_SLOPE_BOUND_MB); and, with
 * every tab but the first closed (it stays open all along), after the warm-up and at the end, the
 * server's own counts (the debug stats hook, TABWRIGHT_DEBUG_STATS_FILE): tabs, CDP sessions, Playwright objects,
 * listeners, timers and other handles, temporary folders. The end's may not be more than the warm-up's (timers and
 * handles within a small slack that does not grow with the rounds). list_tabs and the browser's own page targets
 * (its DevTools /json/list) agree with the tabs the test opened and closed.
 *
 * TABWRIGHT_SOAK_NAVIGATIONS: navigations (default CI_NAVIGATIONS; `--long`: 1,000).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, callRaw, connect, refOf, snapshot, type Connected } from '../fixtures/mcp.js';
import { CORPUS, sharedMissing, startSite, type Site } from '../fixtures/site.js';
import { until } from '../fixtures/harness.js';
import { record, rssMb } from './fuzz.js';
import { GENERATED_KINDS, serveGenerated, type GeneratedKind } from './soakPages.js';
import { readStats, round1, slope, soakDirs, soakKnob, total, type SoakDirs } from './soak.js';
import type { DebugStats } from '../../src/dispatch/debugStats.js';

/** Navigations in the CI form: about two minutes on a loaded two-core machine. */
const CI_NAVIGATIONS = 100;
const NAVIGATIONS = soakKnob('TABWRIGHT_SOAK_NAVIGATIONS', CI_NAVIGATIONS);
/** Navigations before the baseline: caches, JIT and the browser's first pages settle. */
const WARMUP = Math.max(40, Math.round(NAVIGATIONS * 0.25));
/** An RSS sample every this many navigations (about 40 samples over the run). */
const SAMPLE_EVERY = Math.max(2, Math.round(NAVIGATIONS / 40));
/** The bound on the RSS slope after warm-up, MB per 100 navigations: generous, RSS moves by tens of MB with GC. */
const SLOPE_BOUND_MB = 25;
/**
 * The bound on the slope of the heap after a full GC, MB per 100 navigations. Generous: Playwright keeps up to
 * 10,000 Request, Response and Frame objects per connection before it drops the oldest (its dispatcher buckets),
 * so the heap grows with the pages' requests until then (about 15 MB per 100 navigations measured here).
 */
const HEAP_SLOPE_BOUND_MB = 40;
/** Timers and other handles the server may hold at one moment and not the next (a keep-alive, a poll), per kind. */
const HANDLE_SLACK = 4;
const MAX_TABS = 4;
/**
 * The first rounds all run in the first tab, so that it meets every kind of page (and a corpus page) before the
 * warm-up ends: a tool adds its listeners to a tab's page once, on first use (the WebMCP cache's frame watch).
 */
const PRIME_ROUNDS = 2 * 7;

const corpusMissing = sharedMissing(CORPUS);
const corpus = corpusMissing ? [] : readdirSync(CORPUS).filter(f => f.endsWith('.html')).sort();

let site: Site;
let server: Connected;
let dirs: SoakDirs;

before(async () => {
  site = await startSite();
  serveGenerated(site);
  dirs = soakDirs('soak');
  // A DevTools port beside Playwright's pipe: the browser's own list of page targets, read over HTTP.
  server = await connect({ args: ['--browser-arg', '--remote-debugging-port=0'], env: dirs.env });
});

after(async () => {
  await server?.close();
  await site?.close();
  dirs?.remove();
});

/** The browser's page targets, from its DevTools HTTP endpoint (port in its profile's DevToolsActivePort). */
async function browserPages(): Promise<string[]> {
  const profile = readdirSync(dirs.tmp).find(name => name.startsWith('playwright_chromiumdev_profile-'));
  assert.ok(profile, `no browser profile in ${dirs.tmp}: ${readdirSync(dirs.tmp).join(', ')}`);
  const port = await until('DevToolsActivePort', () => {
    try {
      return Number(readFileSync(join(dirs.tmp, profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]) || undefined;
    } catch {
      return undefined;
    }
  });
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json() as Array<{ type: string; url: string }>;
  return targets.filter(t => t.type === 'page').map(t => t.url);
}

/** A page for round `n`: corpus and generated pages alternate (generated only without the corpus). */
function pageFor(n: number): { kind: GeneratedKind | 'corpus'; url: string } {
  if (corpus.length && n % 2 === 0) return { kind: 'corpus', url: `${site.origin}/corpus/${encodeURIComponent(corpus[(n / 2) % corpus.length]!)}` };
  const kind = GENERATED_KINDS[Math.floor(n / (corpus.length ? 2 : 1)) % GENERATED_KINDS.length]!;
  return { kind, url: `${site.origin}/gen/${kind}?n=${n}` };
}

test(`server soak: ${NAVIGATIONS} navigations with snapshots and actions, 1-${MAX_TABS} tabs; RSS slope bounded, nothing leaks`, async () => {
  const pid = server.transport.pid!;
  const open: number[] = [];
  const samples: Array<[number, number]> = [];
  /** The server's heap after a full GC (the stats hook's), sampled beside RSS: what it retains, without garbage. */
  const heap: Array<[number, number]> = [];
  let navigations = 0;
  let calls = 0;
  let popups = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  let baseline: DebugStats | undefined;
  let rssStart = 0;
  const started = Date.now();

  const tool = async <T = Record<string, any>>(name: string, args: Record<string, unknown> = {}): Promise<T> => {
    calls++;
    return await call<T>(server.client, name, args);
  };
  const closeTab = async (tabId: number) => {
    await tool('close_tab', { tabId });
    open.splice(open.indexOf(tabId), 1);
  };

  /** Closes every tab but the first, loads about:blank there, and checks the tabs and the server's counts. */
  const settle = async (): Promise<DebugStats> => {
    while (open.length > 1) await closeTab(open.at(-1)!);
    assert.equal(open[0], 1, 'the first tab is still open');
    await tool('navigate', { tabId: open[0], url: 'about:blank' });
    const { tabs } = await tool<{ tabs: Array<{ tabId: number }> }>('list_tabs');
    assert.deepEqual(tabs.map(t => t.tabId), open, 'list_tabs lists the tabs the test has open');
    // A closed target leaves the browser's list a moment after close_tab returns.
    const pages = await until(() => `one page target (${open.length} open)`, async () => ((await browserPages()).length === open.length ? true : undefined), 10_000).then(() => browserPages());
    assert.deepEqual(pages, ['about:blank'], 'the browser has one page target, the open tab');
    return await readStats(pid, dirs.statsFile);
  };

  /** What the soak does on a page after its snapshot. */
  const act = async (kind: GeneratedKind | 'corpus', tabId: number, n: number) => {
    if (kind === 'corpus') {
      await tool('get_page_context', { tabId, level: 'interactive' });
      const text = await tool<{ chars: number }>('get_text', { tabId, maxChars: 4000 });
      assert.ok(text.chars > 0, 'a corpus page has text');
      await tool('find', { tabId, role: 'link', limit: 5 });
      return;
    }
    const snap = (await snapshot(server.client, { tabId })).snapshot;
    calls++;
    switch (kind) {
      case 'form': {
        await tool('fill_form', { fields: [{ ref: refOf(snap, 'textbox', 'Name'), value: `Ann ${n}` }, { ref: refOf(snap, 'spinbutton', 'Quantity'), value: '3' }] });
        await tool('click', { ref: refOf(snap, 'button', 'Send') });
        const out = await tool<{ pageText: string }>('get_text', { tabId, selector: '#out' });
        assert.equal(out.pageText.trim(), `Sent Ann ${n} x3`);
        break;
      }
      case 'list': {
        const k = n % 300;
        const found = await tool<{ matches: Array<{ ref: string }> }>('find', { tabId, role: 'button', name: `Mark ${k}`, exact: true });
        assert.equal(found.matches.length, 1, `one button "Mark ${k}"`);
        await tool('click', { ref: found.matches[0]!.ref });
        const done = await tool<{ total: number }>('find', { tabId, role: 'button', name: 'Done', exact: true });
        assert.equal(done.total, 1);
        break;
      }
      case 'iframe':
        await tool('click', { ref: refOf(snap, 'button', 'Press inside') });
        break;
      case 'webmcp': {
        const { tools } = await tool<{ tools: Array<{ name: string }> }>('list_webmcp_tools', { tabId });
        assert.ok(tools.some(t => t.name === 'add'), JSON.stringify(tools));
        const raw = await callRaw(server.client, 'call_webmcp_tool', { tabId, name: 'add', arguments: { a: n, b: 2 } });
        calls++;
        assert.ok(!raw.isError && JSON.stringify(raw.content).includes(String(n + 2)), JSON.stringify(raw.content).slice(0, 500));
        break;
      }
      case 'console': {
        const { entries } = await tool<{ entries: Array<{ text: string }> }>('get_console_context', { tabId, level: 'error' });
        assert.ok(entries.some(e => e.text.includes(`an error of round ${n}`)), JSON.stringify(entries).slice(0, 500));
        break;
      }
      case 'timers': {
        const { pageText } = await tool<{ pageText: string }>('get_text', { tabId, selector: '#count' });
        assert.match(pageText.trim(), /^\d+$/);
        break;
      }
      case 'popup': {
        const report = await tool<{ newTabs?: Array<{ tabId: number }> }>('click', { ref: refOf(snap, 'button', 'Open popup') });
        assert.equal(report.newTabs?.length, 1, `the click reports the popup: ${JSON.stringify(report).slice(0, 500)}`);
        open.push(report.newTabs[0]!.tabId);
        popups++;
        break;
      }
    }
  };

  for (let round = 0; navigations < NAVIGATIONS; round++) {
    const { kind, url } = pageFor(round);
    try {
      let tabId: number;
      if (!open.length || (round >= PRIME_ROUNDS && open.length < MAX_TABS && round % 4 === 1)) {
        tabId = (await tool<{ tabId: number }>('open_tab', { url })).tabId;
        open.push(tabId);
      } else {
        tabId = round < PRIME_ROUNDS ? open[0]! : open[round % open.length]!;
        await tool('navigate', { tabId, url });
      }
      navigations++;
      await act(kind, tabId, round);
      // Some tabs close again: 1 to MAX_TABS stay open (a popup may have made one more).
      // The first tab stays open all along: its page's listeners at the end are compared with the warm-up's.
      while (open.length > MAX_TABS || (round % 5 === 2 && open.length > 2)) await closeTab(open[1 + ((round * 7) % (open.length - 1))]!);
    } catch (error) {
      failures++;
      firstFailure ??= `round ${round} (${kind} ${url}): ${error instanceof Error ? error.stack ?? error.message : String(error)}`.slice(0, 2000);
      // The tabs as the server has them, so the next round starts from what is open.
      const { tabs } = await call<{ tabs: Array<{ tabId: number }> }>(server.client, 'list_tabs');
      open.splice(0, open.length, ...tabs.map(t => t.tabId));
      if (failures > 10) break;
    }
    if (navigations === WARMUP && !baseline) {
      baseline = await settle();
      rssStart = rssMb(pid);
    }
    if (baseline && navigations % SAMPLE_EVERY === 0) {
      samples.push([navigations, rssMb(pid)]);
      heap.push([navigations, (await readStats(pid, dirs.statsFile)).memoryMb.heapUsed]);
    }
  }
  const end = await settle();
  const rssEnd = rssMb(pid);
  assert.ok(baseline, 'the run reached the warm-up');
  const perHundred = slope(samples) * 100;
  const heapPerHundred = slope(heap) * 100;
  const sessionOf = (s: DebugStats) => s.sessions[0]!;
  const leaked = (key: keyof ReturnType<typeof sessionOf>) => sessionOf(end)[key] - sessionOf(baseline!)[key];
  const pw = (s: DebugStats, type: string) => s.playwright?.[type] ?? 0;
  const growth = {
    tabsLeaked: leaked('tabs'),
    cdpSessionsLeaked: pw(end, 'CDPSession') - pw(baseline, 'CDPSession'),
    handlesLeaked: pw(end, 'JSHandle') + pw(end, 'ElementHandle') - pw(baseline, 'JSHandle') - pw(baseline, 'ElementHandle'),
    playwrightObjectsGrowth: total(end.playwright) - total(baseline.playwright),
    timersLeaked: (end.resources.Timeout ?? 0) - (baseline.resources.Timeout ?? 0),
    handlesOtherLeaked: total(end.resources) - (end.resources.Timeout ?? 0) - total(baseline.resources) + (baseline.resources.Timeout ?? 0),
    listenersLeaked: leaked('contextListeners') + leaked('pageListeners') + leaked('tabCdpListeners') + end.processListeners - baseline.processListeners,
    tempFilesLeaked: total(end.tempEntries) - total(baseline.tempEntries),
  };
  record({
    target: 'soak-server',
    what: `One \`tabwright mcp\` over stdio on headless Chromium: navigations alternating ${corpus.length ? `${corpus.length} real corpus pages and ` : ''}generated pages (forms, lists, iframes, WebMCP tools, console logs, timers, popups), each with a snapshot and an action (fill_form, click, find, get_text, call_webmcp_tool, get_console_context), 1-${MAX_TABS} tabs opening and closing: every call succeeds, RSS slope after warm-up under ${SLOPE_BOUND_MB} MB per 100 navigations, and with one tab left no more tabs, page targets, CDP sessions, Playwright objects, listeners, timers, handles or temp folders than after warm-up`,
    kind: 'soak',
    inputs: calls,
    failures,
    ms: Date.now() - started,
    ...(firstFailure ? { counterexample: firstFailure } : {}),
    notes: {
      navigations, popups, warmup: WARMUP, rssStartMb: round1(rssStart), rssEndMb: round1(rssEnd), slopeMbPer100: round1(perHundred), heapSlopeMbPer100: round1(heapPerHundred),
      heapStartMb: baseline.memoryMb.heapUsed, heapEndMb: end.memoryMb.heapUsed, ...growth,
      ...(corpusMissing ? { corpus: 'absent' } : {}),
    },
    at: new Date().toISOString(),
  });
  const counts = (s: DebugStats) => JSON.stringify({ session: sessionOf(s), playwright: s.playwright, resources: s.resources, processListeners: s.processListeners, temp: s.tempEntries, memoryMb: s.memoryMb });
  const detail = `\nafter warm-up: ${counts(baseline)}\nat the end:    ${counts(end)}`;
  if (corpusMissing) console.log(`soak-server: corpus pages skipped: ${corpusMissing}`);
  console.log(`soak-server: ${navigations} navigations, ${calls} calls in ${((Date.now() - started) / 1000).toFixed(1)} s; RSS ${round1(rssStart)} -> ${round1(rssEnd)} MB, slope ${round1(perHundred)} MB/100 navigations (heap after GC ${round1(heapPerHundred)}: ${heap.map(([x, y]) => `${x}:${round1(y)}`).join(' ')}); ${JSON.stringify(growth)}${detail}`);
  assert.equal(failures, 0, firstFailure);
  assert.equal(sessionOf(end).tabs, 1);
  assert.equal(sessionOf(end).tabCdpSessions, 1);
  assert.ok(growth.cdpSessionsLeaked <= 0, `CDP sessions grew${detail}`);
  // Frames, requests and responses are not compared: Playwright keeps up to 10,000 of each per connection, scoped to
  // the context (detached frames too), and drops the oldest tenth past that; they count in the heap's slope.
  assert.ok(pw(end, 'Page') <= pw(baseline, 'Page'), `pages grew${detail}`);
  assert.ok(growth.handlesLeaked <= 0, `JS or element handles grew${detail}`);
  assert.ok(growth.listenersLeaked <= 0, `listeners grew${detail}`);
  for (const [kind, n] of Object.entries(end.resources)) assert.ok(n <= (baseline.resources[kind] ?? 0) + HANDLE_SLACK, `${kind} handles grew${detail}`);
  assert.ok(growth.tempFilesLeaked <= 0, `temp entries grew${detail}`);
  assert.ok(heapPerHundred < HEAP_SLOPE_BOUND_MB, `the heap after GC grew ${round1(heapPerHundred)} MB per 100 navigations after warm-up (${heap.map(([x, y]) => `${x}:${round1(y)}`).join(' ')})`);
  assert.ok(perHundred < SLOPE_BOUND_MB, `RSS grew ${round1(perHundred)} MB per 100 navigations after warm-up (${samples.map(([x, y]) => `${x}:${round1(y)}`).join(' ')})`);
});
