/**
 * start_har and stop_har: a tab's traffic recorded as a HAR 1.2 file (docs/network.md, "HAR"), written atomically
 * at stop to `<workspace>/.tabwright/har/` or a path inside the workspace, 0600 (it holds the cookies and
 * authorization headers the page sent). A tab that closes while recording has its HAR written then; stop_har on
 * it says where.
 */
import * as z from 'zod';
import { ToolError } from '../errors.js';
import { leftOutText, type HarLeftOut } from '../session/harFormat.js';
import { HarRecorder } from '../session/harRecorder.js';
import type { Session } from '../session/session.js';
import type { Tab } from '../session/tab.js';
import { resolveWritablePath } from '../userscripts/workspacePaths.js';
import { VERSION } from '../version.js';
import { logger } from '../log.js';
import { stamp, writeAtomic } from './artifacts.js';
import { defineTabTool, defineTool } from './define.js';
import type { ToolResponse } from './response.js';
import { tabIdField } from './schemas.js';
import { join } from 'node:path';

const log = logger('har');

const MB = 1024 * 1024;
const DEFAULT_MAX_BODY = 1 * MB;
const DEFAULT_MAX_TOTAL = 50 * MB;
const MAX_ENTRIES = 5000;

interface Recording {
  recorder: HarRecorder;
  tab: Tab;
  path: string;
}

/** What a finished recording wrote. */
interface Written {
  tabId: number;
  path: string;
  bytes: number;
  entries: number;
  keptBodyBytes: number;
  leftOut: HarLeftOut;
  /** Why it ended without stop_har (the tab closed). */
  endedBy?: string;
}

/** The recordings of each session by tab id, and those a closing tab ended (until stop_har reports them). */
const recordings = new WeakMap<Session, { running: Map<number, Recording>; ended: Map<number, Promise<Written>> }>();

function of(session: Session): { running: Map<number, Recording>; ended: Map<number, Promise<Written>> } {
  let r = recordings.get(session);
  if (!r) recordings.set(session, r = { running: new Map(), ended: new Map() });
  return r;
}

/** Stops `rec` and writes its HAR atomically (0600). @throws ToolError workspace_unwritable, disk_full. */
async function finish(rec: Recording, workspace: string): Promise<Written> {
  const info = rec.tab.closed ? undefined : await rec.tab.urlAndTitle().catch(() => undefined);
  const { har, entries, keptBodyBytes, leftOut } = await rec.recorder.stop({ name: 'tabwright', version: VERSION }, info);
  const data = JSON.stringify(har, null, 1);
  writeAtomic(rec.path, data, { mode: 0o600, workspace });
  return { tabId: rec.tab.id, path: rec.path, bytes: Buffer.byteLength(data), entries, keptBodyBytes, leftOut };
}

function report(w: Written, res: ToolResponse): void {
  const left = leftOutText(w.leftOut);
  res.merge({ ...w });
  res.text(`${w.endedBy ? `Tab ${w.tabId} ${w.endedBy} while recording; its HAR was written then` : `Stopped recording tab ${w.tabId}`}: ${w.path} ` +
    `(${w.entries} entr${w.entries === 1 ? 'y' : 'ies'}, ${(w.bytes / 1024).toFixed(1)} KB, ${(w.keptBodyBytes / 1024).toFixed(1)} KB of bodies).`);
  res.text(left ? `Left out: ${left}.` : 'Nothing was left out.');
  res.text(`route_from_har {path: ${JSON.stringify(w.path)}} replays it.`);
}

export const startHar = defineTabTool({
  name: 'start_har',
  title: 'Start a HAR recording',
  description:
    "Record a tab's network traffic (requests, responses, headers, timings, sizes, bodies) until stop_har writes it as a HAR file " +
    'to .tabwright/har/ or path (inside the workspace). Bodies over maxBodyBytes, and past the total cap, are left out and counted.',
  needs: ['routing'],
  effect: 'observe',
  launchesBrowser: true,
  toolset: 'network',
  target: 'tab',
  dialogOk: true,
  input: z.object({
    tabId: tabIdField,
    path: z.string().min(1).max(1000).optional().describe('Where stop_har writes it, relative to the workspace, ending in .har (default .tabwright/har/<time>.har)'),
    bodies: z.boolean().optional().describe('Record response bodies (default true)'),
    maxBodyBytes: z.number().int().min(0).max(100 * MB).optional().describe(`Leave out bodies larger than this (default ${DEFAULT_MAX_BODY})`),
    maxTotalBytes: z.number().int().min(0).max(500 * MB).optional().describe(`Body bytes kept in all (default ${DEFAULT_MAX_TOTAL})`),
  }),
  check(args, ctx) {
    if (args.path !== undefined) {
      if (!/\.har$/i.test(args.path)) throw new ToolError('invalid_arguments', `path must end in .har: ${args.path}`, 'Name a .har file, e.g. "fixtures/shop.har", or leave path out for .tabwright/har/.');
      resolveWritablePath(args.path, ctx.config);
    }
  },
  async handle(tab, args, ctx, res) {
    const state = of(ctx.session);
    const running = state.running.get(tab.id);
    if (running) {
      throw new ToolError('recording_active', `Tab ${tab.id} is already being recorded (to ${running.path}).`, `stop_har {tabId: ${tab.id}} first.`);
    }
    state.ended.delete(tab.id);
    const path = args.path !== undefined ? resolveWritablePath(args.path, ctx.config) : join(ctx.config.workspace, '.tabwright', 'har', `tab${tab.id}-${stamp()}.har`);
    const recorder = new HarRecorder(tab.page, {
      bodies: args.bodies ?? true,
      maxBodyBytes: args.maxBodyBytes ?? DEFAULT_MAX_BODY,
      maxTotalBytes: args.maxTotalBytes ?? DEFAULT_MAX_TOTAL,
      maxEntries: MAX_ENTRIES,
    });
    const rec: Recording = { recorder, tab, path };
    state.running.set(tab.id, rec);
    const workspace = ctx.config.workspace;
    // The tab closing ends the recording: its HAR is written whole, and stop_har reports it.
    tab.page.once('close', () => {
      if (state.running.get(tab.id) !== rec) return;
      state.running.delete(tab.id);
      const written = finish(rec, workspace).then(w => ({ ...w, endedBy: 'closed' }));
      written.catch((error: unknown) => log.warn(`tab ${tab.id}: writing its HAR at close failed:`, error));
      state.ended.set(tab.id, written);
    });
    res.merge({ tabId: tab.id, path, recording: true });
    res.text(`Recording tab ${tab.id}'s traffic from now on; stop_har {tabId: ${tab.id}} writes it to ${path}.`);
  },
});

export const stopHar = defineTool({
  name: 'stop_har',
  title: 'Stop a HAR recording',
  description: "Stop recording a tab's traffic (start_har) and write the HAR file: says its path, entries, size and what was left out (bodies over the caps, failed or unfinished requests).",
  needs: ['routing'],
  effect: 'observe',
  launchesBrowser: false,
  toolset: 'network',
  input: z.object({
    tabId: tabIdField,
  }),
  async handle(args, ctx, res) {
    const state = of(ctx.session);
    const tabId = args.tabId ?? (state.running.size === 1 ? [...state.running.keys()][0] : ctx.session.activeTabId);
    const ended = tabId !== undefined ? state.ended.get(tabId) : undefined;
    if (tabId !== undefined && ended) {
      state.ended.delete(tabId);
      return report(await ended, res);
    }
    const rec = tabId !== undefined ? state.running.get(tabId) : undefined;
    if (!rec) {
      const others = [...state.running.keys()];
      throw new ToolError('recording_not_running', `Tab ${tabId ?? '(none active)'} has no HAR recording${others.length ? `; tab${others.length === 1 ? '' : 's'} ${others.join(', ')} ${others.length === 1 ? 'is' : 'are'} being recorded` : ''}.`,
        others.length ? `Pass tabId: ${others[0]}.` : 'start_har starts a recording.');
    }
    state.running.delete(rec.tab.id);
    report(await finish(rec, ctx.config.workspace), res);
  },
});

export const harTools = [startHar, stopHar];
