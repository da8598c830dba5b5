/**
 * File sync (docs/userscripts.md, "File sync"): `sync_scripts {directory}` writes
 * one file per script (`<slug>.user.js` / `<slug>.agent.js`, byte-exact
 * with the stored source: BOM and CRLF kept) and `.tabwright-manifest.json`:
 *
 *     { "version": 1, "files": { "<file>": { "scriptId": "s_…", "codeHash": "<sha256 of the last sync>" } } }
 *
 * From then on this process watches the folder (chokidar, writes settle
 * for 300 ms): a changed file is saved with `expectedCodeHash` from the
 * manifest, so an edit of a stale file is a `conflict` (kept in `errors()`,
 * shown by get_bridge_status, logged to stderr), never a silent overwrite; a
 * new file creates a script. The manifest is rewritten atomically after
 * each change. Watching stops with the process (close()).
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { FSWatcher } from 'chokidar';
import { logger } from '../log.js';
import { toToolError, ToolError } from '../errors.js';
import type { SaveRequest, Saves } from './saves.js';
import { uniqueSlugs } from './slug.js';
import { codeHashOf } from './store.js';
import type { StoredScript } from './types.js';
import { decodeScriptBytes, writeFileAtomic } from './workspacePaths.js';

const log = logger('sync');

/** The manifest's file name inside a sync folder. */
export const MANIFEST = '.tabwright-manifest.json';
/** How long a file must stay unchanged before it is exported, in ms. */
export const SETTLE_MS = 300;
/** How many sync errors are kept (the newest). */
export const SYNC_ERROR_LIMIT = 50;

/** One manifest entry: the script a file holds and the codeHash it had when last synced. */
export interface ManifestEntry {
  scriptId: string;
  codeHash: string;
}

export interface Manifest {
  version: 1;
  files: Record<string, ManifestEntry>;
}

/** A file export that failed (type is the ToolError type, e.g. `conflict`, `script_rejected`). `time` is epoch ms. */
export interface SyncError {
  time: number;
  directory: string;
  file: string;
  scriptId?: string;
  type: string;
  message: string;
}

/** A file sync_scripts wrote. */
export interface SyncedFile {
  file: string;
  scriptId: string;
  codeHash: string;
}

/** The file-name suffix of a script kind. */
export function scriptFileSuffix(script: Pick<StoredScript, 'kind'>): string {
  return script.kind === 'agentscript' ? '.agent.js' : '.user.js';
}

function isScriptFile(name: string): boolean {
  return name.endsWith('.user.js') || name.endsWith('.agent.js');
}

/** Reads a folder's manifest; an absent or unreadable one is empty. */
export function readManifest(directory: string): Manifest {
  try {
    const parsed = JSON.parse(readFileSync(join(directory, MANIFEST), 'utf8')) as Partial<Manifest>;
    if (parsed && typeof parsed.files === 'object' && parsed.files) return { version: 1, files: parsed.files };
  } catch {
    // absent or broken: start afresh
  }
  return { version: 1, files: {} };
}

function writeManifest(directory: string, manifest: Manifest): void {
  writeFileAtomic(join(directory, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * How the saves of a folder's files reach what their headers name: a local `@require` or `@resource` of a file in
 * the folder (SaveRequest.readLocal), a remote one under the server's host rules (SaveRequest.fetchRemote).
 */
export type FolderAccess = Required<Pick<SaveRequest, 'readLocal' | 'fetchRemote'>>;

interface Watched {
  watcher: FSWatcher;
  access: FolderAccess;
  /** File events are handled one at a time per folder (the manifest is shared). */
  queue: Promise<void>;
}

/** The sync folders of one store, and the errors of their automatic exports. */
export class ScriptSync {
  private readonly watched = new Map<string, Watched>();
  private readonly errorList: SyncError[] = [];

  constructor(readonly saves: Saves) {}

  /**
   * Writes every script into `directory` (absolute; created if missing)
   * with the manifest, then watches it.
   * @returns the files written, in script order.
   */
  async syncTo(directory: string, access: FolderAccess): Promise<SyncedFile[]> {
    const scripts = this.saves.store.list();
    const slugs = uniqueSlugs(scripts.map(s => s.name));
    // A sync maps exactly the files it writes; files of earlier syncs stay on disk, unmapped.
    const manifest: Manifest = { version: 1, files: {} };
    const files: SyncedFile[] = scripts.map((script, i) => ({ file: `${slugs[i]}${scriptFileSuffix(script)}`, scriptId: script.id, codeHash: script.codeHash }));
    for (const [i, entry] of files.entries()) {
      writeFileAtomic(join(directory, entry.file), scripts[i]!.code);
      manifest.files[entry.file] = { scriptId: entry.scriptId, codeHash: entry.codeHash };
    }
    writeManifest(directory, manifest);
    await this.watch(directory, access);
    return files;
  }

  /** The folders being watched. */
  directories(): string[] {
    return [...this.watched.keys()];
  }

  /** The newest sync errors, oldest first. */
  errors(): SyncError[] {
    return [...this.errorList];
  }

  /** Resolves when every queued file event has been handled (tests, shutdown). */
  async settled(): Promise<void> {
    for (const w of this.watched.values()) await w.queue;
  }

  private async watch(directory: string, access: FolderAccess): Promise<void> {
    if (this.watched.has(directory)) return;
    const { watch } = await import('chokidar');
    const watcher = watch(directory, {
      ignoreInitial: true,
      depth: 0,
      awaitWriteFinish: { stabilityThreshold: SETTLE_MS, pollInterval: 50 },
      ignored: (path: string, stats?: { isFile(): boolean }) => Boolean(stats?.isFile()) && !isScriptFile(basename(path)),
    });
    const entry: Watched = { watcher, access, queue: Promise.resolve() };
    const onFile = (path: string) => {
      if (!isScriptFile(basename(path))) return;
      entry.queue = entry.queue.then(() => this.exportFile(directory, basename(path), entry.access)).catch(error => log.warn('file sync failed:', error));
    };
    watcher.on('add', onFile);
    watcher.on('change', onFile);
    watcher.on('error', error => log.warn(`watching ${directory} failed:`, error));
    this.watched.set(directory, entry);
    await new Promise<void>(resolve => watcher.once('ready', () => resolve()));
    log.info(`watching ${directory} for script edits`);
  }

  /** Exports one changed file of a sync folder (see the file comment). */
  private async exportFile(directory: string, file: string, access: FolderAccess): Promise<void> {
    let code: string;
    try {
      code = decodeScriptBytes(readFileSync(join(directory, file)), file);
    } catch (error) {
      if (error instanceof ToolError) this.report({ directory, file, type: error.type, message: error.message });
      return; // removed meanwhile: nothing to export
    }
    const manifest = readManifest(directory);
    const known = manifest.files[file];
    const hash = codeHashOf(code);
    if (known && known.codeHash === hash) return; // our own write, or saved back unchanged
    const current = known ? this.saves.store.get(known.scriptId) : undefined;
    if (known && current?.codeHash === hash) {
      // The store has this very code already (export_script of the same file): adopt it.
      manifest.files[file] = { scriptId: known.scriptId, codeHash: hash };
      writeManifest(directory, manifest);
      return;
    }
    try {
      const result = await this.saves.save({
        code,
        scriptId: current ? known!.scriptId : undefined,
        expectedCodeHash: current ? known!.codeHash : undefined,
        author: 'agent',
        signal: new AbortController().signal,
        ...access,
      });
      manifest.files[file] = { scriptId: result.script.id, codeHash: result.script.codeHash };
      writeManifest(directory, manifest);
      log.info(`${file}: saved as ${result.script.id} (operation ${result.operationId})`);
    } catch (error) {
      const e = toToolError(error);
      this.report({ directory, file, scriptId: known?.scriptId, type: e.type, message: e.message });
    }
  }

  private report(error: Omit<SyncError, 'time'>): void {
    const entry: SyncError = { time: Date.now(), ...error };
    this.errorList.push(entry);
    if (this.errorList.length > SYNC_ERROR_LIMIT) this.errorList.shift();
    log.warn(`sync ${error.file}: ${error.type}: ${error.message}`);
  }

  /** Stops watching every folder. */
  async close(): Promise<void> {
    const all = [...this.watched.values()];
    this.watched.clear();
    await Promise.all(all.map(w => w.watcher.close()));
  }
}
