/**
 * Issue #6 "File sync" slug rule and case 020's file names: NFC, lowercase,
 * runs of non-letters/digits → one hyphen, trimmed, `script` when empty;
 * `-2`, `-3` on collision; `.user.js` / `.agent.js`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kindFromFileName, MAX_SLUG_CHARS, scriptFileNames, scriptSlug, uniqueSlugs } from '../../src/userscripts/slug.js';

test('slugs of real names', () => {
  const cases: [string, string][] = [
    ['价格追踪 🛒 / Price: tracker', '价格追踪-price-tracker'],
    ['Cafe\u0301 helper', 'caf\u00e9-helper'],
    ['Caf\u00e9 helper', 'caf\u00e9-helper'],
    ['  --Dark Mode!!  for GitHub--  ', 'dark-mode-for-github'],
    ['YouTube™ — Auto HD (1080p)', 'youtube-auto-hd-1080p'],
    ['Таблица в CSV', 'таблица-в-csv'],
    ['Übersetzungshelfer', 'übersetzungshelfer'],
    ['注文ツール', '注文ツール'],
    ['हिन्दी सहायक', 'हिन्दी-सहायक'],
    ['ΑΒΓ Test', 'αβγ-test'],
    ['a_b.c/d\\e', 'a-b-c-d-e'],
    ['🛒🛒', 'script'],
    ['', 'script'],
    ['v2.0', 'v2-0'],
    ['٣ أدوات', '٣-أدوات'],
  ];
  for (const [name, slug] of cases) assert.equal(scriptSlug(name), slug, name);
  assert.deepEqual([...Buffer.from(scriptSlug('Cafe\u0301 helper'))].slice(0, 5), [0x63, 0x61, 0x66, 0xc3, 0xa9]);
});

test('long names are capped without a trailing hyphen', () => {
  const slug = scriptSlug('word '.repeat(40));
  assert.ok([...slug].length <= MAX_SLUG_CHARS);
  assert.equal(slug, ('word-'.repeat(12)).replace(/-$/, ''));
});

test('collisions get -2, -3 in order, never stealing a natural slug', () => {
  assert.deepEqual(uniqueSlugs(['My Script', 'my script', 'MY-SCRIPT!', 'other']), ['my-script', 'my-script-2', 'my-script-3', 'other']);
  assert.deepEqual(uniqueSlugs(['a', 'a', 'a 2']), ['a', 'a-3', 'a-2']);
  assert.deepEqual(uniqueSlugs(['🛒', '!!']), ['script', 'script-2']);
});

test('file names by kind', () => {
  assert.deepEqual(scriptFileNames([
    { name: '价格追踪 🛒 / Price: tracker', kind: 'userscript' },
    { name: 'Orders', kind: 'agentscript' },
    { name: 'Orders', kind: 'userscript' },
    { name: 'orders', kind: 'agentscript' },
  ]), ['价格追踪-price-tracker.user.js', 'orders.agent.js', 'orders.user.js', 'orders-2.agent.js']);
  assert.equal(kindFromFileName('x.agent.js'), 'agentscript');
  assert.equal(kindFromFileName('x.user.js'), 'userscript');
  assert.equal(kindFromFileName('x.js'), undefined);
});
