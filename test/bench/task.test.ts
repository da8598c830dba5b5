// Unit tests of the scripted task's pure parts (bench/task.ts, bench/pages.ts shop): finding refs, per-lens verdicts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shopProducts, SHOP_ORDER } from '../../bench/pages.js';
import { ADD_BUTTON, CONFIRMATION, FORM, findAll, mentionsRef, SEARCH_BOX, SUBMIT, taskCosts, withoutRemoved, type Read } from '../../bench/task.js';
import { countTokens } from '../../bench/tokens.js';

const result = (name: string, text: string, structuredContent?: Record<string, unknown>): Read => ({
  kind: 'result',
  name,
  raw: { content: [{ type: 'text', text }], ...(structuredContent ? { structuredContent } : {}) },
  text,
});

const SNAPSHOT = `- main:
  - searchbox "Search products" [ref=e4]
  - button "Add Quartz Teapot to order" [ref=e21]`;
const CONFIRMED = 'Order TW-4053 confirmed: 2 × Quartz Teapot, Express delivery, for Ada Lovelace (ada@example.com).';

test('the shop: 120 products in a fixed order, the ordered item unique and not among the 12 shown at first', () => {
  const products = shopProducts();
  assert.equal(products.length, 120);
  assert.deepEqual(shopProducts(), products);
  assert.equal(products.filter(p => p.name === SHOP_ORDER.item).length, 1);
  assert.ok(products.findIndex(p => p.name === SHOP_ORDER.item) >= 12);
  assert.ok(products.filter(p => p.name.toLowerCase().includes(SHOP_ORDER.search)).length <= 12, 'every match of the search shows');
});

test('findAll: refs by role and name in each server\'s snapshot format, all or nothing', () => {
  assert.deepEqual(findAll(SNAPSHOT, [SEARCH_BOX, ADD_BUTTON]), ['e4', 'e21']);
  assert.equal(findAll(SNAPSHOT, [SEARCH_BOX, SUBMIT]), undefined);
  const cdt = `uid=3_1 spinbutton "Quantity" value="1"
uid=3_2 textbox "Full name"
uid=3_3 textbox "Email"
uid=3_4 combobox "Delivery" value="Standard"
uid=3_5 checkbox " I accept the terms"
uid=3_6 button "Place order"`;
  assert.deepEqual(findAll(cdt, [...FORM, SUBMIT]), ['3_1', '3_2', '3_3', '3_4', '3_5', '3_6']);
});

test('findAll in an action result with a snapshot diff: added and changed lines count, removed ones do not', () => {
  const diff = `Typed 6 characters into searchbox "Search products" [ref=e4].
Since last snapshot: 12 lines added, 12 removed, 1 changed; 4 refs still valid.
Removed in list "Products":
  - listitem:
    - button "Add Quartz Teapot to order" [ref=e9]
Changed in search:
  - searchbox "Search products" [ref=e4]: teapot  (was: - searchbox "Search products" [ref=e4])
Added in list "Products":
  - listitem:
    - heading "Quartz Teapot" [level=3]
    - button "Add Quartz Teapot to order" [ref=e21]`;
  assert.deepEqual(findAll(diff, [ADD_BUTTON, SEARCH_BOX]), ['e21', 'e4']);
  assert.equal(findAll(diff.split('\nAdded')[0]!, [ADD_BUTTON]), undefined);
  assert.ok(!withoutRemoved(diff).includes('e9'));
});

test('mentionsRef matches whole refs only', () => {
  assert.ok(mentionsRef('- button "x" [ref=e4]', 'e4'));
  assert.ok(!mentionsRef('- button "x" [ref=e41]', 'e4'));
  assert.ok(mentionsRef('uid=1_5 textbox', '1_5'));
  assert.ok(!mentionsRef('uid=11_5 textbox', '1_5'));
  assert.ok(mentionsRef('{"snapshot":"- searchbox [ref=e4]"}', 'e4'));
});

test('the confirmation pattern matches what the page writes for the order', () => {
  assert.match(CONFIRMED, CONFIRMATION);
  assert.doesNotMatch(CONFIRMED.replace('2 ×', '1 ×'), CONFIRMATION);
});

test('taskCosts: tokens of every read per lens; done when refs and confirmation were visible under that lens', () => {
  const reads: Read[] = [
    result('navigate', 'Tab 1 at /gen/shop'),
    result('get_page_context', SNAPSHOT),
    result('click', 'Clicked e21.'),
    { kind: 'file', text: CONFIRMED },
  ];
  const uses = [{ ref: 'e21', at: 2 }];
  const costs = taskCosts(reads, uses, 2);
  const want = countTokens('Tab 1 at /gen/shop') + countTokens(SNAPSHOT) + countTokens('Clicked e21.') + countTokens(CONFIRMED);
  assert.deepEqual(costs['content-only'], { tokens: want, verified: true });
  assert.deepEqual(costs['claude-code'], { tokens: want, verified: true });
  // The ref was only shown after the call that used it: not done.
  assert.equal(taskCosts(reads, [{ ref: 'e21', at: 1 }], 2)['vscode'].failure, 'ref e21 used by call 2 was not visible before it');
  // Stopped before the submit, or the confirmation came before it: not done.
  assert.equal(taskCosts(reads, uses, undefined)['codex'].verified, false);
  assert.equal(taskCosts(reads.slice(0, 3), uses, 2)['codex'].failure, 'the confirmation was not visible after the submit');
});

test('taskCosts: a structuredContent that hides the refs fails the lenses that read it (claude-code, codex, vscode)', () => {
  const reads: Read[] = [
    result('get_page_context', SNAPSHOT, { tabId: 1, refCount: 2 }),
    result('click', CONFIRMED),
  ];
  const costs = taskCosts(reads, [{ ref: 'e21', at: 1 }], 1);
  assert.equal(costs['content-only'].verified, true);
  assert.equal(costs['claude-code'].verified, false);
  assert.equal(costs['codex'].verified, false);
  assert.equal(costs['vscode'].verified, false);
  assert.equal(costs['claude-code'].tokens, countTokens('{"tabId":1,"refCount":2}') + countTokens(CONFIRMED));
});
