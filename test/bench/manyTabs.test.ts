// Unit tests of bench/manyTabs.ts's table and verdict: medians per N in ascending order, the first call's p90,
// timed-out calls counted (not averaged in), and "flat" only when the largest N is within 1.5× of the smallest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { manyTabsTable, manyTabsVerdict, type ManyTabsRow } from '../../bench/manyTabs.js';

const row = (tabs: number, firstCall: number[], playwright = [100, 100, 100]): ManyTabsRow => ({ tabs, firstCall, listTabs: [5, 7, 6], playwright });

test('manyTabsTable: one row per N in ascending order, medians, the first call\'s p90, the verdict under it', () => {
  const table = manyTabsTable([row(200, [640, 700, 620], [900, 1000, 950]), row(0, [600, 580, 610])]);
  assert.deepEqual(table.split('\n'), [
    '| tabs open | tabwright first call (`open_tab`): median (p90) | tabwright `list_tabs`: median | Playwright `connectOverCDP` + `newPage`: median |',
    '|---:|---:|---:|---:|',
    '| 0 | 600 ms (p90 610 ms) | 6 ms | 100 ms |',
    '| 200 | 640 ms (p90 700 ms) | 6 ms | 950 ms |',
    '',
    'Verdict: flat: tabwright\'s first call with 200 tabs is 1.07× its time with 0 (≤ 1.5×).',
    '',
  ]);
});

test('manyTabsTable: timed-out calls are counted beside the median of the others', () => {
  const table = manyTabsTable([row(0, [600, 600, 600]), row(50, [600, 600, 600], [NaN, 300, NaN])]);
  assert.match(table, /\| 50 \| 600 ms \(p90 600 ms\) \| 6 ms \| 300 ms, 2\/3 timed out \(> 60 s\) \|/);
  assert.match(manyTabsTable([row(0, [NaN])]), /\| 0 \| 1\/1 timed out \(> 60 s\) \|/);
});

test('manyTabsVerdict: over 1.5× or a timeout at the largest N is not flat; one N compares nothing', () => {
  assert.equal(manyTabsVerdict([row(0, [400]), row(200, [601])]), 'Verdict: not flat: tabwright\'s first call with 200 tabs is 1.50× its time with 0 (> 1.5×).');
  assert.match(manyTabsVerdict([row(0, [400]), row(200, [600])]), /^Verdict: flat: .* 1\.50× .*\(≤ 1\.5×\)\.$/);
  assert.equal(manyTabsVerdict([row(0, [400]), row(200, [500, NaN])]), 'Verdict: not flat: tabwright\'s first call timed out with 200 tabs.');
  assert.equal(manyTabsVerdict([row(50, [400])]), 'Verdict: needs two tab counts to compare.');
});
