/**
 * The run store (docs/tasks.md, "Persistence"): every run of `run_task` and `extract`, its steps and its open
 * question, in SQLite at `<dataDir>/runs.db` (0600, WAL), so `run_status` from any process of the same user (another
 * MCP session, the daemon, the CLI) sees them. A run belongs to the process that runs its loop (`owner_pid`); a run
 * still `running` or `needs_input` whose process is gone is marked `interrupted` by the next reader.
 * `run_respond` and `run_abort` from another process write `reply` / `abort_requested`, which the owner polls.
 */
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { openDatabase } from '../util/sqlite.js';

/** What a run is doing. `done`, `failed`, `aborted`, `timed_out` and `interrupted` are final. */
export type RunState = 'running' | 'needs_input' | 'done' | 'failed' | 'aborted' | 'timed_out' | 'interrupted';

export const FINAL_STATES: readonly RunState[] = ['done', 'failed', 'aborted', 'timed_out', 'interrupted'];

/** A question a run waits on: a clarification (free text) or a permission (exact `decisions`). */
export interface RunQuestion {
  kind: 'clarification' | 'permission';
  text: string;
  /** For a permission: the values run_respond takes (`once`, `always`, `deny`). */
  decisions?: string[];
  /** For a permission: the step's tool, its origin and its arguments as shown to the human (≤ 500 chars). */
  tool?: string;
  origin?: string;
  arguments?: string;
  /** Epoch ms. */
  askedAt: number;
}

/** One tool call of a run and what became of it. */
export interface RunStep {
  /** 1-based. */
  n: number;
  tool: string;
  /** The arguments as the model sent them (parsed), or its raw text when it was not JSON. */
  args: unknown;
  /** `refused`: not dispatched (unknown tool, not in the mode, bad arguments, consent denied). */
  status: 'running' | 'done' | 'failed' | 'refused';
  /** Whether the tool can change a page (effect other than `observe`). */
  action: boolean;
  /** The outcome in one line (the start of the tool's text, or the error). */
  outcome?: string;
  error?: { type: string; message: string };
  tabId?: number;
  revision?: number;
  startedAt: number;
  endedAt?: number;
}

export interface RunRecord {
  id: string;
  kind: 'run' | 'extract';
  task: string;
  mode: 'ask' | 'act';
  state: RunState;
  tabId?: number;
  /** The origin of the task's tab when the run began: navigations elsewhere ask first (act mode). */
  origin?: string;
  maxSteps: number;
  timeoutSec: number;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
  endedAt?: number;
  ownerPid: number;
  /** The model's final answer (text) of a run that is done. */
  answer?: string;
  /** extract: the data (valid against the schema) and each field's provenance. */
  data?: unknown;
  provenance?: unknown;
  /** Why a run failed, timed out, was aborted or interrupted. */
  error?: { type: string; message: string; hint?: string };
  question?: RunQuestion;
  steps: RunStep[];
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY, kind TEXT NOT NULL, task TEXT NOT NULL, mode TEXT NOT NULL, state TEXT NOT NULL,
  tab_id INTEGER, origin TEXT, max_steps INTEGER NOT NULL, timeout_sec INTEGER NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, ended_at INTEGER, owner_pid INTEGER NOT NULL,
  answer TEXT, data TEXT, provenance TEXT, error TEXT, question TEXT, reply TEXT, abort_requested INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS steps (
  run_id TEXT NOT NULL, n INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run_id, n)
);`;

/** The most runs kept; older ones (and their steps) are dropped when a run is created. */
const KEEP_RUNS = 200;

interface RunRow {
  id: string; kind: string; task: string; mode: string; state: string; tab_id: number | null; origin: string | null;
  max_steps: number; timeout_sec: number; created_at: number; updated_at: number; ended_at: number | null; owner_pid: number;
  answer: string | null; data: string | null; provenance: string | null; error: string | null; question: string | null;
}

const json = (text: string | null): unknown => (text === null ? undefined : JSON.parse(text));

/** Whether process `pid` is alive (signal 0: no signal is sent). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The fields `update` may change. */
export type RunPatch = Partial<Pick<RunRecord, 'state' | 'tabId' | 'origin' | 'endedAt' | 'answer' | 'data' | 'provenance' | 'error'>> & { question?: RunQuestion | null };

export class RunStore {
  private database: BetterSqlite3.Database | undefined;

  constructor(readonly path: string) {}

  /** The store of a data dir: `<dataDir>/runs.db`. */
  static inDataDir(dataDir: string): RunStore {
    return new RunStore(join(dataDir, 'runs.db'));
  }

  private get db(): BetterSqlite3.Database {
    if (this.database) return this.database;
    // 0600 before SQLite opens it: tasks and typed text are the user's.
    const db = openDatabase(this.path, SCHEMA);
    this.database = db;
    return db;
  }

  close(): void {
    this.database?.close();
    this.database = undefined;
  }

  create(run: RunRecord): void {
    const db = this.db;
    db.transaction(() => {
      db.prepare(`INSERT INTO runs (id, kind, task, mode, state, tab_id, origin, max_steps, timeout_sec, created_at, updated_at, owner_pid)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(run.id, run.kind, run.task, run.mode, run.state, run.tabId ?? null, run.origin ?? null, run.maxSteps, run.timeoutSec, run.createdAt, run.updatedAt, run.ownerPid);
      const old = db.prepare(`SELECT id FROM runs ORDER BY created_at DESC LIMIT -1 OFFSET ${KEEP_RUNS}`).all() as Array<{ id: string }>;
      for (const { id } of old) {
        db.prepare('DELETE FROM steps WHERE run_id = ?').run(id);
        db.prepare('DELETE FROM runs WHERE id = ?').run(id);
      }
    })();
  }

  update(id: string, patch: RunPatch): void {
    const cols: string[] = ['updated_at = ?'];
    const values: unknown[] = [Date.now()];
    const set = (col: string, value: unknown) => {
      cols.push(`${col} = ?`);
      values.push(value);
    };
    if (patch.state !== undefined) set('state', patch.state);
    if (patch.tabId !== undefined) set('tab_id', patch.tabId);
    if (patch.origin !== undefined) set('origin', patch.origin);
    if (patch.endedAt !== undefined) set('ended_at', patch.endedAt);
    if (patch.answer !== undefined) set('answer', patch.answer);
    if (patch.data !== undefined) set('data', JSON.stringify(patch.data));
    if (patch.provenance !== undefined) set('provenance', JSON.stringify(patch.provenance));
    if (patch.error !== undefined) set('error', JSON.stringify(patch.error));
    if (patch.question !== undefined) set('question', patch.question === null ? null : JSON.stringify(patch.question));
    values.push(id);
    this.db.prepare(`UPDATE runs SET ${cols.join(', ')} WHERE id = ?`).run(...values);
  }

  /** Writes a step (new or changed). */
  putStep(runId: string, step: RunStep): void {
    this.db.prepare('INSERT INTO steps (run_id, n, body) VALUES (?, ?, ?) ON CONFLICT (run_id, n) DO UPDATE SET body = excluded.body').run(runId, step.n, JSON.stringify(step));
    this.db.prepare('UPDATE runs SET updated_at = ? WHERE id = ?').run(Date.now(), runId);
  }

  get(id: string): RunRecord | undefined {
    const row = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as RunRow | undefined;
    return row ? this.toRecord(row) : undefined;
  }

  /** The newest runs first, at most `limit`. */
  list(limit = 50): RunRecord[] {
    return (this.db.prepare('SELECT * FROM runs ORDER BY created_at DESC LIMIT ?').all(limit) as RunRow[]).map(r => this.toRecord(r));
  }

  /** Stores `reply` for a run that waits on a question; false when it waits on none (or is not there). */
  setReply(id: string, reply: string): boolean {
    return this.db.prepare("UPDATE runs SET reply = ?, updated_at = ? WHERE id = ? AND state = 'needs_input' AND question IS NOT NULL AND reply IS NULL").run(reply, Date.now(), id).changes > 0;
  }

  /** The reply run_respond left for the run, cleared as it is taken; undefined when none. */
  takeReply(id: string): string | undefined {
    const db = this.db;
    return db.transaction(() => {
      const row = db.prepare('SELECT reply FROM runs WHERE id = ?').get(id) as { reply: string | null } | undefined;
      if (row?.reply === null || row?.reply === undefined) return undefined;
      db.prepare('UPDATE runs SET reply = NULL WHERE id = ?').run(id);
      return row.reply;
    })();
  }

  requestAbort(id: string): void {
    this.db.prepare('UPDATE runs SET abort_requested = 1, updated_at = ? WHERE id = ?').run(Date.now(), id);
  }

  abortRequested(id: string): boolean {
    return (this.db.prepare('SELECT abort_requested FROM runs WHERE id = ?').get(id) as { abort_requested: number } | undefined)?.abort_requested === 1;
  }

  /**
   * Marks `interrupted` every unfinished run whose owner is gone: its process is dead, or it is this process and
   * `live(id)` says no loop runs it here (a pid reused after a restart).
   */
  recover(live: (id: string) => boolean): void {
    const rows = this.db.prepare("SELECT id, owner_pid FROM runs WHERE state IN ('running', 'needs_input')").all() as Array<{ id: string; owner_pid: number }>;
    for (const { id, owner_pid } of rows) {
      if (owner_pid === process.pid ? live(id) : processAlive(owner_pid)) continue;
      const now = Date.now();
      this.db.prepare("UPDATE runs SET state = 'interrupted', ended_at = ?, updated_at = ?, question = NULL, error = ? WHERE id = ? AND state IN ('running', 'needs_input')")
        .run(now, now, JSON.stringify({ type: 'interrupted', message: `The tabwright process that ran it (pid ${owner_pid}) ended before the run did.`, hint: 'The steps it took are listed; they are not undone. Check the page, then start a new run if needed.' }), id);
      // A step that was dispatched when the process went away: its outcome is unknown.
      for (const step of this.steps(id)) {
        if (step.status === 'running') this.putStep(id, { ...step, status: 'failed', error: { type: 'interrupted', message: 'The process ended during this step: whether it took effect is unknown.' }, endedAt: now });
      }
    }
  }

  private steps(id: string): RunStep[] {
    return (this.db.prepare('SELECT body FROM steps WHERE run_id = ? ORDER BY n').all(id) as Array<{ body: string }>).map(r => JSON.parse(r.body) as RunStep);
  }

  private toRecord(row: RunRow): RunRecord {
    return {
      id: row.id, kind: row.kind as RunRecord['kind'], task: row.task, mode: row.mode as RunRecord['mode'], state: row.state as RunState,
      tabId: row.tab_id ?? undefined, origin: row.origin ?? undefined, maxSteps: row.max_steps, timeoutSec: row.timeout_sec,
      createdAt: row.created_at, updatedAt: row.updated_at, endedAt: row.ended_at ?? undefined, ownerPid: row.owner_pid,
      answer: row.answer ?? undefined, data: json(row.data), provenance: json(row.provenance),
      error: json(row.error) as RunRecord['error'], question: json(row.question) as RunQuestion | undefined,
      steps: this.steps(row.id),
    };
  }
}

const stores = new Map<string, RunStore>();
/** The process's store of `dataDir` (one connection per path). */
export function runStore(dataDir: string): RunStore {
  let store = stores.get(dataDir);
  if (!store) stores.set(dataDir, (store = RunStore.inDataDir(dataDir)));
  return store;
}
