// Runs every test/**/*.test.ts with node's test runner (TypeScript through tsx), two files at a time
// (TABWRIGHT_TEST_JOBS=N for another number; 1 runs them one by one; a file of HEAVY counts as two). The files of SERIAL run alone, with no
// other file beside them: the reason is written next to each. Each file's output is printed in one piece when
// it ends; a summary at the end gives the totals and the slowest files.
// Extra arguments are file filters: `npm test -- corpus` runs the files whose path contains "corpus".
// `--connection cdp|playwright-server|own-chrome|own-chrome-approval` runs them against a browser tabwright attaches to
// (TABWRIGHT_TEST_CONNECTION, docs/attach.md), leaving out the files of CONNECTION_INDEPENDENT:
// `npm test -- --connection cdp test/tools test/smoke`.
// `--times FILE` writes each file's duration (ms) and counts to FILE as JSON. `--record-durations` merges them into
// test/durations.json (file: seconds, the largest seen on any connection), which orders every run: the longest
// files start first, so a long file never starts last with the other job idle (longest-processing-time first).
// TABWRIGHT_TEST_TIMEOUT_MS: the per-test timeout (default 300000; the reliability suite's long form raises it).
// A failed file runs once more, alone, and counts as flaky if it then passes (TABWRIGHT_TEST_RETRY=0: no retry).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Files that run alone, and why. Everything else runs beside one other file: each test file binds only
 * ports it got from port 0, uses its own temporary profiles and dirs, and finds processes by those paths.
 */
const SERIAL = new Map([
  // They assert how long a call takes around a 2 s max-wait (within 1 s to 1.5 s) or how far apart progress
  // beats are (within 150 ms): another file's browser beside them would eat those margins.
  ['test/dispatch/pending.test.ts', 'measures heartbeat gaps of 100-250 ms'],
  ['test/tools/pending.test.ts', 'measures answers around a 2 s max-wait (1 s margin)'],
  ['test/daemon/pending.test.ts', 'measures answers around a 2 s max-wait (1.5 s margin)'],
  ['test/relay/pending.test.ts', 'measures answers around a 2 s max-wait (1 s margin)'],
]);

/**
 * Files that take two of the `jobs` slots, and why: with three at a time they ran beside two other browser-heavy
 * files and passed node's 300 s per-file limit; beside one they pass.
 */
const HEAVY = new Map([
  ['test/attach/httpSessions.test.ts', 'eight MCP sessions at once, 10 rounds each, on the daemon and on an attached browser'],
  ['test/attach/sessions.test.ts', 'eight MCP sessions at once, 10 navigations and snapshots each'],
]);

/**
 * Files of test/tools whose tests exercise what no browser connection changes, and why: they run in the default
 * lane (the managed browser) only, and `--connection` leaves them out (saying so). What they call through a page goes
 * the same way as the WebMCP, input and navigation tests that every connection kind runs.
 */
const CONNECTION_INDEPENDENT = new Map([
  ['test/tools/pending.test.ts', 'the dispatcher\'s max-wait, heartbeat and wait_for_call (src/dispatch/), timed around a 2 s max-wait'],
  ['test/tools/consent.test.ts', 'the consent gate\'s decisions, prompts, expiry and saved answers (src/consent/)'],
  ['test/tools/consentCode.test.ts', 'consent rules and grants for execute and add_element (src/consent/)'],
  ['test/tools/consentTerminal.test.ts', 'the consent gate\'s terminal channel under a pty (src/consent/)'],
  ['test/tools/recordingShutdown.test.ts', 'a recording finalized when the server exits: the shutdown path (src/serve.ts, Session.close) is the same on every kind'],
  ['test/tools/resultSize.test.ts', 'the result bound and its token estimate (src/tools/resultSize.ts)'],
  ['test/tools/scriptSync.test.ts', 'the script store\'s folder sync (src/userscripts/)'],
  ['test/tools/webmcpHandbook.test.ts', 'the WebMCP handbook\'s examples under native WebMCP and the polyfill: two servers whose browsers differ in the WebMCP feature, which an attached browser\'s own switches decide'],
  ['test/tools/webmcpDifferential.test.ts', 'native WebMCP and the polyfill giving the same answers: two servers whose browsers differ in the WebMCP feature, which an attached browser\'s own switches decide'],
]);

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap(e =>
    e.isDirectory() ? (e.name === 'fixtures' ? [] : find(join(dir, e.name))) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : []);
}
const argv = process.argv.slice(2);
const env = { ...process.env };
const option = name => {
  const at = argv.indexOf(name);
  if (at < 0) return undefined;
  const [, value] = argv.splice(at, 2);
  return value;
};
const connection = option('--connection');
// `own-chrome-approval`: the own-chrome tests against a headed Chromium in approval mode under Xvfb, every
// "Allow remote debugging?" answered by xdotool (test/fixtures/ownChrome.ts).
if (connection === 'own-chrome-approval') {
  env.TABWRIGHT_TEST_CONNECTION = 'own-chrome';
  env.TABWRIGHT_TEST_OWN_CHROME = 'approval';
} else if (connection) env.TABWRIGHT_TEST_CONNECTION = connection;
const timesFile = option('--times');
const recordDurations = argv.includes('--record-durations');
if (recordDurations) argv.splice(argv.indexOf('--record-durations'), 1);
/** test/durations.json: seconds per file from earlier runs; a file not in it counts as the median. */
const DURATIONS = 'test/durations.json';
const durations = existsSync(DURATIONS) ? JSON.parse(readFileSync(DURATIONS, 'utf8')) : {};
// The suite reads the tools' fields through structuredContent, so its servers run with --structured-content
// (a superset of the text). test/tools/clientLens.test.ts runs the default (content only) and both through the
// client lens (test/fixtures/clientLens.ts).
env.TABWRIGHT_STRUCTURED_CONTENT ??= '1';
// No dashboard unless a test asks for one ('0'): parallel servers would contend for its port, and a dashboard makes
// consent prompts answerable, so a call a test expects to fail with consent_unavailable would wait instead.
env.TABWRIGHT_DASHBOARD_PORT ??= 'off';
const jobs = Math.max(1, Number(env.TABWRIGHT_TEST_JOBS) || 2);
const filters = argv;
const matched = find('test').filter(f => !filters.length || filters.some(x => f.includes(x))).sort();
const files = connection ? matched.filter(f => !CONNECTION_INDEPENDENT.has(f)) : matched;
if (files.length < matched.length) console.log(`ℹ on --connection ${connection}, left to the default lane (connection-independent, scripts/test.mjs): ${matched.filter(f => CONNECTION_INDEPENDENT.has(f)).join(', ')}`);
if (!files.length) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}

/** Runs one file in its own `node --test`; resolves with its exit code, output, counts and duration. */
function runFile(file) {
  return new Promise(resolve => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-timeout=${Number(env.TABWRIGHT_TEST_TIMEOUT_MS) || 300000}`, file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', chunk => (out += chunk));
    child.stderr.on('data', chunk => (out += chunk));
    child.on('close', (code, signal) => {
      const count = name => Number(new RegExp(`^ℹ ${name} (\\d+)$`, 'm').exec(out)?.[1] ?? 0);
      resolve({ file, code: code ?? 1, signal, out, ms: Date.now() - started, tests: count('tests'), pass: count('pass'), fail: count('fail'), skipped: count('skipped'), todo: count('todo'), cancelled: count('cancelled') });
    });
  });
}

const started = Date.now();
const results = [];
function report(result) {
  results.push(result);
  const status = result.code === 0 ? 'ok' : `FAILED (exit ${result.signal ?? result.code})`;
  process.stdout.write(`\n━━ ${result.file} — ${status}, ${(result.ms / 1000).toFixed(1)} s\n${result.out}`);
}

// Serial files first, each alone; then the rest, `jobs` at a time, longest first.
for (const file of files.filter(f => SERIAL.has(f))) report(await runFile(file));
const known = Object.values(durations).sort((a, b) => a - b);
const guess = known.length ? known[Math.floor(known.length / 2)] : 0;
const queue = files.filter(f => !SERIAL.has(f)).sort((a, b) => (durations[b] ?? guess) - (durations[a] ?? guess) || a.localeCompare(b));
// A file takes one slot, a HEAVY one two (all of them when jobs < 2); the first queued file that fits starts.
const weight = file => Math.min(jobs, HEAVY.has(file) ? 2 : 1);
await new Promise(resolve => {
  let used = 0;
  const fill = () => {
    for (let i = 0; i < queue.length;) {
      const file = queue[i];
      if (used + weight(file) > jobs) {
        i++;
        continue;
      }
      queue.splice(i, 1);
      used += weight(file);
      void runFile(file).then(result => {
        used -= weight(file);
        report(result);
        fill();
      });
    }
    if (!queue.length && !used) resolve();
  };
  fill();
});

// A file that failed runs once more, alone (TABWRIGHT_TEST_RETRY=0 to not): on these shared 2-core machines a file
// beside another browser-heavy file can miss a margin. A file that passes alone is reported as flaky, with its first
// failure, below; one that fails again stays failed. More than 3 failed files is no flake: none runs again.
const flaky = [];
if (env.TABWRIGHT_TEST_RETRY !== '0' && results.filter(r => r.code !== 0).length <= 3) {
  for (const first of results.filter(r => r.code !== 0)) {
    const again = await runFile(first.file);
    process.stdout.write(`\n━━ ${first.file} (again, alone) — ${again.code === 0 ? 'ok' : `FAILED (exit ${again.signal ?? again.code})`}, ${(again.ms / 1000).toFixed(1)} s\n${again.out}`);
    results[results.indexOf(first)] = again;
    if (again.code === 0) flaky.push(first);
  }
}

const wall = Date.now() - started;
const sum = key => results.reduce((n, r) => n + r[key], 0);
const failed = results.filter(r => r.code !== 0);
console.log(`\n── ${results.length} files, ${jobs} at a time (serial: ${files.filter(f => SERIAL.has(f)).length})`);
console.log(`ℹ tests ${sum('tests')}\nℹ pass ${sum('pass')}\nℹ fail ${sum('fail')}\nℹ skipped ${sum('skipped')}\nℹ todo ${sum('todo')}\nℹ cancelled ${sum('cancelled')}`);
console.log(`ℹ wall ${(wall / 1000).toFixed(1)} s; file durations add up to ${(sum('ms') / 1000).toFixed(1)} s`);
console.log('ℹ slowest:', [...results].sort((a, b) => b.ms - a.ms).slice(0, 8).map(r => `${r.file} ${(r.ms / 1000).toFixed(1)} s`).join(', '));
/** The "✖ failing tests:" section node's spec reporter closes a file's output with, at most 6000 characters. */
function failures(r) {
  const at = r.out.lastIndexOf('✖ failing tests:');
  const section = at >= 0 ? r.out.slice(at) : r.out.slice(-4000);
  return section.length > 6000 ? `${section.slice(0, 6000)}\n…` : section;
}
for (const r of flaky) console.log(`\n⚠ flaky: ${r.file} failed beside another file and passed alone. The first failure:\n${failures(r)}`);
if (flaky.length) console.log(`⚠ flaky files: ${flaky.map(r => r.file).join(', ')}`);
if (failed.length) {
  // The failures again, at the end where a log cut to its head and tail still shows them: node's spec reporter
  // closes each file's output with a "✖ failing tests:" section holding every failed test and its error.
  for (const r of failed) console.log(`\n✖ ${r.file} (exit ${r.signal ?? r.code}):\n${failures(r)}`);
  console.log(`✖ failed files: ${failed.map(r => r.file).join(', ')}`);
}
if (recordDurations) {
  const merged = { ...durations };
  for (const r of results) merged[r.file] = Math.max(merged[r.file] ?? 0, Math.round(r.ms / 1000));
  writeFileSync(DURATIONS, `${JSON.stringify(Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b))), null, 1)}\n`);
}
if (timesFile) writeFileSync(timesFile, `${JSON.stringify({ jobs, wallMs: wall, files: results.map(({ out: _out, ...r }) => r) }, null, 1)}\n`);
process.exit(failed.length ? 1 : 0);
