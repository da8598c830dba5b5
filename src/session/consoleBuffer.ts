/**
 * A per-tab ring buffer of console messages and uncaught errors, captured
 * from document start (`get_console_context`).
 */

export type ConsoleLevel = 'debug' | 'log' | 'info' | 'warning' | 'error';

/** Severity order used by the `level` filter (a message passes at its level or above). */
export const LEVEL_RANK: Record<ConsoleLevel, number> = { debug: 0, log: 1, info: 1, warning: 2, error: 3 };

export interface ConsoleEntry {
  /** Increasing per tab; pass the last one seen as `since` to read only newer entries. */
  seq: number;
  level: ConsoleLevel;
  /** `console` for console.* calls, `exception` for uncaught errors and rejections. */
  kind: 'console' | 'exception';
  text: string;
  /** Where the message came from, when the browser says; line and column count from 1 (as DevTools shows them). */
  source?: { url: string; line: number; column: number };
  /** Milliseconds since the epoch. */
  timestamp: number;
  /** Document revision the message belongs to. */
  revision: number;
  /** The userscript that logged it (GM_log) or threw it; its name also leads `text` in brackets. */
  script?: { id: string; name: string };
}

/** Maps a Playwright console type to our level. */
export function levelOf(type: string): ConsoleLevel {
  switch (type) {
    case 'error':
    case 'assert':
      return 'error';
    case 'warning':
      return 'warning';
    case 'debug':
    case 'trace':
      return 'debug';
    case 'info':
      return 'info';
    default:
      return 'log';
  }
}

export class ConsoleBuffer {
  private readonly entries: ConsoleEntry[] = [];
  private seq = 0;
  /** Messages longer than this (characters) are cut, with a marker. */
  static readonly MAX_TEXT = 4000;

  constructor(readonly capacity = 1000) {}

  push(entry: Omit<ConsoleEntry, 'seq'>): ConsoleEntry {
    const text = entry.text.length > ConsoleBuffer.MAX_TEXT
      ? `${entry.text.slice(0, ConsoleBuffer.MAX_TEXT)}… [${entry.text.length - ConsoleBuffer.MAX_TEXT} more characters]`
      : entry.text;
    const full = { ...entry, text, seq: ++this.seq };
    this.entries.push(full);
    if (this.entries.length > this.capacity) this.entries.shift();
    return full;
  }

  /** The sequence number of the newest entry (0 when none). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Entries after `since` at `level` or above, newest `limit` of them, oldest first. */
  query(opts: { level?: ConsoleLevel; since?: number; limit?: number } = {}): { entries: ConsoleEntry[]; dropped: number } {
    const min = opts.level ? LEVEL_RANK[opts.level] : 0;
    const matching = this.entries.filter(e => e.seq > (opts.since ?? 0) && LEVEL_RANK[e.level] >= min);
    const limit = opts.limit ?? 100;
    return { entries: matching.slice(-limit), dropped: Math.max(0, matching.length - limit) };
  }

  /** Error-level entries newer than `since`. */
  errorsSince(since: number): ConsoleEntry[] {
    return this.entries.filter(e => e.seq > since && e.level === 'error');
  }
}
