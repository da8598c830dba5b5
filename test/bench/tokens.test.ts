// Unit tests of the bench's token counter (bench/tokens.ts): o200k_base via gpt-tokenizer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens } from '../../bench/tokens.js';

test('counts o200k_base tokens', () => {
  assert.equal(countTokens(''), 0);
  assert.equal(countTokens('hello world'), 2);
  // Longer text has more tokens than words would suggest for refs and URLs, fewer for plain words.
  const snapshot = '- link "Forgot your password?" [ref=e9] [cursor=pointer]:\n  - /url: /gen/help';
  const n = countTokens(snapshot);
  assert.ok(n > 10 && n < snapshot.length, `got ${n}`);
});

test('is additive over lines for plain ASCII text only approximately, but deterministic', () => {
  const text = '- button "Open order 5001" [ref=e12]\n'.repeat(100);
  assert.equal(countTokens(text), countTokens(text));
  assert.ok(countTokens(text) >= 100 * 8);
});

test('special-token strings in page text count as text instead of throwing', () => {
  assert.ok(countTokens('before <|endoftext|> after') > 3);
});
