// Unit tests of the bench's transports section: the p90 (bench/stats.ts quantile), the relay browser's switches
// (bench/transports.ts relayBrowserArgs) and the rows, verdicts and Markdown (bench/transportReport.ts, bench/report.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderMarkdown } from '../../bench/report.js';
import { quantile } from '../../bench/stats.js';
import { transportRows, transportSection } from '../../bench/transportReport.js';
import { relayBrowserArgs } from '../../bench/transports.js';
import type { Results, TransportOp, TransportResults, TransportSample } from '../../bench/types.js';

test('quantile: nearest rank over the finite values, unsorted input left as it was', () => {
  const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
  assert.equal(quantile(values, 0.9), 9);
  assert.equal(quantile(values, 0.5), 5);
  assert.equal(quantile(values, 1), 10);
  assert.equal(quantile(values, 0), 1);
  assert.deepEqual(values, [5, 1, 4, 2, 3, 10, 9, 8, 7, 6]);
  // 30 values: p90 is the 27th smallest.
  assert.equal(quantile(Array.from({ length: 30 }, (_, i) => 30 - i), 0.9), 27);
  assert.equal(quantile([3, NaN, Infinity], 0.9), 3);
  assert.ok(Number.isNaN(quantile([], 0.9)));
});

test('relayBrowserArgs: the managed browser\'s switches, without Playwright\'s pipe and profile, with a port, a profile, a window and a blank tab', () => {
  const argv = ['/usr/lib/chromium/chromium', '--disable-extensions', '--headless', '--no-sandbox', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', '--enable-features=WebMCP', '--user-data-dir=/tmp/playwright_chromiumdev_profile-x', '--remote-debugging-pipe', '--no-startup-window'];
  assert.deepEqual(relayBrowserArgs(argv, '/tmp/own'), [
    '--disable-extensions', '--headless', '--no-sandbox', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', '--enable-features=WebMCP',
    '--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0', '--user-data-dir=/tmp/own', '--window-size=1280,720', 'about:blank',
  ]);
  // A page the launch opened, or a port and window of its own, are not copied.
  assert.deepEqual(relayBrowserArgs(['chrome', '--headless', '--remote-debugging-port=9222', '--window-size=800,600', 'https://example.com/'], '/p'), [
    '--headless', '--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0', '--user-data-dir=/p', '--window-size=1280,720', 'about:blank',
  ]);
  assert.throws(() => relayBrowserArgs(['/bin/sh', 'script.sh'], '/p'), /not a browser command line/);
});

/** Rounds 1..n of every operation: launch `base[op] + i`, own-chrome `factor × base[op] + i`. */
function fixture(n: number, factor: Partial<Record<TransportOp, number>>): TransportResults {
  const base: Record<TransportOp, number> = { navigate: 40, snapshot: 10, click: 80, type: 30, screenshot: 50 };
  const samples: TransportSample[] = [];
  for (let round = 1; round <= n; round++) {
    for (const op of Object.keys(base) as TransportOp[]) {
      const extra = op === 'click' || op === 'type' ? { verified: true } : op === 'screenshot' ? { bytes: 16000 } : {};
      samples.push({ round, transport: 'launch', op, ms: base[op] + round, ...extra });
      samples.push({ round, transport: 'own-chrome', op, ms: (factor[op] ?? 1) * base[op] + round, ...extra, ...(op === 'type' && round === 2 ? { verified: false } : {}) });
    }
  }
  return {
    rounds: n,
    reference: 'launch',
    targetRatio: 1.2,
    transports: [
      { id: 'launch', label: 'launch (managed)', status: 'ok', command: ['node', 'dist/cli.js', 'mcp', '--headless'], notes: ['a pipe'], viewport: '1280x720' },
      { id: 'own-chrome', label: 'own-chrome (relay)', status: 'ok', command: ['node', 'dist/cli.js', 'mcp', '--own-chrome'], notes: ['the relay'], viewport: '1280x720' },
    ],
    samples,
  };
}

test('transportRows: median and p90 per transport, the ratio to launch and the 1.2× verdict on the issue\'s four operations', () => {
  const rows = transportRows(fixture(10, { click: 1.5, screenshot: 1.2, navigate: 2 }));
  const row = (op: TransportOp) => rows.find(r => r.op === op)!;
  assert.deepEqual(rows.map(r => r.op), ['navigate', 'snapshot', 'click', 'type', 'screenshot']);
  assert.deepEqual(row('snapshot').stats.launch, { median: 15.5, p90: 19, n: 10 });
  const click = row('click').versus[0]!;
  assert.equal(click.transport, 'own-chrome');
  assert.equal(click.status, 'missed');
  assert.ok(Math.abs(click.ratio! - 125.5 / 85.5) < 1e-9);
  assert.ok(Math.abs(click.deltaMs! - 40) < 1e-9);
  assert.equal(row('type').versus[0]!.status, 'met');
  // Not over the target: met (60 + 5.5 against 50 + 5.5 is under 1.2×).
  assert.equal(row('screenshot').versus[0]!.status, 'met');
  // Navigate is measured and divided, with no target (the issue names snapshot, click, type, screenshot).
  assert.equal(row('navigate').versus[0]!.status, 'no target');
  assert.ok(row('navigate').versus[0]!.ratio! > 1.2);
});

test('transportRows: a transport without samples is not measured', () => {
  const tr = fixture(3, {});
  tr.samples = tr.samples.filter(s => s.transport === 'launch');
  tr.transports[1] = { ...tr.transports[1]!, status: 'start_failed', error: 'the browser exited' };
  const rows = transportRows(tr);
  assert.ok(rows.every(r => r.versus[0]!.status === 'not measured' && r.versus[0]!.ratio === undefined));
  assert.match(transportSection(tr), /\*\*start_failed\*\*: the browser exited/);
});

test('transportSection: the table with medians (p90), ratios with the difference, verdicts, and each transport\'s setup', () => {
  const md = transportSection(fixture(10, { click: 1.5 }), [{ round: 3, server: 'tabwright', step: 'transport own-chrome: round 3', message: 'boom' }]);
  assert.match(md, /^tabwright on each transport: .*10 timed rounds after an untimed warm-up pass.*at most 1\.2× on snapshot, click, type and screenshot\./);
  assert.match(md, /\| operation \| launch \(managed\) \| own-chrome \(relay\) · ÷ launch \|/);
  assert.match(md, /\| click by ref \| 85\.5 ms \(p90 89\.0\) \| 126 ms \(p90 129\) · 1\.47× \(\+40\.0 ms\) \*\*missed\*\* by 0\.27× \|/);
  assert.match(md, /\| snapshot \(`get_page_context`\) \| 15\.5 ms \(p90 19\.0\) \| 15\.5 ms \(p90 19\.0\) · 1\.00× \(\+0\.0 ms\) met \|/);
  assert.match(md, /\| navigate \(login page\) \| 45\.5 ms \(p90 49\.0\) \| 45\.5 ms \(p90 49\.0\) · 1\.00× \(\+0\.0 ms\) \|/);
  assert.match(md, /Why the misses:\n\n- \*\*own-chrome click\*\* \(1\.47×, 40\.0 ms more\): launch: 35 CDP commands.*relayed: 12 .*; each command crosses Chrome's DevTools WebSocket and tabwright's relay/);
  assert.match(md, /- \*\*launch \(managed\)\*\*: `node dist\/cli\.js mcp --headless`; viewport 1280x720; screenshot 16 KB; click and type verified in the DOM every round ✓; a pipe/);
  assert.match(md, /- \*\*own-chrome \(relay\)\*\*: .*click and type verified 19\/20; the relay/);
  assert.match(md, /Errors: 1 \(listed under Errors\)\./);
});

test('transportSection: a comparison transport is divided by the reference with no verdict', () => {
  const tr = fixture(5, {});
  tr.transports.splice(1, 0, { id: 'cdp', label: 'cdp (plain)', status: 'ok', command: [], notes: [], comparison: true });
  tr.samples.push(...tr.samples.filter(s => s.transport === 'launch').map(s => ({ ...s, transport: 'cdp' as const, ms: s.ms * 2 })));
  const click = transportRows(tr).find(r => r.op === 'click')!;
  assert.deepEqual(click.versus.map(v => [v.transport, v.status]), [['cdp', 'no target'], ['own-chrome', 'met']]);
  const md = transportSection(tr);
  assert.match(md, /\(cdp: for comparison, no target\)/);
  assert.match(md, /\| click by ref \| 83\.0 ms \(p90 85\.0\) \| 166 ms \(p90 170\) · 2\.00× \(\+83\.0 ms\) \| 83\.0 ms \(p90 85\.0\) · 1\.00× \(\+0\.0 ms\) met \|/);
  assert.doesNotMatch(md, /Why the misses/);
});

test('renderMarkdown: a Transports section when the run has one, none for older runs', () => {
  const results: Results = {
    schema: 1,
    startedAt: '2026-01-02T03:04:05.000Z',
    finishedAt: '2026-01-02T03:05:05.000Z',
    options: { rounds: 1, quick: true },
    machine: { cpu: 'Test CPU', cores: 2, ramGiB: 8, os: 'Debian', node: 'v20.0.0', chromium: 'Chromium 1.0' },
    servers: [],
    pages: [],
    samples: [],
    errors: [],
  };
  assert.doesNotMatch(renderMarkdown(results, 'x.svg'), /## Transports/);
  const md = renderMarkdown({ ...results, transports: fixture(3, {}) }, 'x.svg');
  assert.match(md, /## Transports \(issue 15\)\n\ntabwright on each transport/);
  assert.ok(md.indexOf('## Transports') > md.indexOf('## Per server') && md.indexOf('## Transports') < md.indexOf('## Per page'));
});
