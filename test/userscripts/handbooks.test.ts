/**
 * Issue #6 "Resources": the handbooks agents read must never drift from the
 * validator. Every fenced ```js block with a metadata header in them passes
 * validateScript with no diagnostic at all; the handbooks name exactly the
 * grants PROVIDED_GRANTS lists; and the built package (dist/, which
 * `npm test` builds first) carries the same text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { handbook, HANDBOOKS } from '../../src/userscripts/handbooks.js';
import { PROVIDED_GRANTS, validateScript } from '../../src/userscripts/validate.js';

function jsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```js\n([\s\S]*?)```/g)].map(m => m[1]!);
}

test('every example script in the handbooks validates cleanly', () => {
  let checked = 0;
  for (const name of HANDBOOKS) {
    for (const block of jsBlocks(handbook(name))) {
      if (!/\/\/ ==(UserScript|AgentScript)==/.test(block)) continue;
      const r = validateScript(block);
      assert.deepEqual(r.diagnostics, [], `${name}: ${block.slice(0, 80)}`);
      assert.equal(r.ok, true);
      checked++;
    }
  }
  assert.equal(checked, 2);
  const agent = validateScript(jsBlocks(handbook('agentscript-conventions'))[0]!);
  assert.equal(agent.kind, 'agentscript');
  assert.deepEqual(agent.metadata!.webmcp.map(w => `${w.tool} ${w.permission}`), ['search_orders allow', 'cancel_order prompt']);
});

test('the userscript handbook lists exactly the provided grants', () => {
  const text = handbook('userscript-conventions');
  const section = text.slice(text.indexOf('## The GM API'), text.indexOf('## Checking your work'));
  const named = new Set([...section.matchAll(/`((?:GM_|GM\.)[A-Za-z]+|unsafeWindow)[(`]/g)].map(m => m[1]!));
  const expected = new Set(PROVIDED_GRANTS);
  assert.deepEqual([...named].filter(g => g.startsWith('GM') || g === 'unsafeWindow').filter(g => !expected.has(g)), []);
  for (const g of PROVIDED_GRANTS) assert.ok(section.includes(`\`${g}`), `handbook names ${g}`);
});

test('the handbooks cover what the issue asks for', () => {
  const a = handbook('agentscript-conventions');
  for (const needle of ['@webmcp', 'registerTool', 'inputSchema', 'annotations', 'prompt', 'always allow', 'do not show up']) {
    assert.ok(a.includes(needle), `agentscript handbook mentions ${needle}`);
  }
  const u = handbook('userscript-conventions');
  for (const needle of ['IIFE', '@match', '@run-at', '@noframes', '@require', 'unsafeWindow', '@grant none']) {
    assert.ok(u.includes(needle), `userscript handbook mentions ${needle}`);
  }
  assert.ok(handbook('conventions').includes('tabwright://agentscript-conventions'));
});

test('dist carries the handbooks', { skip: existsSync('dist/userscripts/handbooks.js') ? false : 'dist not built (npm test builds it)' }, async () => {
  for (const name of HANDBOOKS) {
    assert.equal(readFileSync(`dist/userscripts/handbooks/${name}.md`, 'utf8'), handbook(name));
  }
  const built = await import(new URL('../../dist/userscripts/handbooks.js', import.meta.url).href) as typeof import('../../src/userscripts/handbooks.js');
  assert.equal(built.handbook('conventions'), handbook('conventions'));
});
