/**
 * Writes a run's files: <base>.json (raw results), <base>.md (the report)
 * and <base>.svg (the headline chart: the benchmark's targets, and per lens measure
 * the lens where tabwright does worst). Used by run.ts and render.ts.
 */
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { headlines, lensHeadlines, worstLensRows } from './headline.js';
import { renderMarkdown } from './report.js';
import { renderSvg } from './svg.js';
import type { Results } from './types.js';

/** Writes the report and chart, and the raw results too unless `json` is false. */
export function writeReport(results: Results, base: string, opts: { json: boolean }): void {
  if (opts.json) writeFileSync(`${base}.json`, JSON.stringify(results, null, 1) + '\n');
  writeFileSync(`${base}.svg`, renderSvg([...headlines(results), ...worstLensRows(lensHeadlines(results))], `tabwright vs the better peer · ${results.startedAt.slice(0, 10)}`));
  writeFileSync(`${base}.md`, renderMarkdown(results, `${basename(base)}.svg`));
}
