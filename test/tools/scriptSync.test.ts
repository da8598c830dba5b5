// File sync end to end: sync_scripts writes one file per
// script, byte-exact, and the manifest; an edited file is exported; an edit of a
// stale file is a conflict reported by get_bridge_status (never an overwrite);
// a new file creates a script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until, useSession } from '../fixtures/harness.js';
import { call, callError } from '../fixtures/mcp.js';

const sha = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

function script(name: string, body: string, eol = '\n'): string {
  return ['// ==UserScript==', `// @name ${name}`, '// @namespace https://example.test', '// @match https://example.test/*',
    '// @grant none', '// ==/UserScript==', body, ''].join(eol);
}

interface Listed { scripts: Array<{ scriptId: string; name: string; codeHash: string }> }
interface Manifest { version: number; files: Record<string, { scriptId: string; codeHash: string }> }
interface SyncStatus { scriptSync?: { directories: string[]; errors: Array<{ file: string; type: string; message: string; scriptId?: string }> } }

let dir: string;
let first: { scriptId: string; code: string };
let second: { scriptId: string; code: string };
const manifest = (): Manifest => JSON.parse(readFileSync(join(dir, '.tabwright-manifest.json'), 'utf8')) as Manifest;

const tw = useSession({
  args: ['--toolsets', 'all'],
  context: 'file',
  setup: async tw => {
    dir = join(tw.workspace, 'synced');
    const code1 = '\uFEFF' + script('My Script', 'one();', '\r\n');
    const code2 = script('My-Script!', 'two();');
    first = { scriptId: (await call<{ scriptId: string }>(tw.client, 'export_script', { code: code1 })).scriptId, code: code1 };
    second = { scriptId: (await call<{ scriptId: string }>(tw.client, 'export_script', { code: code2 })).scriptId, code: code2 };
  },
});

test('sync_scripts writes one byte-exact file per script (slugs made unique) and the manifest', async () => {
  const result = await call<{ directory: string; files: Array<{ file: string; scriptId: string; codeHash: string }>; watching: boolean }>(tw.client, 'sync_scripts', { directory: 'synced' });
  assert.equal(result.directory, dir);
  assert.equal(result.watching, true);
  assert.deepEqual(result.files, [
    { file: 'my-script.user.js', scriptId: first.scriptId, codeHash: sha(first.code) },
    { file: 'my-script-2.user.js', scriptId: second.scriptId, codeHash: sha(second.code) },
  ]);
  assert.deepEqual(readFileSync(join(dir, 'my-script.user.js')), Buffer.from(first.code, 'utf8'));
  assert.deepEqual(readFileSync(join(dir, 'my-script-2.user.js')), Buffer.from(second.code, 'utf8'));
  assert.deepEqual(manifest(), {
    version: 1,
    files: {
      'my-script.user.js': { scriptId: first.scriptId, codeHash: sha(first.code) },
      'my-script-2.user.js': { scriptId: second.scriptId, codeHash: sha(second.code) },
    },
  });
  assert.equal((await callError(tw.client, 'sync_scripts', { directory: '../outside' })).type, 'path_not_allowed');
});

test('saving a synced file exports it; the manifest follows', async () => {
  const edited = '\uFEFF' + script('My Script', 'one_edited();', '\r\n');
  writeFileSync(join(dir, 'my-script.user.js'), edited);
  await until('the edit to be saved', async () => {
    const listed = await call<Listed>(tw.client, 'list_scripts');
    return listed.scripts.find(s => s.scriptId === first.scriptId)?.codeHash === sha(edited);
  }, 15_000);
  await until('the manifest update', () => manifest().files['my-script.user.js']?.codeHash === sha(edited), 15_000);
  const imported = await call<{ path: string }>(tw.client, 'import_script', { scriptId: first.scriptId, path: 'check.user.js' });
  assert.deepEqual(readFileSync(imported.path), Buffer.from(edited, 'utf8'));
});

test('editing a stale file is a conflict reported by get_bridge_status, not an overwrite', async () => {
  // Someone else moves the script on after the sync...
  const newer = script('My-Script!', 'two_newer();');
  await call(tw.client, 'export_script', { code: newer, scriptId: second.scriptId, expectedCodeHash: sha(second.code) });
  // ...then the synced (stale) file is edited.
  writeFileSync(join(dir, 'my-script-2.user.js'), script('My-Script!', 'two_stale_edit();'));
  const status = await until('the conflict', async () => {
    const s = await call<SyncStatus>(tw.client, 'get_bridge_status');
    return s.scriptSync?.errors.find(e => e.file === 'my-script-2.user.js') ? s : undefined;
  }, 15_000);
  assert.deepEqual(status.scriptSync!.directories, [dir]);
  const error = status.scriptSync!.errors.find(e => e.file === 'my-script-2.user.js')!;
  assert.equal(error.type, 'conflict');
  assert.equal(error.scriptId, second.scriptId);
  assert.ok(error.message.includes(sha(second.code)) && error.message.includes(sha(newer)), error.message);
  const listed = await call<Listed>(tw.client, 'list_scripts');
  assert.equal(listed.scripts.find(s => s.scriptId === second.scriptId)!.codeHash, sha(newer));
  assert.equal(manifest().files['my-script-2.user.js']!.codeHash, sha(second.code));
});

test('a new file in the folder creates a script and joins the manifest', async () => {
  const code = script('Brand New', 'fresh();');
  writeFileSync(join(dir, 'brand-new.user.js'), code);
  const created = await until('the new script', async () => {
    const listed = await call<Listed>(tw.client, 'list_scripts');
    return listed.scripts.find(s => s.name === 'Brand New');
  }, 15_000);
  assert.equal(created.codeHash, sha(code));
  await until('the manifest entry', () => manifest().files['brand-new.user.js']?.scriptId === created.scriptId, 15_000);
  assert.equal(manifest().files['brand-new.user.js']!.codeHash, sha(code));
});

test('a new file whose header names a remote @require and @resource is saved with both fetched and pinned, as export_script does', async () => {
  tw.site.page('/sync-lib.js', 'window.syncedLib = 1;');
  tw.site.page('/sync-style.css', 'body { color: rgb(1, 2, 3); }');
  const code = ['// ==UserScript==', '// @name Remote Synced', '// @namespace https://example.test', '// @match https://example.test/*',
    `// @require ${tw.origin}/sync-lib.js`, `// @resource css ${tw.origin}/sync-style.css`, '// @grant GM_getResourceText', '// ==/UserScript==', 'GM_getResourceText("css");', ''].join('\n');
  writeFileSync(join(dir, 'remote-synced.user.js'), code);
  const created = await until(() => `the new script (sync errors: ${JSON.stringify(status)})`, async () => {
    status = await call<SyncStatus>(tw.client, 'get_bridge_status');
    return (await call<Listed>(tw.client, 'list_scripts')).scripts.find(s => s.name === 'Remote Synced');
  }, 15_000);
  // The files change on the server: saving the same code again keeps what the folder's save pinned (no fetch).
  tw.site.page('/sync-lib.js', 'window.syncedLib = 2;');
  tw.site.page('/sync-style.css', 'body { color: red; }');
  const again = await call<{ remoteRequires: Array<{ url: string; sha256: string }>; resources: Array<{ name: string; sha256: string }> }>(tw.client, 'export_script', { code, scriptId: created.scriptId, expectedCodeHash: sha(code) });
  assert.deepEqual(again.remoteRequires.map(r => [r.url, r.sha256]), [[`${tw.origin}/sync-lib.js`, sha('window.syncedLib = 1;')]]);
  assert.deepEqual(again.resources.map(r => [r.name, r.sha256]), [['css', sha('body { color: rgb(1, 2, 3); }')]]);
});
let status: SyncStatus | undefined;
