// The script tools end to end ("Resources"): the built
// server over stdio with `--toolsets all`, no browser. Create, update, list, toggle,
// delete, import byte-exact (BOM + CRLF), script_rejected with diagnostics, conflict
// with both hashes, two agents (two servers on one store) editing one script,
// receipts across a restart, resources, and the default tool set hiding these tools.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, callError, callRaw, connect, type Connected, evaluate, serverArgs, TEST_CONNECTION, unlessConnection } from '../fixtures/mcp.js';
import { RawSession } from '../fixtures/raw.js';
import { spawnSync } from 'node:child_process';
import { parseToolsets } from '../../src/config.js';

const sha = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

function script(name: string, body = 'console.log(1);', eol = '\n'): string {
  return ['// ==UserScript==', `// @name ${name}`, '// @namespace https://example.test', '// @version 1.0',
    '// @match https://example.test/*', '// @grant none', '// ==/UserScript==', body, ''].join(eol);
}

interface Saved { operationId: string; scriptId: string; created: boolean; codeHash: string; name: string; kind: string; enabled: boolean; stages: Array<{ stage: string; ms: number }>; warnings: unknown[] }
interface Status { save?: { operationId: string | null; scriptId: string | null; status: string; matchesCurrentCode?: boolean; codeHash?: string } }

let dirs: string;
let dataDir: string;
let server: Connected;

before(async () => {
  dirs = mkdtempSync(join(tmpdir(), 'tabwright-scripts-'));
  dataDir = join(dirs, 'data');
  server = await connect({ args: ['--toolsets', 'all'], env: { TABWRIGHT_DATA_DIR: dataDir } });
});
after(async () => {
  await server?.close();
  rmSync(dirs, { recursive: true, force: true });
});

test('the default tool set lists no script tools; --toolsets all lists them; resources are served either way', async () => {
  const plain = await connect({ env: { TABWRIGHT_DATA_DIR: join(dirs, 'plain') } });
  try {
    const names = (await plain.client.listTools()).tools.map(t => t.name);
    assert.ok(names.includes('get_bridge_status'));
    for (const t of ['export_script', 'import_script', 'list_scripts', 'delete_script', 'toggle_script', 'sync_scripts']) assert.ok(!names.includes(t), t);
    const resources = (await plain.client.listResources()).resources.map(r => r.uri).sort();
    assert.deepEqual(resources, ['tabwright://agentscript-conventions', 'tabwright://conventions', 'tabwright://scripts', 'tabwright://userscript-conventions', 'tabwright://webmcp-conventions']);
  } finally {
    await plain.close();
  }
  const all = (await server.client.listTools()).tools.map(t => t.name);
  for (const t of ['export_script', 'import_script', 'list_scripts', 'delete_script', 'toggle_script', 'sync_scripts']) assert.ok(all.includes(t), t);
});

test('--toolsets parsing: core, scripts, all, combinations; an unknown name exits 2 with a hint', async () => {
  assert.deepEqual(parseToolsets('core'), ['core']);
  assert.deepEqual(parseToolsets('scripts'), ['scripts']);
  assert.deepEqual(parseToolsets('all'), ['core', 'scripts', 'storage', 'network', 'emulation', 'recording', 'tasks', 'webmcp-dev']);
  assert.deepEqual(parseToolsets('scripts, core'), ['core', 'scripts']);
  assert.throws(() => parseToolsets('nope'), /Tool set "nope" is unknown/);
  const run = spawnSync(process.execPath, serverArgs(['--toolsets', 'nope']), { encoding: 'utf8', input: '', timeout: 30_000 });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /Tool set "nope" is unknown\.\nUse core, scripts, storage, network, emulation, recording, tasks, webmcp-dev or all/);
});

test('create from a file keeps BOM and CRLF byte-exact; import writes the same bytes back', async () => {
  const code = '\uFEFF' + script('Grüße CRLF', 'document.title = "é";', '\r\n');
  const bytes = Buffer.from(code, 'utf8');
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  writeFileSync(join(server.workspace, 'greet.user.js'), bytes);
  const result = await server.client.callTool({ name: 'export_script', arguments: { path: 'greet.user.js' } });
  assert.ok(!result.isError, JSON.stringify(result.content));
  const saved = result.structuredContent as unknown as Saved;
  assert.equal(saved.created, true);
  assert.equal(saved.codeHash, sha(bytes));
  assert.equal(saved.name, 'Grüße CRLF');
  assert.equal(saved.kind, 'userscript');
  assert.deepEqual(saved.stages.map(s => s.stage), ['validate', 'normalize', 'persist', 'deploy']);
  assert.match(saved.operationId, /^[0-9a-f-]{36}$/);

  const imported = await call<{ path: string; codeHash: string }>(server.client, 'import_script', { scriptId: saved.scriptId });
  assert.equal(imported.path, join(server.workspace, '.tabwright', 'scripts', 'grüße-crlf.user.js'));
  assert.equal(imported.codeHash, sha(bytes));
  assert.deepEqual(readFileSync(imported.path), bytes);
  const elsewhere = await call<{ path: string }>(server.client, 'import_script', { scriptId: saved.scriptId, path: 'out/copy.user.js' });
  assert.deepEqual(readFileSync(join(server.workspace, 'out', 'copy.user.js')), bytes);
  assert.equal(elsewhere.path, join(server.workspace, 'out', 'copy.user.js'));
  const outside = await callError(server.client, 'import_script', { scriptId: saved.scriptId, path: '../escape.user.js' });
  assert.equal(outside.type, 'path_not_allowed');
});

test('each stage is reported as MCP progress before the result (on the wire)', async () => {
  // The SDK client runs notification handlers after the response that follows them, so the wire is read directly.
  const raw = new RawSession(serverArgs(['--toolsets', 'all']), { env: { TABWRIGHT_DATA_DIR: join(dirs, 'raw'), TABWRIGHT_WORKSPACE: dirs, TABWRIGHT_CONFIG_DIR: join(dirs, 'raw-config') } });
  try {
    await raw.initialize('2025-11-25');
    const res = await raw.request('tools/call', { name: 'export_script', arguments: { code: script('Progress') }, _meta: { progressToken: 'p1' } });
    assert.equal((res.result as { isError?: boolean }).isError, undefined);
    const messages = raw.lines.map(l => JSON.parse(l) as { method?: string; id?: number; params?: { progressToken: string; progress: number; total: number; message: string } });
    const at = messages.findIndex(m => m.id === res.id);
    const progress = messages.slice(0, at).filter(m => m.method === 'notifications/progress').map(m => m.params);
    assert.deepEqual(progress, [
      { progressToken: 'p1', progress: 0, total: 4, message: 'validate' },
      { progressToken: 'p1', progress: 1, total: 4, message: 'normalize' },
      { progressToken: 'p1', progress: 2, total: 4, message: 'persist' },
      { progressToken: 'p1', progress: 3, total: 4, message: 'deploy' },
      { progressToken: 'p1', progress: 4, total: 4, message: 'done' },
    ]);
  } finally {
    await raw.close();
  }
});

test('a local @require is read relative to the script file and kept with the script; an unreadable one rejects the save', async () => {
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(server.workspace, 'lib'), { recursive: true });
  mkdirSync(join(server.workspace, 'src'), { recursive: true });
  writeFileSync(join(server.workspace, 'lib', 'helper.js'), '\uFEFFwindow.helper = () => "hé";\r\n');
  const header = (req: string) => ['// ==UserScript==', '// @name Requires', '// @namespace https://example.test', '// @match https://example.test/*',
    `// @require ${req}`, '// @require data:text/javascript,void%200', '// @grant none', '// ==/UserScript==', 'helper();', ''].join('\n');
  writeFileSync(join(server.workspace, 'src', 'req.user.js'), header('../lib/helper.js'));
  const saved = await call<Saved>(server.client, 'export_script', { path: 'src/req.user.js' });
  const one = await server.client.readResource({ uri: `tabwright://scripts/${saved.scriptId}` });
  const meta = JSON.parse((one.contents[1] as { text: string }).text) as { metadata: { requireCode: Array<{ url: string; code: string }> } };
  assert.deepEqual(meta.metadata.requireCode, [{ url: '../lib/helper.js', code: 'window.helper = () => "hé";\r\n' }]);

  const missing = await callRaw(server.client, 'export_script', { code: header('lib/nothere.js').replace('@name Requires', '@name Requires 2') });
  const sc = missing.structuredContent as { error: { type: string }; diagnostics: Array<{ code: string; line: number; column: number }> };
  assert.equal(sc.error.type, 'script_rejected');
  assert.deepEqual(sc.diagnostics.map(d => [d.code, d.line, d.column]), [['require_unreadable', 5, 13]]);
  const outside = await callError(server.client, 'export_script', { code: header('../../etc/passwd').replace('@name Requires', '@name Requires 3') });
  assert.equal(outside.type, 'script_rejected');
  assert.match(outside.message, /outside the workspace/);
});

test('a remote @require is fetched at the first save and pinned by hash: kept on later saves, fetched again with refetch, injected from the store', async () => {
  const { startSite } = await import('../fixtures/site.js');
  const site = await startSite();
  let version = 'one';
  site.route('/lib/version.js', (_req, res) => { res.writeHead(200, { 'content-type': 'text/javascript' }).end(`window.libVersion = "${version}";`); });
  site.route('/lib/huge.js', (_req, res) => { res.writeHead(200, { 'content-type': 'text/javascript' }).end(`/*${'x'.repeat(3 * 1024 * 1024)}*/`); });
  site.page('/remote-require', '<!doctype html><title>Remote require</title><p>page</p>');
  const lib = `${site.origin}/lib/version.js`;
  const header = (req: string, name: string, body = 'document.title = window.libVersion;') => ['// ==UserScript==', `// @name ${name}`, '// @namespace https://example.test',
    `// @match ${site.origin}/remote-require`, `// @require ${req}`, '// @grant none', '// ==/UserScript==', body, ''].join('\n');
  const requireCode = async (id: string) => (JSON.parse(((await server.client.readResource({ uri: `tabwright://scripts/${id}` })).contents[1] as { text: string }).text) as { metadata: { requireCode: Array<{ url: string; code: string; sha256?: string }> } }).metadata.requireCode;
  try {
    const first = await callRaw(server.client, 'export_script', { code: header(lib, 'Remote') });
    const id = (first.structuredContent as { scriptId: string }).scriptId;
    assert.match(first.content.map(c => c.text).join('\n'), /Remote @require pinned \(fetched at the first save, kept until refetch: true\): http:\/\/127\.0\.0\.1:\d+\/lib\/version\.js sha256 [0-9a-f]{12}…/);
    assert.deepEqual(await requireCode(id), [{ url: lib, code: 'window.libVersion = "one";', sha256: sha('window.libVersion = "one";') }]);
    // Injected from the store: the page gets the pinned library before the script.
    const tab = await call<{ tabId: number }>(server.client, 'open_tab', { url: `${site.origin}/remote-require` });
    assert.equal((await call<{ value: string }>(server.client, 'execute', { tabId: tab.tabId, code: 'document.title' })).value, 'one');
    // The library changed upstream; an edited copy of the script keeps the pinned one.
    version = 'two';
    await call(server.client, 'export_script', { code: header(lib, 'Remote', 'document.title = "v2 " + window.libVersion;') });
    assert.deepEqual((await requireCode(id))[0]!.code, 'window.libVersion = "one";');
    // refetch: the new library, pinned with its own hash.
    const again = await call<Saved>(server.client, 'export_script', { code: header(lib, 'Remote', 'document.title = "v2 " + window.libVersion;'), refetch: true });
    assert.equal(again.scriptId, id);
    assert.deepEqual(await requireCode(id), [{ url: lib, code: 'window.libVersion = "two";', sha256: sha('window.libVersion = "two";') }]);
    await call(server.client, 'navigate', { tabId: tab.tabId, url: `${site.origin}/remote-require` });
    assert.equal((await call<{ value: string }>(server.client, 'execute', { tabId: tab.tabId, code: 'document.title' })).value, 'v2 two');
    await call(server.client, 'close_tab', { tabId: tab.tabId });
    await call(server.client, 'delete_script', { scriptId: id });
    // What cannot be fetched rejects the save on its @require line, saying why.
    for (const [path, why] of [['/lib/missing.js', /HTTP 404/], ['/lib/huge.js', /larger than 2 MiB/]] as const) {
      const failed = await callRaw(server.client, 'export_script', { code: header(`${site.origin}${path}`, `Remote ${path}`) });
      const sc = failed.structuredContent as { error: { type: string; message: string }; diagnostics: Array<{ code: string; line: number; column: number }> };
      assert.equal(sc.error.type, 'script_rejected');
      assert.deepEqual(sc.diagnostics.map(d => [d.code, d.line, d.column]), [['require_unreadable', 5, 13]]);
      assert.match(sc.error.message, why);
    }
  } finally {
    await site.close();
  }
});

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

interface ResourceInfo { name: string; url: string; mime: string; sha256: string; bytes: number }
type Rejected = { error: { type: string; message: string }; diagnostics: Array<{ code: string; line: number; column: number }> };

test('@resource: remote CSS and PNG, a local file and a data: URL are kept at save; GM_getResourceText / GM_getResourceURL (and GM.*) read them in the page; pinned until refetch', async () => {
  const { mkdirSync } = await import('node:fs');
  const { startSite } = await import('../fixtures/site.js');
  const site = await startSite();
  let color = 'rgb(255, 0, 0)';
  site.route('/res/style.css', (_req, res) => { res.writeHead(200, { 'content-type': 'text/css; charset=utf-8' }).end(`#t { color: ${color}; }`); });
  // No Content-Type: the type comes from the extension.
  site.route('/res/logo.png', (_req, res) => { res.writeHead(200).end(PNG); });
  site.route('/res/huge.png', (_req, res) => { res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(3 * 1024 * 1024)); });
  site.route('/res/big.bin', (_req, res) => { res.writeHead(200).end(Buffer.alloc(1536 * 1024)); });
  site.page('/res-page', '<!doctype html><title>Resources</title><p id="t">styled</p>');
  const origin = site.origin;
  mkdirSync(join(server.workspace, 'res', 'notes'), { recursive: true });
  writeFileSync(join(server.workspace, 'res', 'notes', 'note.txt'), 'a note, é\n');
  const header = (name: string, resources: string[], body: string) => ['// ==UserScript==', `// @name ${name}`, '// @namespace https://example.test',
    `// @match ${origin}/res-page`, ...resources.map(r => `// @resource ${r}`), '// @grant GM_getResourceText', '// @grant GM_getResourceURL',
    '// @grant GM.getResourceText', '// @grant GM.getResourceUrl', '// @grant GM_addStyle', '// ==/UserScript==', body, ''].join('\n');
  const body = `GM_addStyle(GM_getResourceText('css'));
const img = document.createElement('img'); img.id = 'logo'; img.src = GM_getResourceURL('logo'); document.body.append(img);
(async () => { document.body.dataset.result = JSON.stringify({ note: GM_getResourceText('note'), inline: GM_getResourceText('inline'),
  unknownText: GM_getResourceText('nope') === undefined, unknownUrl: GM_getResourceURL('nope') === undefined, unknownPromise: (await GM.getResourceUrl('nope')) === undefined,
  promiseText: await GM.getResourceText('inline'), logoUrl: GM_getResourceURL('logo').slice(0, 22), promiseUrl: (await GM.getResourceUrl('logo')) === GM_getResourceURL('logo') }); })();`;
  const declared = ['css ' + origin + '/res/style.css', 'logo ' + origin + '/res/logo.png', 'note notes/note.txt', 'inline data:text/plain;charset=utf-8,h%C3%A9llo'];
  const seen = async (tabId: number) => evaluate<{ color: string; logo: number; result: Record<string, unknown> }>(server.client, `
    for (let i = 0; i < 100 && !document.body.dataset.result; i++) await new Promise(r => setTimeout(r, 50));
    const img = document.getElementById('logo'); if (img && !img.complete) await new Promise(r => img.addEventListener('load', r, { once: true }));
    return { color: getComputedStyle(document.getElementById('t')).color, logo: img ? img.naturalWidth : -1, result: JSON.parse(document.body.dataset.result || '{}') };`, tabId);
  try {
    writeFileSync(join(server.workspace, 'res', 'res.user.js'), header('Resources', declared, body));
    const first = await callRaw(server.client, 'export_script', { path: 'res/res.user.js' });
    const saved = first.structuredContent as Saved & { resources: ResourceInfo[] };
    const css = `#t { color: rgb(255, 0, 0); }`;
    assert.deepEqual(saved.resources.map(r => [r.name, r.mime, r.bytes, r.sha256]), [
      ['css', 'text/css', css.length, sha(css)],
      ['logo', 'image/png', PNG.length, sha(PNG)],
      ['note', 'text/plain', Buffer.byteLength('a note, é\n'), sha('a note, é\n')],
      ['inline', 'text/plain', Buffer.byteLength('héllo'), sha('héllo')],
    ]);
    assert.match(first.content.map(c => c.text).join('\n'), /@resource stored \(remote ones fetched at the first save and pinned until refetch: true\): css text\/css \d+ bytes sha256 [0-9a-f]{12}…/);
    const described = JSON.parse(((await server.client.readResource({ uri: `tabwright://scripts/${saved.scriptId}` })).contents[1] as { text: string }).text) as { resources: ResourceInfo[] };
    assert.deepEqual(described.resources, saved.resources);

    const tab = await call<{ tabId: number }>(server.client, 'open_tab', { url: `${origin}/res-page` });
    // The extension lane with "Allow User Scripts" on runs the scripts through chrome.userScripts: the same data must get there.
    const path = (await call<{ userscripts?: { path: string } }>(server.client, 'get_bridge_status')).userscripts?.path;
    if (TEST_CONNECTION === 'extension' && process.env.TABWRIGHT_TEST_USER_SCRIPTS === '1') assert.equal(path, 'chrome.userScripts');
    const page = await seen(tab.tabId);
    assert.equal(page.color, 'rgb(255, 0, 0)');
    assert.equal(page.logo, 1, 'the <img> whose src is GM_getResourceURL loads');
    assert.deepEqual(page.result, { note: 'a note, é\n', inline: 'héllo', unknownText: true, unknownUrl: true, unknownPromise: true, promiseText: 'héllo', logoUrl: 'data:image/png;base64,', promiseUrl: true });

    // Upstream changed; an edited copy keeps the pinned CSS; refetch takes the new one.
    color = 'rgb(0, 0, 255)';
    const edited = header('Resources', declared, `${body}\n// edited`);
    const kept = await call<Saved & { resources: ResourceInfo[] }>(server.client, 'export_script', { code: edited.replace('notes/note.txt', 'res/notes/note.txt') });
    assert.equal(kept.resources[0]!.sha256, sha(css));
    await call(server.client, 'navigate', { tabId: tab.tabId, url: `${origin}/res-page` });
    assert.equal((await seen(tab.tabId)).color, 'rgb(255, 0, 0)');
    const again = await call<Saved & { resources: ResourceInfo[] }>(server.client, 'export_script', { code: edited.replace('notes/note.txt', 'res/notes/note.txt'), refetch: true });
    assert.equal(again.scriptId, saved.scriptId);
    assert.equal(again.resources[0]!.sha256, sha('#t { color: rgb(0, 0, 255); }'));
    await call(server.client, 'navigate', { tabId: tab.tabId, url: `${origin}/res-page` });
    assert.equal((await seen(tab.tabId)).color, 'rgb(0, 0, 255)');
    await call(server.client, 'close_tab', { tabId: tab.tabId });

    // What cannot be resolved rejects the save on its @resource line, saying why; nothing is written: the stored
    // script keeps its code and its resources.
    const cases: Array<[string, RegExp]> = [
      [`${origin}/res/missing.css`, /HTTP 404/],
      [`${origin}/res/huge.png`, /larger than 2 MiB/],
      ['data:image/png;base64,@@@@', /not base64/],
      ['notes/absent.txt', /absent\.txt does not exist/],
    ];
    for (const [value, why] of cases) {
      const failed = await callRaw(server.client, 'export_script', { code: header('Resources', [...declared.slice(0, 2), `extra ${value}`], body) });
      const sc = failed.structuredContent as Rejected;
      assert.equal(sc.error.type, 'script_rejected', value);
      assert.deepEqual(sc.diagnostics.map(d => [d.code, d.line, d.column]), [['resource_unreadable', 7, 20]], value);
      assert.match(sc.error.message, why);
    }
    const total = await callRaw(server.client, 'export_script', { code: header('Resources', ['a ' + origin + '/res/big.bin', 'b ' + origin + '/res/big.bin?2', 'c ' + origin + '/res/big.bin?3'], body) });
    const totalSc = total.structuredContent as Rejected;
    assert.deepEqual(totalSc.diagnostics.map(d => [d.code, d.line]), [['resource_unreadable', 7]]);
    assert.match(totalSc.error.message, /together are larger than 4 MiB/);
    const stored = JSON.parse(((await server.client.readResource({ uri: `tabwright://scripts/${saved.scriptId}` })).contents[1] as { text: string }).text) as { codeHash: string; resources: ResourceInfo[] };
    assert.equal(stored.codeHash, again.codeHash);
    assert.deepEqual(stored.resources, again.resources);
    await call(server.client, 'delete_script', { scriptId: saved.scriptId });
  } finally {
    await site.close();
  }
});

test('@resource: a host the policy denies, directly or by a redirect, rejects the save', unlessConnection(['extension'], 'the extension connection refuses policy flags at start (docs/policy.md)'), async () => {
  const { startSite } = await import('../fixtures/site.js');
  const site = await startSite();
  const other = site.origin.replace('127.0.0.1', 'localhost');
  site.route('/res/style.css', (_req, res) => { res.writeHead(200, { 'content-type': 'text/css' }).end('p { color: red; }'); });
  site.route('/res/away.css', (_req, res) => { res.writeHead(302, { location: `${other}/res/style.css` }).end(); });
  const denied = await connect({ args: ['--toolsets', 'all', '--deny-host', 'localhost'] });
  try {
    for (const url of [`${other}/res/style.css`, `${site.origin}/res/away.css`]) {
      const code = ['// ==UserScript==', '// @name Denied', '// @namespace https://example.test', '// @match https://example.test/*',
        `// @resource css ${url}`, '// @grant GM_getResourceText', '// ==/UserScript==', 'GM_getResourceText("css");', ''].join('\n');
      const sc = (await callRaw(denied.client, 'export_script', { code })).structuredContent as Rejected;
      assert.equal(sc.error.type, 'script_rejected', url);
      assert.deepEqual(sc.diagnostics.map(d => [d.code, d.line, d.column]), [['resource_unreadable', 5, 18]], url);
      assert.match(sc.error.message, /policy denies host localhost:\d+: it matches --deny-host localhost/);
    }
    assert.deepEqual((await call<{ scripts: unknown[] }>(denied.client, 'list_scripts')).scripts, []);
  } finally {
    await denied.close();
    await site.close();
  }
});

test('update, list, toggle, delete', async () => {
  const v1 = script('Lifecycle');
  const created = await call<Saved>(server.client, 'export_script', { code: v1 });
  const v2 = script('Lifecycle', 'console.log(2);');
  const updated = await call<Saved>(server.client, 'export_script', { code: v2, scriptId: created.scriptId, expectedCodeHash: sha(v1) });
  assert.equal(updated.created, false);
  assert.equal(updated.scriptId, created.scriptId);
  assert.equal(updated.codeHash, sha(v2));

  const listed = await call<{ scripts: Array<{ scriptId: string; name: string; enabled: boolean; codeHash: string; author: string; match: string[]; kind: string }> }>(server.client, 'list_scripts');
  const mine = listed.scripts.find(s => s.scriptId === created.scriptId)!;
  assert.deepEqual({ name: mine.name, enabled: mine.enabled, codeHash: mine.codeHash, author: mine.author, match: mine.match, kind: mine.kind },
    { name: 'Lifecycle', enabled: true, codeHash: sha(v2), author: 'agent', match: ['https://example.test/*'], kind: 'userscript' });

  assert.deepEqual(await call(server.client, 'toggle_script', { scriptId: created.scriptId, enabled: false }), { scriptId: created.scriptId, enabled: false });
  const afterToggle = await call<{ scripts: Array<{ scriptId: string; enabled: boolean }> }>(server.client, 'list_scripts');
  assert.equal(afterToggle.scripts.find(s => s.scriptId === created.scriptId)!.enabled, false);

  assert.deepEqual(await call(server.client, 'delete_script', { scriptId: created.scriptId }), { scriptId: created.scriptId, deleted: true });
  assert.equal((await callError(server.client, 'delete_script', { scriptId: created.scriptId })).type, 'script_not_found');
  assert.equal((await callError(server.client, 'toggle_script', { scriptId: created.scriptId, enabled: true })).type, 'script_not_found');
  assert.equal((await callError(server.client, 'import_script', { scriptId: created.scriptId })).type, 'script_not_found');
});

test('script_rejected carries the diagnostics; nothing is stored', async () => {
  const before = (await call<{ scripts: unknown[] }>(server.client, 'list_scripts')).scripts.length;
  const raw = await callRaw(server.client, 'export_script', { code: script('Broken', 'if (true {') });
  assert.equal(raw.isError, true);
  const sc = raw.structuredContent as { error: { type: string; message: string }; diagnostics: Array<{ severity: string; code: string; line: number; column: number }>; operationId: string };
  assert.equal(sc.error.type, 'script_rejected');
  const syntax = sc.diagnostics.find(d => d.code === 'syntax_error')!;
  assert.equal(syntax.severity, 'error');
  assert.equal(syntax.line, 8);
  assert.match(raw.content[0]!.text!, /^Error \[script_rejected\]: .*8:\d+ syntax_error/);
  assert.equal((await call<{ scripts: unknown[] }>(server.client, 'list_scripts')).scripts.length, before);
  const status = await call<Status>(server.client, 'get_bridge_status', { operationId: sc.operationId });
  assert.equal(status.save?.status, 'not_committed');
  assert.equal((await callError(server.client, 'export_script', { code: 'x', path: 'a.js' })).type, 'invalid_arguments');
});

test('a stale expectedCodeHash is a conflict naming both hashes', async () => {
  const v1 = script('Conflict');
  const created = await call<Saved>(server.client, 'export_script', { code: v1 });
  const v2 = script('Conflict', 'two();');
  await call(server.client, 'export_script', { code: v2, scriptId: created.scriptId, expectedCodeHash: sha(v1) });
  const raw = await callRaw(server.client, 'export_script', { code: script('Conflict', 'three();'), scriptId: created.scriptId, expectedCodeHash: sha(v1) });
  const sc = raw.structuredContent as { error: { type: string; message: string }; expectedCodeHash: string; currentCodeHash: string };
  assert.equal(sc.error.type, 'conflict');
  assert.ok(sc.error.message.includes(sha(v1)) && sc.error.message.includes(sha(v2)), sc.error.message);
  assert.equal(sc.expectedCodeHash, sha(v1));
  assert.equal(sc.currentCodeHash, sha(v2));
  // An edited copy saved without scriptId (same name and namespace) updates the agent's script in place.
  const copy = script('Conflict', 'other();');
  const replacedRaw = await callRaw(server.client, 'export_script', { code: copy });
  const replaced = replacedRaw.structuredContent as Saved & { replacedCodeHash: string };
  assert.deepEqual([replaced.created, replaced.scriptId, replaced.replacedCodeHash, replaced.codeHash], [false, created.scriptId, sha(v2), sha(copy)]);
  assert.ok(replacedRaw.content.some(c => c.text?.split('\n').includes(`It had the same @name and @namespace as stored script ${created.scriptId}, which it replaced in place (its code was codeHash ${sha(v2)}).`)), JSON.stringify(replacedRaw.content));
  // The same copy again: said to be unchanged.
  const sameRaw = await callRaw(server.client, 'export_script', { code: copy });
  assert.equal((sameRaw.structuredContent as { replacedCodeHash: string }).replacedCodeHash, sha(copy));
  assert.ok(sameRaw.content.some(c => c.text?.split('\n').includes(`It is the same code as stored script ${created.scriptId} (same @name and @namespace): the code did not change.`)), JSON.stringify(sameRaw.content));
});

test('two agents on one store: the second save based on the old hash is rejected, nothing lost', async () => {
  const other = await connect({ args: ['--toolsets', 'all'], env: { TABWRIGHT_DATA_DIR: dataDir } });
  try {
    const v1 = script('Shared');
    const created = await call<Saved>(server.client, 'export_script', { code: v1 });
    // Both agents import the same version.
    const a = await call<{ codeHash: string }>(server.client, 'import_script', { scriptId: created.scriptId });
    const b = await call<{ codeHash: string }>(other.client, 'import_script', { scriptId: created.scriptId });
    assert.equal(a.codeHash, b.codeHash);
    const fromA = script('Shared', 'fromA();');
    await call(server.client, 'export_script', { code: fromA, scriptId: created.scriptId, expectedCodeHash: a.codeHash });
    const rejected = await callError(other.client, 'export_script', { code: script('Shared', 'fromB();'), scriptId: created.scriptId, expectedCodeHash: b.codeHash });
    assert.equal(rejected.type, 'conflict');
    // A's edit is there, whole, for both agents.
    const seen = await call<{ path: string; codeHash: string }>(other.client, 'import_script', { scriptId: created.scriptId, path: 'b.user.js' });
    assert.equal(readFileSync(seen.path, 'utf8'), fromA);
    assert.equal(seen.codeHash, sha(fromA));
  } finally {
    await other.close();
  }
});

test('the latest receipt survives a restart; get_bridge_status answers committed, then not current after another save', async () => {
  const first = await connect({ args: ['--toolsets', 'all'], env: { TABWRIGHT_DATA_DIR: dataDir } });
  const v1 = script('Durable');
  const saved = await call<Saved>(first.client, 'export_script', { code: v1 });
  await first.close();
  const second = await connect({ args: ['--toolsets', 'all'], env: { TABWRIGHT_DATA_DIR: dataDir } });
  try {
    const status = await call<Status>(second.client, 'get_bridge_status', { operationId: saved.operationId });
    assert.deepEqual({ ...status.save }, { operationId: saved.operationId, scriptId: saved.scriptId, status: 'committed', matchesCurrentCode: true, codeHash: sha(v1), time: (status.save as { time: number }).time });
    assert.equal((await call<Status>(second.client, 'get_bridge_status', { scriptId: saved.scriptId })).save?.operationId, saved.operationId);
    await call(second.client, 'export_script', { code: script('Durable', 'next();'), scriptId: saved.scriptId });
    const later = await call<Status>(second.client, 'get_bridge_status', { operationId: saved.operationId });
    assert.equal(later.save?.status, 'committed');
    assert.equal(later.save?.matchesCurrentCode, false);
    assert.equal((await call<Status>(second.client, 'get_bridge_status', { operationId: '00000000-0000-4000-8000-000000000000' })).save?.status, 'unknown');
  } finally {
    await second.close();
  }
});

test('resources: the script list, one script (source + metadata), the handbooks', async () => {
  const code = script('Resource', 'resource();', '\r\n');
  const saved = await call<Saved>(server.client, 'export_script', { code });
  const list = await server.client.readResource({ uri: 'tabwright://scripts' });
  const scripts = (JSON.parse((list.contents[0] as { text: string }).text) as { scripts: Array<{ scriptId: string; codeHash: string }> }).scripts;
  assert.equal(scripts.find(s => s.scriptId === saved.scriptId)?.codeHash, sha(code));

  const templates = (await server.client.listResourceTemplates()).resourceTemplates.map(t => t.uriTemplate);
  assert.deepEqual(templates, ['tabwright://scripts/{scriptId}']);
  const one = await server.client.readResource({ uri: `tabwright://scripts/${saved.scriptId}` });
  const [source, meta] = one.contents as Array<{ mimeType: string; text: string }>;
  assert.equal(source!.mimeType, 'text/javascript');
  assert.equal(source!.text, code);
  const parsed = JSON.parse(meta!.text) as { scriptId: string; metadata: { name: string; match: string[] } };
  assert.equal(parsed.scriptId, saved.scriptId);
  assert.deepEqual(parsed.metadata.match, ['https://example.test/*']);
  await assert.rejects(server.client.readResource({ uri: 'tabwright://scripts/s_nothere' }));

  for (const uri of ['tabwright://conventions', 'tabwright://userscript-conventions', 'tabwright://agentscript-conventions']) {
    const doc = await server.client.readResource({ uri });
    const text = (doc.contents[0] as { text: string; mimeType: string }).text;
    assert.equal((doc.contents[0] as { mimeType: string }).mimeType, 'text/markdown');
    assert.ok(text.length > 200, `${uri} is too short`);
  }
  const conventions = (await server.client.readResource({ uri: 'tabwright://conventions' })).contents[0] as { text: string };
  assert.match(conventions.text, /tabwright:\/\/userscript-conventions/);
  assert.match(conventions.text, /tabwright:\/\/agentscript-conventions/);
});
