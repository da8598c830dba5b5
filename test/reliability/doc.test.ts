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
import { parseReliability, RELIABILITY_SECTION, renderReliability, updateReliabilityDoc } from '../../src/docs/reliabilityDoc.js';

test('docs/reliability.md has a generated section with a row for every target', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'reliability.md'), 'utf8');
  const start = doc.indexOf(RELIABILITY_SECTION.begin);
  const end = doc.indexOf(RELIABILITY_SECTION.end);
  assert.ok(start >= 0 && end > start, 'the generated section\'s markers');
  const section = doc.slice(start, end);
  const dir = join(ROOT, 'test', 'reliability');
  const targets = readdirSync(dir).filter(f => f.endsWith('.test.ts') && f !== 'doc.test.ts').flatMap(f => [...readFileSync(join(dir, f), 'utf8').matchAll(/\bfuzz\('([a-z0-9-]+)'|\btarget: '([a-z0-9-]+)'/g)].map(m => m[1] ?? m[2]!));
  assert.ok(targets.length >= 10, `found ${targets.length} targets`);
  for (const target of targets) assert.match(section, new RegExp(`^\\| \`${target}\` \\| (in-process|live|soak|chaos|hostile) \\| [\\d,]+ [a-z]+ \\| \\d+ \\|`, 'm'), `${target} has no row: run npm run test:reliability`);
});

test('the section renders each result as a row and a failure with its counterexample', () => {
  const result = { target: 't-x', what: 'W', kind: 'live' as const, inputs: 12345, failures: 1, seed: 7, ms: 1500, counterexample: '["a|b"]', notes: { rssAfterMb: 3 }, at: '2026-01-02T03:04:05.000Z' };
  const section = renderReliability([result]);
  assert.match(section, /^\| `t-x` \| live \| 12,345 inputs \| 1 \| 1\.5 s \| 7 \| rssAfterMb 3 \|$/m);
  assert.match(section, /\*\*1 failed\*\*/);
  assert.match(section, /`\["a\\\|b"\]`/);
});

test('a soak, chaos or hostile result renders with its unit, no seed, and its own total', () => {
  const at = '2026-01-02T03:04:05.000Z';
  const section = renderReliability([
    { target: 'f', what: 'F', kind: 'in-process', inputs: 10, failures: 0, seed: 1, ms: 10, at },
    { target: 'c', what: 'C', kind: 'chaos', inputs: 100, failures: 0, ms: 2000, notes: { survived: 100 }, at },
  ]);
  assert.match(section, /^\| `c` \| chaos \| 100 faults \| 0 \| 2\.0 s \| — \| survived 100 \|$/m);
  assert.match(section, /2 targets, 10 inputs, 100 chaos faults, no failure/);
  // Fuzzing rows first, then soak, chaos and hostile.
  assert.ok(section.indexOf('| `f` |') < section.indexOf('| `c` |'));
});

test('a run of some targets keeps the other rows: the section reads back as it renders', () => {
  const at = '2026-01-02T03:04:00.000Z';
  const old = [
    { target: 'f', what: 'F, with a comma', kind: 'in-process' as const, inputs: 10, failures: 0, seed: 1, ms: 1500, at },
    { target: 's', what: 'S', kind: 'soak' as const, inputs: 100, failures: 0, ms: 2000, notes: { slopeMbPer100: '1.5', answers: '200 ×3; 404 ×1' }, at },
  ];
  const doc = `# T\n\n${renderReliability(old)}\n`;
  assert.deepEqual(parseReliability(doc), old);
  const next = updateReliabilityDoc(doc, [{ target: 's', what: 'S2', kind: 'soak', inputs: 7, failures: 0, ms: 1000, at: '2026-02-02T00:00:00.000Z' }], true);
  assert.match(next, /^\| `f` \| in-process \| 10 inputs \|/m);
  assert.match(next, /^\| `s` \| soak \| 7 calls \|/m);
  assert.doesNotMatch(next, /100 calls/);
  assert.doesNotMatch(updateReliabilityDoc(doc, [], false), /`f`/);
});
