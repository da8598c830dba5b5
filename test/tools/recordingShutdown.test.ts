// A server that exits while it records (SIGTERM, stdin closed): each recording is finalized (the WebM kept under its
// name, no temporary file) and no ffmpeg outlives the server. The shutdown path (src/serve.ts → Session.close) is
// the same on every connection kind: this file runs on the default lane only (scripts/test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { until, useServer } from '../fixtures/harness.js';
import { call } from '../fixtures/mcp.js';

const NO_FFMPEG = !process.env.CI && spawnSync('ffmpeg', ['-version']).error ? { skip: 'ffmpeg is not installed (scripts/setup.sh --recording installs it)' } : {};

const tw = useServer({
  args: ['--toolsets', 'all'],
  pages: { '/red': '<!doctype html><title>Red</title><style>html, body { margin: 0; height: 100%; background: rgb(255, 0, 0) }</style>' },
});

/** Processes whose command line names `dir`. */
function processesIn(dir: string): number[] {
  return readdirSync('/proc').filter(p => /^\d+$/.test(p)).filter(pid => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
    } catch {
      return false;
    }
  }).map(Number);
}

test('SIGTERM during a recording: the file is finalized, no temporary file, no ffmpeg left', NO_FFMPEG, async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/red` });
  const { recording } = await call<{ recording: { path: string } }>(tw.client, 'start_recording', {});
  const dir = join(tw.workspace, '.tabwright', 'recordings');
  assert.equal(processesIn(dir).length, 1, 'one ffmpeg writes there');
  await sleep(600);
  const pid = tw.server.transport.pid!;
  process.kill(pid, 'SIGTERM');
  await until('the server to exit', () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }, 15_000);
  await until('ffmpeg to be gone', () => processesIn(dir).length === 0, 5_000);
  assert.deepEqual(readdirSync(dir), [recording.path.slice(dir.length + 1)]);
  const probe = spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name', '-of', 'csv=p=0', recording.path], { encoding: 'utf8' });
  assert.equal(probe.stdout.trim(), 'vp8');
});
