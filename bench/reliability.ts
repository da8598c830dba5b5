/**
 * The reliability suite's numbers in the bench report (docs/reliability.md): the results `npm run test:reliability`
 * left in its results dir (TABWRIGHT_RELIABILITY_OUT, default `.tabwright/reliability/`), copied into the bench's
 * results so a re-render keeps them, and summed per kind: inputs fuzzed, soak calls and RSS slope, faults survived,
 * attacks refused.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReliabilityResult } from '../src/docs/reliabilityDoc.js';
import { table } from './markdown.js';

/**
 * The results in `dir` (one `<target>.json` per target), or `[]` when the dir is missing.
 * @throws SyntaxError when a file there is not JSON
 */
export function loadReliability(dir: string): ReliabilityResult[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter(f => f.endsWith('.json')).sort().map(f => JSON.parse(readFileSync(join(dir, f), 'utf8')) as ReliabilityResult);
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
  if (!results?.length) return 'No reliability results on this machine: run `npm run test:reliability` before `npm run bench` to have them here (docs/reliability.md).';
  const last = results.map(r => r.at).sort().at(-1)!;
  const rows = KIND_ROWS.flatMap(({ kinds, label, unit }) => {
    const of = results.filter(r => kinds.includes(r.kind));
    if (!of.length) return [];
    const tried = of.reduce((n, r) => n + r.inputs, 0);
    const failed = of.reduce((n, r) => n + r.failures, 0);
    const extra = label === 'Soak' ? slopes(of) : '';
    return [[label, String(of.length), `${tried.toLocaleString('en-US')} ${unit}`, (tried - failed).toLocaleString('en-US'), String(failed), extra]];
  });
  return `From the reliability suite's last run on this machine (${last.slice(0, 16).replace('T', ' ')} UTC; per target in docs/reliability.md).\n\n${table(['Kind', 'Targets', 'Tried', 'Held', 'Failed', 'Measured'], rows)}`;
}
