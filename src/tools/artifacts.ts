/**
 * Files tools write for the caller: `<workspace>/.tabwright/<kind>/...`
 * (DESIGN.md, "Where things live"). Writes are atomic (temp file + rename),
 * so a reader never sees a half-written file.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Inline text above this many bytes goes to a file in `auto` mode (issue #2). */
export const INLINE_TEXT_CAP = 64 * 1024;
/** Inline images above this many base64 characters go to a file (issue #2). */
export const INLINE_IMAGE_CAP = 1536 * 1024;

/** A file name stamp: `20261130-071502-123`. */
export function stamp(date = new Date()): string {
  return date.toISOString().replace(/[-:]/g, '').replace('T', '-').replace(/\..*$/, '') + `-${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/**
 * Writes `data` to `<workspace>/.tabwright/<kind>/<name>` atomically and
 * returns the absolute path.
 */
export function writeArtifact(workspace: string, kind: string, name: string, data: string | Buffer): string {
  const dir = join(workspace, '.tabwright', kind);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
  return path;
}
