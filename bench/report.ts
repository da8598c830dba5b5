/**
 * The Markdown report of a run: the targets of issue #3 with met/missed,
 * per-server and per-page tables of medians with min–max, the servers'
 * versions and flags, the machine, the method, and any errors. Pure: it
 * renders a Results object (unit-tested from a fixed one).
 */
import { formatValue, headlines, pagedPage, roundSummary, verdict, type Headline } from './headline.js';
import { PAGING_CALL_CAP } from './paging.js';
import type { Summary } from './stats.js';
import type { Measure, Results, ServerId } from './types.js';

/** Column order everywhere: the peers as the issue lists them, then tabwright. */
export const COLUMNS: readonly ServerId[] = ['playwright-mcp', 'chrome-devtools-mcp', 'tabwright'];

function cell(s: Summary | undefined, unit: string): string {
  if (!s) return '—';
  if (s.n === 1 || s.min === s.max) return formatValue(s.median, unit);
  // The range without its unit ("101 ms (100–102)"), except for bytes, whose unit varies (B, KB).
  const bare = (v: number) => (unit === 'bytes' ? formatValue(v, unit) : formatValue(v, unit).replace(/ .*/, ''));
  if (bare(s.min) === bare(s.max)) return formatValue(s.median, unit);
  return `${formatValue(s.median, unit)} (${bare(s.min)}–${bare(s.max)})`;
}

function table(head: string[], rows: string[][]): string {
  const line = (r: string[]) => `| ${r.map(c => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

function label(results: Results, id: ServerId): string {
  return results.servers.find(s => s.id === id)?.label ?? id;
}

function fmtRatio(r: number | undefined): string {
  return r === undefined || !Number.isFinite(r) ? '—' : `${r < 0.1 ? r.toFixed(3) : r.toFixed(2)}×`;
}

function targetsSection(results: Results, rows: Headline[]): string {
  const body = rows.map(h => {
    const v = verdict(h);
    const unit = h.target.unit;
    const status = v.status === 'met' ? '**met**' : v.status === 'missed' ? `**missed** by ${v.by}` : 'not measured';
    const goal = v.goal === undefined ? '—' : `${h.target.strict ? '<' : h.target.better === 'lower' ? '≤' : '≥'} ${formatValue(v.goal, unit)}${v.targetRatio !== undefined ? ` (${fmtRatio(v.targetRatio)} better peer)` : ''}`;
    const shown = (id: ServerId) => (h.pick === 'min' ? cellMin(h.values[id], unit) : cell(h.values[id], unit));
    return [h.target.label + (h.note ? ` — ${h.note}` : ''), ...COLUMNS.map(shown), fmtRatio(v.ratio), h.target.targetText, goal, status];
  });
  return table(['measure', ...COLUMNS.map(id => label(results, id)), 'tabwright ÷ better peer', 'issue target', 'target in this run', 'verdict'], body);
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
- tools/list: the tools array as JSON, in o200k_base tokens.`;

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
    `## Per server\n\n${serverSection(results)}`,
    `## Per page\n\n${results.pages.map(p => `- \`${p.id}\`: ${p.description} (${formatValue(p.htmlBytes, 'bytes')} HTML)`).join('\n')}\n\n${pageSection(results)}`,
    `## Servers and flags\n\n${serversSection(results)}`,
    `## Method\n\n${METHOD}`,
  ];
  if (results.errors.length) {
    sections.push(`## Errors\n\n${table(['round', 'server', 'step', 'message'], results.errors.map(e => [String(e.round), e.server, e.step, e.message.replace(/\s+/g, ' ').slice(0, 300)]))}`);
  }
  return sections.join('\n\n') + '\n';
}
