// The dashboard's file readers, in process: the benchmark report's targets table, the audit log's tail, and the
// discovery files (a dead process's file is skipped and removed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { latestBenchReport, parseReport } from '../../src/dashboard/bench.js';
import { ensureToken, listDashboards, readToken, removeEntry, writeEntry } from '../../src/dashboard/discovery.js';
import { appendAudit, readAudit } from '../../src/consent/audit.js';

const REPORT = `# Benchmark

Run 2026-12-02 04:44:43 UTC · 5 rounds

## Targets

| measure | Playwright MCP | tabwright | verdict |
| --- | --- | --- | --- |
| click by ref round trip | 593 ms | 62.0 ms (54.3–178) | **met** |
| type by ref round trip | 78.8 ms | 109 ms | **missed** by +68% |

Text after.
`;

test('the report: its run line and each target\'s measure, tabwright\'s value and verdict; the newest by name', () => {
  assert.deepEqual(parseReport('x.md', REPORT), {
    file: 'x.md',
    run: 'Run 2026-12-02 04:44:43 UTC · 5 rounds',
    rows: [
      { measure: 'click by ref round trip', tabwright: '62.0 ms (54.3–178)', verdict: 'met' },
      { measure: 'type by ref round trip', tabwright: '109 ms', verdict: 'missed by +68%' },
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'tw-bench-'));
  try {
    assert.equal(latestBenchReport(dir), undefined);
    for (const name of ['2026-12-01.md', '2026-12-02.md', '2026-12-01-2.md', 'screenshot-sizes-2026-12-09.md']) writeFileSync(join(dir, name), REPORT);
    const other = mkdtempSync(join(tmpdir(), 'tw-bench-'));
    try {
      for (const name of ['2026-12-01.md', '2026-12-01-2.md', '2026-12-01-10.md']) writeFileSync(join(other, name), REPORT);
      assert.equal(latestBenchReport(other)?.file, '2026-12-01-10.md');
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
    assert.equal(latestBenchReport(dir)?.file, '2026-12-02.md');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the audit log\'s newest entries, newest first; a damaged line is skipped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tw-audit-'));
  try {
    assert.deepEqual(readAudit(dir, 5), []);
    for (let i = 0; i < 4; i++) appendAudit(dir, { time: `t${i}`, origin: 'o', tool: `tool${i}`, decision: 'allowed', channel: 'dashboard' });
    writeFileSync(join(dir, 'consent-audit.jsonl'), '{"half', { flag: 'a' });
    assert.deepEqual(readAudit(dir, 3).map(e => e.tool), ['tool3', 'tool2', 'tool1']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the key is made once and kept; discovery files of dead processes are skipped and removed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tw-disc-'));
  try {
    assert.equal(readToken(dir), undefined);
    const key = ensureToken(dir);
    assert.match(key, /^[0-9a-f]{64}$/);
    assert.equal(ensureToken(dir), key);
    assert.deepEqual(listDashboards(dir), []);
    writeEntry(dir, { url: 'http://127.0.0.1:1/', pid: process.pid, port: 1, startedAt: '2026-12-06T00:00:00Z' });
    // A pid that no process has (pid_max is at most 2^22 on Linux).
    writeEntry(dir, { url: 'http://127.0.0.1:2/', pid: 4_194_304 + 7, port: 2, startedAt: '2026-12-06T00:00:01Z' });
    assert.deepEqual(listDashboards(dir).map(d => d.port), [1]);
    assert.equal(existsSync(join(dir, 'dashboards', `${4_194_304 + 7}.json`)), false);
    removeEntry(dir);
    assert.deepEqual(listDashboards(dir), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
