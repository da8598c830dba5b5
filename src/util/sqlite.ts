/**
 * Opening the project's SQLite files (the script store, the run store) through better-sqlite3, loaded on first use:
 * the folder made 0700, the file created 0600 before SQLite opens it (its -wal and -shm files take the main file's
 * mode), WAL journaling, a 5 s busy timeout for other processes of the same data dir, then `schema` run.
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The database at `path`, its `schema` (idempotent SQL: CREATE … IF NOT EXISTS) applied.
 * @param pragmas  more pragmas, run after WAL and before the schema (e.g. `synchronous = FULL`).
 * @throws Error from the file system (an unwritable folder) or SQLite (a file that is not a database).
 */
export function openDatabase(path: string, schema: string, pragmas: readonly string[] = []): BetterSqlite3.Database {
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  for (const pragma of pragmas) db.pragma(pragma);
  db.pragma('busy_timeout = 5000');
  db.exec(schema);
  return db;
}
