// Saved storage state files (src/session/storageStateFile.ts): names, the plain and sealed formats, the key file,
// listing and deleting. No browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkStateName, decodeStateFile, deleteState, encodeStateFile, listStates, readState, writeState, type StorageState } from '../../src/session/storageStateFile.js';
import { ToolError } from '../../src/errors.js';

const STATE: StorageState = {
  cookies: [{ name: 'sid', value: 'secret-token-value', domain: 'example.com', path: '/', expires: -1, httpOnly: true, secure: true, sameSite: 'Lax' },
    { name: 'pref', value: 'dark', domain: '.example.org', path: '/', expires: 2_000_000_000, httpOnly: false, secure: false, sameSite: 'None' }],
  origins: [{ origin: 'https://example.com', localStorage: [{ name: 'profile', value: 'private-profile' }], indexedDB: [] }],
};

const typeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof ToolError ? error.type : String(error);
  }
  return 'no error';
};

function dirs() {
  const root = mkdtempSync(join(tmpdir(), 'tabwright-states-'));
  return { root, data: join(root, 'data'), config: join(root, 'config'), done: () => rmSync(root, { recursive: true, force: true }) };
}

test('names: plain ones pass; empty, path-like and odd ones are invalid_arguments with a hint', () => {
  for (const name of ['github-alice', 'a', 'A.b_c-1', 'x'.repeat(64)]) assert.equal(typeOf(() => checkStateName(name)), 'no error', name);
  for (const name of ['', '..', '../x', 'a/b', 'a\\b', '.hidden', '-x', 'a b', 'x'.repeat(65), 'é']) assert.equal(typeOf(() => checkStateName(name)), 'invalid_arguments', name);
  assert.throws(() => checkStateName('../etc'), { message: 'The state name "../etc" looks like a path.' });
  assert.throws(() => checkStateName(''), { message: 'The state name "" is empty.' });
});

test('a plain file holds a Playwright storage state and its header; a sealed one holds no value in the clear', () => {
  const at = new Date('2026-01-02T03:04:05.000Z');
  const plain = JSON.parse(encodeStateFile('p', STATE, undefined, at)) as Record<string, unknown>;
  assert.deepEqual(plain, { format: 'tabwright-storage-state', version: 1, name: 'p', savedAt: '2026-01-02T03:04:05.000Z', origins: ['https://example.com'], cookieCount: 2, cookieDomains: ['.example.org', 'example.com'], encrypted: false, state: STATE });
  const key = Buffer.alloc(32, 7);
  const sealedText = encodeStateFile('s', STATE, key, at);
  for (const secret of ['secret-token-value', 'private-profile', 'profile', 'sid']) assert.ok(!sealedText.includes(secret), secret);
  const sealed = JSON.parse(sealedText) as Record<string, unknown>;
  assert.deepEqual(Object.keys(sealed), ['format', 'version', 'name', 'savedAt', 'origins', 'cookieCount', 'cookieDomains', 'encrypted', 'cipher', 'iv', 'tag', 'data']);
  assert.equal(sealed.cipher, 'aes-256-gcm');
  assert.deepEqual(decodeStateFile(sealedText, key, 'f', 'k').state, STATE);
  // Without the key: file_not_found; another key, or a changed header or byte: invalid_arguments.
  assert.equal(typeOf(() => decodeStateFile(sealedText, undefined, 'f', 'k')), 'file_not_found');
  assert.equal(typeOf(() => decodeStateFile(sealedText, Buffer.alloc(32, 8), 'f', 'k')), 'invalid_arguments');
  assert.equal(typeOf(() => decodeStateFile(sealedText.replace('"cookieCount": 2', '"cookieCount": 3'), key, 'f', 'k')), 'invalid_arguments');
  const data = sealed.data as string;
  const flipped = `${data[0] === 'A' ? 'B' : 'A'}${data.slice(1)}`;
  assert.equal(typeOf(() => decodeStateFile(sealedText.replace(data, flipped), key, 'f', 'k')), 'invalid_arguments');
  assert.equal(typeOf(() => decodeStateFile('{"format":"other"}', key, 'f', 'k')), 'invalid_arguments');
  // A plain file opens with or without a key.
  assert.deepEqual(decodeStateFile(JSON.stringify(plain), key, 'f', 'k').state, STATE);
});

test('write, read, list and delete on disk: 0600 files, the key made once (0600), a plain file read while encryption is on', () => {
  const d = dirs();
  try {
    const sealed = writeState(d.data, d.config, 'sealed', STATE, true);
    assert.equal(sealed.path, join(d.data, 'storage-states', 'sealed.json'));
    assert.equal(statSync(sealed.path).mode & 0o777, 0o600);
    const keyFile = join(d.config, 'state-key');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    const key = readFileSync(keyFile, 'utf8');
    assert.match(key, /^[0-9a-f]{64}\n$/);
    writeState(d.data, d.config, 'plain', STATE, false);
    writeState(d.data, d.config, 'sealed2', STATE, true);
    assert.equal(readFileSync(keyFile, 'utf8'), key);
    assert.deepEqual(readState(d.data, d.config, 'sealed').state, STATE);
    assert.deepEqual(readState(d.data, d.config, 'plain').state, STATE);
    writeFileSync(join(d.data, 'storage-states', 'junk.json'), 'not json');
    const listed = listStates(d.data);
    assert.deepEqual(listed.map(s => [s.name, s.encrypted, s.cookieCount, s.size]), [
      ['plain', false, 2, statSync(join(d.data, 'storage-states', 'plain.json')).size],
      ['sealed', true, 2, sealed.size],
      ['sealed2', true, 2, statSync(join(d.data, 'storage-states', 'sealed2.json')).size],
    ]);
    rmSync(keyFile);
    assert.equal(typeOf(() => readState(d.data, d.config, 'sealed')), 'file_not_found');
    deleteState(d.data, 'plain');
    assert.equal(typeOf(() => readState(d.data, d.config, 'plain')), 'file_not_found');
    assert.equal(typeOf(() => deleteState(d.data, 'plain')), 'file_not_found');
    assert.equal(typeOf(() => readState(d.data, d.config, '../sealed')), 'invalid_arguments');
  } finally {
    d.done();
  }
});
