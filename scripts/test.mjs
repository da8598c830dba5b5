// Runs every test/**/*.test.ts with node's test runner (TypeScript through tsx), one file at a time:
// the end-to-end tests each start a real browser, and this machine has 2 cores.
// Extra arguments are file filters: `npm test -- corpus` runs the files whose path contains "corpus".
// `--connection cdp|playwright-server` runs them against a remote browser (TABWRIGHT_TEST_CONNECTION):
// `npm test -- --connection cdp test/tools test/smoke`.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap(e =>
    e.isDirectory() ? (e.name === 'fixtures' ? [] : find(join(dir, e.name))) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : []);
}
const argv = process.argv.slice(2);
const at = argv.indexOf('--connection');
const env = { ...process.env };
if (at >= 0) {
  env.TABWRIGHT_TEST_CONNECTION = argv[at + 1];
  argv.splice(at, 2);
}
// The suite reads the tools' fields through structuredContent, so its servers run with --structured-content
// (a superset of the text). test/tools/clientLens.test.ts runs the default (content only) and both through the
// client lens (test/fixtures/clientLens.ts).
env.TABWRIGHT_STRUCTURED_CONTENT ??= '1';
const filters = argv;
const files = find('test').filter(f => !filters.length || filters.some(x => f.includes(x))).sort();
if (!files.length) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-timeout=300000', ...files], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
