// Unit tests of @resource data (src/userscripts/resourceData.ts): data: URLs decoded to bytes as RFC 2397 and the
// Fetch standard read them, and the MIME type a resource is kept with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeDataUrl, resourceMime } from '../../src/userscripts/resourceData.js';
import { ToolError } from '../../src/errors.js';

const text = (url: string) => {
  const { bytes, contentType } = decodeDataUrl(url);
  return [Buffer.from(bytes).toString('utf8'), contentType];
};

test('data: URLs: percent-encoded bytes or base64 (whitespace, no padding), the type kept, text/plain without one', () => {
  assert.deepEqual(text('data:text/css,p%20%7Bcolor:red%7D'), ['p {color:red}', 'text/css']);
  assert.deepEqual(text('data:text/plain;charset=utf-8,h%C3%A9llo'), ['héllo', 'text/plain;charset=utf-8']);
  assert.deepEqual(text('data:,a,b'), ['a,b', 'text/plain']);
  assert.deepEqual(text('data:;charset=utf-8,x'), ['x', 'text/plain']);
  assert.deepEqual(text('data:image/svg+xml;base64,PHN2Zy8+'), ['<svg/>', 'image/svg+xml']);
  assert.deepEqual(text('data:;base64,aGk'), ['hi', 'text/plain']);
  assert.deepEqual(text('data:text/plain;BASE64,a G\nk ='), ['hi', 'text/plain']);
  // Binary: a byte that is not UTF-8 survives.
  assert.deepEqual([...decodeDataUrl('data:application/octet-stream,%FF%00').bytes], [0xff, 0x00]);
  assert.deepEqual([...decodeDataUrl('data:application/octet-stream;base64,/wA=').bytes], [0xff, 0x00]);
});

test('bad data: URLs are invalid_arguments: no comma, base64 that is not', () => {
  for (const bad of ['data:text/plain', 'data:;base64,@@@@', 'data:;base64,a', 'data:;base64,ab=c']) {
    assert.throws(() => decodeDataUrl(bad), (e: unknown) => e instanceof ToolError && e.type === 'invalid_arguments', bad);
  }
});

test('the MIME type: the Content-Type essence, else the extension, else application/octet-stream', () => {
  assert.equal(resourceMime('Text/CSS; charset=utf-8', 'https://cdn.test/a.css'), 'text/css');
  assert.equal(resourceMime(undefined, 'https://cdn.test/logo.PNG?v=2#x'), 'image/png');
  assert.equal(resourceMime('', 'fonts/a.woff2'), 'font/woff2');
  // Not a type/subtype (it would break the data: URL GM_getResourceURL builds): the extension decides.
  assert.equal(resourceMime('text/css,evil', 'style.css'), 'text/css');
  assert.equal(resourceMime('nonsense', 'https://cdn.test/blob'), 'application/octet-stream');
  assert.equal(resourceMime(undefined, 'https://cdn.test/'), 'application/octet-stream');
});
