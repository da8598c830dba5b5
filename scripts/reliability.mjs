// `npm run test:reliability [-- --long]`: runs the reliability suite (test/reliability/, docs/reliability.md) and
// writes its numbers into docs/reliability.md.
// - The CI form (default): TABWRIGHT_FUZZ_RUNS=10000 inputs per in-process target, 200 per live target.
// - `--long`: 1,000,000 per in-process target and 20,000 per live target, with no per-test timeout (hours on two cores);
//   the soaks: 1,000 navigations on one server (TABWRIGHT_SOAK_NAVIGATIONS), 10,000 CLI processes and 100,000 HTTP
//   calls on one daemon (TABWRIGHT_SOAK_CLI_CALLS, TABWRIGHT_SOAK_HTTP_CALLS); the hostile console flood: 100,000
//   messages instead of 20,000 (TABWRIGHT_HOSTILE_CONSOLE).
// Each target writes `<target>.json` to TABWRIGHT_RELIABILITY_OUT (default .tabwright/reliability/, replaced each run);
// src/docs/genReliability.ts then merges them into docs/reliability-results.json and renders that into the doc. Other
// arguments are test file filters, as for scripts/test.mjs: a filtered run replaces the rows of the targets it ran.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

const argv = process.argv.slice(2);
const long = argv.includes('--long');
const filters = argv.filter(a => a !== '--long');
const out = process.env.TABWRIGHT_RELIABILITY_OUT || '.tabwright/reliability';
rmSync(out, { recursive: true, force: true });
// No second run of a failed file: a fuzzing failure stays a failure, with its counterexample in the results.
const env = { ...process.env, TABWRIGHT_RELIABILITY_OUT: out, TABWRIGHT_TEST_RETRY: '0' };
if (long) {
  env.TABWRIGHT_FUZZ_RUNS ??= '1000000';
  env.TABWRIGHT_SOAK_NAVIGATIONS ??= '1000';
  env.TABWRIGHT_SOAK_CLI_CALLS ??= '10000';
  env.TABWRIGHT_SOAK_HTTP_CALLS ??= '100000';
  env.TABWRIGHT_HOSTILE_CONSOLE ??= '100000';
  env.TABWRIGHT_TEST_TIMEOUT_MS ??= String(24 * 3600 * 1000);
}
const tests = spawnSync(process.execPath, ['scripts/test.mjs', ...(filters.length ? filters : ['test/reliability/'])], { env, stdio: 'inherit' });
const doc = spawnSync(process.execPath, ['--import', 'tsx', 'src/docs/genReliability.ts', out], { stdio: 'inherit' });
process.exit(tests.status || doc.status || 0);
