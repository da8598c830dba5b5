/**
 * Uploads through the extension without "Allow access to file URLs" (docs/own-browser.md, "What differs from a
 * launched browser"): the toggle is turned off on chrome://extensions as a user does (Chrome reloads the extension),
 * the extension's gate then refuses DOM.setFileInputFiles (`file_access`), and upload_file sends the files' contents
 * instead: the page gets the same names, sizes, types and bytes, through a file input and through a file chooser,
 * with its input and change events; over the size bound it is invalid_arguments, with nothing set on the input.
 */
import assert from 'node:assert/strict';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { EXTENSION_ID, startExtensionBrowser, TEST_PAIRING_CODE, type ExtensionBrowser } from '../fixtures/extension.js';
import { freePort, until } from '../fixtures/harness.js';
import { call, callError, callRaw, connect, evaluate, refOf, type Connected, type Snapshot } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { seenBy } from '../fixtures/clientLens.js';

interface Upload { files: string[]; via: 'input' | 'chooser'; sent: 'paths' | 'contents' }
interface Tabs { tabs: Array<{ tabId: number; url: string }> }
/** What the page saw per input: each file's name, size, type, last modification and text, and the events. */
type Seen = Record<string, { files: Array<{ name: string; size: number; type: string; lastModified: number; text: string }>; events: string[] }>;

const PAGE = `<!doctype html><meta charset="utf-8"><title>Uploads</title>
<input type="file" id="docs" aria-label="Documents" multiple>
<button id="pick">Pick a photo</button>
<script>
  window.seen = {};
  function watch(key, input) {
    for (const type of ['input', 'change']) input.addEventListener(type, async () => {
      const entry = seen[key] ??= { files: [], events: [] };
      entry.events.push(type);
      if (type === 'change') entry.files = await Promise.all([...input.files].map(async f => ({ name: f.name, size: f.size, type: f.type, lastModified: f.lastModified, text: await f.text() })));
    });
  }
  watch('docs', document.getElementById('docs'));
  document.getElementById('pick').addEventListener('click', () => {
    // A chooser from an input that is never attached to the document.
    const input = document.createElement('input');
    input.type = 'file';
    input.accept = 'image/*';
    watch('pick', input);
    input.click();
  });
</script>`;

let site: Site;
let browser: ExtensionBrowser;
let server: Connected;
let tabId: number;

/**
 * Turns "Allow access to file URLs" off on the extension's details page, as a user does; Chrome reloads the extension.
 * Developer mode goes on first: a user who loaded the extension unpacked has it on, and without it Chrome disables an
 * unpacked extension when it reloads ("Turn on developer mode to use this extension").
 */
async function turnOffFileAccess(b: ExtensionBrowser): Promise<void> {
  const page = await b.context.newPage();
  await page.goto(`chrome://extensions/?id=${EXTENSION_ID}`);
  const devMode = page.locator('extensions-manager extensions-toolbar #devMode');
  const pressed = () => devMode.evaluate(el => (el as HTMLElement & { checked: boolean }).checked);
  if (!(await pressed())) await devMode.click();
  await until('developer mode to be on', pressed, 5000);
  const toggle = page.locator('extensions-detail-view #allow-on-file-urls');
  const checked = () => toggle.evaluate(el => (el as HTMLElement & { checked: boolean }).checked);
  assert.equal(await checked(), true, 'an unpacked extension starts with file access');
  await toggle.click();
  await until('the toggle to be off', async () => !(await checked()), 5000);
  await page.close();
  // The reloaded worker sees the new setting.
  await until('the extension without file access', async () => {
    const worker = await b.worker();
    return await worker.evaluate(() => (globalThis as unknown as { chrome: { extension: { isAllowedFileSchemeAccess(): Promise<boolean> } } })
      .chrome.extension.isAllowedFileSchemeAccess()).then(allowed => !allowed, () => false);
  }, 15_000);
}

before(async () => {
  site = await startSite();
  site.page('/uploads', PAGE);
  browser = await startExtensionBrowser();
  await turnOffFileAccess(browser);
  const port = await freePort();
  server = await connect({ args: ['--connection', 'extension'], env: { TABWRIGHT_WS_PORT: String(port), TABWRIGHT_PAIRING_KEY: TEST_PAIRING_CODE } });
  await browser.pair(TEST_PAIRING_CODE, port);
  const page = await browser.context.newPage();
  await page.goto(`${site.origin}/uploads`);
  await browser.share(await browser.tabIdOf(`${site.origin}/uploads`));
  tabId = await until('the shared tab in list_tabs', async () => (await call<Tabs>(server.client, 'list_tabs')).tabs.find(t => t.url === `${site.origin}/uploads`)?.tabId, 20_000);
  writeFileSync(join(server.workspace, 'notes.txt'), 'first file\n');
  writeFileSync(join(server.workspace, 'résumé.md'), '# Zoë\n');
  writeFileSync(join(server.workspace, 'photo.png'), Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
});
after(async () => {
  await server?.close();
  await browser?.close();
  await site?.close();
});

/** The ref of the `role` named `name` in a fresh snapshot of the tab. */
async function ref(role: string, name: string): Promise<string> {
  return refOf((await call<Snapshot>(server.client, 'get_page_context', { tabId, output: 'inline' })).snapshot, role, name);
}

const seen = () => evaluate<Seen>(server.client, 'window.seen', tabId);

test('a file input gets the files as contents: names, sizes, types, bytes, input and change', async () => {
  const raw = await call<Upload>(server.client, 'upload_file', { ref: await ref('button', 'Documents'), paths: ['notes.txt', 'résumé.md'] });
  assert.equal(raw.sent, 'contents');
  assert.equal(raw.via, 'input');
  const docs = await until('the change event', async () => (await seen()).docs?.files.length ? (await seen()).docs : undefined, 5000);
  assert.deepEqual(docs.events, ['input', 'change']);
  assert.deepEqual(docs.files.map(f => [f.name, f.size, f.type, f.text]), [
    ['notes.txt', 11, 'text/plain', 'first file\n'],
    ['résumé.md', 7, 'text/markdown', '# Zoë\n'],
  ]);
  assert.ok(docs.files.every(f => Math.abs(f.lastModified - Date.now()) < 120_000), 'each file keeps its modification time');
});

test('a file chooser from a detached input gets the file as contents, and the model is told how', async () => {
  const result = seenBy('cursor', await callRaw(server.client, 'upload_file', { ref: await ref('button', 'Pick a photo'), paths: ['photo.png'] }));
  assert.match(result.text, /Chose 1 file \(photo\.png\).*sent as contents: the extension has no access to file URLs/s);
  const pick = await until('the chooser input\'s change', async () => (await seen()).pick?.files.length ? (await seen()).pick : undefined, 5000);
  assert.deepEqual(pick.files.map(f => [f.name, f.size, f.type]), [['photo.png', 16, 'image/png']]);
});

test('over 50 MB of contents is invalid_arguments, and the input keeps what it had', async () => {
  const big = join(server.workspace, 'big.bin');
  writeFileSync(big, '');
  truncateSync(big, 50 * 1024 * 1024 + 1);
  const error = await callError(server.client, 'upload_file', { ref: await ref('button', 'Documents'), paths: ['big.bin'] });
  assert.equal(error.type, 'invalid_arguments');
  assert.match(error.message, /52428801 bytes.*at most 52428800/);
  assert.match(error.hint, /Allow access to file URLs/);
  assert.deepEqual((await seen()).docs?.files.map(f => f.name), ['notes.txt', 'résumé.md']);
});
