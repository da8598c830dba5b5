/**
 * Memory of each server, from /proc (Linux): every ~100 ms one scan of the
 * process table finds each tracked server's process tree (the node process
 * and its descendants: Chromium and its helpers) and records the peak
 * VmRSS of the node process alone and of the whole tree (a sum of VmRSS,
 * so pages shared between Chromium processes count once per process).
 *
 * The same scan remembers every descendant it has seen, so `killTree` can
 * end exactly the processes a server started (by pid, checking the start
 * time so a reused pid is never hit) if they outlive the server.
 */
import { readdirSync, readFileSync } from 'node:fs';

interface ProcEntry {
  ppid: number;
  /** Start time in clock ticks since boot (field 22 of /proc/<pid>/stat). */
  start: number;
}

function readStat(pid: number): ProcEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), start: Number(fields[19]) };
  } catch {
    return undefined;
  }
}

/** VmRSS (or another kB field of /proc/<pid>/status) in KiB; 0 when the process is gone. */
export function statusKiB(pid: number, field = 'VmRSS'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function processTable(): Map<number, ProcEntry> {
  const table = new Map<number, ProcEntry>();
  let names: string[] = [];
  try {
    names = readdirSync('/proc');
  } catch {
    return table;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readStat(Number(name));
    if (entry) table.set(Number(name), entry);
  }
  return table;
}

/** The pids of `root` and all its descendants in `table`. */
function treeOf(root: number, table: Map<number, ProcEntry>): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, e] of table) {
    const list = children.get(e.ppid);
    if (list) list.push(pid);
    else children.set(e.ppid, [pid]);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    if (!table.has(pid)) continue;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

interface Tracked {
  root: number;
  peakNodeKiB: number;
  peakTreeKiB: number;
  /** Every process seen in the tree: pid → start time. */
  seen: Map<number, number>;
}

/** Samples the memory of tracked process trees on an interval. */
export class TreeSampler {
  private tracked = new Map<string, Tracked>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private intervalMs = 100) {}

  /** Starts tracking the tree rooted at `pid` under `key`, and starts the timer if needed. */
  track(key: string, pid: number): void {
    this.tracked.set(key, { root: pid, peakNodeKiB: 0, peakTreeKiB: 0, seen: new Map() });
    this.sample();
    this.timer ??= setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  /** One scan: updates the peaks of every tracked tree. */
  sample(): void {
    if (!this.tracked.size) return;
    const table = processTable();
    for (const t of this.tracked.values()) {
      let tree = 0;
      for (const pid of treeOf(t.root, table)) {
        const rss = statusKiB(pid);
        tree += rss;
        if (pid === t.root) t.peakNodeKiB = Math.max(t.peakNodeKiB, rss);
        t.seen.set(pid, table.get(pid)!.start);
      }
      t.peakTreeKiB = Math.max(t.peakTreeKiB, tree);
    }
  }

  /** Peaks in MiB so far; the node peak also takes the kernel's VmHWM (exact high-water mark) into account. */
  peaks(key: string): { nodeMiB: number; treeMiB: number } | undefined {
    const t = this.tracked.get(key);
    if (!t) return undefined;
    this.sample();
    const node = Math.max(t.peakNodeKiB, statusKiB(t.root, 'VmHWM'));
    return { nodeMiB: node / 1024, treeMiB: Math.max(t.peakTreeKiB, node) / 1024 };
  }

  /** Command lines (argv) of the processes now in the tree of `key`, the root (the server itself) excluded. */
  commandLines(key: string): string[][] {
    const t = this.tracked.get(key);
    if (!t) return [];
    const out: string[][] = [];
    for (const pid of treeOf(t.root, processTable())) {
      if (pid === t.root) continue;
      try {
        out.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean));
      } catch {
        // gone meanwhile
      }
    }
    return out;
  }

  /** Stops tracking `key`; returns the processes seen in its tree (pid → start time). */
  untrack(key: string): Map<number, number> {
    const t = this.tracked.get(key);
    this.tracked.delete(key);
    if (!this.tracked.size && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    return t?.seen ?? new Map();
  }
}

/** Processes from `seen` that still run (same pid and start time). */
export function stillRunning(seen: Map<number, number>): number[] {
  return [...seen].filter(([pid, start]) => readStat(pid)?.start === start).map(([pid]) => pid);
}

/** SIGKILLs the processes of `seen` that still run; returns how many were killed. */
export function killTree(seen: Map<number, number>): number {
  let killed = 0;
  for (const pid of stillRunning(seen)) {
    try {
      process.kill(pid, 'SIGKILL');
      killed++;
    } catch {
      // already gone
    }
  }
  return killed;
}
