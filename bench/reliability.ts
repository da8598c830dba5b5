/**
 * The reliability suite's numbers in the bench report (docs/reliability.md): each target's latest result, as
 * `npm run test:reliability` keeps them in docs/reliability-results.json, copied into the bench's results so a
 * re-render keeps them, and summed per kind: inputs fuzzed, soak calls and RSS slope, faults survived, attacks refused.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { ReliabilityResult } from '../src/docs/reliabilityDoc.js';
import { table } from './markdown.js';

/**
 * The results stored in `file` (docs/reliability-results.json: an array of ReliabilityResult), or `[]` when it is missing.
 * @throws SyntaxError when the file is not JSON
 */
export function loadReliability(file: string): ReliabilityResult[] {
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as ReliabilityResult[] : [];
}

const KIND_ROWS: Array<{ kinds: ReliabilityResult['kind'][]; label: string; unit: string }> = [
  { kinds: ['in-process', 'live'], label: 'Fuzzing', unit: 'inputs' },
  { kinds: ['soak'], label: 'Soak', unit: 'calls' },
  { kinds: ['chaos'], label: 'Chaos', unit: 'faults injected' },
  { kinds: ['hostile'], label: 'Hostile pages', unit: 'attacks' },
];

/** The soak targets' RSS slopes (`slopeMbPer100` in their notes), as `target 0.4 MB`. */
function slopes(results: ReliabilityResult[]): string {
  return results.filter(r => r.kind === 'soak' && r.notes?.slopeMbPer100 !== undefined)
    .map(r => `${r.target} ${r.notes!.slopeMbPer100} MB per 100 navigations`).join('; ');
}

/** The report's section: one row per kind (targets, tried, held, failed), or how to get the numbers. */
export function reliabilitySection(results: ReliabilityResult[] | undefined): string {
  if (!results?.length) return 'No reliability results: run `npm run test:reliability` (docs/reliability.md).';
  const times = results.map(r => r.at).sort();
  const rows = KIND_ROWS.flatMap(({ kinds, label, unit }) => {
    const of = results.filter(r => kinds.includes(r.kind));
    if (!of.length) return [];
    const tried = of.reduce((n, r) => n + r.inputs, 0);
    const failed = of.reduce((n, r) => n + r.failures, 0);
    const extra = label === 'Soak' ? slopes(of) : '';
    return [[label, String(of.length), `${tried.toLocaleString('en-US')} ${unit}`, (tried - failed).toLocaleString('en-US'), String(failed), extra]];
  });
  return `Each target's latest run of the reliability suite, ${times[0]!.slice(0, 10)} to ${times.at(-1)!.slice(0, 10)} (docs/reliability-results.json; per target in docs/reliability.md).\n\n${table(['Kind', 'Targets', 'Tried', 'Held', 'Failed', 'Measured'], rows)}`;
}
