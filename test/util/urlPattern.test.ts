// URL patterns of wait_for {url, request}: regex in slashes, globs, plain text; and query redaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactQuery, urlPattern } from '../../src/util/urlPattern.js';
import { ToolError } from '../../src/errors.js';

test('a regular expression between slashes, with flags; g and y do not make test() stateful', () => {
  const p = urlPattern('/orders\\/\\d+$/ig');
  assert.equal(p.label, 'URL matching /orders\\/\\d+$/ig');
  assert.deepEqual(['https://a.test/ORDERS/12', 'https://a.test/ORDERS/12', 'https://a.test/orders/x'].map(u => p.test(u)), [true, true, false]);
});

test('globs: ** crosses slashes, * does not; other characters are literal', () => {
  const p = urlPattern('**/checkout/*');
  assert.deepEqual(['https://shop.test/checkout/pay', 'https://shop.test/checkout/pay/2', 'https://shop.test/checkoutX/pay'].map(u => p.test(u)), [true, false, false]);
  const q = urlPattern('https://shop.test/a?b=*');
  assert.deepEqual([q.test('https://shop.test/a?b=1'), q.test('https://shop.test/aXb=1')], [true, false]);
});

test('plain text matches anywhere', () => {
  const p = urlPattern('done?step=2');
  assert.equal(p.label, 'URL containing "done?step=2"');
  assert.deepEqual([p.test('http://h/wait/done?step=2'), p.test('http://h/wait/done?step=3')], [true, false]);
});

test('an empty pattern or a broken regular expression is invalid_arguments naming the field', () => {
  for (const [pattern, message] of [[' ', /^request is empty\.$/], ['/(x/', /^request is not a valid regular expression: /]] as const) {
    assert.throws(() => urlPattern(pattern, 'request'), (e: unknown) => e instanceof ToolError && e.type === 'invalid_arguments' && message.test(e.message));
  }
});

test('redactQuery keeps parameter names, hides values and drops the fragment', () => {
  assert.equal(redactQuery('https://a.test/api?token=s3cret&x=1#frag'), 'https://a.test/api?token=…&x=…');
  assert.equal(redactQuery('https://ann:s3cret@a.test/p'), 'https://…@a.test/p', 'credentials in the URL are hidden too');
  assert.equal(redactQuery('https://a.test/api#frag'), 'https://a.test/api');
  assert.equal(redactQuery('not a url'), 'not a url');
});
