/**
 * Downloads: every download a tab starts is saved
 * to `<workspace>/.tabwright/downloads/` under its suggested name (the
 * browser honours `Content-Disposition: filename*`), with " (1)", " (2)"...
 * before the extension when the name is taken. An existing file is never
 * overwritten: the download is saved to a temporary name first and then
 * hard-linked to the first free name, which fails instead of replacing.
 */
import { constants, copyFileSync, linkSync, mkdirSync, statSync, unlinkSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { Download } from 'playwright-core';
import { logger } from '../log.js';
import { pollUntil, raceTimeout } from '../util/wait.js';

const log = logger('downloads');

/** Longest file name most file systems take, in bytes. */
const NAME_MAX_BYTES = 255;

/** One download, as list_downloads and action results report it. */
export interface DownloadRecord {
  /** 1, 2, ... in the order downloads started (per server process). */
  id: number;
  /** The file name it was saved under (the suggested name, or that name with a " (n)" suffix). Until it is saved: the suggested name. */
  name: string;
  /** The name the server suggested (Content-Disposition, else the URL). */
  suggestedName: string;
  url: string;
  /** Size of the saved file in bytes; null until it is saved. */
  size: number | null;
  state: 'in_progress' | 'completed' | 'failed';
  /** Absolute path of the saved file; null until it is saved. */
  path: string | null;
  /** The tab that started it. */
  tabId: number;
  /** ISO 8601 time the download started. */
  startedAt: string;
  /** Why it failed, in the browser's words (Chromium reports a cut-off transfer as "canceled"). */
  error?: string;
  /**
   * Set when the server policy refused the download (`--policy hardened`, docs/policy.md): the error type
   * `policy_denied_download` and the rule. Nothing was saved.
   */
  refused?: { type: 'policy_denied_download'; rule: string };
}

/**
 * A safe single file name from a suggested one: no path separators or
 * control characters, never empty, "." or "..". Chromium already sanitises
 * suggested names; this guards the file system anyway.
 */
export function safeFileName(suggested: string): string {
  // eslint-disable-next-line no-control-regex
  const name = suggested.replace(/[/\\\u0000-\u001f]/g, '_').trim();
  return name === '' || name === '.' || name === '..' ? 'download' : name;
}

/**
 * `name` with " (n)" before its extension (`résumé.pdf` → `résumé (1).pdf`),
 * shortened so the result fits NAME_MAX_BYTES; n = 0 is the name itself.
 */
export function numberedName(name: string, n: number): string {
  let ext = extname(name);
  if (ext.length > 32 || ext === name) ext = '';
  let stem = name.slice(0, name.length - ext.length);
  const suffix = n > 0 ? ` (${n})` : '';
  while (stem.length > 1 && Buffer.byteLength(stem + suffix + ext) > NAME_MAX_BYTES) stem = [...stem].slice(0, -1).join('');
  return stem + suffix + ext;
}

/**
 * Moves `tmp` to the first free name `name`, `name (1)`, ... in `dir` and
 * returns that path. A hard link fails with EEXIST instead of replacing, so
 * two downloads of one name never overwrite each other or a file that was
 * there; where links are not possible, an exclusive copy does the same.
 */
export function claimName(dir: string, name: string, tmp: string): string {
  for (let n = 0; ; n++) {
    const path = join(dir, numberedName(name, n));
    try {
      linkSync(tmp, path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV') throw error;
      try {
        copyFileSync(tmp, path, constants.COPYFILE_EXCL);
      } catch (copyError) {
        if ((copyError as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw copyError;
      }
    }
    unlinkSync(tmp);
    return path;
  }
}

/** Every download of the session, saved as it finishes. */
export class Downloads {
  private readonly records: DownloadRecord[] = [];
  private readonly done = new Map<number, Promise<void>>();
  private count = 0;

  /** @param dir  where files land: `<workspace>/.tabwright/downloads`. */
  constructor(readonly dir: string) {}

  /** Id of the newest download (0 when none started). */
  get lastId(): number {
    return this.count;
  }

  /**
   * Records a download `tabId` started and saves it when it finishes, into
   * `dir` (default: the session's): the downloads folder of the workspace of
   * the call that last acted on the tab (Tab.workspace).
   */
  add(tabId: number, download: Download, dir: string = this.dir, refuse?: string): DownloadRecord {
    const suggestedName = download.suggestedFilename();
    const record: DownloadRecord = {
      id: ++this.count,
      name: suggestedName,
      suggestedName,
      url: download.url(),
      size: null,
      state: 'in_progress',
      path: null,
      tabId,
      startedAt: new Date().toISOString(),
    };
    this.records.push(record);
    this.done.set(record.id, refuse ? this.refuse(record, download, refuse) : this.save(record, download, dir));
    return record;
  }

  /**
   * Records a file tabwright itself saved for a tab (a userscript's GM_download, src/userscripts/gmServer.ts), so
   * list_downloads reports it beside the browser's downloads.
   * @param saved  the file's path and size, or why it failed.
   */
  addSaved(tabId: number, url: string, suggestedName: string, saved: { path: string; size: number } | { error: string }): DownloadRecord {
    const record: DownloadRecord = {
      id: ++this.count, name: suggestedName, suggestedName, url, size: null, state: 'failed', path: null, tabId, startedAt: new Date().toISOString(),
    };
    if ('path' in saved) Object.assign(record, { path: saved.path, name: basename(saved.path), size: saved.size, state: 'completed' });
    else record.error = saved.error;
    this.records.push(record);
    this.done.set(record.id, Promise.resolve());
    return record;
  }

  /** Cancels a download the policy refuses (`rule`) and drops what the browser wrote of it. */
  private async refuse(record: DownloadRecord, download: Download, rule: string): Promise<void> {
    Object.assign(record, { state: 'failed', error: `refused by the server policy (${rule}: downloads are off)`, refused: { type: 'policy_denied_download', rule } });
    log.warn(`download ${record.id} refused (${rule}): ${record.suggestedName}`);
    await download.cancel().catch(() => undefined);
    await download.delete().catch(() => undefined);
  }

  private async save(record: DownloadRecord, download: Download, dir: string): Promise<void> {
    const tmp = join(dir, `.tabwright-download-${process.pid}-${record.id}.part`);
    try {
      mkdirSync(dir, { recursive: true });
      await download.saveAs(tmp);
      const path = claimName(dir, safeFileName(record.suggestedName), tmp);
      Object.assign(record, { path, name: path.slice(dir.length + 1), size: statSync(path).size, state: 'completed' });
    } catch (error) {
      const reason = (await download.failure().catch(() => null)) ?? (error instanceof Error ? error.message.split('\n')[0] : String(error));
      Object.assign(record, { state: 'failed', error: reason });
      try {
        unlinkSync(tmp);
      } catch {
        // nothing was written
      }
      log.debug(`download ${record.id} failed: ${reason}`);
    }
    // The browser's own copy (a temporary folder Playwright owns) is not needed any more.
    await download.delete().catch(() => undefined);
  }

  /** Downloads with an id above `id`, oldest first (copies). */
  since(id: number): DownloadRecord[] {
    return this.records.filter(r => r.id > id).map(r => ({ ...r }));
  }

  /** Every download, oldest first (copies). */
  list(): DownloadRecord[] {
    return this.since(0);
  }

  /** Waits until the downloads with ids above `id` are saved or failed, at most `ms`. */
  async settle(id: number, ms: number): Promise<void> {
    const pending = this.records.filter(r => r.id > id).map(r => this.done.get(r.id)!);
    await raceTimeout(Promise.all(pending), { ms, onTimeout: 'undefined' });
  }

  /** Waits until a download with an id above `id` starts, at most `ms`. */
  async started(id: number, ms: number): Promise<void> {
    await pollUntil(() => this.count > id, { ms, intervalMs: 20 });
  }
}
