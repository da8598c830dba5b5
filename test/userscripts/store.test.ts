// The script store and save pipeline, in process:
// the SQLite file, byte-exact code, identity and hash conflicts, serialized saves,
// the commit-time hash check, receipts (in memory and durable), the deadline and
// cancellation before persist, GM values, authorship and change notifications, @resource data (kept with the
// commit, replaced by the next, gone with the script) and an older database gaining the resources table.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Saves, OPERATION_LIMIT, type SaveRequest } from '../../src/userscripts/saves.js';
import { CommitConflict, RECEIPTS_PER_SCRIPT, ScriptStore } from '../../src/userscripts/store.js';
import { ToolError } from '../../src/errors.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'tabwright-store-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function fresh(deadlineMs = 90_000): { store: ScriptStore; saves: Saves; path: string } {
  const path = join(dir, `db${++n}`, 'scripts.db');
  const store = new ScriptStore(path);
  return { store, saves: new Saves(store, { deadlineMs }), path };
}

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A valid userscript; `body` goes after the header. */
function script(name: string, body = 'console.log(1);', eol = '\n', namespace = 'https://example.test'): string {
  return [
    '// ==UserScript==',
    `// @name         ${name}`,
    `// @namespace    ${namespace}`,
    '// @version      1.0',
    '// @match        https://example.test/*',
    '// @grant        none',
    '// ==/UserScript==',
    body,
    '',
  ].join(eol);
}

const never = new AbortController().signal;
const req = (code: string, extra: Partial<SaveRequest> = {}): SaveRequest => ({ code, author: 'agent', signal: never, ...extra });

async function rejects(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ToolError, `expected a ToolError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the save to fail');
}

test('the database opens on first use, as a 0600 WAL file with synchronous=FULL', async () => {
  const { store, path } = fresh();
  assert.equal(existsSync(path), false);
  assert.deepEqual(store.list(), []);
  assert.equal(existsSync(path), true);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const db = (store as unknown as { db: { pragma(q: string, o: { simple: true }): unknown } }).db;
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  assert.equal(db.pragma('synchronous', { simple: true }), 2);
  store.close();
});

test('a create stores the code byte-exact (BOM, CRLF, non-ASCII) with its sha256', async () => {
  const { store, saves, path } = fresh();
  const code = '\uFEFF' + script('Grüße', 'document.title = "héllo";', '\r\n');
  const result = await saves.save(req(code));
  // SQLite gives its -wal and -shm files the database file's mode.
  for (const suffix of ['-wal', '-shm']) assert.equal(statSync(path + suffix).mode & 0o777, 0o600, suffix);
  assert.equal(result.created, true);
  assert.deepEqual(result.stages.map(s => s.stage), ['validate', 'normalize', 'persist', 'deploy']);
  for (const s of result.stages) assert.ok(s.ms >= 0);
  const stored = store.get(result.script.id)!;
  assert.equal(stored.code, code);
  assert.equal(stored.codeHash, sha(code));
  assert.equal(stored.name, 'Grüße');
  assert.equal(stored.kind, 'userscript');
  assert.equal(stored.enabled, true);
  assert.equal(stored.author, 'agent');
  assert.deepEqual(stored.metadata.match, ['https://example.test/*']);
  store.close();
});

test('a second create with the same identity (NFD name) is a conflict naming the first script', async () => {
  const { store, saves } = fresh();
  const first = await saves.save(req(script('Café')));
  const error = await rejects(saves.save(req(script('Cafe\u0301', 'console.log(2);'))));
  assert.equal(error.type, 'conflict');
  assert.match(error.message, new RegExp(first.script.id));
  assert.equal(error.details?.scriptId, first.script.id);
  assert.equal(store.list().length, 1);
  store.close();
});

test('replaceSameIdentity: an edited copy updates the stored script in place, as Tampermonkey installs do; never a human\'s from an agent', async () => {
  const { store, saves } = fresh();
  const v1 = script('Edited');
  const first = await saves.save(req(v1, { replaceSameIdentity: true }));
  assert.equal(first.created, true);
  assert.equal(first.replacedCodeHash, undefined);
  const v2 = script('Edited', 'console.log(2);');
  const second = await saves.save(req(v2, { replaceSameIdentity: true }));
  assert.deepEqual([second.created, second.script.id, second.replacedCodeHash, second.script.codeHash], [false, first.script.id, sha(v1), sha(v2)]);
  assert.deepEqual(store.list().map(x => [x.id, x.codeHash]), [[first.script.id, sha(v2)]]);
  // expectedCodeHash still guards it.
  const stale = await rejects(saves.save(req(script('Edited', 'console.log(3);'), { replaceSameIdentity: true, expectedCodeHash: sha(v1) })));
  assert.deepEqual([stale.type, stale.details?.currentCodeHash], ['conflict', sha(v2)]);
  // A human's script: an agent's copy is the conflict of old; a human's own copy replaces it.
  store.setAuthor(first.script.id, 'human');
  const agent = await rejects(saves.save(req(script('Edited', 'console.log(4);'), { replaceSameIdentity: true })));
  assert.deepEqual([agent.type, agent.details?.scriptId], ['conflict', first.script.id]);
  const human = await saves.save(req(script('Edited', 'console.log(5);'), { replaceSameIdentity: true, author: 'human' }));
  assert.deepEqual([human.created, human.script.id, human.replacedCodeHash], [false, first.script.id, sha(v2)]);
  assert.equal(store.list().length, 1);
  store.close();
});

test('an update with a stale expectedCodeHash is a conflict with both hashes; nothing changes', async () => {
  const { store, saves } = fresh();
  const v1 = script('Stale');
  const created = await saves.save(req(v1));
  const v2 = script('Stale', 'console.log(2);');
  await saves.save(req(v2, { scriptId: created.script.id, expectedCodeHash: sha(v1) }));
  const error = await rejects(saves.save(req(script('Stale', 'console.log(3);'), { scriptId: created.script.id, expectedCodeHash: sha(v1) })));
  assert.equal(error.type, 'conflict');
  assert.ok(error.message.includes(sha(v1)) && error.message.includes(sha(v2)), error.message);
  assert.equal(error.details?.expectedCodeHash, sha(v1));
  assert.equal(error.details?.currentCodeHash, sha(v2));
  assert.equal(store.get(created.script.id)!.code, v2);
  store.close();
});

test('concurrent saves of one script run one after the other: the second, based on the old hash, is rejected', async () => {
  const { store, saves } = fresh();
  const v1 = script('Race');
  const { script: s } = await saves.save(req(v1));
  const a = saves.save(req(script('Race', 'a();'), { scriptId: s.id, expectedCodeHash: sha(v1) }));
  const b = saves.save(req(script('Race', 'b();'), { scriptId: s.id, expectedCodeHash: sha(v1) }));
  const [ra, rb] = await Promise.allSettled([a, b]);
  assert.equal(ra.status, 'fulfilled');
  assert.equal(rb.status, 'rejected');
  assert.equal((rb as PromiseRejectedResult).reason.type, 'conflict');
  assert.equal(store.get(s.id)!.code, script('Race', 'a();'));
  store.close();
});

test('the commit checks the hash again inside its transaction', async () => {
  const { store, saves } = fresh();
  const v1 = script('Commit');
  const { script: s } = await saves.save(req(v1));
  const write = { id: s.id, kind: s.kind, name: s.name, namespace: s.namespace, identity: `${s.namespace} :: ${s.name}`, code: 'x', metadata: s.metadata, author: 'agent' as const, resources: [] };
  assert.throws(() => store.commit(write, { create: false, hash: sha('something else') }, 'op-x', () => undefined),
    (e: unknown) => e instanceof CommitConflict && e.reason === 'hash' && e.currentHash === sha(v1));
  assert.equal(store.get(s.id)!.code, v1);
  assert.equal(store.receipt('op-x'), undefined);
  store.close();
});

test('validation errors reject the save with diagnostics; nothing is stored and the receipt says not_committed', async () => {
  const { store, saves } = fresh();
  const error = await rejects(saves.save(req(script('Broken', 'function ( {'))));
  assert.equal(error.type, 'script_rejected');
  const diagnostics = error.details?.diagnostics as Array<{ severity: string; code: string; line: number }>;
  assert.ok(diagnostics.some(d => d.severity === 'error' && d.code === 'syntax_error' && d.line === 8), JSON.stringify(diagnostics));
  assert.deepEqual(store.list(), []);
  const status = saves.status({ operationId: error.details?.operationId as string });
  assert.equal(status.status, 'not_committed');
  assert.equal(status.running, false);
  assert.deepEqual(status.stages?.map(s => s.stage), ['validate']);
  assert.equal(status.error?.type, 'script_rejected');
  store.close();
});

test('update of an unknown script is script_not_found', async () => {
  const { store, saves } = fresh();
  const error = await rejects(saves.save(req(script('Nobody'), { scriptId: 's_0000000000000000' })));
  assert.equal(error.type, 'script_not_found');
  store.close();
});

test('receipts: committed with matchesCurrentCode, durable across a reopen; a pending receipt reads not_committed; unknown otherwise', async () => {
  const { store, saves, path } = fresh();
  const v1 = script('Receipt');
  const first = await saves.save(req(v1));
  assert.deepEqual(saves.status({ operationId: first.operationId }).status, 'committed');
  assert.equal(saves.status({ operationId: first.operationId }).matchesCurrentCode, true);
  const second = await saves.save(req(script('Receipt', 'two();'), { scriptId: first.script.id }));
  assert.equal(saves.status({ operationId: first.operationId }).matchesCurrentCode, false);
  store.close();

  // A new process: memory is gone, the receipts are not.
  const reopened = new ScriptStore(path);
  const later = new Saves(reopened, { deadlineMs: 90_000 });
  const byOp = later.status({ operationId: second.operationId });
  assert.deepEqual({ ...byOp, time: 0 }, { operationId: second.operationId, scriptId: first.script.id, status: 'committed', matchesCurrentCode: true, codeHash: second.script.codeHash, stages: undefined, time: 0 });
  assert.equal(later.status({ scriptId: first.script.id }).operationId, second.operationId);
  // A save that died before its commit leaves its pending receipt.
  reopened.putReceipt({ operationId: 'op-dead', scriptId: first.script.id, status: 'pending', codeHash: sha('x'), time: Date.now() + 10 });
  assert.equal(later.status({ operationId: 'op-dead' }).status, 'not_committed');
  assert.equal(later.status({ operationId: 'op-never' }).status, 'unknown');
  // The operation belongs to another script: unknown for this one.
  assert.equal(later.status({ operationId: second.operationId, scriptId: 's_other' }).status, 'unknown');
  reopened.close();
});

test(`only the newest ${RECEIPTS_PER_SCRIPT} receipts of a script are kept; memory keeps ${OPERATION_LIMIT} operations`, async () => {
  const { store, saves } = fresh();
  const first = await saves.save(req(script('Many', 'v(0);')));
  const ops = [first.operationId];
  for (let i = 1; i <= OPERATION_LIMIT + 2; i++) ops.push((await saves.save(req(script('Many', `v(${i});`), { scriptId: first.script.id }))).operationId);
  const db = (store as unknown as { db: { prepare(q: string): { get(...a: unknown[]): { n: number } } } }).db;
  assert.equal(db.prepare('SELECT count(*) AS n FROM receipts WHERE script_id = ?').get(first.script.id).n, RECEIPTS_PER_SCRIPT);
  // The oldest operation left memory and its receipt was pruned: unknown. The newest is in memory with stages.
  assert.equal(saves.status({ operationId: ops[0] }).status, 'unknown');
  assert.equal(saves.status({ operationId: ops.at(-1) }).stages?.length, 4);
  store.close();
});

test('the deadline before persist: timeout, nothing written, not_committed', async () => {
  const { store, saves } = fresh(20);
  let opId = '';
  const error = await rejects(saves.save(req(script('Slow'), {
    // The caller's progress handler is slow (a stalled transport): the deadline passes during validate.
    progress: async () => {
      await new Promise(resolve => setTimeout(resolve, 200));
    },
  })));
  assert.equal(error.type, 'timeout');
  opId = /operation ([0-9a-f-]{36})/.exec(error.message)![1]!;
  assert.deepEqual(store.list(), []);
  assert.equal(saves.status({ operationId: opId }).status, 'not_committed');
  store.close();
});

test('cancellation right before persist: nothing written, ever', async () => {
  const { store, saves } = fresh();
  const controller = new AbortController();
  const error = await rejects(saves.save(req(script('Cancel'), {
    signal: controller.signal,
    progress: (_done, _total, stage) => {
      if (stage === 'persist') controller.abort();
    },
  })));
  assert.equal(error.type, 'cancelled');
  assert.deepEqual(store.list(), []);
  store.close();
});

test('GM values, authorship, toggling, deleting, and change notifications', async () => {
  const { store, saves } = fresh();
  let changes = 0;
  const off = store.onChange(() => changes++);
  const { script: s } = await saves.save(req(script('Values')));
  assert.equal(changes, 1);
  store.setValue(s.id, 'count', 3);
  store.setValue(s.id, 'obj', { a: [1, 'b'] });
  assert.equal(store.getValue(s.id, 'count'), 3);
  assert.deepEqual(store.getValue(s.id, 'obj'), { a: [1, 'b'] });
  assert.deepEqual(store.listValues(s.id), ['count', 'obj']);
  store.deleteValue(s.id, 'count');
  assert.deepEqual(store.listValues(s.id), ['obj']);
  assert.equal(store.setAuthor(s.id, 'human'), true);
  assert.equal(store.get(s.id)!.author, 'human');
  assert.equal(store.setEnabled(s.id, false), true);
  assert.deepEqual(store.enabledScripts(), []);
  assert.equal(changes, 3);
  assert.equal(store.delete(s.id), true);
  assert.equal(store.get(s.id), undefined);
  assert.deepEqual(store.listValues(s.id), []);
  assert.equal(store.delete(s.id), false);
  assert.equal(changes, 4);
  off();
  store.notify();
  assert.equal(changes, 4);
  store.close();
});

/** A userscript declaring these `@resource` lines and granting GM_getResourceText. */
function withResources(name: string, resources: string[]): string {
  return ['// ==UserScript==', `// @name ${name}`, '// @namespace https://example.test', '// @match https://example.test/*',
    ...resources.map(r => `// @resource ${r}`), '// @grant GM_getResourceText', '// ==/UserScript==', 'GM_getResourceText("a");', ''].join('\n');
}

test('@resource data is written by the commit, in header order, replaced by the next save, and deleted with the script; a failing resource writes nothing', async () => {
  const { store, saves } = fresh();
  const files = join(dir, 'resource-files');
  mkdirSync(files, { recursive: true });
  writeFileSync(join(files, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  const readLocal = (url: string, maxBytes: number) => {
    const bytes = readFileSync(join(files, url));
    assert.equal(maxBytes, 2 * 1024 * 1024);
    return bytes;
  };
  const v1 = withResources('Res', ['b data:;base64,aGk=', 'a logo.svg']);
  const { script: s } = await saves.save(req(v1, { readLocal }));
  assert.deepEqual(store.resources(s.id).map(r => [r.name, r.url, r.mime, Buffer.from(r.bytes).toString(), r.sha256]), [
    ['b', 'data:;base64,aGk=', 'text/plain', 'hi', sha('hi')],
    ['a', 'logo.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>', sha('<svg xmlns="http://www.w3.org/2000/svg"/>')],
  ]);
  // A save whose resource cannot be resolved changes nothing: code and resources stay as committed.
  const broken = await rejects(saves.save(req(withResources('Res', ['a data:text/css;base64,!!']), { scriptId: s.id, readLocal })));
  assert.equal(broken.type, 'script_rejected');
  assert.deepEqual((broken.details as { diagnostics: Array<{ code: string }> }).diagnostics.map(d => d.code), ['resource_unreadable']);
  assert.equal(store.get(s.id)!.code, v1);
  assert.equal(store.resources(s.id).length, 2);
  // Without a reader, a local resource cannot be resolved (sync folders give theirs).
  assert.equal((await rejects(saves.save(req(withResources('Res 2', ['a logo.svg']))))).type, 'script_rejected');
  await saves.save(req(withResources('Res', ['a data:text/css,p%7Bcolor:red%7D']), { scriptId: s.id }));
  assert.deepEqual(store.resources(s.id).map(r => [r.name, r.mime, Buffer.from(r.bytes).toString()]), [['a', 'text/css', 'p{color:red}']]);
  assert.equal(store.delete(s.id), true);
  assert.deepEqual(store.resources(s.id), []);
  store.close();
});

test('a database from before @resource data (no script_resources table) opens, keeps its scripts and gains the table', async () => {
  const path = join(dir, 'old', 'scripts.db');
  mkdirSync(join(dir, 'old'));
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');
  const old = new Database(path);
  old.exec(`CREATE TABLE scripts (id TEXT PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, namespace TEXT NOT NULL, identity TEXT NOT NULL UNIQUE,
    code TEXT NOT NULL, code_hash TEXT NOT NULL, enabled INTEGER NOT NULL DEFAULT 1, author TEXT NOT NULL, metadata TEXT NOT NULL, created INTEGER NOT NULL, updated INTEGER NOT NULL);
    CREATE TABLE script_values (script_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (script_id, key));
    CREATE TABLE receipts (operation_id TEXT PRIMARY KEY, script_id TEXT NOT NULL, status TEXT NOT NULL, code_hash TEXT, time INTEGER NOT NULL);`);
  const code = withResources('Old', ['a data:,x']);
  const { metadata } = (await import('../../src/userscripts/metadata.js')).parseMetadata(code);
  old.prepare('INSERT INTO scripts VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, 1, 1)').run('s_old', 'userscript', 'Old', 'https://example.test', 'https://example.test :: Old', code, sha(code), 'agent', JSON.stringify(metadata));
  old.close();
  const store = new ScriptStore(path);
  const saves = new Saves(store, { deadlineMs: 90_000 });
  assert.equal(store.get('s_old')!.code, code);
  assert.deepEqual(store.resources('s_old'), []); // resolved at its next save
  await saves.save(req(code, { scriptId: 's_old' }));
  assert.deepEqual(store.resources('s_old').map(r => [r.name, Buffer.from(r.bytes).toString()]), [['a', 'x']]);
  store.close();
});
