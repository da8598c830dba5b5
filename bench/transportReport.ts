/**
 * The report's "Transports" section (issue 15): per operation, each transport's median and p90, and each
 * transport's median ÷ the managed browser's with the target (at most 1.2×) met or missed. Pure: it renders a
 * TransportResults (unit-tested in test/bench/transports.test.ts).
 */
import { formatValue } from './headline.js';
import { table } from './markdown.js';
import { median, quantile } from './stats.js';
import { TRANSPORT_OPS, type BenchError, type TransportId, type TransportOp, type TransportResults } from './types.js';

/** The operations the issue's target names ("snapshot, click, type, screenshot"); navigate is shown without one. */
export const TARGET_OPS: readonly TransportOp[] = ['snapshot', 'click', 'type', 'screenshot'];

/** Median and p90 (nearest rank) of one transport's samples of one operation, in ms. */
export interface OpStats {
  median: number;
  p90: number;
  n: number;
}

/** One transport against the reference on one operation. */
export interface Versus {
  transport: TransportId;
  /** Median ÷ the reference's median; undefined when either has no samples. */
  ratio?: number;
  /** Median minus the reference's median, in ms. */
  deltaMs?: number;
  status: 'met' | 'missed' | 'no target' | 'not measured';
}

export interface TransportRow {
  op: TransportOp;
  stats: Partial<Record<TransportId, OpStats>>;
  /** Each transport other than the reference, in the results' order. */
  versus: Versus[];
}

/**
 * What each operation sends the browser on the login page (`npx tsx bench/transportTrace.ts`, 2026-12-07): on launch
 * and cdp through Playwright's own sequences; on the relayed transports (own-chrome, extension) the top document's
 * snapshot, plain click and fill take the direct ways (docs/actions.md, "Direct actions on relayed connections").
 * Printed with a miss's reason. The counts include the bench's DOM check after click and type (one `execute`).
 */
export const OP_WIRE: Record<TransportOp, string> = {
  navigate: '3 CDP round trips (Page.navigate and two small ones)',
  snapshot: 'launch: the browser\'s URL and title beside the walk, which on a fresh document first carries Playwright\'s 14 KB utility script (2 round trips one after the other); relayed: the walk in one Runtime.evaluate beside the URL and title',
  click: 'launch: 35 CDP commands, about 20 of them one after the other (Playwright\'s click on one ElementHandle); relayed: 12 (one page evaluation, the mouse events in one batch, the report\'s diff)',
  type: 'launch: 20 CDP commands (Playwright\'s fill on one ElementHandle, the read-back); relayed: 7 (one evaluation selects and focuses, the text insertion, the read-back)',
  screenshot: '2 CDP round trips (layout metrics, a ~20 KB JPEG back)',
};

/**
 * Why a transport misses the target, as measured while building the section (`npx tsx bench/relayHop.ts` and
 * protocol logs): printed under the table for missed rows only, after the operation's OP_WIRE.
 */
export const WHY_MISSED: Partial<Record<TransportId, string>> = {
  'own-chrome': 'each command crosses Chrome\'s DevTools WebSocket and tabwright\'s relay instead of Playwright\'s pipe: one CDP round '
    + 'trip timed by `bench/relayHop.ts` (300 each, interleaved, this machine under load) takes 0.81 ms over the pipe, 1.08 over the '
    + 'WebSocket and 1.09 through the relay; a 345 KB request 12.0, 27.2 and 21.0 ms. With the direct ways this transport waits on fewer '
    + 'round trips than launch for the measured steps, so a miss is run-to-run spread on a shared machine (0.8× to 1.5× on one build '
    + 'before the direct ways), or an element the page did not call ready, which takes Playwright\'s way (logged at debug level).',
  extension: 'each command crosses the link\'s WebSocket, the extension\'s worker and chrome.debugger: one small round trip timed by '
    + '`bench/relayHop.ts` (300 each, interleaved, a quiet machine, 2026-12-05) takes 1.43 ms over Playwright\'s pipe and 3.15 ms through '
    + 'the extension, about 2 ms of it in chrome.debugger.sendCommand; a 345 KB request 109 against 241 ms (as an id, this machine under '
    + 'heavy load, 2026-12-06). With Playwright\'s own sequences click (33 round trips) and type (19) missed by 0.6× (2026-12-07); the '
    + 'direct ways wait on fewer round trips than launch, so a miss now is noise on a shared machine, or an element the page did not '
    + 'call ready, which takes Playwright\'s way (logged at debug level). Screenshot is 2 round trips, most of its time spent capturing.',
};

function stats(tr: TransportResults, transport: TransportId, op: TransportOp): OpStats | undefined {
  const ms = tr.samples.filter(s => s.transport === transport && s.op === op).map(s => s.ms).filter(Number.isFinite);
  return ms.length ? { median: median(ms), p90: quantile(ms, 0.9), n: ms.length } : undefined;
}

/** The rows of the section: one per operation, in the order they run. */
export function transportRows(tr: TransportResults): TransportRow[] {
  const ids = tr.transports.map(t => t.id);
  return TRANSPORT_OPS.map(op => {
    const all: Partial<Record<TransportId, OpStats>> = {};
    for (const id of ids) {
      const s = stats(tr, id, op);
      if (s) all[id] = s;
    }
    const ref = all[tr.reference];
    const versus = ids.filter(id => id !== tr.reference).map((transport): Versus => {
      const mine = all[transport];
      if (!ref || !mine || !(ref.median > 0)) return { transport, status: 'not measured' };
      const ratio = mine.median / ref.median;
      const comparison = tr.transports.find(t => t.id === transport)?.comparison;
      const status = comparison || !TARGET_OPS.includes(op) ? 'no target' : ratio <= tr.targetRatio ? 'met' : 'missed';
      return { transport, ratio, deltaMs: mine.median - ref.median, status };
    });
    return { op, stats: all, versus };
  });
}

const OP_LABELS: Record<TransportOp, string> = {
  navigate: 'navigate (login page)',
  snapshot: 'snapshot (`get_page_context`)',
  click: 'click by ref',
  type: 'type by ref',
  screenshot: 'screenshot (viewport)',
};

function statsCell(s: OpStats | undefined): string {
  return s ? `${formatValue(s.median, 'ms')} (p90 ${formatValue(s.p90, 'ms').replace(/ ms$/, '')})` : '—';
}

/** A transport's cell: median (p90), and against the reference the ratio, the difference and the verdict. */
function cell(s: OpStats | undefined, v: Versus | undefined, targetRatio: number): string {
  const own = statsCell(s);
  if (!v || v.ratio === undefined) return own;
  const ratio = `${v.ratio.toFixed(2)}× (${v.deltaMs! >= 0 ? '+' : '−'}${formatValue(Math.abs(v.deltaMs!), 'ms')})`;
  const verdict = v.status === 'met' ? ' met' : v.status === 'missed' ? ` **missed** by ${(v.ratio - targetRatio).toFixed(2)}×` : '';
  return `${own} · ${ratio}${verdict}`;
}

/** How many of a transport's click and type samples were seen in the DOM: "… every round ✓" when all, else "k/n". */
function verifiedNote(tr: TransportResults, id: TransportId): string {
  const s = tr.samples.filter(x => x.transport === id && x.verified !== undefined);
  if (!s.length) return '';
  const ok = s.filter(x => x.verified).length;
  return ok === s.length ? `click and type verified in the DOM every round ✓` : `click and type verified ${ok}/${s.length}`;
}

/** The section's Markdown (without its heading): the table, the misses' reasons, each transport's setup, errors. */
export function transportSection(tr: TransportResults, errors: readonly BenchError[] = []): string {
  const rows = transportRows(tr);
  const head = ['operation', ...tr.transports.map(t => (t.id === tr.reference ? `${t.label}` : `${t.label} · ÷ ${tr.reference}`))];
  const body = rows.map(r => [OP_LABELS[r.op], ...tr.transports.map(t => cell(r.stats[t.id], r.versus.find(v => v.transport === t.id), tr.targetRatio))]);
  const compared = tr.transports.filter(t => t.comparison).map(t => t.id);
  const intro = `tabwright on each transport: the same server, the same login page and calls, ${tr.rounds} timed round${tr.rounds === 1 ? '' : 's'} after an untimed warm-up pass, the transports' order rotated every round. Medians (p90) of the client's round trip, then each transport's median ÷ the managed browser's (the difference in ms) and the issue's target: at most ${tr.targetRatio}× on snapshot, click, type and screenshot${compared.length ? ` (${compared.join(', ')}: for comparison, no target)` : ''}.`;
  const missed = rows.flatMap(r => r.versus.filter(v => v.status === 'missed').map(v => ({ op: r.op, v })));
  const why = missed.map(({ op, v }) => `- **${v.transport} ${op}** (${v.ratio!.toFixed(2)}×, ${formatValue(v.deltaMs!, 'ms')} more): ${OP_WIRE[op]}; ${WHY_MISSED[v.transport] ?? 'not analysed yet.'}`);
  const setups = tr.transports.map(t => {
    const shot = tr.samples.filter(s => s.transport === t.id && s.op === 'screenshot' && s.bytes !== undefined).map(s => s.bytes!);
    const facts = [
      t.status === 'ok' ? '' : `**${t.status}**: ${t.error ?? ''}`,
      t.command.length ? `\`${t.command.join(' ')}\`` : '',
      t.viewport ? `viewport ${t.viewport}` : '',
      shot.length ? `screenshot ${formatValue(median(shot), 'bytes')}` : '',
      verifiedNote(tr, t.id),
      ...t.notes,
    ].filter(Boolean);
    return `- **${t.label}**: ${facts.join('; ')}`;
  });
  const mine = errors.filter(e => e.step.startsWith('transport '));
  const errorLines = mine.length ? `\n\nErrors: ${mine.length} (listed under Errors).` : '';
  return [intro, table(head, body), ...(why.length ? [`Why the misses:\n\n${why.join('\n')}`] : []), setups.join('\n') + errorLines].join('\n\n');
}
