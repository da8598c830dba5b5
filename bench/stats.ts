/**
 * Summary statistics for benchmark samples: median with min and max, quantiles.
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

/**
 * The value at quantile `q` (0..1) of the finite values, by nearest rank (the smallest value with at least
 * `q` of the values at or below it: q = 0.9 of 30 values is the 27th smallest); NaN when there are none.
 */
export function quantile(values: readonly number[], q: number): number {
  const finite = values.filter(v => Number.isFinite(v)).sort((a, b) => a - b);
  if (!finite.length) return NaN;
  return finite[Math.min(finite.length - 1, Math.max(0, Math.ceil(q * finite.length) - 1))]!;
}
