// upload_file end to end: a visible input, a hidden one
// through its label, a hidden one opened by a button, an input created on
// click and never attached, one that opens late, a chooser reported by a
// click and answered by upload_file; byte-exact non-ASCII / emoji / NFD / NFC
// names with the server started under the C locale; paths outside the
// workspace and the allowed roots rejected, also through a symlink.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until, useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, evaluate, refOf } from '../fixtures/mcp.js';
import { browserEnv } from '../../src/browser/launch/locale.js';
import { seenBy } from '../fixtures/clientLens.js';

interface UploadResult {
  tabId: number;
  revision: number;
  files: string[];
  via: 'input' | 'chooser';
}

interface ClickResult {
  tabId: number;
  fileChooser?: { multiple: boolean; late?: boolean };
}

/** Held /gate responses, answered by openGate(). */
const gate: Array<() => void> = [];
function openGate(): void {
  for (const answer of gate.splice(0)) answer();
}

/** What the page saw: per input, the chosen files' names, sizes and text. */
type Chosen = Record<string, Array<{ name: string; size: number; text: string }>>;

const FILES_PAGE = `<!doctype html><meta charset="utf-8"><title>Files</title>
<label for="hidden-input" role="button" tabindex="0" style="cursor:pointer">Choose via label</label>
<input type="file" id="hidden-input" hidden>
<input type="file" id="visible-input" aria-label="Documents" multiple>
<input type="file" id="single-input" aria-label="Avatar">
<input type="file" id="attached-hidden" style="display:none">
<button onclick="document.getElementById('attached-hidden').click()">Attach</button>
<button id="detached">Detached</button>
<button id="late">Late</button>
<button id="gated">Gated</button>
<button id="soon">Soon</button>
<button>Nothing</button>
<script>
  window.chosen = {};
  window.clicks = { detached: 0, late: 0, gated: 0, soon: 0 };
  async function report(key, input) {
    chosen[key] = await Promise.all([...input.files].map(async f => ({ name: f.name, size: f.size, text: await f.text() })));
  }
  for (const id of ['hidden-input', 'visible-input', 'single-input', 'attached-hidden']) {
    document.getElementById(id).addEventListener('change', e => report(id, e.target));
  }
  function detachedInput(key) {
    const input = document.createElement('input');
    input.type = 'file';
    input.multiple = true;
    input.onchange = () => report(key, input);
    input.click();
  }
  document.getElementById('detached').onclick = () => { clicks.detached++; detachedInput('detached'); };
  document.getElementById('late').onclick = () => { clicks.late++; setTimeout(() => detachedInput('late'), 1500); };
  // Opens its chooser once the test answers /gate: after the click's result is out, whatever the machine's speed.
  document.getElementById('gated').onclick = () => { clicks.gated++; fetch('/gate').then(r => r.text()).then(() => { detachedInput('gated'); window.gatedOpened = true; }); };
  document.getElementById('soon').onclick = () => { clicks.soon++; setTimeout(() => detachedInput('soon'), 600); };
</script>`;

// NFC and NFD spellings of the same words are different names, and both must survive as written.
const NAMES = {
  nfc: 'r\u00e9sum\u00e9 \u2615 \u{1F600}.txt',
  nfd: 'e\u0301te\u0301.txt',
  nfcTwin: '\u00e9t\u00e9.txt',
  cjk: '\u65e5\u672c\u8a9e \u{1F4C4}.txt',
};

const root = mkdtempSync(join(tmpdir(), 'tabwright-root-'));
const outside = mkdtempSync(join(tmpdir(), 'tabwright-outside-'));
let ws: string;

// The server's own locale is C: Chromium must still get every name right (it is given C.UTF-8).
const tw = useSession({
  pages: { '/files': FILES_PAGE },
  args: ['--allow-root', root],
  env: { LANG: 'C', LC_ALL: 'C' },
  setup: tw => {
    writeFileSync(join(root, 'from-root.txt'), 'root file');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    ws = tw.workspace;
    for (const [key, name] of Object.entries(NAMES)) writeFileSync(join(ws, name), `content of ${key}`);
    mkdirSync(join(ws, 'docs'));
    writeFileSync(join(ws, 'docs', 'notes.txt'), 'notes');
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'link-out.txt'));
    tw.site.route('/gate', (_req, res) => {
      gate.push(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('open'));
    });
  },
});

after(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** The page's `chosen` once `key` has been reported (the page reads the files asynchronously). */
async function chosen(key: string): Promise<Chosen> {
  return await evaluate<Chosen>(tw.client, `for (let i = 0; i < 400 && !chosen[${JSON.stringify(key)}]; i++) await new Promise(r => setTimeout(r, 25));\nreturn chosen;`);
}

test('the browser gets a UTF-8 locale only when the server has none', () => {
  assert.deepEqual(browserEnv({ LANG: 'C', LC_ALL: 'C', PATH: '/bin' }, 'linux'), { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', PATH: '/bin' });
  assert.deepEqual(browserEnv({ PATH: '/bin' }, 'linux'), { PATH: '/bin', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' });
  assert.deepEqual(browserEnv({ LANG: 'de_DE.UTF-8' }, 'linux'), { LANG: 'de_DE.UTF-8' });
  assert.deepEqual(browserEnv({ LANG: 'C', LC_CTYPE: 'en_US.utf8' }, 'linux'), { LANG: 'C', LC_CTYPE: 'en_US.utf8' });
  assert.deepEqual(browserEnv({ LANG: 'en_US.UTF-8', LC_ALL: 'POSIX' }, 'linux'), { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' });
  assert.deepEqual(browserEnv({ LANG: 'C' }, 'darwin'), { LANG: 'C' });
});

test('a visible multiple input gets non-ASCII, emoji, NFD and NFC names byte for byte under the C locale', async () => {
  const { snapshot: snap } = await tw.open('/files');
  const names = [NAMES.nfc, NAMES.nfd, NAMES.nfcTwin, NAMES.cjk];
  assert.notEqual(NAMES.nfd, NAMES.nfcTwin);
  assert.equal(NAMES.nfd.normalize('NFC'), NAMES.nfcTwin);
  const res = await call<UploadResult>(tw.client, 'upload_file', { ref: refOf(snap, 'button', 'Documents'), paths: names });
  assert.equal(res.via, 'input');
  assert.deepEqual(res.files, names.map(n => join(realpathSync(ws), n)));
  const page = (await chosen('visible-input'))['visible-input']!;
  assert.deepEqual(page.map(f => f.name), names);
  assert.deepEqual(page.map(f => Buffer.from(f.name).toString('hex')), names.map(n => Buffer.from(n).toString('hex')));
  assert.deepEqual(page.map(f => f.text), ['content of nfc', 'content of nfd', 'content of nfcTwin', 'content of cjk']);
  assert.deepEqual(page.map(f => f.size), page.map(f => Buffer.byteLength(f.text)));
});

test('a hidden input is reached through its label; relative paths resolve against the workspace', async () => {
  const { snapshot: snap } = await tw.open('/files');
  const res = await call<UploadResult>(tw.client, 'upload_file', { ref: refOf(snap, 'button', 'Choose via label'), paths: ['docs/notes.txt'] });
  assert.equal(res.via, 'input');
  assert.deepEqual(res.files, [join(realpathSync(ws), 'docs', 'notes.txt')]);
  assert.deepEqual((await chosen('hidden-input'))['hidden-input'], [{ name: 'notes.txt', size: 5, text: 'notes' }]);
});

test('a button that opens a hidden input\'s chooser is answered through the chooser', async () => {
  const { snapshot: snap } = await tw.open('/files');
  const res = await call<UploadResult>(tw.client, 'upload_file', { ref: refOf(snap, 'button', 'Attach'), paths: [NAMES.nfd] });
  assert.equal(res.via, 'chooser');
  assert.deepEqual((await chosen('attached-hidden'))['attached-hidden'], [{ name: NAMES.nfd, size: 14, text: 'content of nfd' }]);
});

test('an input created on click and never attached gets its files', async () => {
  const { snapshot: snap } = await tw.open('/files');
  const res = await call<UploadResult>(tw.client, 'upload_file', { ref: refOf(snap, 'button', 'Detached'), paths: [NAMES.nfc, NAMES.cjk] });
  assert.equal(res.via, 'chooser');
  assert.deepEqual((await chosen('detached')).detached!.map(f => f.name), [NAMES.nfc, NAMES.cjk]);
  assert.equal(await evaluate(tw.client, 'clicks.detached'), 1);
});

test('a chooser that opens 1.5 s after the click is waited for', async () => {
  const { snapshot: snap } = await tw.open('/files');
  const res = await call<UploadResult>(tw.client, 'upload_file', { ref: refOf(snap, 'button', 'Late'), paths: [NAMES.nfcTwin], timeoutMs: 20_000 });
  assert.equal(res.via, 'chooser');
  assert.deepEqual((await chosen('late')).late!.map(f => f.name), [NAMES.nfcTwin]);
  assert.equal(await evaluate(tw.client, 'clicks.late'), 1);
});

test('a click that opens a chooser reports it and upload_file fills that chooser without clicking again', async () => {
  const { snapshot: snap } = await tw.open('/files');
  const ref = refOf(snap, 'button', 'Detached');
  const raw = await callRaw(tw.client, 'click', { ref });
  assert.equal(raw.isError, undefined);
  assert.deepEqual((raw.structuredContent as unknown as ClickResult).fileChooser, { multiple: true });
  const text = seenBy('cursor', raw).text;
  assert.ok(text.includes(`A file chooser opened (several files allowed); call upload_file {ref: "${ref}", paths: [...]}`), text);
  const uploaded = await callRaw(tw.client, 'upload_file', { ref, paths: [NAMES.cjk] });
  assert.ok(seenBy('cursor', uploaded).text.startsWith(`Chose 1 file (${NAMES.cjk}) for button "Detached" [ref=${ref}].`), seenBy('cursor', uploaded).text);
  const res = uploaded.structuredContent as unknown as UploadResult;
  assert.equal(res.via, 'chooser');
  assert.deepEqual((await chosen('detached')).detached!.map(f => f.name), [NAMES.cjk]);
  assert.equal(await evaluate(tw.client, 'clicks.detached'), 1);
});

test('a chooser reported for one element is not used for another; clicking a file input reports its chooser too', async () => {
  const { snapshot: snap } = await tw.open('/files');
  const detached = await call<ClickResult>(tw.client, 'click', { ref: refOf(snap, 'button', 'Detached') });
  assert.deepEqual(detached.fileChooser, { multiple: true });
  const res = await call<UploadResult>(tw.client, 'upload_file', { ref: refOf(snap, 'button', 'Attach'), paths: [NAMES.nfc] });
  assert.equal(res.via, 'chooser');
  const page = await chosen('attached-hidden');
  assert.deepEqual(Object.keys(page), ['attached-hidden']);
  assert.deepEqual(page['attached-hidden']!.map(f => f.name), [NAMES.nfc]);

  const avatar = refOf(snap, 'button', 'Avatar');
  const clicked = await call<ClickResult>(tw.client, 'click', { ref: avatar });
  assert.deepEqual(clicked.fileChooser, { multiple: false });
  const direct = await call<UploadResult>(tw.client, 'upload_file', { ref: avatar, paths: [NAMES.cjk] });
  assert.equal(direct.via, 'input');
  assert.deepEqual((await chosen('single-input'))['single-input']!.map(f => f.name), [NAMES.cjk]);
});

test('a chooser that opens after the click returned is reported once, on the next call, and upload_file answers it', async () => {
  const { snapshot: snap } = await tw.open('/files');
  const ref = refOf(snap, 'button', 'Gated');
  const nothing = refOf(snap, 'button', 'Nothing');
  const clicked = await call<ClickResult>(tw.client, 'click', { ref });
  assert.equal(clicked.fileChooser, undefined, 'nothing opened yet');
  openGate();
  await until('the page opened its chooser', () => evaluate<boolean>(tw.client, 'window.gatedOpened === true'));
  // The next action tells of it, as late, naming the element whose click opened it.
  const next = await callRaw(tw.client, 'click', { ref: nothing });
  assert.deepEqual((next.structuredContent as unknown as ClickResult).fileChooser, { multiple: true, late: true });
  const text = seenBy('cursor', next).text;
  assert.ok(text.includes(`A file chooser opened after the previous call returned (after the action on ${ref}) (several files allowed); call upload_file {ref: "${ref}", paths: [...]}`), text);
  // Told once: the call after that says nothing of it.
  assert.equal((await call<ClickResult>(tw.client, 'click', { ref: nothing })).fileChooser, undefined);
  const uploaded = await callRaw(tw.client, 'upload_file', { ref, paths: [NAMES.nfc] });
  assert.equal((uploaded.structuredContent as unknown as UploadResult).via, 'chooser');
  assert.equal((uploaded.structuredContent as { fileChooser?: unknown }).fileChooser, undefined);
  assert.ok(!seenBy('cursor', uploaded).text.includes('file chooser'), seenBy('cursor', uploaded).text);
  assert.deepEqual((await chosen('gated')).gated!.map(f => f.name), [NAMES.nfc]);
  assert.equal(await evaluate(tw.client, 'clicks.gated'), 1, 'upload_file did not click again');
  assert.equal((await call<ClickResult>(tw.client, 'click', { ref: nothing })).fileChooser, undefined, 'an answered chooser is never told of');
});

test('a late chooser is told by get_page_context when no action came first', async () => {
  const { snapshot: snap } = await tw.open('/files');
  const ref = refOf(snap, 'button', 'Gated');
  assert.equal((await call<ClickResult>(tw.client, 'click', { ref })).fileChooser, undefined);
  openGate();
  await until('the page opened its chooser', () => evaluate<boolean>(tw.client, 'window.gatedOpened === true'));
  const context = await callRaw(tw.client, 'get_page_context', { output: 'inline' });
  assert.deepEqual((context.structuredContent as { fileChooser?: unknown }).fileChooser, { multiple: true, late: true });
  assert.ok(seenBy('cursor', context).text.includes(`call upload_file {ref: "${ref}", paths: [...]}`), seenBy('cursor', context).text);
  const again = await callRaw(tw.client, 'get_page_context', { output: 'inline' });
  assert.equal((again.structuredContent as { fileChooser?: unknown }).fileChooser, undefined);
});

test('upload_file right after a click whose chooser has not opened yet waits for it instead of clicking again', async () => {
  const { snapshot: snap } = await tw.open('/files');
  const ref = refOf(snap, 'button', 'Soon');
  await call<ClickResult>(tw.client, 'click', { ref });
  // Whether the chooser came before the click's result (a slow machine) or not, one click opens one chooser.
  const uploaded = await callRaw(tw.client, 'upload_file', { ref, paths: [NAMES.cjk] });
  assert.equal((uploaded.structuredContent as unknown as UploadResult).via, 'chooser');
  assert.ok(!seenBy('cursor', uploaded).text.includes('file chooser'), seenBy('cursor', uploaded).text);
  assert.deepEqual((await chosen('soon')).soon!.map(f => f.name), [NAMES.cjk]);
  assert.equal(await evaluate(tw.client, 'clicks.soon'), 1);
  assert.equal((await call<ClickResult>(tw.client, 'click', { ref: refOf(snap, 'button', 'Nothing') })).fileChooser, undefined);
});

test('a click that opens no chooser reports none', async () => {
  const { snapshot: snap } = await tw.open('/files');
  const res = await call<ClickResult>(tw.client, 'click', { ref: refOf(snap, 'button', 'Nothing') });
  assert.equal(res.fileChooser, undefined);
});

test('an element that opens no chooser fails with element_not_actionable', async () => {
  // The click and the wait for a chooser share timeoutMs: on a loaded machine the click alone can take most of 500 ms.
  const { snapshot: snap } = await tw.open('/files');
  const error = await callError(tw.client, 'upload_file', { ref: refOf(snap, 'button', 'Nothing'), paths: [NAMES.nfc], timeoutMs: 2000 });
  assert.equal(error.type, 'element_not_actionable');
  assert.deepEqual(await evaluate(tw.client, 'chosen'), {});
});

test('a file under an allowed root is accepted; [] clears the choice', async () => {
  const { snapshot: snap } = await tw.open('/files');
  const documents = refOf(snap, 'button', 'Documents');
  const res = await call<UploadResult>(tw.client, 'upload_file', { ref: documents, paths: [join(root, 'from-root.txt')] });
  assert.deepEqual(res.files, [join(realpathSync(root), 'from-root.txt')]);
  assert.deepEqual((await chosen('visible-input'))['visible-input'], [{ name: 'from-root.txt', size: 9, text: 'root file' }]);
  await call(tw.client, 'upload_file', { ref: documents, paths: [] });
  assert.equal(await evaluate(tw.client, `document.getElementById('visible-input').files.length`), 0);
});

test('paths outside the workspace and the roots are rejected, also through a symlink; missing files are file_not_found', async () => {
  const { snapshot: snap } = await tw.open('/files');
  const ref = refOf(snap, 'button', 'Documents');
  for (const path of [join(outside, 'secret.txt'), '../' + 'x.txt', 'link-out.txt', join(outside, 'missing.txt')]) {
    const error = await callError(tw.client, 'upload_file', { ref, paths: [NAMES.nfc, path] });
    assert.equal(error.type, 'path_not_allowed', path);
  }
  const missing = await callError(tw.client, 'upload_file', { ref, paths: ['missing.txt'] });
  assert.equal(missing.type, 'file_not_found');
  const folder = await callError(tw.client, 'upload_file', { ref, paths: ['docs'] });
  assert.equal(folder.type, 'invalid_arguments');
  assert.equal(await evaluate(tw.client, `document.getElementById('visible-input').files.length`), 0);
});

test('several files for a single-file input fail with invalid_arguments', async () => {
  const { snapshot: snap } = await tw.open('/files');
  const error = await callError(tw.client, 'upload_file', { ref: refOf(snap, 'button', 'Avatar'), paths: [NAMES.nfc, NAMES.nfd] });
  assert.equal(error.type, 'invalid_arguments');
  assert.equal(await evaluate(tw.client, `document.getElementById('single-input').files.length`), 0);
});
