/**
 * Finding the running dashboards and their token (docs/dashboard.md, "Opening it"): the token lives in
 * `<config dir>/dashboard-token` (mode 0600, created on first use, kept across restarts; delete it to rotate), and
 * every process that serves a dashboard writes `<config dir>/dashboards/<pid>.json` ({url, pid, port}, mode 0600)
 * while it serves and removes it when it stops. `tabwright dashboard` and `tabwright consent` read them (files of dead
 * processes are skipped and removed). Loads node:* modules only: the CLI imports it.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFile } from '../util/privateFile.js';
import { processAlive } from '../util/processes.js';
import { ensureSecret, HEX_TOKEN, newHexToken, readSecret } from '../util/secretFile.js';

/** One serving dashboard, as its discovery file says. */
export interface DashboardEntry {
  /** The address without the token: `http://127.0.0.1:19682/`. */
  url: string;
  pid: number;
  port: number;
  /** ISO 8601. */
  startedAt: string;
}

/** `<config dir>/dashboard-token`. */
export function tokenPath(configDir: string): string {
  return join(configDir, 'dashboard-token');
}

/** `<config dir>/dashboards`. */
export function entriesDir(configDir: string): string {
  return join(configDir, 'dashboards');
}

/** The token in the 0600 file, or undefined when there is none (or it is not 64 hex characters). */
export function readToken(configDir: string): string | undefined {
  try {
    return readSecret(tokenPath(configDir), HEX_TOKEN);
  } catch {
    return undefined;
  }
}

/**
 * The dashboard token: the file's, else a new random one (32 bytes, hex) written with mode 0600.
 * @throws the fs error when the file cannot be written.
 */
export function ensureToken(configDir: string): string {
  return ensureSecret(tokenPath(configDir), HEX_TOKEN, newHexToken);
}

/**
 * Writes `<config dir>/dashboard-open.html` (mode 0600): a page that forwards to `urlWithKey`, which `tabwright
 * dashboard --open` hands to the desktop's opener, so the key never appears in a process's arguments.
 * @returns the file's path. @throws the fs error when it cannot be written.
 */
export function writeOpener(configDir: string, urlWithKey: string): string {
  const file = join(configDir, 'dashboard-open.html');
  const href = urlWithKey.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  writePrivateFile(file, `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${href}"><title>tabwright dashboard</title><a href="${href}">Open the tabwright dashboard</a>\n`);
  return file;
}

/** Writes this process's discovery file (mode 0600). */
export function writeEntry(configDir: string, entry: DashboardEntry): void {
  writePrivateFile(join(entriesDir(configDir), `${entry.pid}.json`), `${JSON.stringify(entry)}\n`);
}

/** Removes this process's discovery file (no error when it is gone). */
export function removeEntry(configDir: string, pid = process.pid): void {
  rmSync(join(entriesDir(configDir), `${pid}.json`), { force: true });
}

/** The dashboards serving now, newest first; the files of processes that are gone are removed. */
export function listDashboards(configDir: string): DashboardEntry[] {
  let names: string[];
  try {
    names = readdirSync(entriesDir(configDir)).filter(n => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const entries: DashboardEntry[] = [];
  for (const name of names) {
    const pid = Number(name.slice(0, -5));
    if (!processAlive(pid)) {
      removeEntry(configDir, pid);
      continue;
    }
    try {
      const entry = JSON.parse(readFileSync(join(entriesDir(configDir), name), 'utf8')) as DashboardEntry;
      if (entry.pid === pid && typeof entry.url === 'string' && typeof entry.port === 'number') entries.push(entry);
    } catch {
      // Being written (renamed into place, so rarely) or damaged: skipped.
    }
  }
  return entries.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}
