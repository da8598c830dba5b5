// save_pdf end to end: the default file under .tabwright/pdf/, a path in the workspace, the page count the text
// gives (a forced page break makes two), paper size and orientation, and each failure kind (a path outside the workspace,
// a name that is not .pdf) with nothing written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { useSession } from '../fixtures/harness.js';
import { call, callError, callRaw } from '../fixtures/mcp.js';

const tw = useSession({ pages: {
  '/invoice': '<!doctype html><title>Invoice</title><style>@media print { .noprint { display: none } }</style><h1>Invoice 42</h1><p class="noprint">Screen only</p>',
  '/two': '<!doctype html><title>Two</title><p>First page</p><p style="break-before: page">Second page</p>',
} });

interface Saved { tabId: number; path: string; bytes: number; pages: number }

test('the default file under .tabwright/pdf/: a PDF of the page, its size and page count in the text', async () => {
  const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/invoice` });
  const raw = await callRaw(tw.client, 'save_pdf', {});
  assert.equal(raw.isError, undefined, JSON.stringify(raw.content));
  const saved = raw.structuredContent as unknown as Saved;
  assert.equal(saved.pages, 1);
  assert.ok(saved.path.startsWith(join(tw.workspace, '.tabwright', 'pdf', `tab${tabId}-`)) && saved.path.endsWith('.pdf'), saved.path);
  const bytes = readFileSync(saved.path);
  assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
  assert.equal(bytes.length, saved.bytes);
  assert.equal(raw.content.map(c => c.text).join('\n'), `Saved tab ${tabId} as PDF: ${saved.path} (1 page, ${(saved.bytes / 1024).toFixed(1)} KB).`);
  // Nothing but the file: no temporary file left beside it.
  assert.deepEqual(readdirSync(join(tw.workspace, '.tabwright', 'pdf')).filter(n => !n.endsWith('.pdf')), []);
});

test('a path in the workspace; a forced page break makes two pages; landscape is wider than tall', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/two` });
  const saved = await call<Saved>(tw.client, 'save_pdf', { path: 'reports/two.pdf', landscape: true, format: 'Letter' });
  assert.equal(saved.path, join(tw.workspace, 'reports', 'two.pdf'));
  assert.equal(saved.pages, 2);
  const text = readFileSync(saved.path).toString('latin1');
  // Letter landscape: 792 × 612 points (PDF 1.7 §14.11.2, MediaBox).
  assert.match(text, /\/MediaBox\s*\[\s*0 0 792 612\s*\]/);
});

test('a path outside the workspace is path_not_allowed, a name not ending in .pdf is invalid_arguments; nothing is written', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/invoice` });
  const outside = await callError(tw.client, 'save_pdf', { path: '../escape.pdf' });
  assert.equal(outside.type, 'path_not_allowed');
  assert.match(outside.message, /^\.\.\/escape\.pdf is outside the workspace/);
  assert.equal(existsSync(join(tw.workspace, '..', 'escape.pdf')), false);
  const notPdf = await callError(tw.client, 'save_pdf', { path: 'notes.txt' });
  assert.equal(notPdf.type, 'invalid_arguments');
  assert.equal(existsSync(join(tw.workspace, 'notes.txt')), false);
  assert.ok(statSync(tw.workspace).isDirectory());
});
