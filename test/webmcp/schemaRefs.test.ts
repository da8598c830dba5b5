// resolveSchemaRefs (src/webmcp/schemaRefs.ts) and nameProblem
// (src/webmcp/declarations.ts) on their own: the cases a page's schema or
// tool name can take that the end-to-end listing test does not reach.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nameProblem } from '../../src/webmcp/declarations.js';
import { resolveSchemaRefs } from '../../src/webmcp/schemaRefs.js';

test('a schema without $ref is served as it is', () => {
  assert.equal(resolveSchemaRefs({ type: 'object', properties: { a: { type: 'string' } } }), undefined);
  // a "$ref" inside data (const, enum, default, examples) is not a reference
  assert.equal(resolveSchemaRefs({ type: 'object', default: { $ref: '#/nowhere' }, properties: { $ref: { type: 'string' } } }), undefined);
});

test('siblings of a $ref merge when they only add or describe, else sit beside an allOf', () => {
  const schema = {
    $defs: { n: { type: 'number', description: 'A number' } },
    properties: {
      described: { $ref: '#/$defs/n', description: 'Price' },
      bounded: { $ref: '#/$defs/n', minimum: 0 },
      clash: { $ref: '#/$defs/n', type: 'integer' },
    },
  };
  const before = JSON.stringify(schema);
  assert.deepEqual(resolveSchemaRefs(schema), {
    schema: {
      properties: {
        described: { type: 'number', description: 'Price' },
        bounded: { type: 'number', description: 'A number', minimum: 0 },
        clash: { allOf: [{ type: 'number', description: 'A number' }], type: 'integer' },
      },
    },
    left: [],
  });
  assert.equal(JSON.stringify(schema), before, 'the page\'s schema is not changed');
});

test('JSON Pointer escapes, definitions, a root cycle and references to nothing', () => {
  const schema = {
    type: 'object',
    definitions: { 'a/b': { type: 'string' }, 'c~d': { enum: [1] } },
    properties: {
      slash: { $ref: '#/definitions/a~1b' },
      tilde: { $ref: '#/definitions/c~0d' },
      self: { $ref: '#' },
      missing: { $ref: '#/definitions/none' },
      remote: { $ref: 'https://example.com/s.json' },
      anchor: { $ref: '#thing' },
    },
  };
  const got = resolveSchemaRefs(schema)!;
  assert.deepEqual(got.schema, {
    type: 'object',
    properties: {
      slash: { type: 'string' },
      tilde: { enum: [1] },
      self: { $ref: '#' },
      missing: { $ref: '#/definitions/none' },
      remote: { $ref: 'https://example.com/s.json' },
      anchor: { $ref: '#thing' },
    },
  });
  assert.deepEqual(got.left, [
    { ref: '#', reason: 'cycle' },
    { ref: '#/definitions/none', reason: 'unresolved' },
    { ref: 'https://example.com/s.json', reason: 'unresolved' },
    { ref: '#thing', reason: 'unresolved' },
  ]);
});

test('mutually recursive definitions keep what their references need', () => {
  const schema = {
    $defs: {
      a: { type: 'object', properties: { b: { $ref: '#/$defs/b' } } },
      b: { type: 'object', properties: { a: { $ref: '#/$defs/a' } } },
      unused: { type: 'null' },
    },
    $ref: '#/$defs/a',
  };
  const got = resolveSchemaRefs(schema)!;
  // a → b → (a again: a cycle); only `a` is needed by what is left
  assert.deepEqual(got.schema, {
    type: 'object',
    properties: { b: { type: 'object', properties: { a: { $ref: '#/$defs/a' } } } },
    $defs: { a: { type: 'object', properties: { b: { type: 'object', properties: { a: { $ref: '#/$defs/a' } } } } } },
  });
  assert.deepEqual(got.left, [{ ref: '#/$defs/a', reason: 'cycle' }]);
});

test('a schema that would grow too large is served unresolved', () => {
  // each level refers to the next twice: 2^20 copies once inlined
  const defs: Record<string, unknown> = { l20: { type: 'string' } };
  for (let i = 0; i < 20; i++) defs[`l${i}`] = { type: 'object', properties: { x: { $ref: `#/$defs/l${i + 1}` }, y: { $ref: `#/$defs/l${i + 1}` } } };
  const schema = { $defs: defs, $ref: '#/$defs/l0' };
  assert.deepEqual(resolveSchemaRefs(schema), { schema, left: [{ ref: '*', reason: 'size' }] });
});

test('nameProblem follows Chromium\'s rule: 1–128 of ASCII letters, digits, _ - .', () => {
  assert.equal(nameProblem('ok.name_-1'), undefined);
  assert.equal(nameProblem('y'.repeat(128)), undefined);
  assert.equal(nameProblem(''), 'name is empty');
  assert.equal(nameProblem('y'.repeat(129)), 'name is 129 characters long, over the limit of 128');
  assert.equal(nameProblem('a\nb c\n'), 'name has characters outside ASCII letters, digits, "_", "-" and ".": "\\n", " "');
  assert.equal(nameProblem('é'.repeat(130)), 'name is 130 characters long, over the limit of 128; name has characters outside ASCII letters, digits, "_", "-" and ".": "é"');
  assert.equal(nameProblem('!@#$%^&', 300), 'name is 300 characters long, over the limit of 128; name has characters outside ASCII letters, digits, "_", "-" and ".": "!", "@", "#", "$", "%" and 2 more');
});
