/** Path containment checks shared by upload_file and the script tools' files. */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';

/** Whether `path` is `root` or lies below it (both absolute, already resolved). */
export function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** `path` with symlinks resolved, or `path` itself when it does not exist (yet). */
export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
