/**
 * The debug stats hook (docs/reliability.md, "Soak"): with TABWRIGHT_DEBUG_STATS_FILE set, the process writes a
 * JSON of counts to that file each time it gets SIGUSR2, so a soak test can see from outside whether timers,
 * sockets, tabs, CDP sessions, listeners or temporary files grow with the calls it makes. Never writes to stdout
 * (it carries MCP frames in stdio mode); off (no signal handler) without the variable.
 */
import { readdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { logger } from '../log.js';
import { listenerTotal, playwrightObjects, sessionStats, type SessionStats } from '../session/stats.js';
import type { Dispatcher } from './dispatcher.js';

const log = logger('stats');

/** One snapshot of the counts, as the file holds it. */
export interface DebugStats {
  /** 1 for the first snapshot the process writes, +1 for each after it: a reader waits for it to change. */
  seq: number;
  /** When it was taken (ISO 8601). */
  at: string;
  pid: number;
  /** process.memoryUsage(), MB, right after a full garbage collection (heapUsed is then what is retained). */
  memoryMb: { rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number };
  /** process.getActiveResourcesInfo() grouped by kind (`Timeout`, `TCPWrap`, `FSReqCallback`, `PipeWrap`, ...). */
  resources: Record<string, number>;
  /** Listeners on `process`, summed over its events. */
  processListeners: number;
  /** The sessions this process runs calls on (none while it follows a leader), main session first. */
  sessions: SessionStats[];
  /** Playwright's client-side objects by type (`CDPSession`, `Page`, `JSHandle`, ...); absent without a browser. */
  playwright?: Record<string, number>;
  /** Entries in the OS temp folder (os.tmpdir()) named `playwright*` or `tabwright*`, by name with its random tail cut. */
  tempEntries: Record<string, number>;
}

/** Counts each value of `items`. */
function tally(items: Iterable<string>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return counts;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/**
 * Temporary entries of Playwright (its profile and artifacts folders) and tabwright in os.tmpdir(), by prefix.
 * The folder is shared with other processes unless TMPDIR names one of this process's own (the soak does that).
 */
function tempEntries(): Record<string, number> {
  try {
    const names = readdirSync(tmpdir()).filter(name => /^(playwright|tabwright)/.test(name));
    return tally(names.map(name => name.replace(/[-_][A-Za-z0-9]{6,}$/, '')));
  } catch {
    return {};
  }
}

/**
 * A function that runs a full garbage collection. V8 gives one to scripts only under --expose-gc; set at run time,
 * the flag exposes `gc` to contexts created after it, such as the one made here. Only with the hook installed.
 */
function exposedGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** The counts now, for `dispatcher` (see DebugStats), after a full GC when `gc` is given. `seq` is the caller's. */
export function debugStats(dispatcher: Dispatcher, seq: number, gc?: () => void): DebugStats {
  gc?.();
  const local = dispatcher.local?.();
  const sessions = local ? local.sessions() : [];
  const memory = process.memoryUsage();
  const page = sessions.flatMap(s => s.openTabs()).at(0)?.page;
  const objects = page ? playwrightObjects(page.context()) : undefined;
  return {
    seq,
    at: new Date().toISOString(),
    pid: process.pid,
    memoryMb: { rss: mb(memory.rss), heapUsed: mb(memory.heapUsed), heapTotal: mb(memory.heapTotal), external: mb(memory.external), arrayBuffers: mb(memory.arrayBuffers) },
    resources: tally(process.getActiveResourcesInfo()),
    processListeners: listenerTotal(process),
    sessions: sessions.map(sessionStats),
    ...(objects ? { playwright: objects } : {}),
    tempEntries: tempEntries(),
  };
}

/**
 * When `env.TABWRIGHT_DEBUG_STATS_FILE` names a file, writes debugStats to it (whole: a temporary file renamed
 * over it) on each SIGUSR2, each after a full garbage collection (a pause of tens of ms); else does nothing.
 * Errors are logged, never thrown.
 */
export function installDebugStats(dispatcher: Dispatcher, env: NodeJS.ProcessEnv = process.env): void {
  const file = env.TABWRIGHT_DEBUG_STATS_FILE;
  if (!file) return;
  let seq = 0;
  const gc = exposedGc();
  process.on('SIGUSR2', () => {
    try {
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(debugStats(dispatcher, ++seq, gc), null, 1)}\n`);
      renameSync(tmp, file);
    } catch (error) {
      log.warn(`writing the debug stats to ${file} failed:`, error);
    }
  });
  log.info(`debug stats: SIGUSR2 writes them to ${file}`);
}
