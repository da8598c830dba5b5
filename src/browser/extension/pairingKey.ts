/**
 * The pairing key K of the extension link (docs/own-browser.md, "Pairing"): 32 random bytes, shown as a 52-character
 * base32 code that the user pastes into the extension's pairing page. It lives in `<config dir>/pairing-key`, mode
 * 0600, created on first use; deleting the file rotates it (the next use makes a new one, and the extension must be
 * paired again). `TABWRIGHT_PAIRING_KEY` (the code itself) or `TABWRIGHT_PAIRING_KEY_FILE` (another file holding
 * it) override the file. Never logged.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolError } from '../../errors.js';
import { decodeKey, encodeKey } from './protocol.js';
import { writePrivateFile } from '../../util/privateFile.js';

/** The key file's name in the config dir. */
export const PAIRING_KEY_FILE = 'pairing-key';

/** The pairing key: `code` to show the user, `bytes` for the HMAC, `source` where it came from (for messages). */
export interface PairingKey {
  code: string;
  bytes: Buffer;
  source: string;
}

/**
 * Reads the pairing key, creating `<configDir>/pairing-key` (0600, the dir 0700) when neither override is set and
 * the file is missing.
 * @throws ToolError invalid_arguments when an override or the file holds something that is not a pairing code.
 */
export function pairingKey(configDir: string, env: Record<string, string | undefined> = process.env): PairingKey {
  if (env.TABWRIGHT_PAIRING_KEY) return parse(env.TABWRIGHT_PAIRING_KEY, 'TABWRIGHT_PAIRING_KEY');
  const file = env.TABWRIGHT_PAIRING_KEY_FILE || join(configDir, PAIRING_KEY_FILE);
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || env.TABWRIGHT_PAIRING_KEY_FILE) {
      throw new ToolError('invalid_arguments', `Cannot read the pairing key file ${file}: ${(error as Error).message}`, 'Fix TABWRIGHT_PAIRING_KEY_FILE, or unset it to use the config dir\'s key.');
    }
  }
  if (text !== undefined) return parse(text.trim(), file);
  const code = encodeKey(randomBytes(32));
  writePrivateFile(file, `${code}\n`);
  // Two processes creating it at once: both read back the one that won the rename.
  return parse(readFileSync(file, 'utf8').trim(), file);
}

function parse(code: string, source: string): PairingKey {
  const bytes = decodeKey(code);
  if (!bytes) {
    throw new ToolError('invalid_arguments', `${source} does not hold a pairing code (52 base32 characters).`, 'Delete the key file to make a new one (then pair the extension again), or fix the override.');
  }
  return { code: code.replace(/[\s-]/g, '').toUpperCase(), bytes: Buffer.from(bytes), source };
}
