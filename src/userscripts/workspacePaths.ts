/**
 * Paths the script tools write to (import_script, sync_scripts):
 * relative ones resolve against the call's workspace, and every path must
 * stay inside the workspace or a configured root (`--allow-root`), checked
 * on the deepest existing ancestor after resolving symlinks, so a link
 * cannot lead out. Writes are atomic (temp file + rename).
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { ToolError } from '../errors.js';
import { inside, realOrSelf } from '../util/paths.js';


/** The real path of `path`'s deepest existing ancestor joined with the rest. */
function realish(path: string): string {
  let existing = path;
  const rest: string[] = [];
  while (!existsSync(existing) && dirname(existing) !== existing) {
    rest.unshift(basename(existing));
    existing = dirname(existing);
  }
  return join(realOrSelf(existing), ...rest);
}

/**
 * Resolves a path the tools may write (a file or a folder, existing or not).
 * @throws ToolError path_not_allowed when it lies outside the workspace and the allowed roots.
 */
export function resolveWritablePath(path: string, config: Pick<Config, 'workspace' | 'allowedRoots'>): string {
  const roots = [config.workspace, ...config.allowedRoots];
  const abs = resolve(config.workspace, path);
  const real = realish(abs);
  if (!roots.map(realOrSelf).some(root => inside(real, root))) {
    throw new ToolError(
      'path_not_allowed',
      `${path} is outside the workspace (${config.workspace})${config.allowedRoots.length ? ' and the allowed roots' : ''}.`,
      'Use a path inside the workspace, or start the server with --allow-root DIR (env TABWRIGHT_ALLOWED_ROOTS).',
    );
  }
  return abs;
}

/** Writes `data` to `file` atomically (a temp file in the same folder, then rename); creates the folder. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    writeFileSync(temp, data);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Decodes a script file's bytes as UTF-8, keeping a BOM (`ignoreBOM`), so
 * the stored code is the file, byte for byte.
 * @throws ToolError invalid_arguments when the bytes are not UTF-8.
 */
export function decodeScriptBytes(bytes: Uint8Array, name: string): string {
  try {
    return new TextDecoder('utf-8', { ignoreBOM: true, fatal: true }).decode(bytes);
  } catch {
    throw new ToolError('invalid_arguments', `${name} is not UTF-8 text.`, 'Save the script as UTF-8 (with or without a BOM).');
  }
}
