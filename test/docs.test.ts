import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './fixtures/mcp.js';
import { renderToolsSection } from '../src/docs/toolsDoc.js';
import { ERROR_TYPES } from '../src/errors.js';
import { TOOLS } from '../src/tools/registry.js';

test('docs/tools.md is generated from the current tool declarations', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'tools.md'), 'utf8');
  assert.ok(doc.includes(renderToolsSection()), 'docs/tools.md is out of date: run npm run docs');
});

test('docs/errors.md documents every error type', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8');
  for (const type of ERROR_TYPES) assert.match(doc, new RegExp(`\\| \`${type}\` \\|`), `${type} is not in docs/errors.md`);
});

test('every tool name is a snake_case verb with a described input', () => {
  for (const tool of TOOLS) {
    assert.match(tool.name, /^[a-z]+(_[a-z]+)*$/);
    for (const [key, field] of Object.entries(tool.input.shape)) {
      assert.ok((field as { description?: string }).description, `${tool.name}.${key} has no description`);
    }
  }
});
