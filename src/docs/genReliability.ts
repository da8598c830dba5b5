/**
 * `node --import tsx src/docs/genReliability.ts <results dir> [--keep]` (run by
 * `npm run test:reliability` after the tests): writes the numbers of the
 * results directory's `<target>.json` files into docs/reliability.md's
 * generated section (src/docs/reliabilityDoc.ts). `--keep` (a run of some
 * targets only) keeps the rows of the targets the directory has no file for.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { updateReliabilityDoc, type ReliabilityResult } from './reliabilityDoc.js';

const DOC = 'docs/reliability.md';
const dir = process.argv[2];
const keep = process.argv.includes('--keep');
if (!dir) {
  process.stderr.write('usage: genReliability.ts <results dir>\n');
  process.exit(2);
}
const results = readdirSync(dir).filter(f => f.endsWith('.json')).map(f => JSON.parse(readFileSync(join(dir, f), 'utf8')) as ReliabilityResult);
const current = readFileSync(DOC, 'utf8');
const next = updateReliabilityDoc(current, results, keep);
if (next !== current) writeFileSync(DOC, next);
process.stderr.write(`${next === current ? 'unchanged' : 'wrote'} ${DOC} (${results.length} targets from ${dir})\n`);
