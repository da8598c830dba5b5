/** Files only this user may read (secrets, the daemon's endpoint, the own-Chrome scope), written whole. */
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes `text` to `file` with mode 0600: a temp file in the same folder (the folder created with mode 0700 when
 * missing), its mode set again in case the temp existed with other bits, then a rename, so a reader sees the old
 * file or the new one, never half of one. The temp file is removed when a step fails.
 * @throws the fs error of the step that failed.
 */
export function writePrivateFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, text, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
