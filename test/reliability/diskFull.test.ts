/**
 * A full disk during a save or a download (docs/reliability.md, "Chaos";
 * docs/errors.md, disk_full): the server's workspace and data dir live on a
 * small tmpfs of their own, filled to the last few KB by a filler file. Each
 * write then gets a typed answer and leaves nothing half-written: a script
 * save is `disk_full` and the script keeps its old version (receipt
 * `not_committed`); a screenshot or PDF written as a file is `disk_full` with
 * no partial file; a download is reported `failed` with the reason and no
 * partial file. With the filler gone, the same calls work.
 *
 * Needs mount(2) (root, as the test machines and CI run): without it the file
 * is skipped, saying so.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, callError, connect, type Connected } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { until } from '../fixtures/harness.js';
import { record } from './fuzz.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const script = (body: string) => ['// ==UserScript==', '// @name Full', '// @namespace https://full.test', '// @match https://full.test/*',
  '// @grant none', '// ==/UserScript==', body, ''].join('\n');

const mountPoint = mkdtempSync(join(tmpdir(), 'tabwright-full-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tabwright-test-full', mountPoint], { stdio: 'pipe' });
  mounted = true;
} catch (error) {
  console.log(`# skipped: cannot mount a tmpfs (${String((error as { stderr?: Buffer }).stderr ?? error).trim()}); this file needs root`);
}
const skip = mounted ? {} : { skip: 'mount(2) of a tmpfs is not allowed here (needs root)' };
const workspace = join(mountPoint, 'ws');
const dataDir = join(mountPoint, 'data');
const filler = join(mountPoint, 'filler');

let site: Site;
let tw: Connected;
const tried: Array<{ fault: string; ok: boolean; why?: string }> = [];
const started = Date.now();

/** Fills the tmpfs to its last `leaveKb` KB. */
function fill(leaveKb = 16): void {
  rmSync(filler, { force: true });
  const { bavail, bsize } = statfsSync(mountPoint);
  writeFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - leaveKb * 1024)));
}
const unfill = () => rmSync(filler, { force: true });
/** Files under `dir` (recursive), without the filler. */
const filesIn = (dir: string) => (readdirSync(dir, { recursive: true }) as string[]).sort();

before(async () => {
  if (!mounted) return;
  mkdirSync(workspace);
  site = await startSite();
  site.page('/page', '<!doctype html><title>Full</title><h1>A page to print</h1><a id="d" download="big.bin" href="/big">Get the big file</a>');
  site.route('/big', (_req, res) => {
    res.setHeader('content-type', 'application/octet-stream');
    res.end(Buffer.alloc(2 * 1024 * 1024, 7));
  });
  tw = await connect({ args: ['--toolsets', 'all', '--workspace', workspace], env: { TABWRIGHT_DATA_DIR: dataDir } });
});

after(async () => {
  await tw?.close();
  await site?.close();
  if (mounted) execFileSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
  if (!mounted) return;
  const failures = tried.filter(t => !t.ok);
  record({
    target: 'chaos-disk-full',
    what: 'Writes on a full disk (a tmpfs filled to its last 16 KB holding the workspace and the data dir): a script save, a screenshot and a PDF written as files, a download; each answers disk_full (the download: failed with the reason), leaves nothing half-written and keeps the old version, and works once space is freed',
    kind: 'chaos',
    inputs: tried.length,
    failures: failures.length,
    ms: Date.now() - started,
    notes: { faults: tried.map(t => t.fault).join(' ') },
    ...(failures.length ? { counterexample: `${failures[0]!.fault}: ${failures[0]!.why}` } : {}),
    at: new Date().toISOString(),
  });
});

/** Runs one fault's check and notes whether it held. */
async function fault(name: string, check: () => Promise<void>): Promise<void> {
  try {
    await check();
    tried.push({ fault: name, ok: true });
  } catch (error) {
    tried.push({ fault: name, ok: false, why: String(error).slice(0, 500) });
    throw error;
  } finally {
    unfill();
  }
}

test('a script save on a full disk: disk_full, the old version whole, receipt not_committed; saved once space is freed', skip, async () => {
  await fault('script-save', async () => {
    const { scriptId, codeHash } = await call<{ scriptId: string; codeHash: string }>(tw.client, 'export_script', { code: script('old();') });
    fill();
    const big = script(`/* ${'n'.repeat(600_000)} */ brand_new();`);
    const error = await callError(tw.client, 'export_script', { code: big, scriptId, expectedCodeHash: codeHash });
    assert.equal(error.type, 'disk_full', JSON.stringify(error));
    assert.match(error.message, /^The disk is full: the script store \(scripts\.db in the data dir\) could not be written \(SQLITE_FULL\)\. Nothing was half-written/);
    assert.match(error.hint, /Free space on the disk/);
    const { save } = await call<{ save: { status: string; codeHash: string } }>(tw.client, 'get_bridge_status', { scriptId });
    assert.deepEqual([save.status, save.codeHash], ['not_committed', sha(big)]);
    unfill();
    const imported = await call<{ path: string; codeHash: string }>(tw.client, 'import_script', { scriptId, path: 'now.user.js' });
    assert.equal(readFileSync(imported.path, 'utf8'), script('old();'));
    assert.equal(imported.codeHash, codeHash);
    const saved = await call<{ codeHash: string }>(tw.client, 'export_script', { code: big, scriptId, expectedCodeHash: codeHash });
    assert.equal(saved.codeHash, sha(big));
  });
});

test('a screenshot and a PDF written as files on a full disk: disk_full naming the file, no partial file; written once space is freed', skip, async () => {
  const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${site.origin}/page` });
  for (const [name, tool, args] of [
    ['screenshot-file', 'take_screenshot', { tabId, fullPage: true, output: 'file' }],
    ['pdf-file', 'save_pdf', { tabId, path: 'out/page.pdf' }],
  ] as const) {
    await fault(name, async () => {
      const before = filesIn(workspace);
      fill(4);
      const error = await callError(tw.client, tool, args);
      assert.equal(error.type, 'disk_full', JSON.stringify(error));
      assert.match(error.message, /could not be written \((ENOSPC|EDQUOT)\)\. Nothing was half-written/);
      assert.deepEqual(filesIn(workspace).filter(f => !before.includes(f) && !f.endsWith('/') && /\.(png|jpe?g|webp|pdf|tmp)$/.test(f)), [], 'no file, whole or partial, is left');
      unfill();
      const written = await call<{ path?: string; file?: string }>(tw.client, tool, args);
      const path = written.path ?? written.file;
      assert.ok(path && readFileSync(path).length > 1000, `a file after freeing space: ${JSON.stringify(written)}`);
    });
  }
});

test('a download on a full disk: reported failed with the reason, no partial file; saved once space is freed', skip, async () => {
  const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${site.origin}/page` });
  const downloads = join(workspace, '.tabwright', 'downloads');
  await fault('download', async () => {
    fill(64);
    await call(tw.client, 'execute', { tabId, code: 'document.getElementById("d").click()' });
    const failed = await until('the download to fail', async () => {
      const { downloads: list } = await call<{ downloads: Array<{ state: string; error?: string; name: string }> }>(tw.client, 'list_downloads', {});
      return list.find(d => d.state === 'failed');
    });
    assert.match(failed.error ?? '', /ENOSPC|no space|FILE_NO_SPACE|disk/i, JSON.stringify(failed));
    assert.deepEqual(filesIn(downloads).filter(f => /big|\.part$/.test(f)), [], 'no partial file');
    unfill();
    await call(tw.client, 'execute', { tabId, code: 'document.getElementById("d").click()' });
    const done = await until('the download to complete', async () => {
      const { downloads: list } = await call<{ downloads: Array<{ state: string; path: string | null; size: number | null }> }>(tw.client, 'list_downloads', {});
      return list.find(d => d.state === 'completed');
    });
    assert.equal(done.size, 2 * 1024 * 1024);
  });
});
