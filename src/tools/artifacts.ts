/**
 * Files tools write for the caller: `<workspace>/.tabwright/<kind>/...`
 * (README, "Where files go"). Writes are atomic (temp file + rename),
 * so a reader never sees a half-written file.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { diskFull, ToolError } from '../errors.js';

/** Inline text above this many bytes goes to a file in `auto` mode. */
export const INLINE_TEXT_CAP = 64 * 1024;
/** Inline images above this many base64 characters go to a file. */
export const INLINE_IMAGE_CAP = 1536 * 1024;

/** A file name stamp: `20261130-071502-123`. */
export function stamp(date = new Date()): string {
  return date.toISOString().replace(/[-:]/g, '').replace('T', '-').replace(/\..*$/, '') + `-${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/**
 * Writes `data` to `<workspace>/.tabwright/<kind>/<name>` atomically and
 * returns the absolute path.
 * @throws ToolError workspace_unwritable when the folder cannot be made or
 *   written (read-only, not a folder), disk_full when its disk is full; no
 *   partial file is left.
 */
export function writeArtifact(workspace: string, kind: string, name: string, data: string | Buffer, opts: { mode?: number } = {}): string {
  const path = join(workspace, '.tabwright', kind, name);
  writeAtomic(path, data, { ...opts, workspace });
  return path;
}

/**
 * Writes `data` to `path` atomically (a temp file beside it, then rename), making its folder; `mode` for the file
 * (0o600 for one that may hold secrets).
 * @throws ToolError workspace_unwritable when the folder cannot be made or written, disk_full when its disk is full;
 *   no partial file is left.
 */
export function writeAtomic(path: string, data: string | Buffer, opts: { mode?: number; workspace?: string } = {}): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, data, opts.mode !== undefined ? { mode: opts.mode } : undefined);
    renameSync(tmp, path);
  } catch (error) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // the folder itself is what failed: there is no temporary file
    }
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw diskFull(error, path) ?? new ToolError('workspace_unwritable', opts.workspace
      ? `Cannot write ${path} (${code}): the workspace ${opts.workspace} is not a writable folder.`
      : `Cannot write ${path} (${code}).`, opts.workspace
      ? 'Start the server with --workspace DIR (or TABWRIGHT_WORKSPACE) naming a folder you can write; clients that start servers in / or a read-only folder need it.'
      : 'Name a path in a folder you can write, or leave path out for .tabwright/ in the workspace.');
  }
}
