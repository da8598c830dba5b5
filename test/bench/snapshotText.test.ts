// Unit tests of the snapshot readers (bench/snapshotText.ts, bench/census.ts): refs, roles, coverage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findRef, interactiveCoverage, interactiveRefCount, isPaged, parseRefs } from '../../bench/snapshotText.js';
import { parseCensus } from '../../bench/census.js';

const ARIA = `- generic [active] [ref=e1]:
  - heading "Sign in" [level=1] [ref=e2]
  - generic [ref=e3]:
    - text: Username
    - textbox "Username" [ref=e5]
    - checkbox "Remember me" [ref=e6]
    - button "Sign in" [ref=e8]
  - link "Forgot \\"this\\"?" [ref=e9] [cursor=pointer]:
    - /url: /x
  - menuitem "Home" [ref=e10]
  - 'link "Stocks: AerCap''s gainers" [ref=e11] [cursor=pointer]':
  - link:
    - /url: /chart`;

const UID = `uid=1_0 RootWebArea "Login" url="http://127.0.0.1/"
  uid=1_1 heading "Sign in" level="1"
  uid=1_3 "Username "
  uid=1_4 textbox "Username"
  uid=1_7 button "Sign in"
  uid=1_8 link "Forgot?" url="http://127.0.0.1/x"`;

test('aria snapshots (tabwright, Playwright MCP): role, name and ref per line', () => {
  const nodes = parseRefs(ARIA);
  assert.equal(nodes.length, 9);
  assert.deepEqual(nodes[3], { role: 'textbox', name: 'Username', ref: 'e5' });
  assert.deepEqual(nodes[8], { role: 'link', name: "Stocks: AerCap's gainers", ref: 'e11' });
  assert.equal(nodes.find(n => n.ref === 'e9')?.name, 'Forgot "this"?');
  assert.equal(findRef(nodes, 'button', 'sign in'), 'e8');
  assert.equal(findRef(nodes, 'textbox', 'Password'), undefined);
});

test('uid snapshots (Chrome DevTools MCP), including text nodes without a role', () => {
  const nodes = parseRefs(UID);
  assert.equal(nodes.length, 6);
  assert.deepEqual(nodes[2], { role: '', name: 'Username ', ref: '1_3' });
  assert.equal(findRef(nodes, 'textbox', 'Username'), '1_4');
  assert.equal(findRef(nodes, 'link', 'Forgot'), '1_8');
});

test('coverage matches refs to the census by kind, other interactive roles fill gaps, capped at 1', () => {
  const nodes = parseRefs(ARIA);
  assert.equal(interactiveRefCount(nodes), 6);
  assert.equal(interactiveCoverage(nodes, { links: 2, buttons: 1, controls: 2 }), 1);
  assert.equal(interactiveCoverage(nodes, { links: 3, buttons: 1, controls: 2 }), 1); // the menuitem fills the missing link
  assert.equal(interactiveCoverage(nodes, { links: 4, buttons: 2, controls: 3 }), 6 / 9);
  assert.equal(interactiveCoverage(nodes, { links: 0, buttons: 0, controls: 0 }), 1);
  assert.equal(interactiveCoverage([], { links: 4, buttons: 0, controls: 0 }), 0);
});

test('the census answer is found in any result text, escaped or not', () => {
  assert.deepEqual(parseCensus('### Result\n"TWBENCH-CENSUS links=12 buttons=3 controls=0"'), { links: 12, buttons: 3, controls: 0 });
  assert.equal(parseCensus('nothing here'), undefined);
});

test('tabwright compact format: states, values, paging lines', () => {
  const text = `- navigation "Main":
  - link "Home" [ref=e1]
- textbox "Email" [ref=e2] [required]: ann@example.com
- checkbox "Remember me" [ref=e3] [checked]
Plain text line
- table:
  - rowgroup [ref=e4]:
    - row: Row 0 | Item 0
      - button "Buy 0" [ref=e5]
    … items 1–50 of 5000 shown; 4950 more: get_page_context {ref: "e4", offset: 50}`;
  const nodes = parseRefs(text);
  assert.deepEqual(nodes.map(n => `${n.role}:${n.ref}`), ['link:e1', 'textbox:e2', 'checkbox:e3', 'rowgroup:e4', 'button:e5']);
  assert.equal(isPaged(text), true);
  assert.equal(isPaged('- link "Home" [ref=e1]'), false);
});

