/**
 * The script store (docs/userscripts.md, "Store and saves"): one SQLite database
 * (better-sqlite3) at `<dataDir>/scripts.db`, WAL mode, `synchronous=FULL`,
 * file mode 0600. Tables:
 *
 * - `scripts`: id, kind, name, namespace, identity (namespace + NFC name,
 *   unique), code (byte-exact source), codeHash (sha256 hex of the UTF-8
 *   code), enabled, author (`agent` | `human`), metadata (JSON), created /
 *   updated (epoch ms);
 * - `script_values`: per-script GM values (key → JSON text);
 * - `script_resources`: each script's `@resource` data as its last save resolved it (name, url, mime, sha256,
 *   bytes BLOB, position in the header), replaced in the commit's transaction;
 * - `receipts`: save receipts (operationId, scriptId, status `pending` |
 *   `committed` | `not_committed`, codeHash, time). A `committed` receipt is
 *   written in the same transaction as the code it commits, so a receipt
 *   and the code it names can never disagree, even after kill -9. The
 *   newest RECEIPTS_PER_SCRIPT receipts of each script are kept.
 *
 * The schema is `CREATE … IF NOT EXISTS`, run at every open: a table added in a later version (`script_resources`)
 * is created in an older database the first time a newer tabwright opens it; the rows of older tables stay as they
 * are (a script saved before has no resources until its next save resolves them).
 *
 * The database opens on first use (startup stays fast: better-sqlite3 is
 * loaded then, not at import). Implements ScriptSource (types.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { openDatabase } from '../util/sqlite.js';
import { logger } from '../log.js';
import type { ScriptAuthor, ScriptKind, ScriptMetadata, ScriptSource, StoredResource, StoredScript } from './types.js';

const log = logger('store');

/** How many receipts per script survive (the newest); the latest one is what get_bridge_status needs. */
export const RECEIPTS_PER_SCRIPT = 16;
/** How many receipts of scripts that do not exist (failed creates, deleted scripts) survive, in all (the newest). */
export const ORPHAN_RECEIPTS = 256;

/** sha256 hex of the UTF-8 bytes of `code` (the codeHash of). */
export function codeHashOf(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

/** A new script ID: `s_` + 16 hex digits (random). */
export function newScriptId(): string {
  return `s_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

/** What a durable receipt says about one save. */
export type ReceiptStatus = 'pending' | 'committed' | 'not_committed';

/** One row of `receipts`. `time` is epoch ms; codeHash is the hash the save wrote (committed) or tried to write. */
export interface Receipt {
  operationId: string;
  scriptId: string;
  status: ReceiptStatus;
  codeHash: string | null;
  time: number;
}

/** The fields a commit writes. `id` is new for a create. */
export interface ScriptWrite {
  id: string;
  kind: ScriptKind;
  name: string;
  namespace: string;
  identity: string;
  code: string;
  metadata: ScriptMetadata;
  author: ScriptAuthor;
  /** The script's resources, in `@resource` order: they replace the stored ones. */
  resources: StoredResource[];
}

interface ScriptRow {
  id: string;
  kind: ScriptKind;
  name: string;
  namespace: string;
  identity: string;
  code: string;
  code_hash: string;
  enabled: number;
  author: ScriptAuthor;
  metadata: string;
  created: number;
  updated: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS scripts (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  namespace TEXT NOT NULL,
  identity TEXT NOT NULL UNIQUE,
  code TEXT NOT NULL,
  code_hash TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1,
  author TEXT NOT NULL,
  metadata TEXT NOT NULL,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS script_values (
  script_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (script_id, key)
);
CREATE TABLE IF NOT EXISTS script_resources (
  script_id TEXT NOT NULL,
  name TEXT NOT NULL,
  position INTEGER NOT NULL,
  url TEXT NOT NULL,
  mime TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  bytes BLOB NOT NULL,
  PRIMARY KEY (script_id, name)
);
CREATE TABLE IF NOT EXISTS receipts (
  operation_id TEXT PRIMARY KEY,
  script_id TEXT NOT NULL,
  status TEXT NOT NULL,
  code_hash TEXT,
  time INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS receipts_by_script ON receipts (script_id, time);
`;

/** The conflict a commit found: the stored hash differs from the one the save expected, or the identity is taken. */
export class CommitConflict extends Error {
  constructor(
    readonly reason: 'hash' | 'identity' | 'missing',
    readonly currentHash: string | null,
    readonly otherId?: string,
  ) {
    super(reason);
  }
}

/** The SQLite script store. `path` is the database file; the folder is created (mode 0700) on first use. */
export class ScriptStore implements ScriptSource {
  private database: BetterSqlite3.Database | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(readonly path: string) {}

  /** The store of a data dir: `<dataDir>/scripts.db`. */
  static inDataDir(dataDir: string): ScriptStore {
    return new ScriptStore(join(dataDir, 'scripts.db'));
  }

  private get db(): BetterSqlite3.Database {
    if (this.database) return this.database;
    const db = openDatabase(this.path, SCHEMA, ['synchronous = FULL']);
    this.database = db;
    log.debug(`opened ${this.path}`);
    return db;
  }

  /** Whether the database has been opened in this process. */
  get opened(): boolean {
    return this.database !== undefined;
  }

  close(): void {
    this.database?.close();
    this.database = undefined;
  }

  /** Every script, oldest first. */
  list(): StoredScript[] {
    return (this.db.prepare('SELECT * FROM scripts ORDER BY created, id').all() as ScriptRow[]).map(toScript);
  }

  /**
   * The enabled scripts, in creation order. Injection asks this of every
   * launched browser: while no database exists (nothing was ever saved on
   * this data dir) it answers [] without creating one, so an `--isolated`
   * run leaves the data dir untouched.
   */
  enabledScripts(): StoredScript[] {
    if (!this.database && !existsSync(this.path)) return [];
    return (this.db.prepare('SELECT * FROM scripts WHERE enabled = 1 ORDER BY created, id').all() as ScriptRow[]).map(toScript);
  }

  get(id: string): StoredScript | undefined {
    const row = this.db.prepare('SELECT * FROM scripts WHERE id = ?').get(id) as ScriptRow | undefined;
    return row && toScript(row);
  }

  /** The script with this identity (namespace + NFC name), if any. */
  byIdentity(identity: string): StoredScript | undefined {
    const row = this.db.prepare('SELECT * FROM scripts WHERE identity = ?').get(identity) as ScriptRow | undefined;
    return row && toScript(row);
  }

  /**
   * Writes a script in one transaction, with its `committed` receipt: a
   * create when `expect.create`, else an update whose stored hash must
   * equal `expect.hash` (when given; checked inside the transaction).
   * `beforeBegin` runs right before BEGIN (the last moment a save may
   * still be cancelled); `beforeCommit` runs inside the transaction after
   * the writes (the crash test's hook). Notifies nothing: the caller's
   * deploy stage does.
   * @throws CommitConflict when the hash differs, the identity belongs to
   *   another script, or the script to update is gone.
   */
  commit(write: ScriptWrite, expect: { create: boolean; hash?: string }, operationId: string, beforeBegin: () => void, beforeCommit?: () => void): StoredScript {
    const db = this.db;
    const now = Date.now();
    const hash = codeHashOf(write.code);
    const run = db.transaction(() => {
      const current = db.prepare('SELECT id, code_hash FROM scripts WHERE id = ?').get(write.id) as { id: string; code_hash: string } | undefined;
      const other = db.prepare('SELECT id FROM scripts WHERE identity = ? AND id != ?').get(write.identity, write.id) as { id: string } | undefined;
      if (other) throw new CommitConflict('identity', current?.code_hash ?? null, other.id);
      if (expect.create) {
        if (current) throw new CommitConflict('hash', current.code_hash);
        db.prepare(`INSERT INTO scripts (id, kind, name, namespace, identity, code, code_hash, enabled, author, metadata, created, updated)
          VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`)
          .run(write.id, write.kind, write.name, write.namespace, write.identity, write.code, hash, write.author, JSON.stringify(write.metadata), now, now);
      } else {
        if (!current) throw new CommitConflict('missing', null);
        if (expect.hash !== undefined && expect.hash !== current.code_hash) throw new CommitConflict('hash', current.code_hash);
        db.prepare(`UPDATE scripts SET kind = ?, name = ?, namespace = ?, identity = ?, code = ?, code_hash = ?, author = ?, metadata = ?, updated = ? WHERE id = ?`)
          .run(write.kind, write.name, write.namespace, write.identity, write.code, hash, write.author, JSON.stringify(write.metadata), now, write.id);
      }
      db.prepare('DELETE FROM script_resources WHERE script_id = ?').run(write.id);
      const insert = db.prepare('INSERT INTO script_resources (script_id, name, position, url, mime, sha256, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)');
      write.resources.forEach((r, i) => insert.run(write.id, r.name, i, r.url, r.mime, r.sha256, Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength)));
      this.putReceipt({ operationId, scriptId: write.id, status: 'committed', codeHash: hash, time: now });
      beforeCommit?.();
    });
    beforeBegin();
    run.immediate();
    return this.get(write.id)!;
  }

  /** Records (or replaces) a receipt, keeping the newest RECEIPTS_PER_SCRIPT of its script. */
  putReceipt(receipt: Receipt): void {
    const db = this.db;
    db.prepare('INSERT OR REPLACE INTO receipts (operation_id, script_id, status, code_hash, time) VALUES (?, ?, ?, ?, ?)')
      .run(receipt.operationId, receipt.scriptId, receipt.status, receipt.codeHash, receipt.time);
    db.prepare(`DELETE FROM receipts WHERE script_id = ? AND operation_id NOT IN
      (SELECT operation_id FROM receipts WHERE script_id = ? ORDER BY time DESC, rowid DESC LIMIT ?)`)
      .run(receipt.scriptId, receipt.scriptId, RECEIPTS_PER_SCRIPT);
  }

  /** Marks a receipt `not_committed` unless it is already `committed`. */
  abandonReceipt(operationId: string, scriptId: string, codeHash: string | null): void {
    const db = this.db;
    db.transaction(() => {
      const row = db.prepare('SELECT status FROM receipts WHERE operation_id = ?').get(operationId) as { status: ReceiptStatus } | undefined;
      if (row?.status === 'committed') return;
      this.putReceipt({ operationId, scriptId, status: 'not_committed', codeHash, time: Date.now() });
      // Every failed create has its own script ID: keep their receipts bounded as a whole.
      db.prepare(`DELETE FROM receipts WHERE script_id NOT IN (SELECT id FROM scripts) AND operation_id NOT IN
        (SELECT operation_id FROM receipts WHERE script_id NOT IN (SELECT id FROM scripts) ORDER BY time DESC, rowid DESC LIMIT ?)`).run(ORPHAN_RECEIPTS);
    })();
  }

  /** The receipt of an operation, if it is still kept. */
  receipt(operationId: string): Receipt | undefined {
    const row = this.db.prepare('SELECT * FROM receipts WHERE operation_id = ?').get(operationId) as ReceiptRow | undefined;
    return row && toReceipt(row);
  }

  /** The newest receipt of a script, if any. */
  latestReceipt(scriptId: string): Receipt | undefined {
    const row = this.db.prepare('SELECT * FROM receipts WHERE script_id = ? ORDER BY time DESC, rowid DESC LIMIT 1').get(scriptId) as ReceiptRow | undefined;
    return row && toReceipt(row);
  }

  /** The script's resources in `@resource` order (bytes as Buffers); [] for none, or no such script. */
  resources(scriptId: string): StoredResource[] {
    if (!this.database && !existsSync(this.path)) return [];
    const rows = this.db.prepare('SELECT name, url, mime, sha256, bytes FROM script_resources WHERE script_id = ? ORDER BY position').all(scriptId) as StoredResource[];
    return rows;
  }

  /** Deletes a script, its GM values and resources (receipts stay, so a status query still answers). False when there is none. */
  delete(id: string): boolean {
    const db = this.db;
    const changed = db.transaction(() => {
      db.prepare('DELETE FROM script_values WHERE script_id = ?').run(id);
      db.prepare('DELETE FROM script_resources WHERE script_id = ?').run(id);
      return db.prepare('DELETE FROM scripts WHERE id = ?').run(id).changes > 0;
    })();
    if (changed) this.notify();
    return changed;
  }

  /** Enables or disables a script. False when there is none. */
  setEnabled(id: string, enabled: boolean): boolean {
    const changed = this.db.prepare('UPDATE scripts SET enabled = ?, updated = ? WHERE id = ?').run(enabled ? 1 : 0, Date.now(), id).changes > 0;
    if (changed) this.notify();
    return changed;
  }

  /**
   * Marks who wrote a script (a human marks a script as their own through the CLI/permissions flow, so its `allow` tools keep
   * `allow`). False when there is no such script.
   */
  setAuthor(id: string, author: ScriptAuthor): boolean {
    const changed = this.db.prepare('UPDATE scripts SET author = ? WHERE id = ?').run(author, id).changes > 0;
    if (changed) this.notify();
    return changed;
  }

  getValue(scriptId: string, key: string): unknown {
    const row = this.db.prepare('SELECT value FROM script_values WHERE script_id = ? AND key = ?').get(scriptId, key) as { value: string } | undefined;
    return row ? JSON.parse(row.value) : undefined;
  }

  /** Stores a GM value as JSON; `undefined` deletes the key. */
  setValue(scriptId: string, key: string, value: unknown): void {
    if (value === undefined) return this.deleteValue(scriptId, key);
    this.db.prepare('INSERT OR REPLACE INTO script_values (script_id, key, value) VALUES (?, ?, ?)').run(scriptId, key, JSON.stringify(value));
  }

  deleteValue(scriptId: string, key: string): void {
    this.db.prepare('DELETE FROM script_values WHERE script_id = ? AND key = ?').run(scriptId, key);
  }

  listValues(scriptId: string): string[] {
    return (this.db.prepare('SELECT key FROM script_values WHERE script_id = ? ORDER BY key').all(scriptId) as { key: string }[]).map(r => r.key);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls every onChange listener (the deploy stage of a save; delete; toggle). A throwing listener is logged, not fatal. */
  notify(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        log.warn('a script change listener failed:', error);
      }
    }
  }
}

interface ReceiptRow {
  operation_id: string;
  script_id: string;
  status: ReceiptStatus;
  code_hash: string | null;
  time: number;
}

function toReceipt(row: ReceiptRow): Receipt {
  return { operationId: row.operation_id, scriptId: row.script_id, status: row.status, codeHash: row.code_hash, time: row.time };
}

function toScript(row: ScriptRow): StoredScript {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    namespace: row.namespace,
    code: row.code,
    codeHash: row.code_hash,
    enabled: row.enabled === 1,
    author: row.author,
    metadata: JSON.parse(row.metadata) as ScriptMetadata,
    createdAt: row.created,
    updatedAt: row.updated,
  };
}
