/**
 * Issue #6 "Match semantics": a table of URL × pattern cases for @match
 * (Chrome match patterns), @include/@exclude (Tampermonkey globs and
 * /regex/) and @exclude-match, run through scriptMatchesUrl, plus every row
 * of ../shared/cases/019-userscript-match-patterns read at test time (skipped
 * outside CI when ../shared is absent). The inline rows stand alone and
 * restate case 019's rows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { includePatternMatches, isValidIncludePattern, isValidMatchPattern, matchPatternMatches, scriptMatchesUrl, usesPublicSuffix } from '../../src/userscripts/match.js';
import { validateScript } from '../../src/userscripts/validate.js';
import { SHARED, sharedMissing } from '../fixtures/site.js';

interface Row { match?: string[]; include?: string[]; exclude?: string[]; excludeMatch?: string[]; url: string; runs: boolean; note?: string }

const ROWS: Row[] = [
  // case 019 rows 1–27, restated
  { match: ['*://*.example.com/*'], url: 'https://example.com/', runs: true, note: '*. matches the bare domain' },
  { match: ['*://*.example.com/*'], url: 'https://a.b.example.com/x', runs: true },
  { match: ['*://*.example.com/*'], url: 'https://notexample.com/', runs: false },
  { match: ['*://*.example.com/*'], url: 'https://example.com.attacker.test/', runs: false },
  { match: ['*://*/*'], url: 'file:///tmp/report.html', runs: false },
  { match: ['*://*/*'], url: 'ws://example.com/socket', runs: false },
  { match: ['http://localhost/*'], url: 'http://localhost:8080/app', runs: true },
  { match: ['http://localhost:4200/*'], url: 'http://localhost:8080/', runs: false },
  { match: ['http://localhost:4200/*'], url: 'http://localhost:4200/dash', runs: true },
  { match: ['http://*:*/*'], url: 'http://127.0.0.1:3000/', runs: true },
  { match: ['https://example.com/*'], url: 'https://example.com:443/', runs: true },
  { match: ['https://example.com/*'], url: 'https://EXAMPLE.com/Path', runs: true },
  { match: ['https://example.com/foo*'], url: 'https://example.com/Foo', runs: false },
  { match: ['*://example.com/*'], url: 'https://example.com', runs: true },
  { match: ['https://example.com/page'], url: 'https://example.com/page#top', runs: true },
  { match: ['*://*.xn--bcher-kva.example/*'], url: 'https://shop.bücher.example/', runs: true },
  { match: ['*://*.bücher.example/*'], url: 'https://bücher.example/', runs: true },
  { match: ['http*://example.com/*'], url: 'https://example.com/', runs: true },
  { match: ['https://example.*/*'], url: 'https://example.de/', runs: false },
  { include: ['https://example.tld/*'], url: 'https://example.co.uk/', runs: true },
  { include: ['https://example.tld/*'], url: 'https://example.evil.co.uk/', runs: false },
  { include: ['/^https?:\\/\\/(www\\.)?example\\.(com|org)\\/shop\\//'], url: 'https://www.example.org/shop/item', runs: true },
  { include: ['/^https?:\\/\\/(www\\.)?example\\.(com|org)\\/shop\\//'], url: 'https://example.net/shop/', runs: false },
  { include: ['http://localhost:*/*'], url: 'http://localhost:5173/', runs: true },
  { include: ['*example.com*'], url: 'https://attacker.test/?next=example.com', runs: true },
  { match: ['*://example.com/*'], exclude: ['*://example.com/admin*'], url: 'https://example.com/admin/users', runs: false },
  { match: ['*://example.com/*'], exclude: ['*://example.com/admin*'], url: 'https://example.com/shop', runs: true },
  // our own: the loopback test site (no port in the pattern = any port)
  { match: ['http://127.0.0.1/*'], url: 'http://127.0.0.1:43117/table.html', runs: true },
  { match: ['http://127.0.0.1/*'], url: 'https://127.0.0.1:43117/', runs: false, note: 'scheme is exact' },
  { match: ['http://127.0.0.1:43117/*'], url: 'http://127.0.0.1:43118/', runs: false },
  { match: ['http://127.0.0.1/*'], url: 'http://localhost:43117/', runs: false, note: 'hosts are not resolved' },
  { match: ['http://127.0.0.1/form*'], url: 'http://127.0.0.1:9/form.html?x=1', runs: true },
  { match: ['http://127.0.0.1/*.html'], url: 'http://127.0.0.1:9/a/b/c.html', runs: true, note: '* crosses /' },
  { match: ['http://127.0.0.1/*.html'], url: 'http://127.0.0.1:9/a.html?q=1', runs: false, note: 'path includes the query' },
  { match: ['http://127.0.0.1/*?debug=1'], url: 'http://127.0.0.1:9/x?debug=1', runs: true },
  { match: ['http://127.0.0.1/'], url: 'http://127.0.0.1:9/', runs: true },
  { match: ['http://127.0.0.1/'], url: 'http://127.0.0.1:9/index.html', runs: false },
  // schemes
  { match: ['<all_urls>'], url: 'https://anything.test/x', runs: true },
  { match: ['<all_urls>'], url: 'file:///etc/hosts', runs: true },
  { match: ['<all_urls>'], url: 'about:blank', runs: false },
  { match: ['<all_urls>'], url: 'chrome://settings/', runs: false },
  { match: ['*://*/*'], url: 'http://example.com/', runs: true },
  { match: ['*://*/*'], url: 'ftp://example.com/', runs: false },
  { match: ['file:///tmp/*'], url: 'file:///tmp/report.html', runs: true },
  { match: ['file:///tmp/*'], url: 'file:///home/report.html', runs: false },
  { match: ['wss://chat.example.com/*'], url: 'wss://chat.example.com/socket', runs: true },
  { match: ['https://*/*'], url: 'http://example.com/', runs: false },
  // hosts
  { match: ['https://*.example.com/*'], url: 'https://deep.a.b.example.com/', runs: true },
  { match: ['https://*.example.com/*'], url: 'https://example.org/', runs: false },
  { match: ['https://www.example.com/*'], url: 'https://example.com/', runs: false, note: 'no implicit www' },
  { match: ['https://example.com/*'], url: 'https://www.example.com/', runs: false },
  { match: ['https://example.com/*'], url: 'https://example.com./', runs: false, note: 'trailing dot is another host' },
  { match: ['http://[::1]/*'], url: 'http://[::1]:8080/x', runs: true },
  { match: ['https://example.com:8443/*'], url: 'https://example.com:8443/a', runs: true },
  { match: ['https://example.com:443/*'], url: 'https://example.com/a', runs: true, note: 'explicit default port' },
  { match: ['https://example.com:8443/*'], url: 'https://example.com/a', runs: false },
  // invalid patterns never match
  { match: ['example.com'], url: 'https://example.com/', runs: false },
  { match: ['https://example.com'], url: 'https://example.com/', runs: false, note: 'no path' },
  { match: ['https://ex*mple.com/*'], url: 'https://example.com/', runs: false },
  { match: ['chrome://*/*'], url: 'chrome://settings/', runs: false },
  // @include globs
  { include: ['*'], url: 'https://any.test/page', runs: true },
  { include: ['http://127.0.0.1*'], url: 'http://127.0.0.1:4000/list', runs: true },
  { include: ['https://example.com/*'], url: 'https://example.com/', runs: true },
  { include: ['https://example.com/*'], url: 'https://www.example.com/', runs: false, note: 'globs are literal apart from *' },
  { include: ['https://*.example.com/*'], url: 'https://example.com/', runs: false, note: 'glob *. needs a subdomain (unlike @match)' },
  { include: ['https://*.example.com/*'], url: 'https://a.example.com/x', runs: true },
  { include: ['https://example.com/a?b'], url: 'https://example.com/ab', runs: false, note: '? is literal' },
  { include: ['https://example.com/a?b'], url: 'https://example.com/a?b', runs: true },
  { include: ['https://example.tld/*'], url: 'https://example.de/x', runs: true },
  { include: ['https://example.tld/*'], url: 'https://example.com.au/', runs: true },
  { include: ['https://example.tld/*'], url: 'https://example.com/', runs: true },
  { include: ['https://example.tld/*'], url: 'https://example.notatld.xyz/', runs: false },
  // the whole Public Suffix List (tldts), beyond any fixed list of second-level suffixes
  { include: ['https://example.tld/*'], url: 'https://example.kyoto.jp/', runs: true, note: 'a prefecture suffix' },
  { include: ['https://example.tld/*'], url: 'https://example.pvt.k12.ma.us/', runs: true, note: 'a four-label suffix' },
  { include: ['https://example.tld/*'], url: 'https://example.xn--p1ai/', runs: true, note: 'an IDN TLD (.рф)' },
  { include: ['https://example.tld/*'], url: 'https://example.github.io/', runs: true, note: 'a private-section suffix, as Violentmonkey' },
  { include: ['https://example.tld/*'], url: 'https://example.evil.github.io/', runs: false },
  { include: ['https://example.tld/*'], url: 'https://example.test/', runs: false, note: 'not in the list' },
  { include: ['https://example.tld/*'], url: 'https://example.co.zz/', runs: false, note: 'zz is no TLD' },
  { include: ['https://example.tld/*'], url: 'https://example.ltd.uk/', runs: true },
  { include: ['https://example.tld/*'], url: 'https://example.nic.uk/', runs: false, note: 'nic.uk is a domain, not a suffix' },
  { include: ['*://*.example.tld/*'], url: 'https://shop.example.com.br/', runs: true },
  { include: ['https://example.tld:8080/*'], url: 'https://example.co.uk:8080/x', runs: true },
  { include: ['https://example.com/page'], url: 'https://example.com/page#frag', runs: true, note: 'fragment removed' },
  // @include regex
  { include: ['/127\\.0\\.0\\.1:\\d+\\/regex/'], url: 'http://127.0.0.1:8000/regex/page.html', runs: true },
  { include: ['/^https:\\/\\/EXAMPLE\\.com\\//i'], url: 'https://example.com/x', runs: true, note: 'flags honoured' },
  { include: ['/^https:\\/\\/EXAMPLE\\.com\\//'], url: 'https://example.com/x', runs: true, note: 'i is always added, as every manager does' },
  { include: ['/\\/SHOP\\//'], url: 'https://example.com/shop/x', runs: true },
  { include: ['/^https:\\/\\/example\\.com\\/a$/m'], url: 'https://EXAMPLE.com/A', runs: true, note: 'other flags kept, i added' },
  { include: ['/\\/shop\\//'], url: 'https://example.com/cart', runs: false },
  { match: ['https://example.com/*'], exclude: ['/\\/ADMIN\\//'], url: 'https://example.com/admin/users', runs: false, note: '@exclude regex is case-insensitive too' },
  { match: ['https://example.com/*'], exclude: ['/\\/ADMIN\\//'], url: 'https://example.com/public/', runs: true },
  // a @match with # never matches (the tested URL has no fragment)
  { match: ['https://example.com/page#top'], url: 'https://example.com/page#top', runs: false },
  { match: ['https://example.com/page#top'], url: 'https://example.com/page', runs: false },
  { match: ['https://example.com/*#*'], url: 'https://example.com/a#b', runs: false },
  { include: ['/[unclosed/'], url: 'https://example.com/[unclosed', runs: false, note: 'invalid regex matches nothing' },
  // exclusion
  { match: ['http://127.0.0.1/*'], exclude: ['*/private/*'], url: 'http://127.0.0.1:9/private/a.html', runs: false },
  { match: ['http://127.0.0.1/*'], exclude: ['/\\?nouserscripts/'], url: 'http://127.0.0.1:9/a?nouserscripts', runs: false },
  { match: ['http://127.0.0.1/*'], excludeMatch: ['http://127.0.0.1/admin/*'], url: 'http://127.0.0.1:9/admin/x', runs: false },
  { match: ['http://127.0.0.1/*'], excludeMatch: ['http://127.0.0.1/admin/*'], url: 'http://127.0.0.1:9/public/x', runs: true },
  { include: ['*'], exclude: ['*'], url: 'https://example.com/', runs: false, note: 'exclude wins' },
  // nothing declared, or an unparsable URL
  { url: 'https://example.com/', runs: false, note: 'neither @match nor @include' },
  { exclude: ['*://nothing/*'], url: 'https://example.com/', runs: false },
  { match: ['<all_urls>'], url: 'not a url', runs: false },
];

function meta(r: Row) {
  return { match: r.match ?? [], include: r.include ?? [], exclude: r.exclude ?? [], excludeMatch: r.excludeMatch ?? [] };
}

test(`${ROWS.length} inline URL × pattern rows`, () => {
  assert.ok(ROWS.length >= 60);
  const wrong = ROWS.filter(r => scriptMatchesUrl(meta(r), r.url) !== r.runs)
    .map(r => `${JSON.stringify(meta(r))} on ${r.url}: expected ${r.runs}`);
  assert.deepEqual(wrong, []);
});

test('every row of case 019 gives its runs value', { skip: sharedMissing() }, () => {
  const rows = JSON.parse(readFileSync(join(SHARED, 'cases', '019-userscript-match-patterns', 'patterns.json'), 'utf8')).rows as (Row & { id: number })[];
  assert.equal(rows.length, 27);
  const wrong = rows.filter(r => scriptMatchesUrl(meta(r), r.url) !== r.runs).map(r => r.id);
  assert.deepEqual(wrong, []);
});

test('compat forms of case 019 rows 17–19 and 25 warn, naming the pattern and the fix', () => {
  assert.deepEqual(isValidMatchPattern('*://*.bücher.example/*'), {
    valid: true, warningCode: 'match_pattern_compat',
    warning: '"*://*.bücher.example/*": Unicode host normalized to "xn--bcher-kva.example" (pages see punycode hosts); write it that way to silence this.',
  });
  assert.deepEqual(isValidMatchPattern('http*://example.com/*'), {
    valid: true, warningCode: 'match_pattern_compat',
    warning: '"http*://example.com/*": `http*` is not a valid @match scheme, treated as `*` (http and https); write `*://example.com/*`.',
  });
  assert.deepEqual(isValidMatchPattern('https://example.*/*'), {
    valid: true, warningCode: 'tld_wildcard',
    warning: '"https://example.*/*": a TLD wildcard is not allowed in @match and never matches; use `@include https://example.tld/*` instead.',
  });
  assert.deepEqual(isValidIncludePattern('*example.com*'), {
    valid: true, warningCode: 'unanchored_glob',
    warning: '"*example.com*" is not anchored to the host: it also matches URLs that merely mention example.com (e.g. https://attacker.test/?next=example.com); use `@match *://*.example.com/*`.',
  });
  assert.deepEqual(isValidIncludePattern('*://example.com/admin*'), { valid: true });
  assert.deepEqual(isValidIncludePattern('*'), { valid: true });
});

test('invalid patterns carry a reason', () => {
  assert.deepEqual(isValidMatchPattern('https://*/*'), { valid: true });
  assert.deepEqual(isValidMatchPattern('<all_urls>'), { valid: true });
  assert.deepEqual(isValidMatchPattern('example.com'), { valid: false, reason: '"example.com" is not <scheme>://<host><path> (e.g. https://example.com/*) or <all_urls>.' });
  assert.deepEqual(isValidMatchPattern('https://example.com'), { valid: false, reason: '"https://example.com" has no path; add one, e.g. "https://example.com/*".' });
  assert.deepEqual(isValidMatchPattern('chrome://*/*'), { valid: false, reason: '"chrome://*/*": scheme "chrome" is not one of *, http, https, ws, wss, ftp, file, urn.' });
  assert.deepEqual(isValidMatchPattern('https://ex*mple.com/*'), { valid: false, reason: '"https://ex*mple.com/*": * in a host may only be the whole host or a leading "*." (e.g. *.example.com).' });
  assert.deepEqual(isValidMatchPattern('https://example.com:99999/*'), { valid: false, reason: '"https://example.com:99999/*": port 99999 is out of range.' });
  assert.deepEqual(isValidMatchPattern('https:///*'), { valid: false, reason: '"https:///*" has no host; use * for any host.' });
  assert.deepEqual(isValidMatchPattern('file://host/x'), { valid: false, reason: '"file://host/x": file patterns have no host (file:///path).' });
  const bad = isValidIncludePattern('/[unclosed/');
  assert.equal(bad.valid, false);
  assert.match(bad.reason!, /^"\/\[unclosed\/" is not a valid regular expression: /);
});

test('single-pattern helpers agree with scriptMatchesUrl', () => {
  assert.equal(matchPatternMatches('*://*.example.com/*', 'https://example.com/'), true);
  assert.equal(matchPatternMatches('*://*.example.com/*', new URL('https://x.example.com/')), true);
  assert.equal(includePatternMatches('http://localhost:*/*', 'http://localhost:5173/'), true);
  assert.equal(includePatternMatches('http://localhost:*/*', 'not a url'), false);
});

test('/regex/ in @include and @exclude is case-insensitive: the i flag is added once', () => {
  assert.equal(includePatternMatches('/^https:\\/\\/Example\\.COM\\/Shop/', 'https://example.com/shop/1'), true);
  assert.equal(includePatternMatches('/shop/i', 'https://example.com/SHOP'), true, 'an explicit i is not doubled (that would be a SyntaxError)');
  assert.equal(includePatternMatches('/shop/gi', 'https://example.com/Shop'), true);
  assert.deepEqual(isValidIncludePattern('/shop/i'), { valid: true });
  assert.deepEqual(isValidIncludePattern('/shop/'), { valid: true });
});

test('a @match with # is accepted, never matches, and warns', () => {
  assert.deepEqual(isValidMatchPattern('https://example.com/page#top'), {
    valid: true, warningCode: 'match_fragment',
    warning: '"https://example.com/page#top": the part from `#` on is a URL fragment, which match patterns never see, so this pattern never matches; write `https://example.com/page*` (or drop the `#…`).',
  });
  assert.equal(matchPatternMatches('https://example.com/page#top', 'https://example.com/page#top'), false);
  assert.equal(matchPatternMatches('https://example.com/page', 'https://example.com/page#top'), true);
  // an invalid pattern with # keeps its reason
  assert.deepEqual(isValidMatchPattern('example.com/#x'), { valid: false, reason: '"example.com/#x" is not <scheme>://<host><path> (e.g. https://example.com/*) or <all_urls>.' });
  const code = ['// ==UserScript==', '// @name t', '// @match https://example.com/*', '// @match https://example.com/a#b', '// ==/UserScript==', 'void 0;'].join('\n');
  const r = validateScript(code);
  assert.equal(r.ok, true);
  assert.deepEqual(r.diagnostics.map(d => `${d.severity} ${d.code}@${d.line}:${d.column}`), ['warning match_fragment@4:11']);
  assert.equal(r.diagnostics[0]!.message, '@match "https://example.com/a#b": the part from `#` on is a URL fragment, which match patterns never see, so this pattern never matches; write `https://example.com/a*` (or drop the `#…`).');
});

test('a script needs the Public Suffix List (the larger engine bundle) exactly when a glob uses .tld', () => {
  const cases: Array<[string, boolean]> = [
    ['https://example.tld/*', true],
    ['*://*.example.tld:8080/*', true],
    ['https://example.tld', true],
    ['https://example.tldr/*', false],
    ['https://example.com/page.tld.html', false],
    ['/example\\.tld\\//', false],
    ['https://example.com/*', false],
  ];
  assert.deepEqual(cases.map(([p]) => [p, usesPublicSuffix(p)]), cases);
});
