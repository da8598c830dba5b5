/**
 * `node --import tsx src/docs/genReliability.ts <results dir>` (run by
 * `npm run test:reliability` after the tests): merges the results directory's
 * `<target>.json` files into docs/reliability-results.json (the latest result
 * of every target: a run replaces the targets it ran and keeps the others'),
 * drops targets no test file of test/reliability/ declares any more, and
 * renders the merged set into docs/reliability.md's generated section
 * (src/docs/reliabilityDoc.ts).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { declaredTargets, mergeResults, updateReliabilityDoc, type ReliabilityResult } from './reliabilityDoc.js';

const DOC = 'docs/reliability.md';
const STORE = 'docs/reliability-results.json';
const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: genReliability.ts <results dir>\n');
  process.exit(2);
}
const fresh = existsSync(dir) ? readdirSync(dir).filter(f => f.endsWith('.json')).map(f => JSON.parse(readFileSync(join(dir, f), 'utf8')) as ReliabilityResult) : [];
const kept = existsSync(STORE) ? JSON.parse(readFileSync(STORE, 'utf8')) as ReliabilityResult[] : [];
const tests = 'test/reliability';
const declared = declaredTargets(readdirSync(tests).filter(f => f.endsWith('.test.ts')).map(f => readFileSync(join(tests, f), 'utf8')));
const results = mergeResults(kept, fresh, declared);
writeFileSync(STORE, `${JSON.stringify(results, null, 1)}\n`);
const current = readFileSync(DOC, 'utf8');
const next = updateReliabilityDoc(current, results);
if (next !== current) writeFileSync(DOC, next);
process.stderr.write(`${next === current ? 'unchanged' : 'wrote'} ${DOC} and ${STORE} (${fresh.length} targets from ${dir}, ${results.length} in all)\n`);
