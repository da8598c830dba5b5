// resize_viewport end to end: the page lays out at the new size (innerWidth, a media query, a screenshot's pixels),
// the text says the size before and after, refs of the document stay valid, and sizes out of bounds are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, evaluate, refOf, snapshot } from '../fixtures/mcp.js';
import { imageSize } from '../fixtures/images.js';

const tw = useSession({ pages: {
  '/responsive': `<!doctype html><title>Responsive</title>
<style>#narrow { display: none } @media (max-width: 500px) { #narrow { display: block } #wide { display: none } }</style>
<p id="wide">Wide layout</p><p id="narrow">Narrow layout</p><button onclick="this.textContent = 'Clicked'">Press</button>`,
} });

test('the page lays out at the new size; the text says before and after; refs stay valid', async () => {
  const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/responsive` });
  const before = await evaluate<{ w: number; h: number }>(tw.client, '({ w: innerWidth, h: innerHeight })');
  const ref = refOf((await snapshot(tw.client)).snapshot, 'button', 'Press');
  const raw = await callRaw(tw.client, 'resize_viewport', { width: 390, height: 844 });
  assert.equal(raw.isError, undefined, JSON.stringify(raw.content));
  const text = raw.content.map(c => c.text).join('\n');
  assert.equal(text, `The viewport of tab ${tabId} is now 390×844 CSS pixels (was ${before.w}×${before.h}).`);
  assert.deepEqual((raw.structuredContent as { viewport: unknown }).viewport, { width: 390, height: 844 });
  assert.deepEqual(await evaluate(tw.client, '({ w: innerWidth, h: innerHeight, narrow: getComputedStyle(document.getElementById("narrow")).display })'), { w: 390, h: 844, narrow: 'block' });
  // The snapshot follows the layout, and the ref taken before still acts.
  assert.match((await snapshot(tw.client)).snapshot, /Narrow layout/);
  await call(tw.client, 'click', { ref });
  assert.equal(await evaluate(tw.client, 'document.querySelector("button").textContent'), 'Clicked');
  // A screenshot of the viewport has the new size.
  const shot = await callRaw(tw.client, 'take_screenshot', { format: 'png' });
  const image = shot.content.find(c => c.type === 'image')!;
  assert.deepEqual(imageSize(Buffer.from(image.data!, 'base64'), 'image/png'), { width: 390, height: 844 });
  // And back to a wide one.
  await call(tw.client, 'resize_viewport', { width: 1280, height: 720 });
  assert.deepEqual(await evaluate(tw.client, '({ w: innerWidth, narrow: getComputedStyle(document.getElementById("narrow")).display })'), { w: 1280, narrow: 'none' });
});

test('sizes out of bounds and missing sides are invalid_arguments; nothing changes', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/responsive` });
  const width = await evaluate<number>(tw.client, 'innerWidth');
  for (const args of [{ width: 100, height: 600 }, { width: 800, height: 9000 }, { width: 800 }, { width: 800.5, height: 600 }]) {
    const error = await callError(tw.client, 'resize_viewport', args);
    assert.equal(error.type, 'invalid_arguments', JSON.stringify(args));
  }
  assert.equal(await evaluate<number>(tw.client, 'innerWidth'), width);
});
