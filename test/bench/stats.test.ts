// Unit tests of the bench's statistics (bench/stats.ts): median, min, max.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { median, summarize } from '../../bench/stats.js';

test('median of odd and even counts, unsorted input', () => {
  assert.equal(median([5, 1, 3]), 3);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([7]), 7);
});

test('median ignores non-finite values and is NaN when nothing is left', () => {
  assert.equal(median([1, NaN, 3, Infinity]), 2);
  assert.ok(Number.isNaN(median([])));
  assert.ok(Number.isNaN(median([NaN])));
});

test('summarize gives median, min, max and count', () => {
  assert.deepEqual(summarize([10, 30, 20, 40]), { median: 25, min: 10, max: 40, n: 4 });
  assert.deepEqual(summarize([2]), { median: 2, min: 2, max: 2, n: 1 });
  assert.equal(summarize([]), undefined);
  assert.equal(summarize([NaN]), undefined);
});

test('summarize does not reorder its input', () => {
  const input = [3, 1, 2];
  summarize(input);
  assert.deepEqual(input, [3, 1, 2]);
});
