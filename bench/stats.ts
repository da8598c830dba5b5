/**
 * Summary statistics for benchmark samples: median with min and max.
 * Pure functions, no I/O (unit-tested in test/bench/stats.test.ts).
 */

/** Median, minimum, maximum and count of a set of samples. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** The median of `values` (mean of the two middle values for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  const finite = values.filter(v => Number.isFinite(v)).sort((a, b) => a - b);
  if (!finite.length) return NaN;
  const mid = finite.length >> 1;
  return finite.length % 2 ? finite[mid]! : (finite[mid - 1]! + finite[mid]!) / 2;
}

/** Median, min and max of the finite values; undefined when there are none. */
export function summarize(values: readonly number[]): Summary | undefined {
  const finite = values.filter(v => Number.isFinite(v));
  if (!finite.length) return undefined;
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite), n: finite.length };
}
