// Downloads end to end: a click on an attachment
// link reports the download (name from filename*, size, state, saved path);
// files land in <workspace>/.tabwright/downloads/ under their exact names,
// a second one of the same name gets " (1)", nothing is overwritten; the
// document, its cookies and the tab survive; an <a download> names its file;
// a download cut off mid-way is failed; list_downloads lists them all. The
// server runs under the C locale: the browser must still decode filename*.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSession } from '../fixtures/harness.js';
import { call, callRaw, evaluate, refOf, snapshot, unlessConnection } from '../fixtures/mcp.js';

/** The extension lane: chrome.debugger has no Browser.setDownloadBehavior, so downloads go to the user's download folder (docs/own-browser.md). */
const NO_DOWNLOADS = unlessConnection(['extension'], 'downloads go to the browser\'s own download folder: chrome.debugger has no Browser.setDownloadBehavior (docs/own-browser.md)');
import { seenBy } from '../fixtures/clientLens.js';
import { claimName, numberedName, type DownloadRecord } from '../../src/session/downloads.js';

interface ClickResult {
  tabId: number;
  revision: number;
  navigation?: unknown;
  downloads?: DownloadRecord[];
}

const RESUME = 'r\u00e9sum\u00e9 \u{1F4C4}.pdf';
const NOTES = 'notes \u2713.txt';

const DOWNLOADS_PAGE = `<!doctype html><meta charset="utf-8"><title>Downloads</title>
<a href="/resume">Get résumé</a>
<a href="/plain" download="${NOTES}">Save notes</a>
<a href="/broken">Broken download</a>
<script>
  document.cookie = 'pref=dark; path=/';
  window.state = 'alive-42';
</script>`;

/** The bytes of the n-th résumé response: every byte value, then the request number (an overwrite would show). */
function resumeBytes(n: number): Buffer {
  return Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from(`\nrequest ${n}\n`)]);
}

let dir: string;
let resumeRequests = 0;

const tw = useSession({
  context: 'file',
  env: { LANG: 'C', LC_ALL: 'C' },
  setup: async tw => {
    tw.site.route('/downloads', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': 'sid=s3cr3t; Path=/' });
      res.end(DOWNLOADS_PAGE);
    });
    tw.site.route('/resume', (_req, res) => {
      const body = resumeBytes(++resumeRequests);
      res.writeHead(200, {
        'content-type': 'application/pdf',
        'content-length': body.length,
        'content-disposition': `attachment; filename="fallback.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%F0%9F%93%84.pdf`,
      });
      res.end(body);
    });
    tw.site.route('/plain', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('plain notes\n');
    });
    tw.site.route('/broken', (_req, res) => {
      // Promises 100000 bytes, sends 10, then cuts the connection.
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': 100000, 'content-disposition': 'attachment; filename="broken.bin"' });
      res.write('0123456789', () => setTimeout(() => res.destroy(), 200));
    });
    dir = join(realpathSync(tw.workspace), '.tabwright', 'downloads');
  },
});

const STARTED_AT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A record with its start time checked and taken out (the rest is compared exactly). */
function withoutTime(d: DownloadRecord): Omit<DownloadRecord, 'startedAt'> {
  const { startedAt, ...rest } = d;
  assert.match(startedAt, STARTED_AT);
  return rest;
}

test('numbered names put the number before the extension and fit 255 bytes', () => {
  assert.equal(numberedName(RESUME, 0), RESUME);
  assert.equal(numberedName(RESUME, 1), 'r\u00e9sum\u00e9 \u{1F4C4} (1).pdf');
  assert.equal(numberedName('README', 2), 'README (2)');
  assert.equal(numberedName('.bashrc', 1), '.bashrc (1)');
  const long = numberedName(`${'\u00e9'.repeat(200)}.txt`, 12);
  assert.equal(long, `${'\u00e9'.repeat(123)} (12).txt`);
  assert.equal(Buffer.byteLength(long), 255);
});

test('claimName never replaces an existing file', () => {
  const tmpDir = join(realpathSync(tw.workspace), 'claim');
  mkdirSync(tmpDir);
  writeFileSync(join(tmpDir, 'a.txt'), 'old');
  writeFileSync(join(tmpDir, 'part1'), 'new 1');
  writeFileSync(join(tmpDir, 'part2'), 'new 2');
  assert.equal(claimName(tmpDir, 'a.txt', join(tmpDir, 'part1')), join(tmpDir, 'a (1).txt'));
  assert.equal(claimName(tmpDir, 'a.txt', join(tmpDir, 'part2')), join(tmpDir, 'a (2).txt'));
  assert.deepEqual(readdirSync(tmpDir).sort(), ['a (1).txt', 'a (2).txt', 'a.txt']);
  assert.deepEqual(['a.txt', 'a (1).txt', 'a (2).txt'].map(f => readFileSync(join(tmpDir, f), 'utf8')), ['old', 'new 1', 'new 2']);
});

test('a click on an attachment reports the download; a second one gets " (1)"; document, cookies and tab survive', NO_DOWNLOADS, async () => {
  const nav = await call<{ tabId: number; revision: number }>(tw.client, 'navigate', { url: `${tw.origin}/downloads` });
  const ref = refOf((await snapshot(tw.client)).snapshot, 'link', 'Get résumé');

  const first = await callRaw(tw.client, 'click', { ref });
  assert.equal(first.isError, undefined, JSON.stringify(first.content));
  const one = first.structuredContent as unknown as ClickResult;
  const size = resumeBytes(1).length;
  assert.equal(one.navigation, undefined);
  assert.equal(one.revision, nav.revision);
  assert.deepEqual(one.downloads!.map(withoutTime), [{
    id: 1, name: RESUME, suggestedName: RESUME, url: `${tw.origin}/resume`, size, state: 'completed', path: join(dir, RESUME), tabId: nav.tabId,
  }]);
  const text = seenBy('cursor', first).text;
  assert.ok(text.startsWith(`Clicked link "Get résumé" [ref=${ref}].`), text);
  assert.ok(text.includes(`Downloaded "${RESUME}" (${size} bytes) to ${join(dir, RESUME)}.`), text);

  const two = await call<ClickResult>(tw.client, 'click', { ref });
  const second = `r\u00e9sum\u00e9 \u{1F4C4} (1).pdf`;
  assert.deepEqual(two.downloads!.map(withoutTime), [{
    id: 2, name: second, suggestedName: RESUME, url: `${tw.origin}/resume`, size, state: 'completed', path: join(dir, second), tabId: nav.tabId,
  }]);

  assert.deepEqual(readdirSync(dir).sort(), [RESUME, second].sort());
  assert.deepEqual(readFileSync(join(dir, RESUME)), resumeBytes(1));
  assert.deepEqual(readFileSync(join(dir, second)), resumeBytes(2));

  // The same document, its cookies (one from the server, one from script) and its state.
  assert.equal(await evaluate(tw.client, 'document.cookie'), 'sid=s3cr3t; pref=dark');
  assert.equal(await evaluate(tw.client, 'window.state'), 'alive-42');
  const tabs = await call<{ tabs: Array<{ tabId: number; url: string; revision: number }> }>(tw.client, 'list_tabs');
  assert.deepEqual(tabs.tabs.map(t => ({ tabId: t.tabId, url: t.url, revision: t.revision })), [{ tabId: nav.tabId, url: `${tw.origin}/downloads`, revision: nav.revision }]);
});

test('an <a download> link saves under the name it gives', NO_DOWNLOADS, async () => {
  const nav = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/downloads` });
  const res = await call<ClickResult>(tw.client, 'click', { ref: refOf((await snapshot(tw.client)).snapshot, 'link', 'Save notes') });
  assert.deepEqual(res.downloads!.map(withoutTime), [{
    id: 3, name: NOTES, suggestedName: NOTES, url: `${tw.origin}/plain`, size: 12, state: 'completed', path: join(dir, NOTES), tabId: nav.tabId,
  }]);
  assert.equal(readFileSync(join(dir, NOTES), 'utf8'), 'plain notes\n');
});

test('a download cut off mid-way is reported as failed (the browser says canceled) and leaves no file', NO_DOWNLOADS, async () => {
  const nav = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/downloads` });
  const res = await call<ClickResult>(tw.client, 'click', { ref: refOf((await snapshot(tw.client)).snapshot, 'link', 'Broken download') });
  assert.deepEqual(res.downloads!.map(withoutTime), [{
    id: 4, name: 'broken.bin', suggestedName: 'broken.bin', url: `${tw.origin}/broken`, size: null, state: 'failed', path: null, tabId: nav.tabId, error: 'canceled',
  }]);
  assert.equal(existsSync(join(dir, 'broken.bin')), false);
  assert.deepEqual(readdirSync(dir).filter(f => f.endsWith('.part')), []);
});

test('list_downloads lists every download, oldest first', NO_DOWNLOADS, async () => {
  const res = await call<{ downloads: DownloadRecord[] }>(tw.client, 'list_downloads');
  assert.deepEqual(res.downloads.map(d => [d.id, d.name, d.state, d.size, d.path]), [
    [1, RESUME, 'completed', resumeBytes(1).length, join(dir, RESUME)],
    [2, `r\u00e9sum\u00e9 \u{1F4C4} (1).pdf`, 'completed', resumeBytes(2).length, join(dir, `r\u00e9sum\u00e9 \u{1F4C4} (1).pdf`)],
    [3, NOTES, 'completed', 12, join(dir, NOTES)],
    [4, 'broken.bin', 'failed', null, null],
  ]);
});
