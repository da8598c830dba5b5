/**
 * The tab `tabwright use --tab N` remembers, per working
 * directory and per `TABWRIGHT_CLI_SCOPE` (empty when unset), in
 * `<data dir>/cli-tabs.json`: `{"version": 1, "tabs": {"<cwd>\u0000<scope>":
 * {tabId, savedAt}}}`. Written atomically (temp file + rename). A tab that
 * has closed since is reported as `tab_not_found` by the caller, never
 * replaced by another one.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One remembered tab. `savedAt` is an ISO time. */
export interface RememberedTab {
  tabId: number;
  savedAt: string;
}

interface TabsFile {
  version: 1;
  tabs: Record<string, RememberedTab>;
}

/** The file's path in the data dir. */
export function rememberedTabsPath(dataDir: string): string {
  return join(dataDir, 'cli-tabs.json');
}

/** Which directory and scope a remembered tab belongs to. */
export interface TabScope {
  cwd: string;
  /** `TABWRIGHT_CLI_SCOPE`, or '' when unset. */
  scope: string;
}

/** The scope of this process: its cwd and `TABWRIGHT_CLI_SCOPE`. */
export function currentScope(env: Record<string, string | undefined> = process.env): TabScope {
  return { cwd: process.cwd(), scope: env.TABWRIGHT_CLI_SCOPE ?? '' };
}

const keyOf = (s: TabScope) => `${s.cwd}\u0000${s.scope}`;

function readFile(dataDir: string): TabsFile {
  try {
    const parsed = JSON.parse(readFileSync(rememberedTabsPath(dataDir), 'utf8')) as TabsFile;
    if (parsed && parsed.version === 1 && parsed.tabs && typeof parsed.tabs === 'object') return parsed;
  } catch {
    // Missing or unreadable: nothing remembered.
  }
  return { version: 1, tabs: {} };
}

/** The remembered tab of `scope`, if any. */
export function rememberedTab(dataDir: string, scope: TabScope): RememberedTab | undefined {
  const entry = readFile(dataDir).tabs[keyOf(scope)];
  return entry && Number.isInteger(entry.tabId) ? entry : undefined;
}

/** Remembers `tabId` for `scope` (atomic write; other scopes' entries are kept). */
export function rememberTab(dataDir: string, scope: TabScope, tabId: number): RememberedTab {
  const file = readFile(dataDir);
  const entry = { tabId, savedAt: new Date().toISOString() };
  file.tabs[keyOf(scope)] = entry;
  mkdirSync(dataDir, { recursive: true });
  const path = rememberedTabsPath(dataDir);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
  return entry;
}
