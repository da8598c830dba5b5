// The result bound (src/tools/resultSize.ts): the token estimate is an upper bound of o200k_base on real pages
// (English, French, Japanese), close enough to be useful; an oversized result keeps its head, names the file with
// the whole text, and the file holds exactly that text; end to end, an `execute` result over the bound is cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { countTokens } from '../../bench/tokens.js';
import { estimateTokens, fitResult, fitsResult, headOf, MAX_RESULT_CHARS, MAX_RESULT_TOKENS } from '../../src/tools/resultSize.js';
import { ToolResponse } from '../../src/tools/response.js';
import { useSession } from '../fixtures/harness.js';
import { call, callRaw } from '../fixtures/mcp.js';
import { CORPUS, sharedMissing } from '../fixtures/site.js';

/** The visible-ish text of an HTML page: tags, scripts and styles dropped, whitespace collapsed. */
function pageText(html: string): string {
  return html.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]+>/g, ' ').replace(/&[a-z#0-9]+;/gi, ' ').replace(/\s+/g, ' ').trim();
}

test('estimateTokens is an upper bound of o200k_base on every corpus page, at most 2.5x over', { skip: sharedMissing(CORPUS) }, () => {
  for (const file of readdirSync(CORPUS).filter(f => f.endsWith('.html'))) {
    for (const [what, text] of [['markup', readFileSync(join(CORPUS, file), 'utf8').slice(0, 200_000)], ['text', pageText(readFileSync(join(CORPUS, file), 'utf8')).slice(0, 200_000)]] as const) {
      const real = countTokens(text);
      const estimate = estimateTokens(text);
      assert.ok(estimate >= real, `${file} ${what}: estimate ${estimate} < o200k ${real}`);
      assert.ok(estimate <= real * 2.5, `${file} ${what}: estimate ${estimate} > 2.5 x o200k ${real}`);
    }
  }
});

test('estimateTokens counts a surrogate pair once and ASCII at 0.4', () => {
  assert.equal(estimateTokens(''), 0);
  assert.equal(estimateTokens('abcdefghij'), 4);
  assert.equal(estimateTokens('日本語'), 3);
  assert.equal(estimateTokens('😀'), 1);
});

test('headOf cuts at a line end within both bounds', () => {
  const text = Array.from({ length: 1000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n');
  const head = headOf(text, 10_000, 100_000);
  assert.ok(head.length <= 10_000 && text.startsWith(head) && text[head.length] === '\n');
  const cjk = '字'.repeat(60_000);
  assert.ok(estimateTokens(headOf(cjk, 49_000, 24_500)) <= 24_500);
});

test('fitResult leaves a result within the bound alone and moves an oversized one to a file', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'tw-size-'));
  try {
    const small = new ToolResponse().text('short');
    fitResult(small, 'probe', workspace);
    assert.equal(small.textContent, 'short');
    assert.equal(small.structured.resultFile, undefined);

    const whole = `first line\n${'row of data, '.repeat(10_000)}`;
    const big = new ToolResponse().text(whole).set('kept', 1);
    fitResult(big, 'probe', workspace);
    const path = big.structured.resultFile as string;
    assert.match(path, /\.tabwright\/results\/probe-.*\.txt$/);
    assert.equal(readFileSync(path, 'utf8'), whole);
    assert.equal(big.structured.truncated, true);
    assert.equal(big.structured.kept, 1);
    assert.ok(fitsResult(big.textContent), `cut text still over: ${big.textContent.length}`);
    assert.ok(big.textContent.startsWith('first line\n'));
    assert.ok(big.textContent.includes(path) && big.textContent.includes(`of ${whole.length} characters`));
    assert.ok(MAX_RESULT_CHARS === 50_000 && MAX_RESULT_TOKENS === 25_000);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});

const tw = useSession();

test('an execute result over the bound is cut, names its file, and the file holds the whole value', async () => {
  await call(tw.client, 'navigate', { url: 'about:blank' });
  const raw = await callRaw(tw.client, 'execute', { code: '"0123456789".repeat(12000)', maxBytes: 200_000 });
  const text = raw.content.map(b => b.text ?? '').join('\n');
  assert.ok(text.length <= MAX_RESULT_CHARS, `text is ${text.length} characters`);
  const path = /The whole text is in (\S+?):/.exec(text)?.[1];
  assert.ok(path, text.slice(-400));
  assert.ok(readFileSync(path, 'utf8').includes('0123456789'.repeat(12000)));
  // Fields keep the whole value (the CLI's, and --structured-content's, under which the suite runs).
  assert.equal((raw.structuredContent as { value?: string } | undefined)?.value, '0123456789'.repeat(12000));
});

test('a workspace that is not a writable folder is workspace_unwritable with a hint, and leaves no partial file', async () => {
  const { writeArtifact } = await import('../../src/tools/artifacts.js');
  const { writeFileSync: write, readdirSync: list } = await import('node:fs');
  const dir = mkdtempSync(join(tmpdir(), 'tw-unwritable-'));
  try {
    const notAFolder = join(dir, 'file');
    write(notAFolder, 'x');
    assert.throws(() => writeArtifact(notAFolder, 'screenshots', 'a.png', 'data'), (error: unknown) => {
      const e = error as { type?: string; message: string; hint?: string };
      return e.type === 'workspace_unwritable' && e.message.includes(notAFolder) && /--workspace/.test(e.hint ?? '');
    });
    assert.deepEqual(list(dir), ['file']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
