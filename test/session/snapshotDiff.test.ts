// The snapshot diff of action results (src/session/snapshotDiff.ts) and the
// reading of snapshot text it and the element descriptions rely on
// (src/session/snapshotLines.ts, src/session/elementInfo.ts formatting).
// Pure functions: no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffSnapshots, editScript, renderDiff } from '../../src/session/snapshotDiff.js';
import { describeFromSnapshot, parseLine, parseSnapshot } from '../../src/session/snapshotLines.js';
import { formatElement, formatElements } from '../../src/session/elementInfo.js';

const INVOICES = `- banner:
  - navigation "Main":
    - link "Home" [ref=e1]
- main:
  - heading "Invoices" [level=1]
  - table:
    - row: Number | Total
    - row: Invoice 2024-02 | €80
      - button "Delete" [ref=e3]
    - row: Invoice 2024-03 | €120
      - button "Delete" [ref=e4]
  - list:
    - listitem:
      Buy milk
      - button "Done" [ref=e6]
    - listitem:
      - link "Call Ann" [ref=e7]
      - button "Done" [ref=e8]
  - form "Order":
    - textbox "Name" [ref=e10]: Ann
    - checkbox "Gift wrap" [ref=e11]
  - dialog:
    - button "Close" [ref=e12]
  3 invoices`;

test('parseLine reads nodes, names, refs, states, values, text and paging lines', () => {
  assert.deepEqual(parseLine('    - checkbox "Gift \\"wrap\\"" [ref=e11] [checked] [disabled]: on'), {
    depth: 2, kind: 'node', body: '- checkbox "Gift \\"wrap\\"" [ref=e11] [checked] [disabled]: on',
    role: 'checkbox', name: 'Gift "wrap"', ref: 'e11', states: '[ref=e11] [checked] [disabled]', value: 'on',
  });
  assert.deepEqual(parseLine('  - row: a | b'), { depth: 1, kind: 'node', body: '- row: a | b', role: 'row', value: 'a | b' });
  assert.deepEqual(parseLine('- list:'), { depth: 0, kind: 'node', body: '- list:', role: 'list' });
  assert.equal(parseLine('  Buy milk').kind, 'text');
  assert.equal(parseLine('  "- not a node"').kind, 'text');
  assert.equal(parseLine('  … items 1–50 of 200 shown; 150 more: get_page_context {ref: "e5", offset: 50}').kind, 'more');
  assert.equal(parseLine('    options: Small | Large').kind, 'note');
  assert.equal(parseLine('    - /url: /home').kind, 'note');
});

test('describeFromSnapshot names the element and its nearest container that places it', () => {
  const lines = parseSnapshot(INVOICES);
  assert.deepEqual(describeFromSnapshot(lines, 'e4'), { role: 'button', name: 'Delete', ref: 'e4', container: { role: 'row', name: 'Invoice 2024-03 | €120', ref: undefined } });
  assert.equal(formatElement(describeFromSnapshot(lines, 'e4')!), 'button "Delete" [ref=e4] in row "Invoice 2024-03 | €120"');
  // A list item by its first text, or by its first named child; an unnamed list is skipped.
  assert.equal(formatElement(describeFromSnapshot(lines, 'e6')!), 'button "Done" [ref=e6] in listitem "Buy milk"');
  assert.equal(formatElement(describeFromSnapshot(lines, 'e8')!), 'button "Done" [ref=e8] in listitem "Call Ann"');
  assert.equal(formatElement(describeFromSnapshot(lines, 'e10')!), 'textbox "Name" [ref=e10] in form "Order"');
  // An unnamed dialog places by its role; a named navigation by its name; main and unnamed tables do not place.
  assert.equal(formatElement(describeFromSnapshot(lines, 'e12')!), 'button "Close" [ref=e12] in dialog');
  assert.equal(formatElement(describeFromSnapshot(lines, 'e1')!), 'link "Home" [ref=e1] in navigation "Main"');
  assert.equal(describeFromSnapshot(lines, 'e99'), undefined);
  assert.equal(formatElements([describeFromSnapshot(lines, 'e10')!, describeFromSnapshot(lines, 'e11')!]),
    'textbox "Name" [ref=e10], checkbox "Gift wrap" [ref=e11] in form "Order"');
  assert.equal(formatElements([describeFromSnapshot(lines, 'e10')!, describeFromSnapshot(lines, 'e12')!]),
    'textbox "Name" [ref=e10] in form "Order"; button "Close" [ref=e12] in dialog');
  assert.equal(formatElement({ ref: 'e5' }), 'e5');
});

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function lcs(a: string[], b: string[]): number {
  const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  return dp[0]![0]!;
}

test('editScript is a shortest edit script: it turns a into b with |a| + |b| - 2·LCS edits', () => {
  const next = rng(7);
  for (let round = 0; round < 300; round++) {
    const a = Array.from({ length: Math.floor(next() * 12) }, () => 'abcd'[Math.floor(next() * 4)]!);
    const b = Array.from({ length: Math.floor(next() * 12) }, () => 'abcd'[Math.floor(next() * 4)]!);
    const ops = editScript(a, b, 100)!;
    const out: string[] = [];
    let i = 0;
    for (const op of ops) {
      if (op.op === 'eq') {
        assert.equal(op.i, i++);
        assert.equal(a[op.i], b[op.j]);
        out.push(b[op.j]!);
      } else if (op.op === 'del') assert.equal(op.i, i++);
      else out.push(b[op.j]!);
    }
    assert.equal(i, a.length);
    assert.deepEqual(out, b, `a=${a.join('')} b=${b.join('')}`);
    assert.equal(ops.filter(o => o.op !== 'eq').length, a.length + b.length - 2 * lcs(a, b), `a=${a.join('')} b=${b.join('')}`);
  }
  assert.equal(editScript(['a', 'b', 'c'], ['x', 'y', 'z'], 5), undefined, 'six edits are over a bound of five');
});

test('an identical page, or one that only changed indentation, has no changes', () => {
  const same = diffSnapshots(INVOICES, INVOICES);
  assert.deepEqual(same.entries, []);
  assert.equal(same.refsKept, 9);
  assert.equal(renderDiff(same), undefined);
  const reindented = diffSnapshots('- list:\n  - link "A" [ref=e1]', '- list:\n  - group:\n    - link "A" [ref=e1]');
  assert.deepEqual(reindented.entries?.map(e => e.kind), ['added'], 'only the new group line; the link is the same node');
});

test('a removed row, a checked checkbox, a changed count and an added dialog, with where each is', () => {
  const after = INVOICES
    .replace('    - row: Invoice 2024-03 | €120\n      - button "Delete" [ref=e4]\n', '')
    .replace('- checkbox "Gift wrap" [ref=e11]', '- checkbox "Gift wrap" [ref=e11] [checked]')
    .replace('  3 invoices', '  2 invoices\n  - alertdialog "Deleted":\n    Invoice 2024-03 was deleted.\n    - button "Undo" [ref=e13]');
  const diff = diffSnapshots(INVOICES, after);
  assert.deepEqual({ added: diff.added, removed: diff.removed, changed: diff.changed, moved: diff.moved }, { added: 3, removed: 2, changed: 2, moved: 0 });
  assert.deepEqual({ refsAdded: diff.refsAdded, refsRemoved: diff.refsRemoved, refsKept: diff.refsKept }, { refsAdded: 1, refsRemoved: 1, refsKept: 8 });
  assert.equal(renderDiff(diff), `Since last snapshot: 3 lines added, 2 removed, 2 changed; 8 refs still valid.
Removed in table:
  - row: Invoice 2024-03 | €120
    - button "Delete" [ref=e4]
Changed in form "Order":
  - checkbox "Gift wrap" [ref=e11] [checked]  (was: without [checked])
Changed in main:
  2 invoices  (was: 3 invoices)
Added in main:
  - alertdialog "Deleted":
    Invoice 2024-03 was deleted.
    - button "Undo" [ref=e13]`);
});

test('a re-sorted list keeps its refs: the items are moved, not removed and added', () => {
  const before = '- list "Tasks":\n  - link "A" [ref=e1]\n  - link "B" [ref=e2]\n  - link "C" [ref=e3]';
  const after = '- list "Tasks":\n  - link "C" [ref=e3]\n  - link "A" [ref=e1]\n  - link "B" [ref=e2]';
  const diff = diffSnapshots(before, after);
  assert.deepEqual(diff.entries, [{ kind: 'moved', at: 1, was: 3 }]);
  assert.equal(diff.refsRemoved, 0);
  assert.equal(renderDiff(diff), 'Since last snapshot: 1 line moved; 3 refs still valid.\nMoved in list "Tasks":\n  - link "C" [ref=e3]');
});

test('a node dropped into another named container moved there; a wrapper appearing around a node is no move', () => {
  const before = '- list "Fruit":\n  - listitem "Apple" [ref=e3]\n  - listitem "Pear" [ref=e4]\n- region "Basket" [ref=e5]';
  const after = '- list "Fruit":\n  - listitem "Apple" [ref=e3]\n- region "Basket" [ref=e5]:\n  - listitem "Pear" [ref=e4]';
  const diff = diffSnapshots(before, after);
  assert.deepEqual(diff.entries, [{ kind: 'moved', at: 3, was: 2 }], 'the region only gained children: not a change');
  assert.equal(renderDiff(diff), 'Since last snapshot: 1 line moved; 3 refs still valid.\nMoved in region "Basket" [ref=e5]:\n  - listitem "Pear" [ref=e4]  (was in list "Fruit")');
  // What the node holds moves with it.
  const holding = diffSnapshots(
    '- list "Fruit":\n  - listitem "Pear" [ref=e4]:\n    Pear, ripe\n- region "Basket" [ref=e5]',
    '- region "Basket" [ref=e5]:\n  - listitem "Pear" [ref=e4]:\n    Pear, ripe');
  assert.equal(renderDiff(holding), 'Since last snapshot: 1 line removed, 2 moved; 2 refs still valid.\nRemoved:\n  - list "Fruit":\nMoved in region "Basket" [ref=e5]:\n  - listitem "Pear" [ref=e4]:  (was in list "Fruit")\n    Pear, ripe');
  const wrapped = diffSnapshots('- list "Fruit":\n  - link "A" [ref=e1]', '- list "Fruit":\n  - group:\n    - link "A" [ref=e1]');
  assert.deepEqual(wrapped.entries?.map(e => e.kind), ['added']);
});

test('added lines are placed by their nearest named ancestor and the unnamed parent in between', () => {
  const before = '- region "Todos":\n  - list:\n    - listitem:\n      Milk\n      - button "Done" [ref=e1]';
  const after = `${before}\n    - listitem:\n      Eggs\n      - button "Done" [ref=e2]`;
  const text = renderDiff(diffSnapshots(before, after))!;
  assert.match(text, /^Added in list in region "Todos":\n  - listitem:\n    Eggs\n    - button "Done" \[ref=e2\]$/m);
});

test('scope: the deepest unchanged node holding every change; -1 when the change is page-wide', () => {
  const list = (n: number) => Array.from({ length: n }, (_, i) => `    - link "Item ${i}" [ref=e${100 + i}]`).join('\n');
  const before = `- banner:\n  - link "Home" [ref=e1]\n- main:\n  - list "Results":\n${list(3)}\n  - button "More" [ref=e2]`;
  const after = `- banner:\n  - link "Home" [ref=e1]\n- main:\n  - list "Results":\n${list(40)}\n  - button "More" [ref=e2]`;
  const local = diffSnapshots(before, after);
  assert.equal(local.added, 37);
  assert.equal(local.after[local.scope]!.body, '- list "Results":');
  const wide = diffSnapshots(before, after.replace('link "Home"', 'link "Start"'));
  assert.equal(wide.scope, -1);
  assert.equal(diffSnapshots(before, before).scope, -1);
  // Only removals at the end of a container: the container still holds them.
  const shrunk = diffSnapshots(after, before);
  assert.equal(shrunk.removed, 37);
  assert.equal(shrunk.after[shrunk.scope]!.body, '- list "Results":');
});

test('past maxEdits the diff gives up with ref counts only', () => {
  const before = Array.from({ length: 50 }, (_, i) => `- link "A${i}" [ref=e${i + 1}]`).join('\n');
  const after = Array.from({ length: 50 }, (_, i) => `- link "B${i}" [ref=e${i + 100}]`).join('\n');
  const diff = diffSnapshots(before, after, 20);
  assert.equal(diff.tooMany, true);
  assert.equal(diff.entries, undefined);
  assert.deepEqual({ refsAdded: diff.refsAdded, refsRemoved: diff.refsRemoved, refsKept: diff.refsKept }, { refsAdded: 50, refsRemoved: 50, refsKept: 0 });
  assert.equal(diffSnapshots(before, after).tooMany, undefined, '100 edits are within the default bound');
});

test('more than four removed lines are one line naming what went (refs left out); fewer are shown whole', () => {
  const items = (names: string[], from: number) => names.map((n, i) => `  - listitem:\n    - link "${n}" [ref=e${from + i}]\n    - button "Add ${n}" [ref=e${from + 100 + i}]`).join('\n');
  const before = `- searchbox "Search" [ref=e1]\n- list "Products":\n${items(['Anvil', 'Bell', 'Candle', 'Drum', 'Easel', 'Flute', 'Gong', 'Harp', 'Ink', 'Jar'], 10)}`;
  const after = `- searchbox "Search" [ref=e1]: harp\n- list "Products":\n${items(['Harp'], 50)}`;
  const text = renderDiff(diffSnapshots(before, after))!;
  const removed = text.split('\n').find(l => l.startsWith('Removed'))!;
  // One line (nine list items and their links and buttons), naming the first eight removed nodes at the top of what went.
  assert.equal(text.split('\n').filter(l => l.startsWith('Removed')).length, 1);
  assert.match(removed, /^Removed in [^:]*list "Products": 29 lines, 20 refs gone: link "Anvil" · button "Add Anvil" · listitem "Bell" · listitem "Candle" · listitem "Drum" · listitem "Easel" · listitem "Flute" · listitem "Gong" · … 3 more$/);
  assert.ok(!/\[ref=e1\d\]/.test(removed), 'no gone ref is shown');
  // What was added is shown whole, with its refs.
  assert.match(text, /- link "Harp" \[ref=e50\]/);
  assert.match(text, /- button "Add Harp" \[ref=e150\]/);
  // The row deletion of a table (two lines) stays whole.
  const rows = renderDiff(diffSnapshots(INVOICES, INVOICES.replace('    - row: Invoice 2024-03 | €120\n      - button "Delete" [ref=e4]\n', '')))!;
  assert.match(rows, /Removed in table:\n {2}- row: Invoice 2024-03 \| €120\n {4}- button "Delete" \[ref=e4\]/);
});

test('a changed line says only what differs when it is the same node', () => {
  const was = (a: string, b: string) => renderDiff(diffSnapshots(a, b))!.split('\n').at(-1)!;
  assert.equal(was('- textbox "Name" [ref=e1]', '- textbox "Name" [ref=e1]: Ada'), '  - textbox "Name" [ref=e1]: Ada  (was: empty)');
  assert.equal(was('- combobox "Size" [ref=e1]: Small', '- combobox "Size" [ref=e1]: Large'), '  - combobox "Size" [ref=e1]: Large  (was: value "Small")');
  assert.equal(was('- button "Menu" [ref=e1] [expanded]', '- button "Menu" [ref=e1]'), '  - button "Menu" [ref=e1]  (was: with [expanded])');
  assert.equal(was('- heading "Old" [level=2]', '- heading "New" [level=2]'), '  - heading "New" [level=2]  (was: "Old")');
  assert.equal(was('3 items', '2 items'), '  2 items  (was: 3 items)');
});
