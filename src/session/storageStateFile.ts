/**
 * Saved storage states on disk (docs/storage.md, "The file"): `<dataDir>/storage-states/<name>.json`, mode 0600,
 * written by temp file and rename. The `state` is a Playwright storage state (cookies, and per origin localStorage
 * and IndexedDB), so a file's `state` also loads into Playwright's `storageState` option. With `--state-encryption`
 * the state is sealed with AES-256-GCM under the 32-byte key in `<configDir>/state-key` (0600, made on first use);
 * the header (name, time, origins, cookie count) stays readable for list_storage_states and is authenticated with
 * the ciphertext.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { diskFull, ToolError } from '../errors.js';
import { writePrivateFile } from '../util/privateFile.js';
import { ensureSecret, HEX_TOKEN, newHexToken, readSecret } from '../util/secretFile.js';

/** A cookie as Playwright's `context.cookies()` gives it. */
export interface StateCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Unix time in seconds; -1 for a session cookie. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
  partitionKey?: string;
}

/** One origin's web storage, in Playwright's storage-state shape (IndexedDB records as its StorageScript writes them). */
export interface OriginState {
  origin: string;
  localStorage: Array<{ name: string; value: string }>;
  indexedDB?: IndexedDbState[];
}

/** One IndexedDB database: its version, stores, indexes and records (values plain JSON, else `valueEncoded`). */
export interface IndexedDbState {
  name: string;
  version: number;
  stores: Array<{
    name: string;
    keyPath?: string;
    keyPathArray?: string[];
    autoIncrement: boolean;
    indexes: Array<{ name: string; keyPath?: string; keyPathArray?: string[]; unique: boolean; multiEntry: boolean }>;
    records: Array<{ key?: unknown; keyEncoded?: unknown; value?: unknown; valueEncoded?: unknown }>;
  }>;
}

/** A Playwright storage state. */
export interface StorageState {
  cookies: StateCookie[];
  origins: OriginState[];
}

/** What a file says about itself without its secrets (list_storage_states). */
export interface StateHeader {
  format: typeof FORMAT;
  version: 1;
  name: string;
  /** ISO 8601. */
  savedAt: string;
  /** The origins whose web storage the state holds. */
  origins: string[];
  cookieCount: number;
  /** The cookies' domains. */
  cookieDomains: string[];
  encrypted: boolean;
}

/** A file: its header and either the state or its sealed form. */
type StateFile = StateHeader & ({ encrypted: false; state: StorageState } | { encrypted: true; cipher: 'aes-256-gcm'; iv: string; tag: string; data: string });

const FORMAT = 'tabwright-storage-state';
/** A name: a letter or digit first, then letters, digits, `.`, `_`, `-`; at most 64 characters. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The folder of the saved states. */
export function statesDir(dataDir: string): string {
  return join(dataDir, 'storage-states');
}

/** The key file of `--state-encryption`. */
export function stateKeyPath(configDir: string): string {
  return join(configDir, 'state-key');
}

/**
 * Checks a state name.
 * @throws ToolError invalid_arguments for an empty name, a path (`/`, `\`, `..`) or other characters.
 */
export function checkStateName(name: string): void {
  if (NAME.test(name)) return;
  const why = name === '' ? 'is empty' : /[/\\]|\.\./.test(name) ? 'looks like a path' : 'has characters a state name cannot have';
  throw new ToolError('invalid_arguments', `The state name "${name.slice(0, 80)}" ${why}.`,
    'Use a plain name: letters, digits, ".", "_" and "-", starting with a letter or digit, at most 64 characters (e.g. "github-alice"). States live in tabwright\'s data dir; there is no path to give.');
}

function statePath(dataDir: string, name: string): string {
  checkStateName(name);
  return join(statesDir(dataDir), `${name}.json`);
}

/** The header of a state: the origins of its web storage, its cookies' count and domains. */
export function headerOf(name: string, state: StorageState, encrypted: boolean, savedAt = new Date()): StateHeader {
  return {
    format: FORMAT, version: 1, name, savedAt: savedAt.toISOString(),
    origins: state.origins.map(o => o.origin),
    cookieCount: state.cookies.length,
    cookieDomains: [...new Set(state.cookies.map(c => c.domain))].sort(),
    encrypted,
  };
}

/** The additional authenticated data of a sealed file: its header, so a changed header fails to open. */
const aad = (header: StateHeader) => Buffer.from(JSON.stringify({ ...header, encrypted: true }));

function headerOnly(file: StateFile): StateHeader {
  const { format, version, name, savedAt, origins, cookieCount, cookieDomains, encrypted } = file;
  return { format, version, name, savedAt, origins, cookieCount, cookieDomains, encrypted };
}

/** The key of `--state-encryption`, made on first use (32 random bytes, hex, in a 0600 file). */
function ensureKey(configDir: string): Buffer {
  return Buffer.from(ensureSecret(stateKeyPath(configDir), HEX_TOKEN, newHexToken), 'hex');
}

/** The file's text for `state`: plain, or sealed under `key` (32 bytes). */
export function encodeStateFile(name: string, state: StorageState, key?: Buffer, savedAt = new Date()): string {
  const header = headerOf(name, state, key !== undefined, savedAt);
  if (!key) return `${JSON.stringify({ ...header, encrypted: false, state } satisfies StateFile, null, 1)}\n`;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad(header));
  const data = Buffer.concat([cipher.update(JSON.stringify(state), 'utf8'), cipher.final()]);
  const file: StateFile = { ...header, encrypted: true, cipher: 'aes-256-gcm', iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  return `${JSON.stringify(file, null, 1)}\n`;
}

/**
 * The state of a file's text.
 * @param key  the 32-byte key, undefined when there is none (a sealed file then fails).
 * @throws ToolError file_not_found (sealed, no key), invalid_arguments (not a state file; a key that does not open it).
 */
export function decodeStateFile(text: string, key: Buffer | undefined, where: string, keyFile: string): { header: StateHeader; state: StorageState } {
  const file = parseFile(text, where);
  if (!file.encrypted) return { header: headerOnly(file), state: file.state };
  if (!key) {
    throw new ToolError('file_not_found', `The state "${file.name}" is encrypted, and the key to open it (${keyFile}) is missing.`,
      'Copy the state-key file of the tabwright that saved it into that place (mode 0600), or save the state again here.');
  }
  const header = headerOnly(file);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(file.iv, 'base64'));
    decipher.setAAD(aad(header));
    decipher.setAuthTag(Buffer.from(file.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(file.data, 'base64')), decipher.final()]).toString('utf8');
    return { header, state: JSON.parse(plain) as StorageState };
  } catch {
    throw new ToolError('invalid_arguments', `The state "${file.name}" cannot be opened with the key in ${keyFile}: it was sealed with another key, or the file was changed.`,
      'Use the state-key file of the tabwright that saved it, or save the state again here.');
  }
}

function parseFile(text: string, where: string): StateFile {
  let file: StateFile;
  try {
    file = JSON.parse(text) as StateFile;
  } catch {
    file = {} as StateFile;
  }
  if (file.format !== FORMAT || file.version !== 1 || (!file.encrypted && !Array.isArray(file.state?.cookies))) {
    throw new ToolError('invalid_arguments', `${where} is not a tabwright storage state (version 1).`, 'Delete it (delete_storage_state) and save the state again.');
  }
  return file;
}

/** What a save wrote. */
export interface SavedState {
  header: StateHeader;
  path: string;
  /** Bytes of the file. */
  size: number;
}

/**
 * Writes state `name` (0600, atomically), sealed when `encrypt`.
 * @throws ToolError invalid_arguments (name), disk_full, workspace_unwritable (the data dir cannot be written).
 */
export function writeState(dataDir: string, configDir: string, name: string, state: StorageState, encrypt: boolean): SavedState {
  const path = statePath(dataDir, name);
  const text = encodeStateFile(name, state, encrypt ? ensureKey(configDir) : undefined);
  try {
    writePrivateFile(path, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw diskFull(error, path) ?? new ToolError('workspace_unwritable', `Cannot write ${path} (${code}).`, `Make tabwright's data dir (${dataDir}, TABWRIGHT_DATA_DIR) a folder you can write.`);
  }
  return { header: JSON.parse(text) as StateHeader, path, size: Buffer.byteLength(text) };
}

/**
 * Reads state `name`: a plain file always, a sealed one with the key in the config dir.
 * @throws ToolError invalid_arguments (name, not a state file, wrong key), file_not_found (no such state; sealed, no key).
 */
export function readState(dataDir: string, configDir: string, name: string): { header: StateHeader; state: StorageState; path: string } {
  const path = statePath(dataDir, name);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw missing(name);
    throw error;
  }
  const keyFile = stateKeyPath(configDir);
  const hex = readSecret(keyFile, HEX_TOKEN);
  return { ...decodeStateFile(text, hex === undefined ? undefined : Buffer.from(hex, 'hex'), path, keyFile), path };
}

function missing(name: string): ToolError {
  return new ToolError('file_not_found', `There is no saved storage state "${name}".`, 'list_storage_states lists the saved ones; save_storage_state saves one.');
}

/** One saved state as list_storage_states shows it. */
export interface StateListing extends StateHeader {
  /** Bytes of the file. */
  size: number;
}

/** Every saved state, by name; files that are not states are left out. */
export function listStates(dataDir: string): StateListing[] {
  const dir = statesDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir).filter(f => f.endsWith('.json')).sort();
  } catch {
    return [];
  }
  const out: StateListing[] = [];
  for (const file of names) {
    try {
      const text = readFileSync(join(dir, file), 'utf8');
      out.push({ ...headerOnly(parseFile(text, file)), size: statSync(join(dir, file)).size });
    } catch {
      // not a state file: not listed
    }
  }
  return out;
}

/**
 * Deletes state `name`.
 * @throws ToolError invalid_arguments (name), file_not_found (no such state).
 */
export function deleteState(dataDir: string, name: string): void {
  const path = statePath(dataDir, name);
  try {
    statSync(path);
  } catch {
    throw missing(name);
  }
  rmSync(path);
}
