/**
 * Token counts as a model would see them: the o200k_base encoding of the
 * `gpt-tokenizer` package (GPT-4o and later). Special-token strings that
 * occur in page text (e.g. "<|endoftext|>") are counted as plain text
 * instead of throwing.
 */
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

/** Number of o200k_base tokens in `text`. */
export function countTokens(text: string): number {
  return text ? encode(text, NO_SPECIAL).length : 0;
}
