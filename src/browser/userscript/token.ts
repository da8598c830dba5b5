/**
 * The broker token (docs/userscript-connection.md, "Install"): 32 random bytes as 43 base64url characters, in
 * `<config dir>/userscript-token`, mode 0600, created on first use; deleting the file rotates it (every companion
 * must then be given the new broker URL). It authenticates the companion's requests, and is part of the broker URL
 * that `tabwright userscript url` prints: never logged.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ensureSecret } from '../../util/secretFile.js';

/** The token file's name in the config dir. */
export const USERSCRIPT_TOKEN_FILE = 'userscript-token';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Reads the broker token, creating `<configDir>/userscript-token` (0600, the dir 0700) when it is missing or does
 * not hold a token.
 */
export function userscriptToken(configDir: string): string {
  return ensureSecret(join(configDir, USERSCRIPT_TOKEN_FILE), TOKEN, () => randomBytes(32).toString('base64url'));
}
