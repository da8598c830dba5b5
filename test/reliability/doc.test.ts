/**
 * docs/reliability.md's generated section (src/docs/reliabilityDoc.ts) is
 * well formed and lists every target of test/reliability/ (a fuzzing
 * target's `fuzz('name'`, a soak, chaos or hostile target's `target: 'name'`
 * given to `record`): the doc is regenerated (`npm run test:reliability`)
 * when a target is added. Its numbers change with every run, so they are not
 * compared.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../fixtures/mcp.js';
import { declaredTargets, mergeResults, RELIABILITY_SECTION, renderReliability, type ReliabilityResult } from '../../src/docs/reliabilityDoc.js';

test('docs/reliability.md has a generated section with a row for every target', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'reliability.md'), 'utf8');
  const start = doc.indexOf(RELIABILITY_SECTION.begin);
  const end = doc.indexOf(RELIABILITY_SECTION.end);
  assert.ok(start >= 0 && end > start, 'the generated section\'s markers');
  const section = doc.slice(start, end);
  const dir = join(ROOT, 'test', 'reliability');
  const targets = [...declaredTargets(readdirSync(dir).filter(f => f.endsWith('.test.ts') && f !== 'doc.test.ts').map(f => readFileSync(join(dir, f), 'utf8')))];
  assert.ok(targets.length >= 10, `found ${targets.length} targets`);
  for (const target of targets) assert.match(section, new RegExp(`^\\| \`${target}\` \\| (in-process|live|soak|chaos|hostile) \\| [\\d,]+ [a-z]+ \\| \\d+ \\|`, 'm'), `${target} has no row: run npm run test:reliability -- <its file>`);
  // The section is the rendering of docs/reliability-results.json.
  const stored = JSON.parse(readFileSync(join(ROOT, 'docs', 'reliability-results.json'), 'utf8')) as ReliabilityResult[];
  assert.equal(section + RELIABILITY_SECTION.end, renderReliability(stored));
});

test('the section renders each result as a row and a failure with its counterexample', () => {
  const result = { target: 't-x', what: 'W', kind: 'live' as const, inputs: 12345, failures: 1, seed: 7, ms: 1500, counterexample: '["a|b"]', notes: { rssAfterMb: 3 }, at: '2026-01-02T03:04:05.000Z' };
  const section = renderReliability([result]);
  assert.match(section, /^\| `t-x` \| live \| 12,345 inputs \| 1 \| 1\.5 s \| 7 \| 2026-01-02 \| rssAfterMb 3 \|$/m);
  assert.match(section, /\*\*1 failed\*\*/);
  assert.match(section, /`\["a\\\|b"\]`/);
});

test('a soak, chaos or hostile result renders with its unit, no seed, and its own total', () => {
  const at = '2026-01-02T03:04:05.000Z';
  const section = renderReliability([
    { target: 'f', what: 'F', kind: 'in-process', inputs: 10, failures: 0, seed: 1, ms: 10, at },
    { target: 'c', what: 'C', kind: 'chaos', inputs: 100, failures: 0, ms: 2000, notes: { survived: 100 }, at },
  ]);
  assert.match(section, /^\| `c` \| chaos \| 100 faults \| 0 \| 2\.0 s \| — \| 2026-01-02 \| survived 100 \|$/m);
  assert.match(section, /2 targets, 10 inputs, 100 chaos faults, no failure/);
  // Fuzzing rows first, then soak, chaos and hostile.
  assert.ok(section.indexOf('| `f` |') < section.indexOf('| `c` |'));
});

test('a run replaces the stored results of the targets it ran, keeps the others, and drops targets no file declares', () => {
  const at = '2026-01-02T03:04:05.000Z';
  const r = (target: string, inputs: number): ReliabilityResult => ({ target, what: 'W', kind: 'in-process', inputs, failures: 0, seed: 1, ms: 1, at });
  const declared = declaredTargets(["await fuzz('a-x', 'w', p);", "record({ target: 'b-y', kind: 'chaos' });", "fuzz('c-z', 'w', p)"]);
  assert.deepEqual([...declared], ['a-x', 'b-y', 'c-z']);
  const merged = mergeResults([r('a-x', 1_000_000), r('c-z', 5), r('gone', 9)], [r('c-z', 10_000), r('b-y', 100)], declared);
  assert.deepEqual(merged.map(m => [m.target, m.inputs]), [['a-x', 1_000_000], ['b-y', 100], ['c-z', 10_000]]);
});
