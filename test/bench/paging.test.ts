// Unit tests of following tabwright's paging lines (bench/paging.ts) with canned snapshot texts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { followPaging, pagingCalls } from '../../bench/paging.js';
import { interactiveCoverage, parseRefs } from '../../bench/snapshotText.js';
import { countTokens } from '../../bench/tokens.js';

const HEADER = 'Tab 1 · revision 1 · http://127.0.0.1/x\nTitle: X\n\n';

/** Default snapshot: a nav of 5 links shown 2 at a time, a rowgroup of 2 rows shown 1 at a time, a text line that only mentions a call. */
const DEFAULT = `${HEADER}- navigation [ref=e1]:
  - link "L0" [ref=e2]
  - link "L1" [ref=e3]
  … items 1–2 of 5 shown; 3 more: get_page_context {ref: "e1", offset: 2}
- paragraph: try get_page_context {ref: "e99", offset: 7} yourself
- table:
  - rowgroup [ref=e4]:
    - row: Row 0
      - button "B0" [ref=e5]
    … items 1–1 of 2 shown; 1 more: get_page_context {ref: "e4", offset: 1}`;

/** The pages of those containers as get_page_context {ref, offset} returns them. */
const PAGES: Record<string, string> = {
  'e1@2': `${HEADER}- navigation [ref=e1]:
  - link "L2" [ref=e6]
  - list [ref=e10]:
    - link "N0" [ref=e11]
    … items 1–1 of 2 shown; 1 more: get_page_context {ref: "e10", offset: 1}
  … items 3–4 of 5 shown; 1 more: get_page_context {ref: "e1", offset: 4}`,
  'e4@1': `${HEADER}- rowgroup [ref=e4]:
  - row: Row 1
    - button "B1" [ref=e9]
  … items 2–2 of 2 shown; this is the end (earlier ones: get_page_context {ref: "e4", offset: 0})`,
  'e10@1': `${HEADER}- list [ref=e10]:
  - link "N1" [ref=e12]
  … items 2–2 of 2 shown; this is the end (earlier ones: get_page_context {ref: "e10", offset: 0})
  … see also: get_page_context {ref: "e4", offset: 1}`,
  'e1@4': `${HEADER}- navigation [ref=e1]:
  - link "L4" [ref=e8]
  … snapshot budget reached after item 5 of 5; continue: get_page_context {ref: "e1", offset: 3}`,
};

function canned(): { fetch: (ref: string, offset: number) => Promise<string>; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    fetch: async (ref, offset) => {
      const key = `${ref}@${offset}`;
      asked.push(key);
      const text = PAGES[key];
      if (text === undefined) throw new Error(`unexpected call ${key}`);
      return text;
    },
  };
}

test('pagingCalls reads the call of every … line (more, continue, earlier ones) and ignores text that only mentions one', () => {
  assert.deepEqual(pagingCalls(DEFAULT), [{ ref: 'e1', offset: 2 }, { ref: 'e4', offset: 1 }]);
  assert.deepEqual(pagingCalls(PAGES['e1@4']!), [{ ref: 'e1', offset: 3 }]);
  assert.deepEqual(pagingCalls(PAGES['e4@1']!), [{ ref: 'e4', offset: 0 }]);
  assert.deepEqual(pagingCalls('- link "Home" [ref=e1]'), []);
});

test('followPaging fetches each container page once, breadth-first, and unions the refs (container lines counted once)', async () => {
  const { fetch, asked } = canned();
  const f = await followPaging(DEFAULT, fetch);
  // e4@1 is named again from e10@1 but fetched once; "earlier ones" (e4@0, e10@0) and e1@3 (before e1@4) are not followed.
  assert.deepEqual(asked, ['e1@2', 'e4@1', 'e10@1', 'e1@4']);
  assert.deepEqual(f.steps, asked);
  assert.equal(f.calls, 4);
  assert.equal(f.capped, false);
  assert.deepEqual(f.nodes.map(n => `${n.role}:${n.ref}`), [
    'navigation:e1', 'link:e2', 'link:e3', 'rowgroup:e4', 'button:e5', 'link:e6', 'list:e10', 'link:e11', 'button:e9', 'link:e12', 'link:e8',
  ]);
  assert.equal(f.tokens, countTokens(DEFAULT) + ['e1@2', 'e4@1', 'e10@1', 'e1@4'].reduce((sum, k) => sum + countTokens(PAGES[k]!), 0));
  // The default snapshot has 2 of the 6 links and 1 of the 2 buttons; following the paging lines reaches all.
  const census = { links: 6, buttons: 2, controls: 0 };
  assert.equal(interactiveCoverage(parseRefs(DEFAULT), census), 3 / 8);
  assert.equal(interactiveCoverage(f.nodes, census), 1);
});

test('a snapshot without paging lines makes no call', async () => {
  const text = `${HEADER}- link "Home" [ref=e1]\n- button "Go" [ref=e2]`;
  const f = await followPaging(text, async () => {
    throw new Error('no call expected');
  });
  assert.equal(f.calls, 0);
  assert.equal(f.capped, false);
  assert.equal(f.tokens, countTokens(text));
  assert.deepEqual(f.nodes, [{ role: 'link', name: 'Home', ref: 'e1' }, { role: 'button', name: 'Go', ref: 'e2' }]);
});

/** A container of endless pages: each page shows one new link and the line for the next offset. */
function endless(pagesUntilEnd = Infinity): (ref: string, offset: number) => Promise<string> {
  return async (ref, offset) => {
    const n = offset / 50;
    const more = n < pagesUntilEnd ? `\n  … items ${offset + 1}–${offset + 50} of 99999 shown; more: get_page_context {ref: "${ref}", offset: ${offset + 50}}` : '';
    return `- list [ref=${ref}]:\n  - link "P${n}" [ref=e${1000 + n}]${more}`;
  };
}

const START = '- list [ref=e1]:\n  - link "P0" [ref=e1000]\n  … items 1–50 of 99999 shown; more: get_page_context {ref: "e1", offset: 50}';

test('followPaging stops at 400 calls by default and says it was capped', async () => {
  const f = await followPaging(START, endless());
  assert.equal(f.calls, 400);
  assert.equal(f.capped, true);
  assert.equal(f.steps[399], 'e1@20000');
  assert.equal(f.nodes.length, 402); // the list, P0 and P1–P400
});

test('reaching the cap exactly with nothing left is not capped; one page more is', async () => {
  const exact = await followPaging(START, endless(3), 3);
  assert.deepEqual(exact.steps, ['e1@50', 'e1@100', 'e1@150']);
  assert.equal(exact.capped, false);
  const over = await followPaging(START, endless(4), 3);
  assert.equal(over.calls, 3);
  assert.equal(over.capped, true);
});
