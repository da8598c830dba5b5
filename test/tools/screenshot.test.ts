// take_screenshot end to end: inline PNG and JPEG, full page, one element,
// output to a file, and a tab that is not the active one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { call, callError, connect, type Connected } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { callRaw, JPEG_MAGIC, PNG_MAGIC, pngPixel, pngSize, refOf, snapshot } from './helpers.js';

interface Shot {
  tabId: number;
  revision: number;
  format: string;
  bytes: number;
  path?: string;
}

let site: Site;
let server: Connected;

before(async () => {
  site = await startSite();
  site.page('/tall', `<!doctype html><title>Tall</title><style>html,body{margin:0}</style>
    <div style="height:3000px; background:linear-gradient(rgb(255,255,255), rgb(0,0,0))"></div>`);
  site.page('/element', `<!doctype html><title>Element</title><style>body{margin:0}</style>
    <p>Some text above</p>
    <button id="b" style="display:block; width:200px; height:100px; border:0; margin:40px; background:rgb(0,0,255)">Big blue button</button>`);
  site.page('/huge', `<!doctype html><title>Huge</title><style>html,body{margin:0}</style>
    <div style="height:100px"></div><button id="col" style="display:block; border:0; margin:0; width:600px; height:30000px; background:linear-gradient(rgb(0,255,0) 0 8000px, rgb(255,0,0) 8000px)">Column</button>`);
  site.page('/red', '<!doctype html><title>Red</title><style>html{background:rgb(255,0,0)}</style>');
  site.page('/green', '<!doctype html><title>Green</title><style>html{background:rgb(0,255,0)}</style>');
  server = await connect();
});
after(async () => {
  await server?.close();
  await site?.close();
});

/** The one image block of a screenshot result, decoded. */
async function shoot(args: Record<string, unknown>): Promise<{ image: Buffer; mimeType: string; fields: Shot }> {
  const res = await callRaw(server.client, 'take_screenshot', args);
  assert.notEqual(res.isError, true, JSON.stringify(res.content));
  const images = res.content.filter(c => c.type === 'image');
  assert.equal(images.length, 1);
  return { image: Buffer.from(images[0]!.data!, 'base64'), mimeType: images[0]!.mimeType!, fields: res.structuredContent as unknown as Shot };
}

test('inline PNG of the viewport', async () => {
  const nav = await call<{ tabId: number; revision: number }>(server.client, 'navigate', { url: `${site.origin}/tall` });
  const { image, mimeType, fields } = await shoot({});
  assert.equal(mimeType, 'image/png');
  assert.deepEqual(image.subarray(0, 8), PNG_MAGIC);
  assert.deepEqual(pngSize(image), { width: 1280, height: 720 });
  assert.equal(fields.format, 'png');
  assert.equal(fields.bytes, image.length);
  assert.equal(fields.tabId, nav.tabId);
  assert.equal(fields.revision, nav.revision);
  assert.equal(fields.path, undefined);
});

test('jpeg format, with quality', async () => {
  const { image, mimeType, fields } = await shoot({ format: 'jpeg' });
  assert.equal(mimeType, 'image/jpeg');
  assert.deepEqual(image.subarray(0, 3), JPEG_MAGIC);
  assert.equal(fields.format, 'jpeg');
  const low = await shoot({ format: 'jpeg', quality: 10 });
  assert.deepEqual(low.image.subarray(0, 3), JPEG_MAGIC);
  assert.ok(low.image.length < image.length, 'lower quality, fewer bytes');
  assert.equal((await callError(server.client, 'take_screenshot', { quality: 50 })).type, 'invalid_arguments');
  assert.equal((await callError(server.client, 'take_screenshot', { format: 'gif' })).type, 'invalid_arguments');
});

test('fullPage captures the whole scrollable page', async () => {
  const { image } = await shoot({ fullPage: true });
  assert.deepEqual(pngSize(image), { width: 1280, height: 3000 });
  // Top white, bottom near black: the gradient runs the whole height.
  const top = pngPixel(image, 640, 2);
  const bottom = pngPixel(image, 640, 2997);
  assert.ok(top.every(c => c > 240), `top is ${top}`);
  assert.ok(bottom.every(c => c < 15), `bottom is ${bottom}`);
});

test('a full page (or an element) longer than 8,000 px is clipped to 8,000 px and the result says so', async () => {
  await call(server.client, 'navigate', { url: `${site.origin}/huge` });
  const { image, fields } = await shoot({ fullPage: true });
  assert.deepEqual(pngSize(image), { width: 1280, height: 8000 });
  assert.deepEqual((fields as Shot & { clipped?: unknown }).clipped, { width: 1280, height: 8000, fullWidth: 1280, fullHeight: 30100 });
  assert.deepEqual(pngPixel(image, 300, 7990), [0, 255, 0], 'the top 8,000 px, green');
  const res = await callRaw(server.client, 'take_screenshot', { fullPage: true });
  assert.match(res.content[0]!.text!, /Clipped to the top-left 1280 × 8000 px of 1280 × 30100 px/);

  // An element: its own top-left 8,000 px.
  const col = refOf((await snapshot(server.client)).snapshot, 'button', 'Column');
  const el = await shoot({ ref: col });
  assert.deepEqual(pngSize(el.image), { width: 600, height: 8000 });
  assert.deepEqual((el.fields as Shot & { clipped?: unknown }).clipped, { width: 600, height: 8000, fullWidth: 600, fullHeight: 30000 });
  assert.deepEqual(pngPixel(el.image, 300, 5), [0, 255, 0]);
  assert.deepEqual(pngPixel(el.image, 300, 7990), [0, 255, 0]);
});

test('ref captures one element', async () => {
  await call(server.client, 'navigate', { url: `${site.origin}/element` });
  const ref = refOf((await snapshot(server.client)).snapshot, 'button', 'Big blue button');
  const { image } = await shoot({ ref });
  assert.deepEqual(pngSize(image), { width: 200, height: 100 });
  assert.deepEqual(pngPixel(image, 5, 5), [0, 0, 255]);
  assert.equal((await callError(server.client, 'take_screenshot', { ref, fullPage: true })).type, 'invalid_arguments');
});

test('output: file writes the image under <workspace>/.tabwright/screenshots/', async () => {
  const res = await callRaw(server.client, 'take_screenshot', { output: 'file' });
  assert.notEqual(res.isError, true);
  assert.equal(res.content.filter(c => c.type === 'image').length, 0);
  const fields = res.structuredContent as unknown as Shot;
  assert.ok(fields.path);
  assert.equal(dirname(fields.path), join(server.workspace, '.tabwright', 'screenshots'));
  assert.ok(existsSync(fields.path));
  const file = readFileSync(fields.path);
  assert.equal(file.length, fields.bytes);
  assert.deepEqual(pngSize(file), { width: 1280, height: 720 });

  const jpeg = await call<Shot>(server.client, 'take_screenshot', { output: 'file', format: 'jpeg' });
  assert.ok(jpeg.path!.endsWith('.jpg'));
  assert.deepEqual(readFileSync(jpeg.path!).subarray(0, 3), JPEG_MAGIC);
});

test('a background tab can be captured, showing its own page', async () => {
  const active = await call<{ tabId: number }>(server.client, 'open_tab', { url: `${site.origin}/green` });
  const bg = await call<{ tabId: number; active: boolean }>(server.client, 'open_tab', { url: `${site.origin}/red`, background: true });
  assert.equal(bg.active, false);
  const { image, fields } = await shoot({ tabId: bg.tabId });
  assert.equal(fields.tabId, bg.tabId);
  assert.deepEqual(pngSize(image), { width: 1280, height: 720 });
  assert.deepEqual(pngPixel(image, 640, 360), [255, 0, 0]);
  // The active tab is still the active one, and shows green.
  const tabs = (await call<{ tabs: Array<{ tabId: number; active: boolean }> }>(server.client, 'list_tabs')).tabs;
  assert.deepEqual(tabs.filter(t => t.active).map(t => t.tabId), [active.tabId]);
  const fg = await shoot({});
  assert.deepEqual(pngPixel(fg.image, 640, 360), [0, 255, 0]);
  // The oldest tab (neither active nor newest) too, and then the others again.
  const first = await shoot({ tabId: 1 });
  assert.equal(first.fields.tabId, 1);
  assert.deepEqual(pngSize(first.image), { width: 1280, height: 720 });
  assert.deepEqual(pngPixel((await shoot({ tabId: bg.tabId })).image, 640, 360), [255, 0, 0]);
  assert.deepEqual(pngPixel((await shoot({ tabId: active.tabId })).image, 640, 360), [0, 255, 0]);
  const after = (await call<{ tabs: Array<{ tabId: number; active: boolean }> }>(server.client, 'list_tabs')).tabs;
  assert.deepEqual(after.filter(t => t.active).map(t => t.tabId), [active.tabId]);
});

test('a tab a page opened (a popup) can be captured, and so can its opener', async () => {
  const opener = await call<{ tabId: number }>(server.client, 'open_tab', { url: `${site.origin}/green` });
  await call(server.client, 'execute', { code: `window.open(${JSON.stringify(`${site.origin}/red`)}); true` });
  let popupId: number | undefined;
  for (let i = 0; i < 50 && popupId === undefined; i++) {
    const tabs = (await call<{ tabs: Array<{ tabId: number; openerTabId?: number; title: string }> }>(server.client, 'list_tabs')).tabs;
    popupId = tabs.find(t => t.openerTabId === opener.tabId && t.title === 'Red')?.tabId;
    if (popupId === undefined) await new Promise(resolve => setTimeout(resolve, 100));
  }
  assert.ok(popupId !== undefined, 'the popup loaded');
  assert.deepEqual(pngPixel((await shoot({})).image, 640, 360), [0, 255, 0]);
  assert.deepEqual(pngPixel((await shoot({ tabId: popupId })).image, 640, 360), [255, 0, 0]);
});

test('an unknown tab is tab_not_found', async () => {
  assert.equal((await callError(server.client, 'take_screenshot', { tabId: 9999 })).type, 'tab_not_found');
});
