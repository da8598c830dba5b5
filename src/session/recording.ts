/**
 * Tab recordings (docs/recording.md): the DevTools protocol's screencast (`Page.startScreencast`, JPEG frames) piped
 * to ffmpeg, which encodes a VP8 WebM as Playwright's video recorder did: image2pipe MJPEG in, a constant 25 fps out
 * (each frame written as often as it stayed on screen), libvpx with the realtime deadline on one thread. The file is
 * written to a temporary name and renamed on stop; a recording ends by stop_recording, by its length or size cap, or
 * when its tab or the browser goes away or the server exits, and its ffmpeg never outlives the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { CDPSession } from 'playwright-core';
import { diskFull, ToolError } from '../errors.js';
import { logger } from '../log.js';
import type { Tab } from './tab.js';

const log = logger('recording');

/** Frames per second of the output. */
export const RECORDING_FPS = 25;
/** Length caps, in seconds: the default and the most a call may ask for. */
export const DEFAULT_MAX_SECONDS = 300;
export const HARD_MAX_SECONDS = 1800;
/** Size caps, in bytes: the default and the most a call may ask for. */
export const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
export const HARD_MAX_BYTES = 1024 * 1024 * 1024;
/** The largest frame side, in pixels: the page's viewport is scaled to fit (as Playwright's videos are, 800×800). */
const MAX_SIDE = 800;
/** How often the size cap is checked, in ms. */
const SIZE_POLL_MS = 500;
/** How long ffmpeg may take to finish the file after its input ends, in ms. */
const FINISH_MS = 15_000;

/** A byte count in MB with one decimal (`104857600` → `100`, `65536` → `0.1`), as the recording texts give caps. */
export function megabytes(bytes: number): number {
  return Math.round((bytes / (1024 * 1024)) * 10) / 10;
}

/** Why a recording ended. */
export type RecordingEnd = 'stop_recording' | 'max_seconds' | 'max_bytes' | 'tab_closed' | 'browser_closed' | 'server_exit' | 'failed';

/** A finished recording, as stop_recording and get_bridge_status report it. */
export interface RecordingResult {
  tabId: number;
  /** The WebM's absolute path; null when nothing was kept (no frame came, or ffmpeg failed). */
  path: string | null;
  /** Length of the video in ms (frames / 25 fps). */
  durationMs: number;
  /** Frames in the video (at 25 fps). */
  frames: number;
  /** Frames the browser sent (it sends one when the page repaints). */
  screencastFrames: number;
  bytes: number;
  width: number;
  height: number;
  startedAt: string;
  endedBy: RecordingEnd;
  /** What went wrong, for `failed` and a recording that kept no file. */
  error?: string;
}

/** A recording in progress, as get_bridge_status reports it. */
export interface ActiveRecording {
  tabId: number;
  startedAt: string;
  seconds: number;
  frames: number;
  maxSeconds: number;
  maxBytes: number;
}

/** ffmpeg children alive in this process, with their temporary files: killed and removed at exit whatever happens. */
const alive = new Map<ChildProcess, string>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // The last resort when the process exits without stopping its recordings (an uncaught error): the orderly path is
  // Session.close, which finalizes them first.
  process.on('exit', () => {
    for (const [child, tmp] of alive) {
      child.kill('SIGKILL');
      rmSync(tmp, { force: true });
    }
  });
}

/**
 * The ffmpeg to encode with: TABWRIGHT_FFMPEG, else `ffmpeg` on PATH.
 * @throws ToolError capability_unavailable when there is none.
 */
export function findFfmpeg(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.TABWRIGHT_FFMPEG;
  const candidates = explicit ? [explicit] : (env.PATH ?? '').split(delimiter).filter(Boolean).map(dir => join(dir, 'ffmpeg'));
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not there, or not executable
    }
  }
  throw new ToolError('capability_unavailable',
    explicit ? `TABWRIGHT_FFMPEG names ${explicit}, which is not an executable file.` : 'Recording needs ffmpeg, and there is none on PATH.',
    'Install it (Debian/Ubuntu: `sudo apt install ffmpeg`; macOS: `brew install ffmpeg`) or point TABWRIGHT_FFMPEG at an ffmpeg binary, then call start_recording again.');
}

/** The ffmpeg arguments for a `width`×`height` VP8 WebM at `out` from JPEG frames on stdin. */
export function ffmpegArgs(width: number, height: number, out: string): string[] {
  return [
    '-loglevel', 'error', '-f', 'image2pipe', '-avioflags', 'direct', '-fpsprobesize', '0', '-probesize', '32', '-analyzeduration', '0',
    '-framerate', String(RECORDING_FPS), '-c:v', 'mjpeg', '-i', 'pipe:0', '-y', '-an', '-r', String(RECORDING_FPS),
    '-c:v', 'libvpx', '-qmin', '0', '-qmax', '50', '-crf', '8', '-deadline', 'realtime', '-speed', '8', '-b:v', '1M', '-threads', '1',
    '-vf', `pad=${width}:${height}:0:0:gray,crop=${width}:${height}:0:0`,
    // A cluster a second, flushed at once: the file's size on disk follows the recording (the size cap reads it).
    '-cluster_time_limit', '1000', '-flush_packets', '1', '-f', 'webm', out,
  ];
}

/** The frame size for a viewport: scaled down to fit MAX_SIDE, even sides (VP8 wants them even). */
export function frameSize(viewport: { width: number; height: number }): { width: number; height: number } {
  const scale = Math.min(1, MAX_SIDE / Math.max(viewport.width, viewport.height));
  const even = (n: number) => Math.max(2, Math.floor((n * scale) / 2) * 2);
  return { width: even(viewport.width), height: even(viewport.height) };
}

/** One tab's recording. */
class Recording {
  private readonly started = Date.now();
  private readonly startedMono = performance.now();
  private last: { frame: Buffer; at: number } | undefined;
  private frames = 0;
  private screencastFrames = 0;
  private stopping: Promise<RecordingResult> | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private stderr = '';
  private exited: Promise<number | null>;
  /** Set when the cap or an event ended it on its own (the result waits for stop_recording or the status). */
  onEnded: ((result: RecordingResult) => void) | undefined;

  constructor(
    readonly tab: Tab,
    private readonly cdp: CDPSession,
    private readonly ffmpeg: ChildProcess,
    private readonly tmp: string,
    private readonly path: string,
    readonly size: { width: number; height: number },
    readonly maxSeconds: number,
    readonly maxBytes: number,
  ) {
    ffmpeg.stderr?.on('data', (chunk: Buffer) => {
      if (this.stderr.length < 4000) this.stderr += chunk.toString();
    });
    // A write after ffmpeg died (EPIPE) surfaces at stop.
    ffmpeg.stdin?.on('error', error => log.debug(`tab ${tab.id}: ffmpeg input:`, error));
    this.exited = new Promise(resolve => ffmpeg.once('exit', code => resolve(code)));
    cdp.on('Page.screencastFrame', event => {
      void cdp.send('Page.screencastFrameAck', { sessionId: event.sessionId }).catch(() => undefined);
      this.onFrame(Buffer.from(event.data, 'base64'));
    });
    this.timers.push(setTimeout(() => void this.stop('max_seconds'), maxSeconds * 1000));
    this.timers.push(setInterval(() => {
      if (this.bytesNow() >= maxBytes) void this.stop('max_bytes');
    }, SIZE_POLL_MS));
    for (const timer of this.timers) timer.unref();
    const onClose = () => void this.stop(tab.session.running ? 'tab_closed' : 'browser_closed');
    tab.closeSignal.addEventListener('abort', onClose, { once: true });
    void this.exited.then(code => {
      if (!this.stopping) void this.stop('failed', `ffmpeg exited early (code ${code})${this.stderr ? `: ${this.stderr.trim()}` : ''}`);
    });
  }

  get startedAt(): string {
    return new Date(this.started).toISOString();
  }

  status(): ActiveRecording {
    // The video's frames so far: a still page repeats its last frame, written when the next one comes (or at the end).
    const elapsed = Date.now() - this.started;
    return { tabId: this.tab.id, startedAt: this.startedAt, seconds: Math.round(elapsed / 100) / 10, frames: Math.max(this.frames, Math.floor((elapsed / 1000) * RECORDING_FPS)), maxSeconds: this.maxSeconds, maxBytes: this.maxBytes };
  }

  private bytesNow(): number {
    try {
      return statSync(this.tmp).size;
    } catch {
      return 0;
    }
  }

  /** Writes the previous frame as often as it stayed on screen, then keeps this one for the next. */
  private onFrame(frame: Buffer): void {
    if (this.stopping) return;
    this.screencastFrames += 1;
    const now = performance.now();
    if (this.last) this.repeatLast(now);
    // The first frame stands for the time since the start too: the video is as long as the recording.
    this.last = { frame, at: this.last ? now : this.startedMono };
  }

  private repeatLast(until: number, atLeast = 1): void {
    const last = this.last!;
    const count = Math.max(atLeast, Math.round(((until - last.at) / 1000) * RECORDING_FPS));
    for (let i = 0; i < count; i++) this.ffmpeg.stdin?.write(last.frame);
    this.frames += count;
  }

  /** Ends the recording (once; later calls get the same result): the file renamed into place, or removed. */
  stop(endedBy: RecordingEnd, error?: string): Promise<RecordingResult> {
    this.stopping ??= this.finish(endedBy, error).then(result => {
      if (endedBy !== 'stop_recording') this.onEnded?.(result);
      return result;
    });
    return this.stopping;
  }

  private async finish(endedBy: RecordingEnd, error?: string): Promise<RecordingResult> {
    for (const timer of this.timers) clearTimeout(timer);
    await this.cdp.send('Page.stopScreencast').catch(() => undefined);
    await this.cdp.detach().catch(() => undefined);
    // The last frame stays on screen until now (at least one frame of it).
    if (this.last) this.repeatLast(performance.now());
    this.ffmpeg.stdin?.end();
    const code = await Promise.race([this.exited, new Promise<'timeout'>(resolve => setTimeout(() => resolve('timeout'), FINISH_MS).unref())]);
    if (code === 'timeout') this.ffmpeg.kill('SIGKILL');
    alive.delete(this.ffmpeg);
    let path: string | null = null;
    let bytes = 0;
    let failure = error;
    if (!this.last) failure ??= 'the browser sent no frame of the page';
    else if (code !== 0) failure ??= code === 'timeout' ? `ffmpeg did not finish within ${FINISH_MS / 1000} s` : `ffmpeg failed (code ${code})${this.stderr ? `: ${this.stderr.trim()}` : ''}`;
    if (!failure || (endedBy === 'failed' && code === 0)) {
      try {
        bytes = statSync(this.tmp).size;
        renameSync(this.tmp, this.path);
        path = this.path;
      } catch (e) {
        failure = diskFull(e, this.path)?.message ?? `the file could not be kept: ${(e as Error).message}`;
      }
    }
    if (!path) {
      rmSync(this.tmp, { force: true });
      bytes = 0;
    }
    return {
      tabId: this.tab.id, path, durationMs: Math.round((this.frames / RECORDING_FPS) * 1000), frames: path ? this.frames : 0,
      screencastFrames: this.screencastFrames, bytes, width: this.size.width, height: this.size.height,
      startedAt: this.startedAt, endedBy: failure && endedBy === 'stop_recording' ? 'failed' : endedBy, ...(failure ? { error: failure } : {}),
    };
  }
}

/** The recordings of one session: at most one per tab, and those that ended on their own, until reported. */
export class Recordings {
  private readonly active = new Map<number, Recording>();
  private readonly ended = new Map<number, RecordingResult>();

  /**
   * Starts recording `tab` into `<workspace>/.tabwright/recordings/<name>`.
   * @throws ToolError recording_active (the tab records already), capability_unavailable (no ffmpeg; no screencast
   *   on this tab), workspace_unwritable.
   */
  async start(tab: Tab, workspace: string, name: string, opts: { maxSeconds: number; maxBytes: number }): Promise<ActiveRecording & { path: string; width: number; height: number }> {
    if (this.active.has(tab.id)) {
      throw new ToolError('recording_active', `Tab ${tab.id} is being recorded already (since ${this.active.get(tab.id)!.startedAt}).`, `Call stop_recording {tabId: ${tab.id}} first; one recording per tab.`);
    }
    const ffmpegPath = findFfmpeg();
    const dir = join(workspace, '.tabwright', 'recordings');
    const path = join(dir, name);
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      throw diskFull(error, path) ?? new ToolError('workspace_unwritable', `Cannot write ${dir}: the workspace ${workspace} is not a writable folder.`, 'Start the server with --workspace DIR (or TABWRIGHT_WORKSPACE) naming a folder you can write.');
    }
    const viewport = tab.page.viewportSize() ?? await tab.page.evaluate('({ width: innerWidth, height: innerHeight })') as { width: number; height: number };
    const size = frameSize(viewport);
    const cdp = await tab.page.context().newCDPSession(tab.page);
    const ffmpeg = spawn(ffmpegPath, ffmpegArgs(size.width, size.height, tmp), { stdio: ['pipe', 'ignore', 'pipe'] });
    installExitHook();
    alive.set(ffmpeg, tmp);
    const spawned = await new Promise<Error | undefined>(resolve => {
      ffmpeg.once('spawn', () => resolve(undefined));
      ffmpeg.once('error', resolve);
    });
    if (spawned) {
      alive.delete(ffmpeg);
      await cdp.detach().catch(() => undefined);
      throw new ToolError('capability_unavailable', `ffmpeg (${ffmpegPath}) could not start: ${spawned.message}`, 'Install ffmpeg (`sudo apt install ffmpeg`) or point TABWRIGHT_FFMPEG at a working binary.');
    }
    const recording = new Recording(tab, cdp, ffmpeg, tmp, path, size, opts.maxSeconds, opts.maxBytes);
    this.active.set(tab.id, recording);
    this.ended.delete(tab.id);
    recording.onEnded = result => {
      if (this.active.get(tab.id) === recording) this.active.delete(tab.id);
      this.ended.set(tab.id, result);
    };
    try {
      await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 90, maxWidth: size.width, maxHeight: size.height, everyNthFrame: 1 });
    } catch (error) {
      this.active.delete(tab.id);
      await recording.stop('failed', (error as Error).message);
      this.ended.delete(tab.id);
      throw new ToolError('capability_unavailable', `The browser refused a screencast of tab ${tab.id}: ${(error as Error).message}`, 'Recording needs the DevTools protocol\'s Page.startScreencast on the tab.');
    }
    return { ...recording.status(), path, ...size };
  }

  /**
   * Stops the tab's recording, or reports the one that ended on its own since (once).
   * @throws ToolError recording_not_running when there is neither.
   */
  async stop(tabId: number): Promise<RecordingResult> {
    const recording = this.active.get(tabId);
    if (recording) {
      this.active.delete(tabId);
      const result = await recording.stop('stop_recording');
      // A cap reached a moment before: reported here, not again.
      if (this.ended.get(tabId) === result) this.ended.delete(tabId);
      return result;
    }
    const ended = this.ended.get(tabId);
    if (ended) {
      this.ended.delete(tabId);
      return ended;
    }
    const others = [...this.active.keys()];
    throw new ToolError('recording_not_running', `Tab ${tabId} is not being recorded${others.length ? ` (recording: tab ${others.join(', tab ')})` : ''}.`,
      others.length ? `Pass the tabId of a running recording, or start_recording {tabId: ${tabId}}.` : `Call start_recording {tabId: ${tabId}} first.`);
  }

  /** Recordings in progress, and those that ended on their own and were not reported yet. */
  list(): { active: ActiveRecording[]; ended: RecordingResult[] } {
    return { active: [...this.active.values()].map(r => r.status()), ended: [...this.ended.values()] };
  }

  /** Ends every recording (the browser or the server going away): each file is finalized or removed. */
  async stopAll(endedBy: RecordingEnd): Promise<void> {
    await Promise.all([...this.active.values()].map(r => r.stop(endedBy)));
  }
}
