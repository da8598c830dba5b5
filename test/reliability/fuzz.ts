/**
 * The fuzzing harness of the reliability suite (docs/reliability.md): runs
 * one fast-check property per target with a known seed, and, when
 * TABWRIGHT_RELIABILITY_OUT names a directory, writes the target's numbers
 * there as `<target>.json` (src/docs/reliabilityDoc.ts ReliabilityResult, which that file renders).
 *
 * - TABWRIGHT_FUZZ_RUNS: inputs per in-process target (default 10,000; the long form 1,000,000).
 * - TABWRIGHT_FUZZ_LIVE_RUNS: inputs per live target (a real server process): default RUNS / 50.
 * - TABWRIGHT_FUZZ_SEED: the seed (default: one drawn per run, printed and recorded), to replay a failure.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FuzzResult, ReliabilityResult } from '../../src/docs/reliabilityDoc.js';

export const RUNS = Math.max(1, Number(process.env.TABWRIGHT_FUZZ_RUNS) || 10_000);
export const LIVE_RUNS = Math.max(1, Number(process.env.TABWRIGHT_FUZZ_LIVE_RUNS) || Math.ceil(RUNS / 50));
const SEED = process.env.TABWRIGHT_FUZZ_SEED !== undefined ? Number(process.env.TABWRIGHT_FUZZ_SEED) : (Date.now() ^ (process.pid << 16)) | 0;

/**
 * Writes `result` to `<TABWRIGHT_RELIABILITY_OUT>/<target>.json` when that variable is set (a fuzzing target's,
 * or a soak, chaos or hostile target's numbers: docs/reliability.md renders them). Give the target as a literal
 * `target: 'name'` in the test file: test/reliability/doc.test.ts finds it there.
 */
export function record(result: ReliabilityResult): void {
  const dir = process.env.TABWRIGHT_RELIABILITY_OUT;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${result.target}.json`), `${JSON.stringify(result, null, 1)}\n`);
}

/**
 * Checks `property` on `runs` inputs (RUNS, or LIVE_RUNS for a live target), records the numbers and fails
 * with fast-check's report (seed, shrunk counterexample) if an input broke it. `notes` is read after the run.
 */
export async function fuzz<T>(
  target: string,
  what: string,
  property: fc.IProperty<T> | fc.IAsyncProperty<T>,
  opts: { kind?: FuzzResult['kind']; runs?: number; notes?: () => Record<string, number | string> } = {},
): Promise<void> {
  const kind = opts.kind ?? 'in-process';
  const runs = opts.runs ?? (kind === 'live' ? LIVE_RUNS : RUNS);
  const started = Date.now();
  const details = await fc.check(property as fc.IAsyncProperty<T>, { numRuns: runs, seed: SEED, endOnFailure: false });
  const result: FuzzResult = {
    target,
    what,
    kind,
    inputs: details.numRuns,
    failures: details.failed ? 1 : 0,
    seed: SEED,
    ms: Date.now() - started,
    ...(details.counterexample ? { counterexample: fc.stringify(details.counterexample).slice(0, 2000) } : {}),
    ...(opts.notes ? { notes: opts.notes() } : {}),
    at: new Date().toISOString(),
  };
  record(result);
  assert.ok(!details.failed, `${target}: ${fc.defaultReportMessage(details) ?? 'failed'}\n${String((details.errorInstance as Error | undefined)?.stack ?? details.errorInstance).slice(0, 3000)}`);
}

/** This process's resident set size, in MB. */
export function rssMb(pid?: number): number {
  if (pid === undefined) return process.memoryUsage().rss / 1024 / 1024;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
}
