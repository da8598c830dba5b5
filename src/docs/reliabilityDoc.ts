/**
 * The numbers of docs/reliability.md: what the reliability suite's last run
 * measured (test/reliability/, `npm run test:reliability`), one JSON file per
 * target in the results directory, rendered as the doc's generated section.
 */
import { replaceSection, wrap, type Markers } from './sections.js';

/**
 * One target's numbers, as test/reliability/record.ts writes them to `<results dir>/<target>.json`: a fuzzing
 * target (kinds `in-process` and `live`), a soak, a chaos fault tried many times, or a set of hostile pages.
 */
export interface ReliabilityResult {
  target: string;
  /** What is fed in or done, and what every input, round or attack must get. */
  what: string;
  /**
   * `in-process`: the real parser called directly; `live`: over a real socket or pipe (a server process, or a
   * listener in the test's); `soak`: a long run of real calls on one server; `chaos`: a fault injected in the middle of
   * calls; `hostile`: pages attacking the browser side.
   */
  kind: 'in-process' | 'live' | 'soak' | 'chaos' | 'hostile';
  /** Inputs tried (fuzzing), calls made (soak), faults injected (chaos), attacks made (hostile). */
  inputs: number;
  /** How many of them broke the target's promise (fuzzing: 0 or 1, fast-check stops at the first and shrinks it). */
  failures: number;
  /** fast-check's seed (TABWRIGHT_FUZZ_SEED=<seed> replays the run); absent for a target that draws nothing. */
  seed?: number;
  /** Wall time of the target, ms. */
  ms: number;
  /** The shrunk failing input, as fast-check prints it, or the first failure of a soak, chaos or hostile target. */
  counterexample?: string;
  /** Extra measurements (RSS before and after in MB, its slope, HTTP statuses seen, leaks counted). */
  notes?: Record<string, number | string>;
  /** When the run ended (ISO 8601). */
  at: string;
}

/** A fuzzing target's result: one with a seed. */
export type FuzzResult = ReliabilityResult & { kind: 'in-process' | 'live'; seed: number };

/** The order and the unit of each kind in the generated table. */
const KINDS: Record<ReliabilityResult['kind'], { order: number; unit: string }> = {
  'in-process': { order: 0, unit: 'inputs' },
  live: { order: 1, unit: 'inputs' },
  soak: { order: 2, unit: 'calls' },
  chaos: { order: 3, unit: 'faults' },
  hostile: { order: 4, unit: 'attacks' },
};

/** Its markers name the command that writes it (not `npm run docs`: the numbers come from a test run). */
export const RELIABILITY_SECTION: Markers = { begin: '<!-- BEGIN GENERATED RELIABILITY: npm run test:reliability -->', end: '<!-- END GENERATED RELIABILITY -->' };
const SECTION = RELIABILITY_SECTION;

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The generated section for `results` (any order; rendered by kind, then target). */
export function renderReliability(results: ReliabilityResult[]): string {
  if (!results.length) return wrap(SECTION, '_No results yet: run `npm run test:reliability`._');
  const sorted = [...results].sort((a, b) => KINDS[a.kind].order - KINDS[b.kind].order || a.target.localeCompare(b.target));
  const failed = sorted.filter(r => r.failures > 0);
  const last = sorted.map(r => r.at).sort().at(-1)!;
  const totals = (Object.keys(KINDS) as ReliabilityResult['kind'][])
    .map(kind => ({ kind, n: sorted.filter(r => r.kind === kind).reduce((n, r) => n + r.inputs, 0), any: sorted.some(r => r.kind === kind) }))
    .filter(t => t.any);
  // Fuzzing inputs are counted once for both kinds; the others by what they count.
  const fuzzed = totals.filter(t => KINDS[t.kind].unit === 'inputs').reduce((n, t) => n + t.n, 0);
  const counts = [
    ...(totals.some(t => KINDS[t.kind].unit === 'inputs') ? [`${fuzzed.toLocaleString('en-US')} inputs`] : []),
    ...totals.filter(t => KINDS[t.kind].unit !== 'inputs').map(t => `${t.n.toLocaleString('en-US')} ${t.kind} ${KINDS[t.kind].unit}`),
  ];
  const lines = [
    `Last run: ${last.slice(0, 16).replace('T', ' ')} UTC; ${sorted.length} targets, ${counts.join(', ')}, ${failed.length ? `**${failed.length} failed**` : 'no failure'}.`,
    '',
    '| Target | Kind | Tried | Failures | Time | Seed | Measured |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- |',
    ...sorted.map(r => `| \`${r.target}\` | ${r.kind} | ${r.inputs.toLocaleString('en-US')} ${KINDS[r.kind].unit} | ${r.failures} | ${(r.ms / 1000).toFixed(1)} s | ${r.seed ?? '—'} | ${cell(Object.entries(r.notes ?? {}).map(([k, v]) => `${k} ${v}`).join(', '))} |`),
    '',
    'What each target does and what every input, call, fault or attack must get:',
    '',
    ...sorted.map(r => `- \`${r.target}\`: ${r.what}.`),
  ];
  if (failed.length) {
    lines.push('', 'Counterexamples (shrunk):', '');
    for (const r of failed) lines.push(`- \`${r.target}\`${r.seed !== undefined ? ` (seed ${r.seed})` : ''}: \`${cell(r.counterexample ?? '(none recorded)')}\``);
  }
  return wrap(SECTION, lines.join('\n'));
}

/**
 * The results `doc`'s generated section shows, read back from its rows and its "what" list, for a run of some
 * targets only (`npm run test:reliability -- <filter>`) to keep the others' rows. What a row does not hold is
 * approximated: `at` is the section's "Last run", each note is a string, a counterexample is not read back.
 */
export function parseReliability(doc: string): ReliabilityResult[] {
  const start = doc.indexOf(SECTION.begin);
  const end = doc.indexOf(SECTION.end);
  if (start < 0 || end < start) return [];
  const section = doc.slice(start, end);
  const last = /^Last run: (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/m.exec(section)?.[1];
  const at = last ? `${last.replace(' ', 'T')}:00.000Z` : new Date(0).toISOString();
  const whats = new Map([...section.matchAll(/^- `([^`]+)`: (.*)\.$/gm)].map(m => [m[1]!, m[2]!]));
  const results: ReliabilityResult[] = [];
  for (const m of section.matchAll(/^\| `([^`]+)` \| ([a-z-]+) \| ([\d,]+) [a-z]+ \| (\d+) \| ([\d.]+) s \| ([^|]*) \| (.*) \|$/gm)) {
    const kind = m[2] as ReliabilityResult['kind'];
    if (!(kind in KINDS)) continue;
    const notes = m[7]!.replace(/\\\|/g, '|').trim();
    const seed = m[6]!.trim();
    results.push({
      target: m[1]!, what: whats.get(m[1]!) ?? '', kind, inputs: Number(m[3]!.replace(/,/g, '')), failures: Number(m[4]), ms: Math.round(Number(m[5]) * 1000),
      ...(/^-?\d+$/.test(seed) ? { seed: Number(seed) } : {}),
      ...(notes ? { notes: Object.fromEntries(notes.split(', ').map(n => [n.slice(0, n.indexOf(' ')), n.slice(n.indexOf(' ') + 1)])) } : {}),
      at,
    });
  }
  return results;
}

/**
 * `doc` with its generated section replaced by the one for `results`; with `keep`, the rows of targets that
 * `results` does not have stay as they were (parseReliability).
 */
export function updateReliabilityDoc(doc: string, results: ReliabilityResult[], keep = false): string {
  const ran = new Set(results.map(r => r.target));
  const kept = keep ? parseReliability(doc).filter(r => !ran.has(r.target)) : [];
  return replaceSection(doc, SECTION, renderReliability([...kept, ...results]));
}
