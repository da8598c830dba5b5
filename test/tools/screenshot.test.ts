// take_screenshot end to end: PNG, JPEG and WebP inline, full page (cut to
// the inline budget, whole in a file), one element, output to a file, tabs
// that are not the active one, scaling to --screenshot-max-width, and the
// screenshot defaults from flags and environment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { resolveScreenshot, SCREENSHOT_DEFAULTS } from '../../src/config.js';
import { ToolError } from '../../src/errors.js';
import { seenBy } from '../fixtures/clientLens.js';
import { useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, CLI, connect, refOf, snapshot, unlessConnection, type ToolClient } from '../fixtures/mcp.js';
import { imageSize, JPEG_MAGIC, jpegSize, PNG_MAGIC, pngPixel, pngSize, webpSize } from '../fixtures/images.js';

interface Shot {
  tabId: number;
  revision: number;
  format: string;
  bytes: number;
  width: number;
  height: number;
  path?: string;
  scaledFrom?: { width: number; height: number };
  clipped?: { width: number; height: number; fullWidth: number; fullHeight: number };
  cut?: { width: number; height: number; fullWidth: number; fullHeight: number };
  file?: { format: string; bytes: number; width: number; height: number };
}

/** Claude's API keeps up to 1,568 px on the long edge and 1.15 megapixels: the tallest inline full page `width` px wide. */
function budgetHeight(width: number): number {
  return Math.min(1568, Math.floor(1_150_000 / width));
}

const tw = useSession({
  setup: async tw => {
    tw.site.page('/tall', `<!doctype html><title>Tall</title><style>html,body{margin:0}</style>
      <div style="height:3000px; background:linear-gradient(rgb(255,255,255), rgb(0,0,0))"></div>`);
    tw.site.page('/element', `<!doctype html><title>Element</title><style>body{margin:0}</style>
      <p>Some text above</p>
      <button id="b" style="display:block; width:200px; height:100px; border:0; margin:40px; background:rgb(0,0,255)">Big blue button</button>`);
    tw.site.page('/huge', `<!doctype html><title>Huge</title><style>html,body{margin:0}</style>
      <div style="height:100px"></div><button id="col" style="display:block; border:0; margin:0; width:600px; height:30000px; background:linear-gradient(rgb(0,255,0) 0 8000px, rgb(255,0,0) 8000px)">Column</button>`);
    tw.site.page('/red', '<!doctype html><title>Red</title><style>html{background:rgb(255,0,0)}</style>');
    tw.site.page('/green', '<!doctype html><title>Green</title><style>html{background:rgb(0,255,0)}</style>');
  },
});

/**
 * The one image block of a screenshot result, decoded, the text a content-only client's model reads, and the file
 * the text names. A result with an image may carry no structured fields (they would hide the image from Claude Code
 * and Codex), so these tests read what the model reads.
 */
async function shoot(args: Record<string, unknown>, on: { client: ToolClient } = tw): Promise<{ image: Buffer; mimeType: string; text: string; path?: string }> {
  const res = await callRaw(on.client, 'take_screenshot', args);
  assert.notEqual(res.isError, true, JSON.stringify(res.content));
  const images = res.content.filter(c => c.type === 'image');
  assert.equal(images.length, 1);
  const text = seenBy('cursor', res).text;
  return { image: Buffer.from(images[0]!.data!, 'base64'), mimeType: images[0]!.mimeType!, text, path: / in (\/\S+\.(?:png|jpg|webp)) \(/.exec(text)?.[1] };
}

test('inline PNG of the viewport; the text says what the image is', async () => {
  const nav = await call<{ tabId: number; revision: number }>(tw.client, 'navigate', { url: `${tw.origin}/tall` });
  const { image, mimeType, text } = await shoot({ format: 'png' });
  assert.equal(mimeType, 'image/png');
  assert.deepEqual(image.subarray(0, 8), PNG_MAGIC);
  assert.deepEqual(pngSize(image), { width: 1280, height: 720 });
  // Tab, what, format, pixel size and bytes; not scaled (1280 px is not over the default max width), no file.
  assert.equal(text, `Screenshot of tab ${nav.tabId} (viewport): PNG 1280 × 720 px, ${image.length} bytes.`);
});

test('the default format is the configured one, and every format decodes at the viewport size', async () => {
  const byDefault = await shoot({});
  assert.equal(byDefault.mimeType, `image/${SCREENSHOT_DEFAULTS.format}`);
  assert.deepEqual(imageSize(byDefault.image, byDefault.mimeType), { width: 1280, height: 720 });
  const jpeg = await shoot({ format: 'jpeg' });
  assert.equal(jpeg.mimeType, 'image/jpeg');
  assert.deepEqual(jpeg.image.subarray(0, 3), JPEG_MAGIC);
  assert.deepEqual(jpegSize(jpeg.image), { width: 1280, height: 720 });
  assert.match(jpeg.text, /^Screenshot of tab \d+ \(viewport\): JPEG 1280 × 720 px, \d+ bytes\.$/);
  const webp = await shoot({ format: 'webp' });
  assert.equal(webp.mimeType, 'image/webp');
  const size = webpSize(webp.image);
  assert.deepEqual([size.width, size.height], [1280, 720], `WebP ${size.chunk} chunk`);
  assert.match(webp.text, /^Screenshot of tab \d+ \(viewport\): WebP 1280 × 720 px, \d+ bytes\.$/);
});

test('quality: lower means fewer bytes in jpeg and webp; png, other formats and out-of-range values are invalid_arguments', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/element` });
  for (const format of ['jpeg', 'webp']) {
    const high = await shoot({ format, quality: 95 });
    const low = await shoot({ format, quality: 10 });
    assert.deepEqual(imageSize(low.image, low.mimeType), { width: 1280, height: 720 });
    assert.ok(low.image.length < high.image.length, `${format}: quality 10 (${low.image.length} bytes) under quality 95 (${high.image.length})`);
  }
  const png = await callError(tw.client, 'take_screenshot', { format: 'png', quality: 50 });
  assert.equal(png.type, 'invalid_arguments');
  assert.match(png.hint, /jpeg|webp/);
  assert.equal((await callError(tw.client, 'take_screenshot', { format: 'gif' })).type, 'invalid_arguments');
  assert.equal((await callError(tw.client, 'take_screenshot', { format: 'jpeg', quality: 0 })).type, 'invalid_arguments');
});

test('fullPage: a page over the inline budget comes back cut to it, the whole page in a file, and the text says both', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/tall` });
  const cutHeight = budgetHeight(1280);
  const { image, text, path } = await shoot({ fullPage: true, format: 'png' });
  assert.deepEqual(pngSize(image), { width: 1280, height: cutHeight });
  // The inline part is the top: white at the top, the gradient's grey at the bottom, not black.
  assert.ok(pngPixel(image, 640, 2).every(c => c > 240));
  const grey = pngPixel(image, 640, cutHeight - 2);
  assert.ok(grey.every(c => c > 150 && c < 230), `the cut's last row is ${grey}`);
  assert.ok(path && existsSync(path), `the whole page is written to a file the text names: ${text}`);
  assert.equal(dirname(path), join(tw.workspace, '.tabwright', 'screenshots'));
  const whole = readFileSync(path);
  assert.deepEqual(pngSize(whole), { width: 1280, height: 3000 });
  assert.ok(pngPixel(whole, 640, 2997).every(c => c < 15), 'the file runs to the bottom of the page');
  assert.ok(text.includes(`PNG 1280 × ${cutHeight} px, ${image.length} bytes, the top ${cutHeight} px, cut to the inline image budget`), text);
  assert.ok(text.includes(`the whole page is 1280 × 3000 px, in ${path} (PNG 1280 × 3000 px, ${whole.length} bytes)`), text);

  // output: inline: the cut only, and how to get the rest.
  const inline = await callRaw(tw.client, 'take_screenshot', { fullPage: true, format: 'png', output: 'inline' });
  assert.equal(inline.content.filter(c => c.type === 'image').length, 1);
  assert.doesNotMatch(seenBy('cursor', inline).text, /\.tabwright/, 'no file');
  assert.match(seenBy('cursor', inline).text, /the top \d+ px, cut to the inline image budget .* Pass output: "file" for the whole page/);

  // output: file: the whole page, no cut.
  const file = await call<Shot>(tw.client, 'take_screenshot', { fullPage: true, format: 'png', output: 'file' });
  assert.deepEqual(pngSize(readFileSync(file.path!)), { width: 1280, height: 3000 });
  assert.equal(file.cut, undefined);
});

test('fullPage: a page within the budget comes back whole, inline', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/element` });
  const { image, text } = await shoot({ fullPage: true, format: 'png' });
  assert.deepEqual(pngSize(image), { width: 1280, height: 720 });
  assert.match(text, /^Screenshot of tab \d+ \(full page\): PNG 1280 × 720 px, \d+ bytes\.$/);
});

test('a full page (or an element) longer than 8,000 px is clipped to 8,000 px and the result says so', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/huge` });
  const res = await callRaw(tw.client, 'take_screenshot', { fullPage: true, format: 'png', output: 'file' });
  const fields = res.structuredContent as unknown as Shot;
  const image = readFileSync(fields.path!);
  assert.deepEqual(pngSize(image), { width: 1280, height: 8000 });
  assert.deepEqual(fields.clipped, { width: 1280, height: 8000, fullWidth: 1280, fullHeight: 30100 });
  assert.deepEqual(pngPixel(image, 300, 7990), [0, 255, 0], 'the top 8,000 px, green');
  assert.match(seenBy('cursor', res).text, /Clipped to the top-left 1280 × 8000 px of 1280 × 30100 px/);

  // An element: its own top-left 8,000 px.
  const col = refOf((await snapshot(tw.client)).snapshot, 'button', 'Column');
  const el = await call<Shot>(tw.client, 'take_screenshot', { ref: col, format: 'png', output: 'file' });
  const elImage = readFileSync(el.path!);
  assert.deepEqual(pngSize(elImage), { width: 600, height: 8000 });
  assert.deepEqual(el.clipped, { width: 600, height: 8000, fullWidth: 600, fullHeight: 30000 });
  assert.deepEqual(pngPixel(elImage, 300, 5), [0, 255, 0]);
  assert.deepEqual(pngPixel(elImage, 300, 7990), [0, 255, 0]);
  // Inline, the element is cut to the budget like a full page.
  const inline = await shoot({ ref: col, format: 'png', output: 'inline' });
  assert.deepEqual(pngSize(inline.image), { width: 600, height: budgetHeight(600) });
  assert.match(inline.text, /the top \d+ px, cut to the inline image budget .* the whole element is 600 × 8000 px/);
});

test('ref captures one element', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/element` });
  const ref = refOf((await snapshot(tw.client)).snapshot, 'button', 'Big blue button');
  const { image, text } = await shoot({ ref, format: 'png' });
  assert.deepEqual(pngSize(image), { width: 200, height: 100 });
  assert.deepEqual(pngPixel(image, 5, 5), [0, 0, 255]);
  assert.match(text, new RegExp(`^Screenshot of tab \\d+ \\(element ${ref}\\): PNG 200 × 100 px`));
  assert.equal((await callError(tw.client, 'take_screenshot', { ref, fullPage: true })).type, 'invalid_arguments');
});

test('output: file writes the image under <workspace>/.tabwright/screenshots/, and the text names it', async () => {
  const res = await callRaw(tw.client, 'take_screenshot', { output: 'file', format: 'png' });
  assert.notEqual(res.isError, true);
  assert.equal(res.content.filter(c => c.type === 'image').length, 0);
  const fields = res.structuredContent as unknown as Shot;
  assert.ok(fields.path);
  assert.equal(dirname(fields.path), join(tw.workspace, '.tabwright', 'screenshots'));
  assert.ok(existsSync(fields.path));
  const file = readFileSync(fields.path);
  assert.equal(file.length, fields.bytes);
  assert.deepEqual(pngSize(file), { width: 1280, height: 720 });
  // The fields the CLI and the daemon read (no image, so structured fields do not hide one from any client).
  const tabs = (await call<{ tabs: Array<{ tabId: number; active: boolean }> }>(tw.client, 'list_tabs')).tabs;
  assert.equal(fields.tabId, tabs.find(t => t.active)!.tabId);
  assert.equal(typeof fields.revision, 'number');
  assert.deepEqual([fields.format, fields.width, fields.height, fields.scaledFrom, fields.cut], ['png', 1280, 720, undefined, undefined]);
  assert.equal(seenBy('cursor', res).text, `Screenshot of tab ${fields.tabId} (viewport) written to ${fields.path} as asked: PNG 1280 × 720 px, ${file.length} bytes.`);

  const jpeg = await call<Shot>(tw.client, 'take_screenshot', { output: 'file', format: 'jpeg' });
  assert.ok(jpeg.path!.endsWith('.jpg'));
  assert.deepEqual(readFileSync(jpeg.path!).subarray(0, 3), JPEG_MAGIC);
  const webp = await call<Shot>(tw.client, 'take_screenshot', { output: 'file', format: 'webp' });
  assert.ok(webp.path!.endsWith('.webp'));
  assert.equal(webpSize(readFileSync(webp.path!)).width, 1280);
});

test('a background tab can be captured, showing its own page', async () => {
  const active = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/green` });
  const bg = await call<{ tabId: number; active: boolean }>(tw.client, 'open_tab', { url: `${tw.origin}/red`, background: true });
  assert.equal(bg.active, false);
  const { image, text } = await shoot({ tabId: bg.tabId, format: 'png' });
  assert.ok(text.startsWith(`Screenshot of tab ${bg.tabId} (viewport)`), text);
  assert.deepEqual(pngSize(image), { width: 1280, height: 720 });
  assert.deepEqual(pngPixel(image, 640, 360), [255, 0, 0]);
  // The active tab is still the active one, and shows green.
  const tabs = (await call<{ tabs: Array<{ tabId: number; active: boolean }> }>(tw.client, 'list_tabs')).tabs;
  assert.deepEqual(tabs.filter(t => t.active).map(t => t.tabId), [active.tabId]);
  const fg = await shoot({ format: 'png' });
  assert.deepEqual(pngPixel(fg.image, 640, 360), [0, 255, 0]);
  // The oldest tab (neither active nor newest) too, and then the others again.
  const first = await shoot({ tabId: 1, format: 'png' });
  assert.ok(first.text.startsWith('Screenshot of tab 1 (viewport)'), first.text);
  assert.deepEqual(pngSize(first.image), { width: 1280, height: 720 });
  assert.deepEqual(pngPixel((await shoot({ tabId: bg.tabId, format: 'png' })).image, 640, 360), [255, 0, 0]);
  assert.deepEqual(pngPixel((await shoot({ tabId: active.tabId, format: 'png' })).image, 640, 360), [0, 255, 0]);
  const after = (await call<{ tabs: Array<{ tabId: number; active: boolean }> }>(tw.client, 'list_tabs')).tabs;
  assert.deepEqual(after.filter(t => t.active).map(t => t.tabId), [active.tabId]);
});

test('a tab a page opened (a popup) can be captured, and so can its opener', async () => {
  const opener = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/green` });
  await call(tw.client, 'execute', { code: `window.open(${JSON.stringify(`${tw.origin}/red`)}); true` });
  let popupId: number | undefined;
  for (let i = 0; i < 50 && popupId === undefined; i++) {
    const tabs = (await call<{ tabs: Array<{ tabId: number; openerTabId?: number; title: string }> }>(tw.client, 'list_tabs')).tabs;
    popupId = tabs.find(t => t.openerTabId === opener.tabId && t.title === 'Red')?.tabId;
    if (popupId === undefined) await new Promise(resolve => setTimeout(resolve, 100));
  }
  assert.ok(popupId !== undefined, 'the popup loaded');
  assert.deepEqual(pngPixel((await shoot({ format: 'png' })).image, 640, 360), [0, 255, 0]);
  assert.deepEqual(pngPixel((await shoot({ tabId: popupId, format: 'png' })).image, 640, 360), [255, 0, 0]);
});

test('an unknown tab is tab_not_found', async () => {
  assert.equal((await callError(tw.client, 'take_screenshot', { tabId: 9999 })).type, 'tab_not_found');
});

test('--screenshot-max-width scales a wide viewport down, aspect ratio kept; the flag wins over the environment', unlessConnection(['own-chrome', 'extension'], 'tabwright emulates no viewport or device scale factor in the user\'s own browser: --viewport does not apply (docs/own-browser.md)'), async () => {
  const wide = await connect({
    args: ['--viewport', '1600x900', '--screenshot-max-width', '800'],
    env: { TABWRIGHT_SCREENSHOT_MAX_WIDTH: '1000', TABWRIGHT_SCREENSHOT_FORMAT: 'webp', TABWRIGHT_SCREENSHOT_QUALITY: '60' },
  });
  try {
    const nav = await call<{ tabId: number }>(wide.client, 'navigate', { url: `${tw.origin}/tall` });
    // Format from the environment (no flag), width from the flag (over the environment's 1000).
    const shot = await shoot({}, wide);
    assert.equal(shot.mimeType, 'image/webp');
    const size = webpSize(shot.image);
    assert.deepEqual([size.width, size.height], [800, 450]);
    assert.equal(shot.text, `Screenshot of tab ${nav.tabId} (viewport): WebP 800 × 450 px, ${shot.image.length} bytes, scaled from 1600 × 900 CSS px.`);
    // PNG per call: the same scale, and the content is scaled, not cut: the gradient's top row is white.
    const png = await shoot({ format: 'png' }, wide);
    assert.deepEqual(pngSize(png.image), { width: 800, height: 450 });
    assert.ok(pngPixel(png.image, 400, 1).every(c => c > 240));
    // A full page: 1600 × 3000 CSS px scale to 800 × 1500, over the budget at 800 px wide: cut inline, whole in the file.
    const full = await shoot({ fullPage: true, format: 'png' }, wide);
    assert.deepEqual(pngSize(full.image), { width: 800, height: budgetHeight(800) });
    assert.deepEqual(pngSize(readFileSync(full.path!)), { width: 800, height: 1500 });
    assert.ok(full.text.includes('the whole page is 800 × 1500 px, scaled from 1600 × 3000 CSS px'), full.text);
    // An element narrower than the max width keeps its size.
    await call(wide.client, 'navigate', { url: `${tw.origin}/element` });
    const ref = refOf((await snapshot(wide.client)).snapshot, 'button', 'Big blue button');
    assert.deepEqual(pngSize((await shoot({ ref, format: 'png' }, wide)).image), { width: 200, height: 100 });
  } finally {
    await wide.close();
  }
});

test('on a HiDPI screen (device scale factor 2) images still come out in CSS pixels, scaled to the max width', unlessConnection(['own-chrome', 'extension'], 'tabwright emulates no viewport or device scale factor in the user\'s own browser: --viewport does not apply (docs/own-browser.md)'), async () => {
  // Our CDP session does not see Playwright's viewport emulation: it captures at the screen's ratio.
  const hidpi = await connect({ args: ['--browser-arg', '--force-device-scale-factor=2', '--screenshot-max-width', '1000'] });
  try {
    await call(hidpi.client, 'navigate', { url: `${tw.origin}/tall` });
    const vp = await shoot({ format: 'png' }, hidpi);
    assert.deepEqual(pngSize(vp.image), { width: 1000, height: 563 });
    assert.ok(vp.text.includes('PNG 1000 × 563 px') && vp.text.includes('scaled from 1280 × 720 CSS px'), vp.text);
    const full = await call<Shot>(hidpi.client, 'take_screenshot', { fullPage: true, format: 'jpeg', output: 'file' });
    assert.deepEqual(jpegSize(readFileSync(full.path!)), { width: 1000, height: 2344 });
    await call(hidpi.client, 'navigate', { url: `${tw.origin}/element` });
    const ref = refOf((await snapshot(hidpi.client)).snapshot, 'button', 'Big blue button');
    const el = await shoot({ ref, format: 'png' }, hidpi);
    assert.deepEqual(pngSize(el.image), { width: 200, height: 100 });
    assert.deepEqual(pngPixel(el.image, 5, 5), [0, 0, 255]);
    assert.deepEqual(pngPixel(el.image, 195, 95), [0, 0, 255], "the clip is the element, not shifted");
  } finally {
    await hidpi.close();
  }
});

test('screenshot defaults: flags over environment over defaults; bad values are invalid_arguments naming the flag and the variable', () => {
  assert.deepEqual(resolveScreenshot({}, {}), SCREENSHOT_DEFAULTS);
  assert.deepEqual(resolveScreenshot({}, { TABWRIGHT_SCREENSHOT_FORMAT: 'webp', TABWRIGHT_SCREENSHOT_QUALITY: '55', TABWRIGHT_SCREENSHOT_MAX_WIDTH: '1024' }),
    { format: 'webp', quality: 55, maxWidth: 1024 });
  assert.deepEqual(resolveScreenshot({ screenshotFormat: 'png', screenshotQuality: '90', screenshotMaxWidth: '800' },
    { TABWRIGHT_SCREENSHOT_FORMAT: 'webp', TABWRIGHT_SCREENSHOT_QUALITY: '55', TABWRIGHT_SCREENSHOT_MAX_WIDTH: '1024' }),
  { format: 'png', quality: 90, maxWidth: 800 });
  assert.equal(resolveScreenshot({ screenshotFormat: 'JPG' }, {}).format, 'jpeg', 'jpg is jpeg');
  assert.deepEqual(resolveScreenshot({}, { TABWRIGHT_SCREENSHOT_FORMAT: '', TABWRIGHT_SCREENSHOT_MAX_WIDTH: '' }), SCREENSHOT_DEFAULTS, 'an empty variable is unset');
  const bad: Array<[Parameters<typeof resolveScreenshot>[0], Record<string, string>, RegExp]> = [
    [{ screenshotFormat: 'gif' }, {}, /--screenshot-format or TABWRIGHT_SCREENSHOT_FORMAT/],
    [{}, { TABWRIGHT_SCREENSHOT_FORMAT: 'bmp' }, /--screenshot-format or TABWRIGHT_SCREENSHOT_FORMAT/],
    [{ screenshotQuality: '0' }, {}, /--screenshot-quality .*TABWRIGHT_SCREENSHOT_QUALITY/],
    [{ screenshotQuality: '101' }, {}, /--screenshot-quality/],
    [{}, { TABWRIGHT_SCREENSHOT_QUALITY: '7.5' }, /--screenshot-quality/],
    [{ screenshotMaxWidth: '99' }, {}, /--screenshot-max-width .*TABWRIGHT_SCREENSHOT_MAX_WIDTH/],
    [{}, { TABWRIGHT_SCREENSHOT_MAX_WIDTH: 'wide' }, /--screenshot-max-width/],
  ];
  for (const [flags, env, hint] of bad) {
    assert.throws(() => resolveScreenshot(flags, env), (error: unknown) => error instanceof ToolError && error.type === 'invalid_arguments' && hint.test(error.hint), JSON.stringify({ flags, env }));
  }
});

test('a bad screenshot flag stops the server before it starts: exit 2, the message and the hint on stderr', () => {
  const run = spawnSync(process.execPath, [CLI, 'mcp', '--screenshot-max-width', '50'], { encoding: 'utf8', timeout: 30_000, input: '' });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /Screenshot max width "50" is not a whole number from 100 to 10000/);
  assert.match(run.stderr, /--screenshot-max-width 1280/);
});
