// start_recording / stop_recording end to end: a recording across a navigation from a red page to a blue one is a
// VP8 WebM whose first frame is red and last frame blue (read back with ffprobe and ffmpeg); the caps stop it by
// themselves and stop_recording (and get_bridge_status) say so; a second start is refused; a stop without a
// recording is recording_not_running; no ffmpeg is capability_unavailable; a tab closed mid-recording leaves its
// file finalized, no temporary file and no ffmpeg process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { until, useSession } from '../fixtures/harness.js';
import { call, callError, callRaw } from '../fixtures/mcp.js';

/** Without ffmpeg (a clone set up without `scripts/setup.sh --recording`) the file skips, saying so; CI installs it. */
const NO_FFMPEG = !process.env.CI && spawnSync('ffmpeg', ['-version']).error ? { skip: 'ffmpeg is not installed (scripts/setup.sh --recording installs it)' } : {};

const tw = useSession({ pages: {
  '/red': '<!doctype html><title>Red</title><style>html, body { margin: 0; height: 100%; background: rgb(255, 0, 0) }</style>',
  '/blue': '<!doctype html><title>Blue</title><style>html, body { margin: 0; height: 100%; background: rgb(0, 0, 255) }</style>',
  // Changes every frame: a recording of it grows fast.
  '/busy': `<!doctype html><title>Busy</title><canvas id="c" width="800" height="600"></canvas><script>
const g = document.getElementById('c').getContext('2d'); let n = 0;
(function draw() { for (let i = 0; i < 400; i++) { g.fillStyle = 'hsl(' + ((n * 37 + i * 11) % 360) + ',90%,50%)'; g.fillRect((i * 53 + n * 7) % 800, (i * 29 + n * 13) % 600, 40, 40); } n++; requestAnimationFrame(draw); })();
</script>`,
} });

interface Result { tabId: number; path: string | null; durationMs: number; frames: number; screencastFrames: number; bytes: number; width: number; height: number; endedBy: string; error?: string }

/** ffprobe's view of a video: codec, size, duration in seconds. */
function probe(path: string): { codec: string; width: number; height: number; duration: number } {
  const out = spawnSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height:format=duration', '-of', 'json', path], { encoding: 'utf8' });
  const json = JSON.parse(out.stdout) as { streams: Array<{ codec_name: string; width: number; height: number }>; format: { duration: string } };
  return { codec: json.streams[0]!.codec_name, width: json.streams[0]!.width, height: json.streams[0]!.height, duration: Number(json.format.duration) };
}

/** The RGB colour at the centre of the frame at `at` seconds (negative: from the end). */
function colourAt(path: string, at: number, size: { width: number; height: number }): [number, number, number] {
  const seek = at < 0 ? ['-sseof', String(at)] : ['-ss', String(at)];
  const out = spawnSync('ffmpeg', ['-v', 'error', ...seek, '-i', path, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], { maxBuffer: 64 * 1024 * 1024 });
  const pixel = ((size.height >> 1) * size.width + (size.width >> 1)) * 3;
  return [out.stdout[pixel]!, out.stdout[pixel + 1]!, out.stdout[pixel + 2]!];
}

/** Close to `want` within the encoder's loss. */
function near(got: [number, number, number], want: [number, number, number]): boolean {
  return got.every((v, i) => Math.abs(v - want[i]!) <= 40);
}

/** The ffmpeg processes writing into `dir`, by their command lines. */
function ffmpegsIn(dir: string): number[] {
  return readdirSync('/proc').filter(p => /^\d+$/.test(p)).filter(pid => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return cmd.includes('ffmpeg') && cmd.includes(dir);
    } catch {
      return false;
    }
  }).map(Number);
}

test('a recording across a navigation: a VP8 WebM from the red page to the blue one; one per tab; stop without one', NO_FFMPEG, async () => {
  const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/red` });
  const noRecording = await callError(tw.client, 'stop_recording', {});
  assert.equal(noRecording.type, 'recording_not_running');
  const started = await call<{ recording: { path: string; width: number; height: number } }>(tw.client, 'start_recording', {});
  const dir = join(tw.workspace, '.tabwright', 'recordings');
  assert.match(started.recording.path, new RegExp(`^${dir}/\\d{8}-\\d{6}-\\d{3}-tab${tabId}\\.webm$`));
  // The managed browser's 1280×720 viewport, scaled to fit 800 pixels.
  assert.deepEqual([started.recording.width, started.recording.height], [800, 450]);
  const again = await callError(tw.client, 'start_recording', { tabId });
  assert.equal(again.type, 'recording_active');
  await sleep(700);
  await call(tw.client, 'navigate', { url: `${tw.origin}/blue` });
  await sleep(700);
  const raw = await callRaw(tw.client, 'stop_recording', { tabId });
  const r = (raw.structuredContent as { recording: Result }).recording;
  assert.equal(r.endedBy, 'stop_recording', JSON.stringify(r));
  assert.equal(r.path, started.recording.path);
  assert.deepEqual(readdirSync(dir), [started.recording.path.slice(dir.length + 1)]);
  const video = probe(r.path!);
  assert.deepEqual({ codec: video.codec, width: video.width, height: video.height }, { codec: 'vp8', width: 800, height: 450 });
  assert.ok(video.duration >= 1.4 && video.duration < 6, `duration ${video.duration}`);
  assert.ok(r.durationMs >= 1400 && r.durationMs < 6000 && r.frames === Math.round(r.durationMs / 40), JSON.stringify(r));
  assert.equal(r.bytes, readFileSync(r.path!).length);
  assert.equal(raw.content.map(c => c.text).join('\n'), `Recording of tab ${tabId} stopped by stop_recording: ${r.path}: WebM (VP8) 800×450, ${(r.durationMs / 1000).toFixed(1)} s, ${r.frames} frames, ${r.bytes} bytes.`);
  assert.ok(near(colourAt(r.path!, 0.2, video), [255, 0, 0]), `first frame ${colourAt(r.path!, 0.2, video)}`);
  assert.ok(near(colourAt(r.path!, -0.1, video), [0, 0, 255]), `last frame ${colourAt(r.path!, -0.1, video)}`);
  assert.deepEqual(ffmpegsIn(dir), []);
  // Reported once: a second stop finds nothing.
  assert.equal((await callError(tw.client, 'stop_recording', { tabId })).type, 'recording_not_running');
});

test('the caps stop a recording by themselves, and the status and stop_recording say so; no ffmpeg is capability_unavailable', NO_FFMPEG, async () => {
  const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/red` });
  await call(tw.client, 'start_recording', { maxSeconds: 1 });
  const ended = await until('the length cap', async () => (await call<{ recordings?: { ended: Result[] } }>(tw.client, 'get_bridge_status')).recordings?.ended[0], 10_000);
  assert.equal(ended.endedBy, 'max_seconds');
  const stopped = await call<{ recording: Result }>(tw.client, 'stop_recording', { tabId });
  assert.deepEqual(stopped.recording, ended);
  // About a second: the cap's timer, plus what a loaded machine adds before the last frame is written.
  assert.ok(stopped.recording.durationMs >= 1000 && stopped.recording.durationMs < 5000, JSON.stringify(stopped.recording));
  assert.equal(probe(stopped.recording.path!).codec, 'vp8');
  // The size cap, on a page that changes every frame.
  await call(tw.client, 'navigate', { url: `${tw.origin}/busy` });
  // 64 KB (the least maxBytes takes): a few seconds of the busy page, longer where frames arrive slowly (through the
  // extension, on a loaded machine), and the length cap far off.
  await call(tw.client, 'start_recording', { maxBytes: 64 * 1024, maxSeconds: 120 });
  const bySize = await until('the size cap', async () => (await call<{ recordings?: { ended: Result[] } }>(tw.client, 'get_bridge_status')).recordings?.ended[0], 60_000);
  assert.equal(bySize.endedBy, 'max_bytes', JSON.stringify(bySize));
  assert.ok(bySize.bytes >= 64 * 1024, JSON.stringify(bySize));
  assert.equal((await call<{ recording: Result }>(tw.client, 'stop_recording', { tabId })).recording.endedBy, 'max_bytes');
  // No ffmpeg: capability_unavailable naming the way out (the in-process lane reads this process's environment).
  process.env.TABWRIGHT_FFMPEG = '/nonexistent/ffmpeg';
  try {
    const error = await callError(tw.client, 'start_recording', {});
    assert.equal(error.type, 'capability_unavailable');
    assert.match(error.hint, /apt install ffmpeg.*TABWRIGHT_FFMPEG/);
  } finally {
    delete process.env.TABWRIGHT_FFMPEG;
  }
});

test('a tab closed mid-recording: its file is finalized, no temporary file, no ffmpeg left', NO_FFMPEG, async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/red` });
  const { tabId } = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/blue` });
  await call(tw.client, 'start_recording', { tabId });
  const dir = join(tw.workspace, '.tabwright', 'recordings');
  assert.equal(ffmpegsIn(dir).length, 1);
  await sleep(700);
  await call(tw.client, 'close_tab', { tabId });
  const r = (await until('the closed tab\'s recording', async () => (await call<{ recordings?: { ended: Result[] } }>(tw.client, 'get_bridge_status')).recordings?.ended.find(e => e.tabId === tabId), 10_000));
  assert.equal(r.endedBy, 'tab_closed');
  assert.equal(probe(r.path!).codec, 'vp8');
  assert.deepEqual(readdirSync(dir).filter(name => name.endsWith('.tmp')), []);
  assert.deepEqual(ffmpegsIn(dir), []);
  // stop_recording reports it, though the tab is gone.
  assert.deepEqual((await call<{ recording: Result }>(tw.client, 'stop_recording', { tabId })).recording, r);
});
