/**
 * What the model reads of a tool result, per client: the bench's side of
 * the client lens (test/fixtures/clientLens.ts, rules in docs/clients.md,
 * "Client by client" and "Sizes"). Pure, unit-tested in
 * test/bench/lens.test.ts.
 *
 * Four lenses are reported. Cursor, Claude Desktop and Gemini CLI read
 * `content` only on a success (Gemini CLI differs on `isError` results
 * only, which the bench never counts), so they share one column,
 * `content-only`, rendered with the Cursor rule.
 */
import { seenBy, type Lens, type LensInput, type ModelView } from '../test/fixtures/clientLens.js';
import { countTokens } from './tokens.js';

/** The lenses of the report: three clients that read `structuredContent` when present, and the content-only clients. */
export const BENCH_LENSES = ['claude-code', 'codex', 'vscode', 'content-only'] as const;
export type BenchLens = (typeof BENCH_LENSES)[number];

/** The clients the `content-only` column stands for (identical views on a success). */
export const CONTENT_ONLY_CLIENTS: readonly Lens[] = ['cursor', 'claude-desktop', 'gemini-cli'];

/** The client lens a report lens is rendered with. */
export function clientLens(lens: BenchLens): Lens {
  return lens === 'content-only' ? 'cursor' : lens;
}

/** What `lens`'s model receives from `result`. */
export function viewOf(lens: BenchLens, result: LensInput): ModelView {
  return seenBy(clientLens(lens), result);
}

/** What one result costs the model under one lens. */
export interface LensCost {
  /** o200k_base tokens of the text the model reads: each text block it receives, plus `fileText`. */
  tokens: number;
  /** Of `tokens`, those of `fileText` (a file the result points to and the agent reads). */
  fileTokens: number;
  /** Images the model receives, and their decoded bytes. */
  images: number;
  imageBytes: number;
}

/**
 * The cost of `result` under every lens. `fileText` is the content of a
 * file the result points to (a snapshot written to a file): the agent reads
 * it with its client's own file tool, so it costs the same under every lens.
 * Text blocks are counted one by one (each reaches the model as its own
 * block), images are not converted to tokens (their cost depends on the
 * model: they are reported as count and bytes).
 */
export function lensCosts(result: LensInput, fileText?: string): Record<BenchLens, LensCost> {
  const fileTokens = fileText ? countTokens(fileText) : 0;
  const out = {} as Record<BenchLens, LensCost>;
  for (const lens of BENCH_LENSES) {
    const view = viewOf(lens, result);
    const tokens = view.texts.reduce((sum, t) => sum + countTokens(t), 0) + fileTokens;
    out[lens] = { tokens, fileTokens, images: view.images.length, imageBytes: view.images.reduce((sum, i) => sum + i.bytes, 0) };
  }
  return out;
}
