/**
 * Fuzzes what a page hands tabwright with a WebMCP tool: its inputSchema
 * (src/webmcp/schemaRefs.ts resolveSchemaRefs, which list_webmcp_tools
 * serves) and the arguments an agent sends against it
 * (src/tools/webmcp.ts validateArguments, which call_webmcp_tool runs).
 * Every schema gets a served schema and its references left, every call a
 * pass or a ToolError invalid_arguments: never another error, within a time bound.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { resolveSchemaRefs } from '../../src/webmcp/schemaRefs.js';
import { validateArguments } from '../../src/tools/webmcp.js';
import { ToolError } from '../../src/errors.js';
import { fuzz } from './fuzz.js';

const REF = fc.constantFrom('#', '#/$defs/a', '#/$defs/b', '#/definitions/a', '#/properties/x', '#/properties/x/items', '#/$defs/a/properties/y', '#/nowhere', 'https://example.test/s.json', '#/$defs/%61', '#/$defs/a~1b', '#/items/0', '#/allOf/1');
const NAME = fc.constantFrom('x', 'y', 'a', 'b', 'a/b', '$ref', '__proto__', 'constructor', '');
const { schema } = fc.letrec<{ schema: unknown }>(tie => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(true, false, {}, { type: 'string' }, { type: 'number', minimum: 0 }, { type: 'string', pattern: '^[a-z]+$' }, { enum: [1, 'a', null] }),
    REF.map($ref => ({ $ref })),
    fc.record({ type: fc.constantFrom('object', 'array', ['object', 'null'], 'nope'), $ref: REF, description: fc.string({ maxLength: 8 }) }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('object'), properties: fc.dictionary(NAME, tie('schema'), { maxKeys: 3 }), required: fc.array(NAME, { maxLength: 2 }), additionalProperties: fc.oneof(fc.boolean(), tie('schema')) }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('array'), items: fc.oneof(tie('schema'), fc.array(tie('schema'), { maxLength: 2 })) }),
    fc.record({ allOf: fc.array(tie('schema'), { maxLength: 3 }), anyOf: fc.array(tie('schema'), { maxLength: 2 }), $defs: fc.dictionary(NAME, tie('schema'), { maxKeys: 3 }), definitions: fc.dictionary(NAME, tie('schema'), { maxKeys: 2 }), default: fc.jsonValue({ maxDepth: 2 }), const: fc.constant({ $ref: '#' }) }, { requiredKeys: [] }),
  ),
}));

/** `depth` levels of `{type: object, properties: {a: …}}` around `inner`. */
function nested(depth: number, inner: unknown): unknown {
  let node = inner;
  for (let i = 0; i < depth; i++) node = { type: 'object', properties: { a: node } };
  return node;
}

/** Schemas as pages send them: generated, and some nested far deeper than a model would ever read. */
const pageSchema = fc.oneof(
  { weight: 9, arbitrary: schema },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 100, max: 30_000 }), schema).map(([d, s]) => ({ $defs: { a: nested(d, s) }, $ref: '#/$defs/a' })) },
);

const REASONS = new Set(['cycle', 'unresolved', 'size']);

test('WebMCP inputSchema: any schema is served with its references resolved or reported, never a throw', async () => {
  await fuzz('webmcp-schema-refs', 'Page inputSchemas (local and remote $ref, cycles, $defs/definitions, escaped pointers, nesting to 30,000 levels): resolveSchemaRefs returns a serializable schema and the refs it left (cycle, unresolved, size), never throws, under 1 s',
    fc.property(pageSchema, s => {
      const t = performance.now();
      const out = resolveSchemaRefs(s);
      assert.ok(performance.now() - t < 1000, `took ${(performance.now() - t).toFixed(0)} ms`);
      if (!out) return;
      for (const left of out.left) assert.ok(REASONS.has(left.reason) && typeof left.ref === 'string', JSON.stringify(left));
      if (out.left.some(l => l.reason === 'size')) return; // served as the page sent it
      assert.equal(typeof JSON.stringify(out.schema), 'string');
    }));
});

test('WebMCP arguments: any arguments against any schema pass or fail as invalid_arguments', async () => {
  // Compiling a schema costs milliseconds: a fixed pool of generated schemas (and deep ones) takes every argument.
  const pool = [...fc.sample(pageSchema, { numRuns: 60, seed: 7 }), nested(20_000, { type: 'string' }), { type: 'string', pattern: '(a+)+$' }, { $id: 'same', type: 'string' }, { $id: 'same', type: 'number' }];
  await fuzz('webmcp-arguments', `Arguments (any JSON, nested to 10,000 levels) against ${pool.length} page schemas (generated, 20,000-deep, a backtracking pattern, two with one $id): validateArguments passes or throws ToolError invalid_arguments, nothing else`,
    fc.property(fc.nat({ max: pool.length - 1 }), fc.oneof({ weight: 9, arbitrary: fc.jsonValue({ maxDepth: 4 }) }, { weight: 1, arbitrary: fc.integer({ min: 100, max: 10_000 }).map(d => nested(d, 'a'.repeat(30) + '!')) }), (i, args) => {
      try {
        validateArguments('fuzzed', pool[i], args);
      } catch (error) {
        assert.ok(error instanceof ToolError && error.type === 'invalid_arguments', `threw ${String(error)}`);
      }
    }));
});

test('a schema nested past the stack is served as it is (size), arguments against it are left to the page, and arguments past the stack are invalid_arguments', () => {
  const deep = nested(100_000, { type: 'string' });
  assert.deepEqual(resolveSchemaRefs({ $ref: '#/x', x: deep })?.left, [{ ref: '*', reason: 'size' }]);
  assert.doesNotThrow(() => validateArguments('deep', nested(20_000, { type: 'string' }), {}));
  // A recursive schema walks the arguments as deep as they go: too deep is invalid_arguments, not a RangeError.
  let args: unknown = 'leaf';
  for (let i = 0; i < 100_000; i++) args = { a: args };
  assert.throws(() => validateArguments('recursive', { type: 'object', additionalProperties: { $ref: '#' } }, args), (e: unknown) => e instanceof ToolError && e.type === 'invalid_arguments' && /nest too deeply/.test(e.message));
});

test('arguments with an own valueOf that is not a function are invalid_arguments (ajv\'s equality threw a TypeError)', () => {
  for (const schema of [{ enum: [{ a: 1 }] }, { const: { a: 1 } }, { type: 'array', uniqueItems: true }]) {
    const args = schema.type === 'array' ? [{ valueOf: false }, { valueOf: false }] : { valueOf: false };
    assert.throws(() => validateArguments('eq', schema, args), (e: unknown) => e instanceof ToolError && e.type === 'invalid_arguments', JSON.stringify(schema));
  }
});
