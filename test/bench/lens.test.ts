// Unit tests of the bench's lens accounting (bench/lens.ts): tokens and images of a known CallToolResult per lens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BENCH_LENSES, clientLens, lensCosts, viewOf } from '../../bench/lens.js';
import { countTokens } from '../../bench/tokens.js';

const IMAGE = Buffer.from([1, 2, 3]).toString('base64');

test('a result with structuredContent: claude-code and codex read only its JSON and lose the image; vscode keeps the image', () => {
  const result = {
    content: [{ type: 'text', text: 'Clicked e4.' }, { type: 'image', data: IMAGE, mimeType: 'image/png' }],
    structuredContent: { tabId: 1, revision: 5 },
  };
  // '{"tabId":1,"revision":5}' is 10 o200k tokens, 'Clicked e4.' 4.
  assert.deepEqual(lensCosts(result), {
    'claude-code': { tokens: 10, fileTokens: 0, images: 0, imageBytes: 0 },
    codex: { tokens: 10, fileTokens: 0, images: 0, imageBytes: 0 },
    vscode: { tokens: 10, fileTokens: 0, images: 1, imageBytes: 3 },
    'content-only': { tokens: 4, fileTokens: 0, images: 1, imageBytes: 3 },
  });
  assert.equal(viewOf('codex', result).text, '{"tabId":1,"revision":5}');
});

test('a content-only result (the default of all three servers): every lens reads the same, block by block', () => {
  const result = {
    content: [{ type: 'text', text: 'Clicked e4.' }, { type: 'text', text: 'Screenshot of tab 1 (viewport), 29737 bytes.' }, { type: 'image', data: IMAGE, mimeType: 'image/png' }],
  };
  const costs = lensCosts(result);
  for (const lens of BENCH_LENSES) assert.deepEqual(costs[lens], { tokens: 4 + 13, fileTokens: 0, images: 1, imageBytes: 3 }, lens);
});

test('a snapshot file the result points to costs the same under every lens, on top of the result', () => {
  const file = '- button "Sign in" [ref=e4]\n';
  const costs = lensCosts({ content: [{ type: 'text', text: 'Clicked e4.' }], structuredContent: {} }, file);
  const fileTokens = countTokens(file);
  assert.ok(fileTokens > 5);
  // {} counts as present (Codex and VS Code check presence): the JSON "{}" replaces the text.
  assert.equal(costs['claude-code'].tokens, countTokens('{}') + fileTokens);
  assert.equal(costs['content-only'].tokens, 4 + fileTokens);
  for (const lens of BENCH_LENSES) assert.equal(costs[lens].fileTokens, fileTokens);
});

test('content-only is the Cursor rule (Claude Desktop and Gemini CLI read the same on a success)', () => {
  assert.equal(clientLens('content-only'), 'cursor');
  assert.equal(clientLens('vscode'), 'vscode');
  const empty = lensCosts({ content: [] });
  assert.deepEqual(empty['content-only'], { tokens: 0, fileTokens: 0, images: 0, imageBytes: 0 });
});
