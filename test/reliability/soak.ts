/**
 * What the soak tests share (docs/reliability.md, "Soak"): the run's length from TABWRIGHT_SOAK_* (set by
 * `npm run test:reliability -- --long`), the least-squares slope of RSS samples, a process's open fds and
 * children from /proc, and the debug stats a server writes on SIGUSR2 (src/dispatch/debugStats.ts).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DebugStats } from '../../src/dispatch/debugStats.js';
import { until } from '../fixtures/harness.js';

/** The folders of a soaked process: its own TMPDIR (every entry in it is the process's or its browser's) and its stats file. */
export interface SoakDirs {
  tmp: string;
  statsFile: string;
  /** The environment to start the process with: TMPDIR and TABWRIGHT_DEBUG_STATS_FILE. */
  env: Record<string, string>;
  /** Removes both folders. */
  remove(): void;
}

/** Makes the SoakDirs of one soak, named after `name` (`soak`, `soakd`). */
export function soakDirs(name: string): SoakDirs {
  const tmp = mkdtempSync(join(tmpdir(), `tabwright-${name}-tmp-`));
  const statsFile = join(mkdtempSync(join(tmpdir(), `tabwright-${name}-stats-`)), 'stats.json');
  return {
    tmp,
    statsFile,
    env: { TMPDIR: tmp, TABWRIGHT_DEBUG_STATS_FILE: statsFile },
    remove() {
      rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
      rmSync(join(statsFile, '..'), { recursive: true, force: true });
    },
  };
}

/** A positive integer from `env[name]`, else `fallback`. */
export function soakKnob(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

/**
 * The least-squares slope of `points` (x, y): y's change per unit of x. 0 for fewer than two distinct x.
 * With x in calls and y in MB, times 100 it is MB per 100 calls.
 */
export function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  if (sxx === 0) return 0;
  return points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx;
}

/** The number of open file descriptors of `pid` (/proc/<pid>/fd). */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** The pids whose parent is `pid` (from /proc/<n>/stat). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

/** Sends SIGUSR2 to `pid` and returns the stats it writes to `file` (a snapshot newer than the last one read). */
export async function readStats(pid: number, file: string): Promise<DebugStats> {
  const before = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DebugStats).seq : 0;
  process.kill(pid, 'SIGUSR2');
  return await until('debug stats', () => {
    try {
      const stats = JSON.parse(readFileSync(file, 'utf8')) as DebugStats;
      return stats.seq > before ? stats : undefined;
    } catch {
      return undefined;
    }
  });
}

/** The sum of `counts`' values (0 for undefined). */
export function total(counts: Record<string, number> | undefined): number {
  return Object.values(counts ?? {}).reduce((n, v) => n + v, 0);
}

/** Rounds to one decimal. */
export const round1 = (n: number) => Math.round(n * 10) / 10;
