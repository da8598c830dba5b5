// Unit tests of the report rendering (bench/report.ts, bench/svg.ts, bench/headline.ts) from a fixed results object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headlines, lensHeadlines, verdict, worstLensRows, worstPagedPage } from '../../bench/headline.js';
import { BENCH_LENSES } from '../../bench/lens.js';
import { renderMarkdown } from '../../bench/report.js';
import { renderSvg } from '../../bench/svg.js';
import type { Results, Sample, ServerId } from '../../bench/types.js';

/** Three rounds of every measure, values v, v+1, v+2 per server. */
function samples(server: ServerId, measure: Sample['measure'], v: number, page?: string): Sample[] {
  return [0, 1, 2].map(i => ({ round: i + 1, server, measure, value: v + i, ...(page ? { page } : {}) }));
}

function fixture(): Results {
  const s: Sample[] = [];
  const per = { tabwright: 1, 'playwright-mcp': 4, 'chrome-devtools-mcp': 3 } as const;
  for (const [server, k] of Object.entries(per) as Array<[ServerId, number]>) {
    for (const page of ['login', 'app', 'wiki']) {
      s.push(...samples(server, 'snapshot_tokens', 1000 * k, page), ...samples(server, 'snapshot_ms', 50 * k, page), ...samples(server, 'navigate_ms', 80, page));
      const coverage = page === 'wiki' && server === 'chrome-devtools-mcp' ? 0.9 : 1;
      s.push(...[1, 2, 3].map(round => ({ round, server, measure: 'coverage' as const, page, value: coverage })));
    }
    s.push(...samples(server, 'snapshot_tokens', 100000 * k, 'large').map(x => ({ ...x, delivery: 'file' as const })));
    s.push(...samples(server, 'click_ms', 100 * k), ...samples(server, 'type_ms', 40 * k).map(x => ({ ...x, verified: true })));
    s.push(...samples(server, 'cold_start_ms', 1500 + 100 * k), ...samples(server, 'node_peak_rss_mib', 100 * k), ...samples(server, 'tools_list_tokens', 4000 + k));
  }
  s.push(...samples('tabwright', 'webmcp_call_ms', 8));
  return {
    schema: 1,
    startedAt: '2026-01-02T03:04:05.000Z',
    finishedAt: '2026-01-02T03:14:05.000Z',
    options: { rounds: 3, quick: false, corpus: '../shared/corpus/pages' },
    machine: { cpu: 'Test CPU', cores: 2, ramGiB: 8, os: 'Debian', node: 'v20.0.0', chromium: 'Chromium 1.0' },
    servers: [
      { id: 'tabwright', label: 'tabwright', version: '0.1.0 (abc)', status: 'ok', command: ['node', 'dist/cli.js', 'mcp'], browserArgs: ['--no-sandbox'], notes: [] },
      { id: 'playwright-mcp', label: 'Playwright MCP', version: '0.0.83', status: 'ok', command: ['node', 'cli.js'], browserArgs: [], notes: ['settle <500 ms>'] },
      { id: 'chrome-devtools-mcp', label: 'Chrome DevTools MCP', version: '1.11.0', status: 'install_failed', error: 'npm said no', command: [], browserArgs: [], notes: [] },
    ],
    pages: [
      { id: 'login', kind: 'generated', description: 'login form', htmlBytes: 1000, census: { tabwright: { links: 1, buttons: 1, controls: 3 } } },
      { id: 'app', kind: 'generated', description: 'app', htmlBytes: 30000, census: {} },
      { id: 'large', kind: 'generated', description: 'large', htmlBytes: 600000, census: {} },
      { id: 'wiki', kind: 'corpus', description: 'corpus: wiki.html', htmlBytes: 200000, census: {} },
    ],
    samples: s,
    errors: [{ round: 2, server: 'playwright-mcp', step: 'page wiki', message: 'a | pipe\nand a newline' }],
  };
}

test('headlines: real pages are the corpus pages; verdicts scale the targets by the better peer', () => {
  const rows = headlines(fixture());
  const tokens = rows.find(h => h.target.id === 'tokens_real')!;
  assert.match(tokens.note!, /1 corpus pages/);
  assert.equal(tokens.values.tabwright?.median, 1001);
  const v = verdict(tokens);
  // better peer: Chrome DevTools MCP, 3001; issue ratio 4900 / 9740.
  assert.equal(v.status, 'met');
  assert.ok(Math.abs(v.ratio! - 1001 / 3001) < 1e-9);
  assert.ok(Math.abs(v.goal! - 3001 * (4900 / 9740)) < 1e-9);
  const cold = verdict(rows.find(h => h.target.id === 'cold_start_ms')!);
  assert.equal(cold.status, 'missed');
  assert.match(cold.by!, /^\+\d/);
  assert.equal(verdict(rows.find(h => h.target.id === 'webmcp_call_ms')!).status, 'met');
  assert.equal(verdict(rows.find(h => h.target.id === 'screenshot_ms')!).status, 'not measured');
  const coverage = rows.find(h => h.target.id === 'coverage_real')!;
  assert.equal(coverage.values['chrome-devtools-mcp']?.min, 0.9);
});

test('markdown: targets with met/missed, medians with min–max, servers, machine, errors', () => {
  const md = renderMarkdown(fixture(), 'run.svg');
  assert.match(md, /^# Benchmark/);
  assert.match(md, /\| measure \| Playwright MCP \| Chrome DevTools MCP \| tabwright \|/);
  assert.match(md, /snapshot tokens per real page — 1 corpus pages \| 4,001 tokens \| 3,001 tokens \| 1,001 tokens \| 0\.33× \| ≤ 4,900 \| ≤ 1,510 tokens \(0\.50× better peer\) \| \*\*met\*\*/);
  assert.match(md, /cold start to first snapshot \|.*\*\*missed\*\* by \+/);
  assert.match(md, /101 ms \(100–102\)/);
  assert.match(md, /41\.0 ms \(40\.0–42\.0\) ✓/);
  assert.match(md, /100,001 tokens \(100,000–100,002\) \(file\)/);
  assert.match(md, /status: install_failed — npm said no/);
  assert.match(md, /Test CPU, 2 cores, 8 GiB RAM/);
  assert.match(md, /!\[tabwright ÷ better peer\]\(run\.svg\)/);
  assert.match(md, /\| 2 \| playwright-mcp \| page wiki \| a \\\| pipe and a newline \|/);
  assert.match(md, /CLI against a warm daemon/);
  assert.doesNotMatch(md, /NaN|undefined/);
});

test('svg: one bar per lower-is-better target with a peer, target ticks, escaped text, no NaN', () => {
  const svg = renderSvg(headlines(fixture()), 'Title <&>');
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.match(svg, /<\/svg>\n$/);
  assert.match(svg, /Title &lt;&amp;&gt;/);
  // Measured with a peer: tokens real, coverage (inverted), tokens large, snapshot ms real, click, type, cold start, RSS, tools/list.
  const bars = svg.match(/<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="18"/g) ?? [];
  assert.equal(bars.length, 9);
  assert.match(svg, /0\.33× \(target 0\.50×\)/);
  assert.doesNotMatch(svg, /NaN|undefined|Infinity/);
});

test('svg without peers says so', () => {
  const r = fixture();
  r.samples = r.samples.filter(s => s.server === 'tabwright');
  assert.match(renderSvg(headlines(r), 't'), /No ratios/);
});

/** The fixture plus tabwright following paging lines: wiki paged (12 calls), login not paged (0 calls). */
function withPaging(wikiCoverage: number, capped = false): Results {
  const r = fixture();
  const one = (measure: Sample['measure'], page: string, value: number, extra: Partial<Sample> = {}): Sample => ({ round: 1, server: 'tabwright', measure, page, value, ...extra });
  const wiki = { paged: true, ...(capped ? { capped: true } : {}) };
  r.samples.push(
    one('coverage_paged', 'wiki', wikiCoverage, wiki), one('paged_tokens', 'wiki', 45678, wiki), one('paged_calls', 'wiki', 12, wiki),
    one('coverage_paged', 'login', 1), one('paged_tokens', 'login', 104), one('paged_calls', 'login', 0),
  );
  return r;
}

test('targets: the paging row sits right below coverage_real, tabwright only, with the worst page\'s calls and tokens', () => {
  const lines = renderMarkdown(withPaging(1), 'run.svg').split('\n');
  const i = lines.findIndex(l => l.startsWith('| coverage following paging lines'));
  assert.equal(lines[i - 1], '| coverage of visible interactive elements (worst page) — 1 corpus pages | 100% (median 100%) | 90% (median 90%) | 100% (median 100%) | 1.00× | 100% | ≥ 100% | **met** |');
  assert.equal(lines[i], '| coverage following paging lines (worst page) — 1 corpus pages; worst page wiki needs 12 paging calls, 45,678 tokens with the default snapshot | — | — | 100% (median 100%) | — | 100% | ≥ 100% | **met** |');
  const missed = renderMarkdown(withPaging(0.97, true), 'run.svg').split('\n').find(l => l.startsWith('| coverage following paging lines'));
  assert.equal(missed, '| coverage following paging lines (worst page) — 1 corpus pages; worst page wiki needs 12 paging calls, 45,678 tokens with the default snapshot (capped: pages left unfetched) | — | — | 97% (median 97%) | — | 100% | ≥ 100% | **missed** by 3.0 points |');
  // A run without paging data (older results) says so instead of guessing.
  assert.ok(renderMarkdown(fixture(), 'run.svg').includes('| coverage following paging lines (worst page) — 1 corpus pages | — | — | — | — | 100% | — | not measured |'));
  // No bar: the row has no peer to divide by.
  assert.equal((renderSvg(headlines(withPaging(1)), 't').match(/height="18"/g) ?? []).length, 9);
});

test('per-page coverage table: a tabwright-following-paging column with calls and tokens, and the note under it', () => {
  const md = renderMarkdown(withPaging(1), 'run.svg');
  assert.ok(md.includes('| page | Playwright MCP | Chrome DevTools MCP | tabwright | tabwright following paging (calls, tokens) | links / buttons / controls |'));
  assert.ok(md.includes('| login | 100% | 100% | 100% | 100% (0 calls, 104 tokens) | 1 / 1 / 3 |'));
  assert.ok(md.includes('| app | 100% | 100% | 100% | — | — |'));
  assert.ok(md.includes('| wiki | 100% | 90% | 100% | 100% (12 calls, 45,678 tokens) | — |'));
  assert.ok(renderMarkdown(withPaging(0.97, true), 'run.svg').includes('| wiki | 100% | 90% | 100% | 97% (12 calls, 45,678 tokens, capped) | — |'));
  assert.ok(md.includes("tabwright's default snapshot shows the whole page when it fits its budget of ~48,000 characters (under the\n64 KB inline cap of issue #2)."));
  assert.match(md, /missed by design, by the amount the tabwright column shows/);
});

test('worstPagedPage: lowest coverage, then most calls, then most tokens', () => {
  const r = withPaging(1);
  r.samples.push({ round: 1, server: 'tabwright', measure: 'coverage_paged', page: 'app', value: 1 }, { round: 1, server: 'tabwright', measure: 'paged_calls', page: 'app', value: 12 }, { round: 1, server: 'tabwright', measure: 'paged_tokens', page: 'app', value: 50000 });
  assert.deepEqual(worstPagedPage(r, ['login', 'wiki', 'app']), { page: 'app', coverage: 1, calls: 12, tokens: 50000, capped: false });
  assert.deepEqual(worstPagedPage(r, ['login', 'wiki']), { page: 'wiki', coverage: 1, calls: 12, tokens: 45678, capped: false });
  r.samples.push({ round: 1, server: 'tabwright', measure: 'coverage_paged', page: 'large', value: 0.5 }, { round: 1, server: 'tabwright', measure: 'paged_calls', page: 'large', value: 400 }, { round: 1, server: 'tabwright', measure: 'paged_tokens', page: 'large', value: 9 });
  assert.equal(worstPagedPage(r, ['login', 'wiki', 'app', 'large'])?.page, 'large');
  assert.equal(worstPagedPage(r, ['nowhere']), undefined);
});

/** The fixture plus lens measures: pages, click and type under every lens (codex reads more of tabwright's click), the task (Chrome DevTools MCP failed it). */
function withLenses(): Results {
  const r = fixture();
  const add = (server: ServerId, measure: Sample['measure'], value: number, extra: Partial<Sample>) => r.samples.push({ round: 1, server, measure, value, ...extra });
  const per = { tabwright: 1, 'playwright-mcp': 4, 'chrome-devtools-mcp': 3 } as const;
  for (const [server, k] of Object.entries(per) as Array<[ServerId, number]>) {
    for (const lens of BENCH_LENSES) {
      for (const page of ['login', 'app', 'wiki']) add(server, 'page_tokens', 1000 * k, { page, lens });
      add(server, 'action_tokens', server === 'tabwright' && lens === 'codex' ? 20 : 4 * k, { action: 'click', lens, ...(server === 'playwright-mcp' ? { fileTokens: 250 } : {}) });
      add(server, 'action_tokens', 8 * k, { action: 'type', lens });
      add(server, 'screenshot_images', lens === 'codex' && server === 'tabwright' ? 0 : 1, { lens });
      add(server, 'screenshot_image_bytes', lens === 'codex' && server === 'tabwright' ? 0 : 30000, { lens });
      add(server, 'task_tokens', 1000 * k, { lens, verified: server !== 'chrome-devtools-mcp' });
    }
    add(server, 'task_calls', 9, { verified: server !== 'chrome-devtools-mcp', sequence: ['navigate', 'read file', 'click'], sequenceTokens: [30, 1200, 5] });
  }
  r.errors.push({ round: 1, server: 'chrome-devtools-mcp', step: 'task', message: 'failed under claude-code, codex, vscode, content-only: the confirmation was not visible after the submit' });
  return r;
}

test('lens targets: ≤ 0.5× the better peer per lens; a peer that failed the task is not the better peer', () => {
  const rows = lensHeadlines(withLenses());
  assert.equal(rows.length, 16);
  const page = verdict(rows.find(h => h.target.id === 'lens_page:content-only')!);
  assert.equal(page.status, 'met');
  assert.equal(page.ratio, 1000 / 3000);
  assert.equal(page.goal, 1500);
  // codex: 20 tokens against 12 (Chrome DevTools MCP) → missed; the other lenses 4 against 12 → met.
  assert.equal(verdict(rows.find(h => h.target.id === 'lens_click:codex')!).status, 'missed');
  assert.equal(verdict(rows.find(h => h.target.id === 'lens_click:vscode')!).status, 'met');
  const task = rows.find(h => h.target.id === 'lens_task:claude-code')!;
  assert.deepEqual(task.failed, ['chrome-devtools-mcp']);
  assert.equal(task.values['chrome-devtools-mcp'], undefined);
  // Better peer: Playwright MCP (4000) → 1000 ≤ 2000.
  assert.equal(verdict(task).ratio, 0.25);
  assert.equal(verdict(task).status, 'met');
  assert.equal(verdict(lensHeadlines(fixture())[0]!).status, 'not measured');
});

test('lens rows in the chart: per measure, the lens where tabwright does worst', () => {
  const worst = worstLensRows(lensHeadlines(withLenses()));
  assert.deepEqual(worst.map(h => h.target.label), ['tokens per page, every lens', 'tokens per click, worst lens: codex', 'tokens per type, every lens', 'tokens over the scripted task, every lens']);
  const svg = renderSvg([...headlines(withLenses()), ...worst], 't');
  assert.equal((svg.match(/height="18"/g) ?? []).length, 9 + 4);
});

test('markdown: the lens section with targets, actions, images, the task (failed peer, sequences) and pages', () => {
  const md = renderMarkdown(withLenses(), 'run.svg');
  assert.match(md, /## What the model sees \(issue 13\)/);
  assert.ok(md.includes('| tokens per click (login form) — codex | 16 tokens | 12 tokens | 20 tokens | 1.67× | ≤ 0.5× better peer | ≤ 6 tokens (0.50× better peer) | **missed** by +233% (+14 tokens) |'));
  // Lenses that read the same share one row; the click's codex view differs, so it has a row per lens.
  assert.ok(md.includes('| tokens over the scripted task (shop) — every lens | 4,000 tokens | failed | 1,000 tokens | 0.25× |'));
  assert.ok(md.includes('| tokens per page (navigate + snapshot) — 1 corpus pages — every lens | 4,000 tokens | 3,000 tokens | 1,000 tokens | 0.33× |'));
  assert.ok(md.includes('| tokens per click (login form) — vscode | 16 tokens | 12 tokens | 4 tokens | 0.33× |'));
  assert.ok(md.includes('| click by ref — codex | 16 tokens (+ file of 250 tokens, not read) | 12 tokens | 20 tokens |'));
  assert.ok(md.includes('| images (bytes) — codex | 1 (29 KB) | 1 (29 KB) | 0 (dropped) |'));
  assert.ok(md.includes('| type by ref — every lens | 32 tokens | 24 tokens | 8 tokens |'));
  assert.ok(md.includes('| tokens read — every lens | 4,000 tokens | failed | 1,000 tokens |'));
  assert.ok(md.includes('| calls (tool calls + file reads) | 9 | failed | 9 |'));
  assert.ok(md.includes('- tabwright: navigate (30) → read file (1,200) → click (5)'));
  assert.ok(md.includes('- Chrome DevTools MCP, round 1: failed under claude-code, codex, vscode, content-only: the confirmation was not visible after the submit'));
  assert.ok(md.includes('| login | 4,000 tokens (every lens) | 3,000 tokens (every lens) | 1,000 tokens (every lens) |'));
  assert.match(md, /#### Why the misses\n\n- \*\*tokens per click \(login form\)\*\* \(missed under codex by \+233% \(\+14 tokens\)\): Chrome DevTools MCP answers/);
  assert.doesNotMatch(md, /NaN|undefined/);
  // Older results without lens samples say so once.
  assert.match(renderMarkdown(fixture(), 'run.svg'), /## What the model sees \(issue 13\)\n\nNot measured in this run/);
});

test('the reliability section sums the stored results per kind, with the soak slope, or says how to get them', () => {
  const at = '2026-01-02T03:04:05.000Z';
  const results = fixture();
  assert.match(renderMarkdown(results, 'x.svg'), /## Reliability \(issue 22\)\n\nNo reliability results: run `npm run test:reliability`/);
  results.reliability = [
    { target: 'a', what: 'A', kind: 'in-process', inputs: 10_000, failures: 0, seed: 1, ms: 5, at },
    { target: 'b', what: 'B', kind: 'live', inputs: 200, failures: 1, seed: 1, ms: 5, at },
    { target: 'soak-server', what: 'S', kind: 'soak', inputs: 3000, failures: 0, ms: 5, notes: { slopeMbPer100: 0.4 }, at },
    { target: 'c', what: 'C', kind: 'chaos', inputs: 100, failures: 0, ms: 5, at },
    { target: 'h', what: 'H', kind: 'hostile', inputs: 40, failures: 0, ms: 5, at },
  ];
  const md = renderMarkdown(results, 'x.svg');
  assert.match(md, /\| Fuzzing \| 2 \| 10,200 inputs \| 10,199 \| 1 \|  \|/);
  assert.match(md, /\| Soak \| 1 \| 3,000 calls \| 3,000 \| 0 \| soak-server 0\.4 MB per 100 navigations \|/);
  assert.match(md, /\| Chaos \| 1 \| 100 faults injected \| 100 \| 0 \|  \|/);
  assert.match(md, /\| Hostile pages \| 1 \| 40 attacks \| 40 \| 0 \|  \|/);
});
