/**
 * The Markdown report of a run: the benchmark's targets with met/missed,
 * per-server and per-page tables of medians with min–max, the servers'
 * versions and flags, the machine, the method, and any errors. Pure: it
 * renders a Results object (unit-tested from a fixed one).
 */
import { formatValue, headlines, LENS_ROW_KINDS, lensHeadlines, lensRow, lensSummaries, pagedPage, roundSummary, verdict, type Headline } from './headline.js';
import { BENCH_LENSES, type BenchLens } from './lens.js';
import { table } from './markdown.js';
import { PAGING_CALL_CAP } from './paging.js';
import { summarize, type Summary } from './stats.js';
import { transportSection } from './transportReport.js';
import { reliabilitySection } from './reliability.js';
import type { LensMeasure, Measure, Results, Sample, ServerId } from './types.js';

/** Column order everywhere: the peers, then tabwright. */
export const COLUMNS: readonly ServerId[] = ['playwright-mcp', 'chrome-devtools-mcp', 'tabwright'];

function cell(s: Summary | undefined, unit: string): string {
  if (!s) return '—';
  if (s.n === 1 || s.min === s.max) return formatValue(s.median, unit);
  // The range without its unit ("101 ms (100–102)"), except for bytes, whose unit varies (B, KB).
  const bare = (v: number) => (unit === 'bytes' ? formatValue(v, unit) : formatValue(v, unit).replace(/ .*/, ''));
  if (bare(s.min) === bare(s.max)) return formatValue(s.median, unit);
  return `${formatValue(s.median, unit)} (${bare(s.min)}–${bare(s.max)})`;
}

function label(results: Results, id: ServerId): string {
  return results.servers.find(s => s.id === id)?.label ?? id;
}

function fmtRatio(r: number | undefined): string {
  return r === undefined || !Number.isFinite(r) ? '—' : `${r < 0.1 ? r.toFixed(3) : r.toFixed(2)}×`;
}

function targetRow(h: Headline, name: string): string[] {
  const v = verdict(h);
  const unit = h.target.unit;
  const status = v.status === 'met' ? '**met**' : v.status === 'missed' ? `**missed** by ${v.by}` : h.failed?.includes('tabwright') ? '**failed**: tabwright did not finish the task' : 'not measured';
  const goal = v.goal === undefined ? '—' : `${h.target.strict ? '<' : h.target.better === 'lower' ? '≤' : '≥'} ${formatValue(v.goal, unit)}${v.targetRatio !== undefined ? ` (${fmtRatio(v.targetRatio)} better peer)` : ''}`;
  const shown = (id: ServerId) => (h.failed?.includes(id) ? 'failed' : h.pick === 'min' ? cellMin(h.values[id], unit) : cell(h.values[id], unit));
  return [name + (h.note ? ` — ${h.note}` : ''), ...COLUMNS.map(shown), fmtRatio(v.ratio), h.target.targetText, goal, status];
}

const TARGET_HEAD = (results: Results) => ['measure', ...COLUMNS.map(id => label(results, id)), 'tabwright ÷ better peer', 'issue target', 'target in this run', 'verdict'];

function targetsSection(results: Results, rows: Headline[]): string {
  return table(TARGET_HEAD(results), rows.map(h => targetRow(h, h.target.label)));
}

/**
 * One row per lens (`name — lens`), or a single `name — every lens` row when every lens gives the same cells
 * (the usual case: no server sets structuredContent by default).
 */
export function perLens(name: string, cells: (lens: BenchLens) => string[]): string[][] {
  const all = BENCH_LENSES.map(lens => cells(lens));
  if (all.every(c => c.join('\u0000') === all[0]!.join('\u0000'))) return [[`${name} — every lens`, ...all[0]!]];
  return BENCH_LENSES.map((lens, i) => [`${name} — ${lens}`, ...all[i]!]);
}

/** The lens targets: per measure one row per lens, merged into one when every lens reads the same. */
function lensTargetsSection(results: Results, rows: Headline[]): string {
  const body = LENS_ROW_KINDS.flatMap(kind => {
    const mine = rows.filter(h => lensRow(h.target) === kind);
    if (!mine.length) return [];
    const note = mine[0]!.note;
    const name = `${mine[0]!.target.group ?? mine[0]!.target.label}${note ? ` — ${note}` : ''}`;
    return perLens(name, lens => targetRow({ ...mine.find(h => h.target.lens === lens)!, note: undefined }, '').slice(1));
  });
  return table(TARGET_HEAD(results), body);
}

/** Under the lens targets table: for each missed measure, the lenses it was missed under and why. */
function lensMissesSection(rows: Headline[]): string {
  const lines = LENS_ROW_KINDS.flatMap(kind => {
    const missed = rows.filter(h => lensRow(h.target) === kind && verdict(h).status === 'missed' && h.target.whyMissed);
    if (!missed.length) return [];
    const bys = missed.map(h => verdict(h).by);
    const where = missed.length === BENCH_LENSES.length && bys.every(b => b === bys[0]) ? `under every lens, by ${bys[0]}` : `under ${missed.map(h => `${h.target.lens} by ${verdict(h).by}`).join('; ')}`;
    return [`- **${missed[0]!.target.group}** (missed ${where}): ${missed[0]!.target.whyMissed}`];
  });
  return lines.length ? `#### Why the misses\n\n${lines.join('\n')}` : '';
}

/** Under the targets table: for each missed target, why (Target.whyMissed). */
function missesSection(rows: Headline[]): string {
  const missed = rows.filter(h => verdict(h).status === 'missed' && h.target.whyMissed);
  if (!missed.length) return '';
  return `### Why the misses\n\n${missed.map(h => `- **${h.target.label}** (missed by ${verdict(h).by}): ${h.target.whyMissed}`).join('\n')}`;
}

/** Coverage rows show the worst page first: "min (median)". */
function cellMin(s: Summary | undefined, unit: string): string {
  return s ? `${formatValue(s.min, unit)} (median ${formatValue(s.median, unit)})` : '—';
}

const SERVER_MEASURES: Array<[Measure, string, string]> = [
  ['cold_start_ms', 'cold start: spawn → initialize → navigate + snapshot', 'ms'],
  ['initialize_ms', 'of which spawn → initialized', 'ms'],
  ['click_ms', 'click by ref (login form)', 'ms'],
  ['type_ms', 'type by ref (login form)', 'ms'],
  ['screenshot_ms', 'screenshot (viewport, PNG)', 'ms'],
  ['screenshot_bytes', 'screenshot image size', 'bytes'],
  ['node_peak_rss_mib', 'peak RSS, server node process', 'MiB'],
  ['tree_peak_rss_mib', 'peak RSS, whole tree incl. Chromium (sum of VmRSS)', 'MiB'],
  ['tools_list_tokens', 'tools/list size', 'tokens'],
  ['tools_count', 'tools', ''],
  ['webmcp_call_ms', 'WebMCP call_webmcp_tool round trip', 'ms'],
  ['cli_daemon_ms', 'CLI command against a warm daemon (`tabwright tabs`, spawn to exit)', 'ms'],
  ['node_start_ms', 'of which Node\'s own start (`node -e ""`, median)', 'ms'],
  ['state_save_ms', 'save_storage_state (a cookie, 20 localStorage items, 50 IndexedDB records)', 'ms'],
  ['state_load_ms', 'load_storage_state of it, no tab on the origin (scratch page)', 'ms'],
  ['snapshot_har_off_ms', 'get_page_context of the app page with 10 fetches, on a server of its own, no HAR recording', 'ms'],
  ['snapshot_har_on_ms', 'the same while start_har records the tab', 'ms'],
  ['click_har_off_ms', 'click by ref (login form), on that server, no HAR recording', 'ms'],
  ['click_har_on_ms', 'the same while start_har records the tab', 'ms'],
];

function verifiedNote(results: Results, server: ServerId, measure: Measure): string {
  const s = results.samples.filter(x => x.server === server && x.measure === measure && x.verified !== undefined);
  if (!s.length) return '';
  const ok = s.filter(x => x.verified).length;
  return ok === s.length ? ' ✓' : ` (verified ${ok}/${s.length})`;
}

function serverSection(results: Results): string {
  const rows = SERVER_MEASURES.map(([m, name, unit]) => [name, ...COLUMNS.map(id => cell(roundSummary(results, id, m), unit) + verifiedNote(results, id, m))]);
  return table(['measure', ...COLUMNS.map(id => label(results, id))], rows);
}

const PAGE_MEASURES: Array<[Measure, string, string]> = [
  ['snapshot_tokens', 'Snapshot tokens (o200k_base)', 'tokens'],
  ['snapshot_bytes', 'Snapshot bytes', 'bytes'],
  ['snapshot_ms', 'Snapshot latency', 'ms'],
  ['navigate_ms', 'Navigate latency', 'ms'],
  ['coverage', 'Coverage (interactive refs ÷ visible links, buttons and controls)', '%'],
];

function pageSection(results: Results): string {
  const parts: string[] = [];
  for (const [m, title, unit] of PAGE_MEASURES) {
    const rows = results.pages.map(p => {
      const cells = COLUMNS.map(id => {
        const s = roundSummary(results, id, m, p.id);
        const mine = results.samples.filter(x => x.server === id && x.page === p.id && x.measure === m);
        const marks = [mine.some(x => x.delivery === 'file') ? 'file' : '', mine.some(x => x.paged) ? 'paged' : ''].filter(Boolean);
        return cell(s, unit) + (marks.length ? ` (${marks.join(', ')})` : '');
      });
      if (m === 'coverage') {
        cells.push(pagedCell(results, p.id));
        const c = p.census.tabwright ?? Object.values(p.census)[0];
        cells.push(c ? `${c.links} / ${c.buttons} / ${c.controls}` : '—');
      }
      return [p.id, ...cells];
    });
    const head = ['page', ...COLUMNS.map(id => label(results, id)), ...(m === 'coverage' ? ['tabwright following paging (calls, tokens)', 'links / buttons / controls'] : [])];
    parts.push(`### ${title}\n\n${table(head, rows)}${m === 'coverage' ? `\n\n${PAGING_NOTE}` : ''}`);
  }
  return parts.join('\n\n');
}

/** tabwright's coverage following paging lines on one page, with the calls and tokens it took: "100% (12 calls, 34,567 tokens)". */
function pagedCell(results: Results, page: string): string {
  const p = pagedPage(results, page);
  if (!p) return '—';
  const calls = `${p.calls.toLocaleString('en-US')} call${p.calls === 1 ? '' : 's'}`;
  return `${formatValue(p.coverage, '%')} (${calls}, ${formatValue(p.tokens, 'tokens')}${p.capped ? ', capped' : ''})`;
}

/** Under the per-page coverage table: why tabwright's default-snapshot coverage is below 100% on some pages. */
export const PAGING_NOTE = `tabwright's default snapshot shows the whole page when it fits its budget of ~48,000 characters (under the
64 KB inline cap of issue #2). Pages over it are paged ("(paged)"): containers of more than 50 items show their first
50 and end in a paging line (\`… items 1–50 of 5000 shown; 4950 more: get_page_context {ref: "e16", offset: 50}\`), and
a snapshot that still reaches the budget ends in continue lines. So on those pages the default-snapshot coverage is
missed by design, by the amount the tabwright column shows. "following paging" is the coverage of every ref reached by
following every paging line (each container page fetched once, at most ${PAGING_CALL_CAP} calls per page, "capped" if stopped there),
with the number of those calls and the tokens of the default snapshot plus all of them: what an agent reads to see
every element. The peers never page, so they have no such column.`;

function serversSection(results: Results): string {
  return results.servers
    .map(s => {
      const error = s.error ? ` — ${s.error.replace(/\s+/g, ' ').slice(0, 400)}` : '';
      const lines = [`### ${s.label} ${s.version}`, '', `- status: ${s.status}${error}`];
      if (s.command.length) lines.push(`- command: \`${s.command.join(' ')}\``);
      lines.push(`- browser switches: \`${s.browserArgs.join(' ')}\``);
      for (const n of s.notes) lines.push(`- ${n}`);
      if (s.chromiumCommandLine?.length) {
        lines.push('', '<details><summary>Chromium command line as started (from /proc)</summary>', '', '```', s.chromiumCommandLine.join(' \\\n  '), '```', '', '</details>');
      }
      return lines.join('\n');
    })
    .join('\n\n');
}

/** The lens rows' tables: targets, per action, images of the screenshot, the scripted task, per page. */
function lensSection(results: Results): string {
  if (!results.samples.some(s => s.lens !== undefined)) return 'Not measured in this run (the lens measures came later: `npm run bench` takes them).';
  const rows = lensHeadlines(results);
  const misses = lensMissesSection(rows);
  return [
    LENS_INTRO,
    `### Targets\n\nMedians (min–max) over rounds; per page: over pages of the per-page medians. Target: tabwright at or under 0.5× the better peer under every lens. A measure where every lens reads the same has one row ("every lens").\n\n${lensTargetsSection(results, rows)}${misses ? `\n\n${misses}` : ''}`,
    `### Tokens per action\n\n${actionTable(results)}`,
    `### Images seen for the screenshot (viewport, PNG)\n\n${imageTable(results)}`,
    `### Scripted task\n\n${[TASK_NOTE, taskTable(results), taskSequences(results)].filter(Boolean).join('\n\n')}`,
    `### Tokens per page (navigate + snapshot)\n\n${lensPageTable(results)}`,
  ].join('\n\n');
}

export const LENS_INTRO = `What each client's model receives of a result (the client lens of test/fixtures/clientLens.ts, from each
client's code and user reports): \`claude-code\` and \`codex\` read only \`JSON.stringify(structuredContent)\` when a result
carries it (images dropped), \`vscode\` replaces the text blocks with it (images kept), and \`content-only\` stands for
Cursor, Claude Desktop and Gemini CLI, which read \`content\` only (the same view on a success). All three servers run
with their default settings, and none of them sets \`structuredContent\` on a success by default, so the lenses agree
unless a server's defaults change. Tokens are o200k_base of each text block the model receives; when a result points
to a snapshot file (tabwright's \`output: file\` or a snapshot over its inline cap, Playwright MCP's snapshot files), a
snapshot counts the file, which the agent reads with its client's own file tool (the same under every lens). Images
are counted and sized, not turned into tokens (their cost depends on the model).`;

export const TASK_NOTE = `One scripted task on the generated shop page (\`/gen/shop\`: a catalogue of 120 products showing 12, a live
search, "Add <item> to order" buttons, an order form): open the page, search "teapot", add "Quartz Teapot", fill the
form (quantity 2, name, email, Express delivery, terms), submit, and read the confirmation. Each server is driven as a
competent agent drives it (bench/task.ts has the sequences): it acts on refs it has read and, when what the next step
needs is not in what the server has shown, it reads the snapshot file the last result points to, else takes one
snapshot. Tokens: everything the model read, files included. Calls: tool calls plus file reads. A task counts under a
lens only if every ref used and the confirmation were visible under that lens and the page recorded the right order;
a server that fails is shown as failed and not counted.`;

const ACTIONS: ReadonlyArray<[NonNullable<Sample['action']>, string]> = [
  ['click', 'click by ref'],
  ['type', 'type by ref'],
  ['screenshot', 'screenshot (text blocks)'],
];

/** A cell of a lens measure; a sample with `fileTokens` (the result points to a snapshot file) says how big the file is. */
function lensCell(results: Results, id: ServerId, measure: LensMeasure, lens: BenchLens, unit: string, opts: { action?: Sample['action']; page?: string } = {}): string {
  const value = cell(lensSummaries(results, measure, lens, opts)[id], unit);
  const files = results.samples.filter(s => s.server === id && s.measure === measure && s.lens === lens && s.action === opts.action && s.fileTokens !== undefined).map(s => s.fileTokens!);
  return files.length ? `${value} (+ file of ${formatValue(files.sort((a, b) => a - b)[files.length >> 1]!, 'tokens')}, not read)` : value;
}

function actionTable(results: Results): string {
  const rows = ACTIONS.flatMap(([action, name]) => perLens(name, lens => COLUMNS.map(id => lensCell(results, id, 'action_tokens', lens, 'tokens', { action }))));
  return `${table(['action — lens', ...COLUMNS.map(id => label(results, id))], rows)}\n\nOn the login form, by the ref from that server's snapshot (the click and type rows of "Per server"). A result that points
to a snapshot file shows the file's size: the agent reads it only when it needs the page state, which the scripted task counts.`;
}

function imageTable(results: Results): string {
  const rows = perLens('images (bytes)', lens =>
    COLUMNS.map(id => {
      const n = lensSummaries(results, 'screenshot_images', lens)[id];
      const bytes = lensSummaries(results, 'screenshot_image_bytes', lens)[id];
      if (!n) return '—';
      return n.median === 0 ? '0 (dropped)' : `${formatValue(n.median, '')} (${cell(bytes, 'bytes')})`;
    }),
  );
  return table(['measure — lens', ...COLUMNS.map(id => label(results, id))], rows);
}

function taskTable(results: Results): string {
  const failed = (id: ServerId, lens?: BenchLens) =>
    results.errors.some(e => e.server === id && e.step === 'task') && !results.samples.some(s => s.server === id && s.measure === 'task_tokens' && s.verified === true && (!lens || s.lens === lens));
  const rows = perLens('tokens read', lens => COLUMNS.map(id => (failed(id, lens) ? 'failed' : cell(lensSummaries(results, 'task_tokens', lens)[id], 'tokens'))));
  const done = (id: ServerId, measure: Measure) => summarizeVerified(results, id, measure);
  rows.push(['calls (tool calls + file reads)', ...COLUMNS.map(id => (failed(id) ? 'failed' : cell(done(id, 'task_calls'), '')))]);
  rows.push(['of which file reads', ...COLUMNS.map(id => (failed(id) ? 'failed' : cell(done(id, 'task_file_reads'), '')))]);
  return table(['measure', ...COLUMNS.map(id => label(results, id))], rows);
}

function summarizeVerified(results: Results, id: ServerId, measure: Measure): Summary | undefined {
  return summarize(results.samples.filter(s => s.server === id && s.measure === measure && s.verified === true).map(s => s.value));
}

/** The call sequence each server's agent made (first round it was recorded), and any failures. */
function taskSequences(results: Results): string {
  const lines = COLUMNS.flatMap(id => {
    const s = results.samples.find(x => x.server === id && x.measure === 'task_calls' && x.sequence);
    const failures = results.errors.filter(e => e.server === id && e.step === 'task');
    const calls = s?.sequence?.map((name, i) => (s.sequenceTokens?.[i] !== undefined ? `${name} (${formatValue(s.sequenceTokens[i]!, '')})` : name));
    const out = calls ? [`- ${label(results, id)}: ${calls.join(' → ')}`] : [];
    for (const f of failures) out.push(`- ${label(results, id)}, round ${f.round}: ${f.message.replace(/\s+/g, ' ').slice(0, 300)}`);
    return out;
  });
  return lines.length ? `Calls, in order, with the tokens the model read of each (content-only; first round):\n\n${lines.join('\n')}` : '';
}

/** Tokens per page under each lens: one number when every lens reads the same, else one per lens. */
function lensPageTable(results: Results): string {
  const pages = results.pages.filter(p => results.samples.some(s => s.measure === 'page_tokens' && s.page === p.id));
  if (!pages.length) return 'not measured';
  const rows = pages.map(p => [
    p.id,
    ...COLUMNS.map(id => {
      const cells = BENCH_LENSES.map(lens => lensCell(results, id, 'page_tokens', lens, 'tokens', { page: p.id }));
      if (cells.every(c => c === '—')) return '—';
      return cells.every(c => c === cells[0]) ? `${cells[0]} (every lens)` : BENCH_LENSES.map((lens, i) => `${lens} ${cells[i]}`).join(' · ');
    }),
  ]);
  return `${table(['page', ...COLUMNS.map(id => label(results, id))], rows)}\n\nThe navigate result plus the snapshot result as each lens shows them, plus the snapshot file when the snapshot
result points to one. Playwright MCP's navigate also points to a snapshot file; that one is not counted, as the agent
takes the snapshot instead (the same page state).`;
}

const METHOD = `- Each round starts the three servers in turn (order rotated every round: A B C, B C A, C A B, ...), then
  visits every page with each server in that order, then runs the actions with each, then closes all three.
  So machine noise spreads over all three. Medians over rounds, with min–max.
- Servers run over stdio with the official MCP client (\`@modelcontextprotocol/client\`), headless, with a temporary
  profile, the same Chromium, a 1280×720 viewport, and \`--host-resolver-rules\` that keep every request on 127.0.0.1.
- Latencies are tool round trips as the client sees them (request sent → result parsed).
- Snapshot size is the text the agent gets: the tool result's text blocks, plus the file's contents when the result
  points to a file instead (marked "(file)"; the agent has to read it to act). Tokens: \`gpt-tokenizer\`, o200k_base.
  "(paged)": the snapshot shows the first part of a long container and says how to page through the rest by ref;
  size and coverage are of what it shows.
- Coverage: the page's visible links, buttons and form controls are counted in the page itself with a plain DOM
  script (same definition as tabwright's \`census()\`: off-screen counts, hidden does not; open shadow roots and
  same-origin frames included), run through each server's own evaluate tool. Snapshot lines with a ref and a link,
  button or control role are matched to that count by kind (menuitem/tab roles fill gaps), capped at 100%. A count,
  not an element-by-element match.
- Following paging lines (tabwright; once per page, in the first round that measures it, after that page's other
  measures): every paging line of the default snapshot (\`get_page_context {ref: "eN", offset: N}\`) is called, then
  every paging line of those pages (other containers, or a later offset of the same one), each ref@offset once, at
  most ${PAGING_CALL_CAP} calls per page. The ref'd nodes of all of them, one per ref, are counted against the same census as
  coverage; tokens are the default snapshot's plus every call's. These calls add to the first round's memory peaks.
- Click and type: on a fresh load of the login form, by the ref from that server's snapshot; the DOM is checked
  afterwards through the server's evaluate tool (✓ = every round verified).
- Cold start: spawn → MCP initialize → first navigate + snapshot (Chrome DevTools MCP also lists its pages first,
  as it needs a pageId).
- Memory: /proc/<pid>/status VmRSS of the server's node process and its whole process tree, sampled every ~100 ms
  (the node peak also takes the kernel's VmHWM); the tree figure sums VmRSS, so shared pages count more than once.
- tools/list: the tools array as JSON, in o200k_base tokens.
- Lenses ("What the model sees"): each raw CallToolResult goes through the client lens; per page, the navigate and
  snapshot results of the page measures; per action, the click, type and screenshot results of the action step; the
  scripted task runs after the actions on a fresh load of the shop page, its page check (body[data-order], through
  the server's evaluate tool) not counted.`;

/** Renders the report; `svgFile` is the chart's file name next to the report. */
export function renderMarkdown(results: Results, svgFile: string): string {
  const rows = headlines(results);
  const corpus = results.pages.filter(p => p.kind === 'corpus').length;
  const generated = results.pages.length - corpus;
  const minutes = (Date.parse(results.finishedAt) - Date.parse(results.startedAt)) / 60000;
  const m = results.machine;
  const sections = [
    `# Benchmark: tabwright, Playwright MCP, Chrome DevTools MCP`,
    `Run ${results.startedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')} · ${results.options.rounds} round${results.options.rounds === 1 ? '' : 's'}${results.options.quick ? ' (--quick)' : ''} · ${generated} generated + ${corpus} corpus pages · ${minutes.toFixed(1)} min · \`npm run bench${results.options.quick ? ' -- --quick' : results.options.corpus ? ` -- --corpus ${results.options.corpus}` : ''}\``,
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM · ${m.os} · Node ${m.node} · ${m.chromium}`,
    `## Targets (issue #3)\n\nMedians (min–max). The issue's targets were set on another machine, so each is read as a ratio to the better peer measured in this run ("target in this run").\n\n${targetsSection(results, rows)}\n\n![tabwright ÷ better peer](${svgFile})${missesSection(rows) ? `\n\n${missesSection(rows)}` : ''}`,
    `## What the model sees (issue 13)\n\n${lensSection(results)}`,
    `## Per server\n\n${serverSection(results)}`,
    ...(results.transports ? [`## Transports (issue 15)\n\n${transportSection(results.transports, results.errors)}`] : []),
    `## Reliability (issue 22)\n\n${reliabilitySection(results.reliability)}`,
    `## Per page\n\n${results.pages.map(p => `- \`${p.id}\`: ${p.description} (${formatValue(p.htmlBytes, 'bytes')} HTML)`).join('\n')}\n\n${pageSection(results)}`,
    `## Servers and flags\n\n${serversSection(results)}`,
    `## Method\n\n${METHOD}`,
  ];
  if (results.errors.length) {
    sections.push(`## Errors\n\n${table(['round', 'server', 'step', 'message'], results.errors.map(e => [String(e.round), e.server, e.step, e.message.replace(/\s+/g, ' ').slice(0, 300)]))}`);
  }
  return sections.join('\n\n') + '\n';
}
