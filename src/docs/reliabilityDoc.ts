/**
 * The numbers of docs/reliability.md: what the reliability suite's last run
 * measured (test/reliability/, `npm run test:reliability`), one JSON file per
 * target in the results directory, rendered as the doc's generated section.
 */
import { replaceSection, wrap, type Markers } from './sections.js';

/** One fuzzing target's numbers, as test/reliability/fuzz.ts writes them to `<results dir>/<target>.json`. */
export interface FuzzResult {
  target: string;
  /** What is fuzzed and what every input must get. */
  what: string;
  /** `in-process`: the real parser called directly; `live`: over a real socket or pipe (a server process, or a listener in the test's). */
  kind: 'in-process' | 'live';
  /** Inputs tried. */
  inputs: number;
  /** 0, or 1 when an input broke the property (fast-check stops at the first and shrinks it). */
  failures: number;
  /** fast-check's seed: TABWRIGHT_FUZZ_SEED=<seed> replays the run. */
  seed: number;
  /** Wall time of the target, ms. */
  ms: number;
  /** The shrunk failing input, as fast-check prints it. */
  counterexample?: string;
  /** Extra measurements (RSS before and after in MB, HTTP statuses seen). */
  notes?: Record<string, number | string>;
  /** When the run ended (ISO 8601). */
  at: string;
}

/** Its markers name the command that writes it (not `npm run docs`: the numbers come from a test run). */
export const RELIABILITY_SECTION: Markers = { begin: '<!-- BEGIN GENERATED RELIABILITY: npm run test:reliability -->', end: '<!-- END GENERATED RELIABILITY -->' };
const SECTION = RELIABILITY_SECTION;

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The generated section for `results` (any order; rendered by kind, then target). */
export function renderReliability(results: FuzzResult[]): string {
  if (!results.length) return wrap(SECTION, '_No results yet: run `npm run test:reliability`._');
  const sorted = [...results].sort((a, b) => a.kind.localeCompare(b.kind) || a.target.localeCompare(b.target));
  const inputs = sorted.reduce((n, r) => n + r.inputs, 0);
  const failed = sorted.filter(r => r.failures > 0);
  const last = sorted.map(r => r.at).sort().at(-1)!;
  const lines = [
    `Last run: ${last.slice(0, 16).replace('T', ' ')} UTC; ${sorted.length} targets, ${inputs.toLocaleString('en-US')} inputs, ${failed.length ? `**${failed.length} failed**` : 'no failure'}.`,
    '',
    '| Target | Kind | Inputs | Failures | Time | Seed | Measured |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- |',
    ...sorted.map(r => `| \`${r.target}\` | ${r.kind} | ${r.inputs.toLocaleString('en-US')} | ${r.failures} | ${(r.ms / 1000).toFixed(1)} s | ${r.seed} | ${cell(Object.entries(r.notes ?? {}).map(([k, v]) => `${k} ${v}`).join(', '))} |`),
    '',
    'What each target feeds in and what every input must get:',
    '',
    ...sorted.map(r => `- \`${r.target}\`: ${r.what}.`),
  ];
  if (failed.length) {
    lines.push('', 'Counterexamples (shrunk):', '');
    for (const r of failed) lines.push(`- \`${r.target}\` (seed ${r.seed}): \`${cell(r.counterexample ?? '(none recorded)')}\``);
  }
  return wrap(SECTION, lines.join('\n'));
}

/** `doc` with its generated section replaced by the one for `results`. */
export function updateReliabilityDoc(doc: string, results: FuzzResult[]): string {
  return replaceSection(doc, SECTION, renderReliability(results));
}
