/**
 * Call budgets (docs/policy.md, "Call budgets"): `--max-calls N` caps the successful tool calls of one session
 * (one MCP session of the process the client talks to; a stdio server's whole lifetime) and, unless
 * `--max-calls-per-day` says otherwise, of the calendar day (local time), counted across every process of the data
 * dir in `<data dir>/call-budget.db` (SQLite, so that concurrent processes count exactly).
 *
 * A call takes a slot before it runs and gives it back when it fails (`isError`): calls in flight hold theirs, so
 * parallel calls can never overshoot. `get_bridge_status` is neither counted nor refused, so an agent can always
 * read how much is left.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { CallBudgetConfig } from '../config.js';
import { ToolError } from '../errors.js';
import { logger } from '../log.js';
import type { BudgetStatus } from '../tools/context.js';

const log = logger('budget');

/** Tools a budget never counts nor refuses: reading the status must work when the budget is spent. */
export const BUDGET_EXEMPT: ReadonlySet<string> = new Set(['get_bridge_status']);

/** Days of counts kept in the file (older rows are deleted when a new day starts). */
const KEEP_DAYS = 31;

export type { BudgetStatus };

/** A slot taken for one call: `end(ok)` keeps it (a success) or gives it back. Call once. */
export interface BudgetSlot {
  end(ok: boolean): void;
}

const NO_SLOT: BudgetSlot = { end() {} };

/** `date`'s calendar day in local time: `2025-06-01`. */
export function localDay(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The next local midnight after `date`, as an ISO 8601 time (UTC). */
export function nextLocalMidnight(date: Date): string {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + 1).toISOString();
}

/** The day counts in `<data dir>/call-budget.db`, opened on first use. */
class DayCounts {
  private database: BetterSqlite3.Database | undefined;

  constructor(readonly path: string) {}

  private get db(): BetterSqlite3.Database {
    if (this.database) return this.database;
    const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
    mkdirSync(join(this.path, '..'), { recursive: true });
    const db = new Database(this.path);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.exec('CREATE TABLE IF NOT EXISTS days (day TEXT PRIMARY KEY, used INTEGER NOT NULL)');
    this.database = db;
    return db;
  }

  /** Takes one of `limit` slots of `day`; false when all are used. Atomic across processes. */
  take(day: string, limit: number): boolean {
    const db = this.db;
    return db.transaction(() => {
      const inserted = db.prepare('INSERT INTO days (day, used) VALUES (?, 0) ON CONFLICT (day) DO NOTHING').run(day).changes > 0;
      if (inserted) db.prepare(`DELETE FROM days WHERE day NOT IN (SELECT day FROM days ORDER BY day DESC LIMIT ${KEEP_DAYS})`).run();
      return db.prepare('UPDATE days SET used = used + 1 WHERE day = ? AND used < ?').run(day, limit).changes > 0;
    }).immediate();
  }

  /** Gives one slot of `day` back. */
  giveBack(day: string): void {
    this.db.prepare('UPDATE days SET used = used - 1 WHERE day = ? AND used > 0').run(day);
  }

  used(day: string): number {
    const row = this.db.prepare('SELECT used FROM days WHERE day = ?').get(day) as { used: number } | undefined;
    return row?.used ?? 0;
  }

  close(): void {
    this.database?.close();
    this.database = undefined;
  }
}

/** The budget of one process: its sessions' counts in memory, the day's in the shared file. */
export class CallBudget {
  /** Slots taken per session key (`''`: calls without one, a stdio server's). */
  private readonly sessions = new Map<string, number>();
  private readonly days: DayCounts | undefined;

  constructor(readonly limits: CallBudgetConfig, dataDir: string, private readonly now: () => Date = () => new Date()) {
    this.days = limits.day !== undefined ? new DayCounts(join(dataDir, 'call-budget.db')) : undefined;
  }

  /** True when a cap is set. */
  get active(): boolean {
    return this.limits.session !== undefined || this.limits.day !== undefined;
  }

  /**
   * Takes a slot for a call of `tool` in session `sessionKey`.
   * @throws ToolError call_budget_exceeded (details: used, limit, scope, and resetsAt for the day).
   */
  take(tool: string, sessionKey: string | undefined): BudgetSlot {
    if (!this.active || BUDGET_EXEMPT.has(tool)) return NO_SLOT;
    const key = sessionKey ?? '';
    const { session: sessionLimit, day: dayLimit } = this.limits;
    const usedHere = this.sessions.get(key) ?? 0;
    if (sessionLimit !== undefined && usedHere >= sessionLimit) {
      throw new ToolError('call_budget_exceeded', `This session used its ${sessionLimit} tool calls (--max-calls ${sessionLimit}).`,
        'Stop and report to the user: only the person who started the server can raise --max-calls or start a new session. get_bridge_status shows the budget.',
        { used: usedHere, limit: sessionLimit, scope: 'session' });
    }
    const now = this.now();
    const day = localDay(now);
    if (dayLimit !== undefined && this.days) {
      let taken: boolean;
      try {
        taken = this.days.take(day, dayLimit);
      } catch (error) {
        // Fail closed: a budget that cannot be counted is not a budget left.
        log.error(`counting the call failed (${this.days.path}):`, error);
        throw new ToolError('call_budget_exceeded', `The day's call count (${this.days.path}) could not be read or written.`,
          'Check that the data dir is writable; the server log has the error.', { used: null, limit: dayLimit, scope: 'day', resetsAt: nextLocalMidnight(now) });
      }
      if (!taken) {
        const resetsAt = nextLocalMidnight(now);
        throw new ToolError('call_budget_exceeded', `Today's ${dayLimit} tool calls are used (--max-calls${this.limits.session === dayLimit ? '' : '-per-day'} ${dayLimit}); the count resets at ${resetsAt}.`,
          'Stop and report to the user: the budget resets at local midnight, and only the person who started the server can raise it. get_bridge_status shows the budget.',
          { used: this.days.used(day), limit: dayLimit, scope: 'day', resetsAt });
      }
    }
    this.sessions.set(key, usedHere + 1);
    let ended = false;
    return {
      end: ok => {
        if (ended || ok) {
          ended = true;
          return;
        }
        ended = true;
        this.sessions.set(key, Math.max(0, (this.sessions.get(key) ?? 1) - 1));
        if (dayLimit !== undefined) {
          try {
            this.days?.giveBack(day);
          } catch (error) {
            log.warn('giving a call back to the day count failed:', error);
          }
        }
      },
    };
  }

  /** Used and limit per scope, for get_bridge_status; undefined without caps. */
  status(sessionKey: string | undefined): BudgetStatus | undefined {
    if (!this.active) return undefined;
    const out: BudgetStatus = {};
    if (this.limits.session !== undefined) out.session = { used: this.sessions.get(sessionKey ?? '') ?? 0, limit: this.limits.session };
    if (this.limits.day !== undefined && this.days) {
      const now = this.now();
      let used: number;
      try {
        used = this.days.used(localDay(now));
      } catch {
        used = -1;
      }
      out.day = { used, limit: this.limits.day, resetsAt: nextLocalMidnight(now) };
    }
    return out;
  }

  /** Forgets an ended session's count. */
  endSession(sessionKey: string): void {
    this.sessions.delete(sessionKey);
  }

  close(): void {
    this.days?.close();
  }
}

/** One budget per process configuration: a relay takeover builds a new LocalDispatcher on the same Config. */
const budgets = new WeakMap<object, CallBudget>();

/** The budget of `config` (the dispatcher's own Config object, not a per-call copy). */
export function callBudgetOf(config: { budget: CallBudgetConfig; dataDir: string }): CallBudget {
  let budget = budgets.get(config);
  if (!budget) {
    budget = new CallBudget(config.budget, config.dataDir);
    budgets.set(config, budget);
  }
  return budget;
}

/**
 * Runs `run` within the budget: refuses it (a failed result, never a throw) when the budget is spent, keeps its
 * slot when it succeeds and gives it back when it fails.
 */
export async function withinBudget<R extends { isError?: boolean }>(budget: CallBudget, tool: string, sessionKey: string | undefined, run: () => Promise<R>, refuse: (error: ToolError) => R): Promise<R> {
  let slot: BudgetSlot;
  try {
    slot = budget.take(tool, sessionKey);
  } catch (error) {
    if (error instanceof ToolError) return refuse(error);
    throw error;
  }
  let ok = false;
  try {
    const result = await run();
    ok = !result.isError;
    return result;
  } finally {
    slot.end(ok);
  }
}
