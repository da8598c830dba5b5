/**
 * start_recording / stop_recording: a WebM of one tab for a human to review what an agent did
 * (src/session/recording.ts; docs/recording.md).
 */
import * as z from 'zod';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_SECONDS, HARD_MAX_BYTES, HARD_MAX_SECONDS, megabytes, type RecordingResult } from '../session/recording.js';
import { stamp } from './artifacts.js';
import { defineTabTool, defineTool } from './define.js';
import type { ToolResponse } from './response.js';
import { tabIdField } from './schemas.js';


/** Why a recording ended, as the text says it. */
const ENDED: Record<RecordingResult['endedBy'], string> = {
  stop_recording: 'stopped by stop_recording',
  max_seconds: 'stopped by itself at its length cap (maxSeconds)',
  max_bytes: 'stopped by itself at its size cap (maxBytes)',
  tab_closed: 'stopped when its tab closed',
  browser_closed: 'stopped when the browser went away',
  server_exit: 'stopped when the server exited',
  failed: 'failed',
};

/** One line for a finished recording: where, how long, how big, why it ended. */
export function recordingLine(r: RecordingResult): string {
  const what = r.path
    ? `${r.path}: WebM (VP8) ${r.width}×${r.height}, ${(r.durationMs / 1000).toFixed(1)} s, ${r.frames} frames, ${r.bytes} bytes`
    : 'no file was kept';
  return `Recording of tab ${r.tabId} ${ENDED[r.endedBy]}: ${what}${r.error ? ` (${r.error})` : ''}.`;
}

function report(r: RecordingResult, res: ToolResponse): void {
  res.merge({ recording: r });
  res.text(recordingLine(r));
}

export const startRecording = defineTabTool({
  name: 'start_recording',
  title: 'Start recording a tab',
  description:
    'Record a tab as a WebM video (for a human to review) into <workspace>/.tabwright/recordings/, across navigations, ' +
    `until stop_recording, maxSeconds (default ${DEFAULT_MAX_SECONDS}) or maxBytes (default ${megabytes(DEFAULT_MAX_BYTES)} MB), or the tab closing. One per tab. Needs ffmpeg.`,
  needs: ['recording'],
  toolset: 'recording',
  effect: 'interact',
  launchesBrowser: true,
  target: 'tab',
  guarded: false,
  input: z.object({
    tabId: tabIdField,
    maxSeconds: z.number().int().min(1).max(HARD_MAX_SECONDS).optional().describe(`Stop by itself after this many seconds (default ${DEFAULT_MAX_SECONDS}, at most ${HARD_MAX_SECONDS})`),
    maxBytes: z.number().int().min(64 * 1024).max(HARD_MAX_BYTES).optional().describe(`Stop by itself at this file size (default ${DEFAULT_MAX_BYTES}, at most ${HARD_MAX_BYTES})`),
  }),
  async handle(tab, { maxSeconds, maxBytes }, ctx, res) {
    const started = await ctx.session.recordings.start(tab, ctx.config.workspace, `${stamp()}-tab${tab.id}.webm`, {
      maxSeconds: maxSeconds ?? DEFAULT_MAX_SECONDS,
      maxBytes: maxBytes ?? DEFAULT_MAX_BYTES,
    });
    res.merge({ tabId: tab.id, recording: started });
    res.text(`Recording tab ${tab.id} at ${started.width}×${started.height} into ${started.path} (written there on stop), ` +
      `until stop_recording, ${started.maxSeconds} s or ${megabytes(started.maxBytes)} MB.`);
  },
});

export const stopRecording = defineTool({
  name: 'stop_recording',
  title: 'Stop recording a tab',
  description: 'Stop a tab\'s recording and say its file, duration, frames and bytes; also reports, once, a recording that stopped by itself since (a cap reached, its tab closed).',
  needs: ['recording'],
  toolset: 'recording',
  effect: 'interact',
  launchesBrowser: false,
  input: z.object({ tabId: tabIdField }),
  // Not a tab tool: the recording of a tab that has closed is still reported.
  async handle({ tabId }, ctx, res) {
    const recordings = ctx.session.recordings;
    const id = tabId ?? ctx.session.activeTabId ?? recordings.list().active[0]?.tabId ?? 0;
    report(await recordings.stop(id), res);
  },
});

export const recordingTools = [startRecording, stopRecording];
