/**
 * Re-renders the report (.md) and chart (.svg) of an earlier run from its
 * raw results, e.g. after the report format changed:
 * `npx tsx bench/render.ts bench/results/<date>.json`.
 */
import { readFileSync } from 'node:fs';
import { writeReport } from './output.js';
import type { Results } from './types.js';

const file = process.argv[2];
if (!file?.endsWith('.json')) {
  process.stderr.write('usage: npx tsx bench/render.ts bench/results/<date>.json\n');
  process.exit(2);
}
const base = file.slice(0, -'.json'.length);
writeReport(JSON.parse(readFileSync(file, 'utf8')) as Results, base, { json: false });
process.stderr.write(`wrote ${base}.md and ${base}.svg\n`);
