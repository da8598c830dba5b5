/**
 * Secrets kept in a file of the config dir (DESIGN.md "Where things live"): mode 0600, created on first use, kept
 * across restarts, rotated by deleting the file (the next use makes a new one). Used for the daemon's token, the
 * dashboard's key and the userscript broker's token. The secret is never logged.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writePrivateFile } from './privateFile.js';

/** 32 random bytes as 64 hex characters: the daemon's token and the dashboard's key. */
export const HEX_TOKEN = /^[0-9a-f]{64}$/;

/** A new secret of the HEX_TOKEN shape. */
export const newHexToken = (): string => randomBytes(32).toString('hex');

/**
 * The secret in `file` (trimmed), or undefined when the file is missing or does not match `shape`.
 * @throws the fs error for anything but a missing file (a permission error is not "no secret").
 */
export function readSecret(file: string, shape: RegExp): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return shape.test(text) ? text : undefined;
}

/**
 * The secret in `file`; when it is missing or does not match `shape`, a new one from `make()`, written with mode
 * 0600 (the folder 0700) by temp file and rename. Two processes creating it at once both return the one that won
 * the rename.
 * @throws the fs error when the file cannot be read or written.
 */
export function ensureSecret(file: string, shape: RegExp, make: () => string): string {
  const existing = readSecret(file, shape);
  if (existing !== undefined) return existing;
  writePrivateFile(file, `${make()}\n`);
  return readFileSync(file, 'utf8').trim();
}
