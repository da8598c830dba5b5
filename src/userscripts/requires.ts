/**
 * Local `@require` files (issue #6, "Script format": `@require` of local
 * files only). When a script is saved from a workspace file, each relative
 * `@require` is read beside that file at save time and kept with the
 * script's metadata (`requireCode`), so injection never reads files and a
 * later edit of the required file takes effect at the next save.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Config } from '../config.js';
import { resolveUploadPaths } from '../tools/files.js';
import { ToolError } from '../tools/errors.js';
import { parseMetadata } from './metadata.js';
import type { ScriptMetadata } from './types.js';

/**
 * The code of each local `@require` of `code`, read relative to
 * `scriptPath` (absolute). `data:` URLs are left to injection; remote URLs
 * are the validator's error.
 * @throws ToolError path_not_allowed (a file outside the workspace and the
 *   allowed roots), file_not_found (a required file that does not exist).
 */
export function readLocalRequires(code: string, scriptPath: string, config: Pick<Config, 'workspace' | 'allowedRoots'>): ScriptMetadata['requireCode'] {
  const urls = parseMetadata(code).metadata?.require ?? [];
  const out: NonNullable<ScriptMetadata['requireCode']> = [];
  for (const url of urls) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(url)) continue; // data: (decoded at injection) or a scheme the validator rejects
    const [file] = resolveUploadPaths([resolve(dirname(scriptPath), decodeURI(url))], config);
    let text: string;
    try {
      text = readFileSync(file!, 'utf8');
    } catch {
      throw new ToolError('file_not_found', `@require ${url}: ${file} does not exist.`, 'Save the required file beside the script (the path is relative to the script file), or inline it.');
    }
    out.push({ url, code: text.replace(/^\uFEFF/, '') });
  }
  return out.length ? out : undefined;
}
