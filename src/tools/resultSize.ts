/**
 * The size bound of one result's text: 50,000 characters and about 25,000
 * tokens. Claude Code writes larger results to a file the model may never
 * read and caps MCP output at MAX_MCP_OUTPUT_TOKENS (25,000 by default);
 * Cursor spills long responses to files (docs/clients.md). Tools keep
 * their own output under it (the snapshot budget, `execute`'s result cap,
 * paging); this is the backstop for anything that still grows past it: the
 * whole text goes to a file and the result keeps its head and says where
 * the rest is.
 */
import { stamp, writeArtifact } from './artifacts.js';
import type { ToolResponse } from './response.js';

/** Most characters one result's text may have. */
export const MAX_RESULT_CHARS = 50_000;
/** Most tokens (estimated by estimateTokens) one result's text may have. */
export const MAX_RESULT_TOKENS = 25_000;

/**
 * An upper estimate of the tokens `text` costs a model, without a tokenizer:
 * 0.4 token per ASCII character (o200k_base averages about four characters
 * a token on English prose, but minified markup and JSON run near 2.5) and
 * one token per other code point (CJK text runs about one character a token).
 * test/tools/resultSize.test.ts checks it against o200k_base on real pages.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) ascii++;
    else if (code < 0xdc00 || code > 0xdfff) other++; // a surrogate pair counts once
  }
  return Math.ceil(ascii * 0.4) + other;
}

/** Whether `text` fits one result (MAX_RESULT_CHARS and MAX_RESULT_TOKENS). */
export function fitsResult(text: string): boolean {
  // At most one token a character: a text this short fits without counting (most results; this runs on every call).
  if (text.length <= MAX_RESULT_TOKENS) return true;
  return text.length <= MAX_RESULT_CHARS && estimateTokens(text) <= MAX_RESULT_TOKENS;
}

/** The longest prefix of `text` (cut at a line end where one is near) that fits `chars` and `tokens`. */
export function headOf(text: string, chars: number, tokens: number): string {
  let end = Math.min(text.length, chars);
  // Shrink by the token overshoot until the estimate fits (non-ASCII text costs more per character).
  while (end > 0 && estimateTokens(text.slice(0, end)) > tokens) end = Math.floor(end * 0.9);
  const nl = text.lastIndexOf('\n', end);
  return text.slice(0, nl > end * 0.8 ? nl : end);
}

/**
 * Keeps `res`'s text within the bound: when over, writes the whole text to
 * `<workspace>/.tabwright/results/<tool>-<stamp>.txt` and replaces it with
 * its head and a line naming the file, its size and how to narrow the call.
 * Sets the fields `resultFile` and `truncated`. Images are not touched.
 */
export function fitResult(res: ToolResponse, tool: string, workspace: string): void {
  const text = res.textContent;
  if (fitsResult(text)) return;
  const path = writeArtifact(workspace, 'results', `${tool}-${stamp()}.txt`, text);
  const head = headOf(text, MAX_RESULT_CHARS - 1_000, MAX_RESULT_TOKENS - 500);
  res.replaceText(`${head}\n… Cut at ${head.length} of ${text.length} characters (about ${estimateTokens(text)} tokens, over this result's ${MAX_RESULT_CHARS} characters / ${MAX_RESULT_TOKENS} tokens). The whole text is in ${path}: read it there, or narrow the call (a ref or selector scope, paging, a smaller limit).`);
  res.set('resultFile', path).set('truncated', true);
}
