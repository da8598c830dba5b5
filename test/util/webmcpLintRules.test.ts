// The pure parts of lint_webmcp_tools (src/webmcp/lintRules.ts, src/tools/webmcpLintProbe.ts's sampleArguments;
// docs/webmcp-dev.md "Lint"): name words, the irreversible and developer heuristics, the probe's arguments, and the
// static findings' exact words. No browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { looksDeveloper, looksIrreversible, nameWords, staticFindings } from '../../src/webmcp/lintRules.js';
import { sampleArguments } from '../../src/tools/webmcpLintProbe.js';

test('name words split snake, kebab, dot and camel case', () => {
  assert.deepEqual(nameWords('place_order'), ['place', 'order']);
  assert.deepEqual(nameWords('placeOrder.v2'), ['place', 'order', 'v2']);
  assert.deepEqual(nameWords('delete-USER'), ['delete', 'user']);
});

test('irreversible: by the name\'s first word or the description; developer: by name or description', () => {
  for (const name of ['delete_user', 'buyTicket', 'transfer_funds', 'place_order', 'send-message']) assert.equal(looksIrreversible({ name, description: 'x' }), true, name);
  for (const name of ['list_orders', 'get_order', 'search', 'order_status']) assert.equal(looksIrreversible({ name, description: 'Lists things' }), false, name);
  assert.equal(looksIrreversible({ name: 'finish', description: 'Charges the saved card' }), true);
  assert.equal(looksIrreversible({ name: 'wipe', description: '' }), true);
  assert.equal(looksDeveloper({ name: 'dump_state', description: 'x' }), true);
  assert.equal(looksDeveloper({ name: 'state', description: 'Diagnostics for the app' }), true);
  assert.equal(looksDeveloper({ name: 'list_products', description: 'List the products' }), false);
});

test('probe arguments: each required property with a plain value of its type; optional ones left out', () => {
  assert.deepEqual(sampleArguments({
    type: 'object',
    properties: { s: { type: 'string' }, e: { enum: ['b', 'a'] }, c: { const: 7 }, i: { type: 'integer', minimum: 3 }, n: { type: 'number' }, b: { type: 'boolean' }, a: { type: 'array' }, o: { type: 'object' }, opt: { type: 'string' } },
    required: ['s', 'e', 'c', 'i', 'n', 'b', 'a', 'o', 'missing'],
  }), { s: 'test', e: 'b', c: 7, i: 3, n: 1, b: false, a: [], o: {}, missing: 'test' });
  assert.deepEqual(sampleArguments(undefined), {});
});

test('static findings: the exact words, and quiet on a good tool', () => {
  const good = { name: 'get_cart', description: 'The cart', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true as const } };
  assert.deepEqual(staticFindings([good], [], [{ tool: 'f', undescribed: [] }]), []);
  assert.deepEqual(staticFindings([
    { name: 'cancel_trip', description: ' ', inputSchema: [] },
    { name: 'x', description: 'one', frameUrl: 'http://a/1' },
    { name: 'x', description: 'two', frameUrl: 'http://a/2' },
  ], [{ name: 'a b', kind: 'registerTool', reason: 'name has characters outside ASCII letters, digits, "_", "-" and ".": " "' }], [{ tool: 'form', undescribed: ['a', 'b'] }]), [
    { rule: 'name-invalid', tool: 'a b', severity: 'error', why: 'The browser refused registerTool "a b": name has characters outside ASCII letters, digits, "_", "-" and ".": " ".', fix: 'Use 1–128 characters of ASCII letters, digits, "_", "-" and ".", e.g. a snake_case verb like add_to_cart.' },
    { rule: 'name-duplicate', tool: 'x', severity: 'warning', why: '2 frames of the tab register a tool named "x"; an agent cannot tell them apart by name.', fix: 'Register the tool in one frame only, or give each frame\'s tool its own name.' },
    { rule: 'description-empty', tool: 'cancel_trip', severity: 'error', why: 'The description is only whitespace: the agent picks tools by their description.', fix: 'Say what the tool does and what it returns, in positive words.' },
    { rule: 'schema-not-object', tool: 'cancel_trip', severity: 'error', why: 'The inputSchema is [], not an object schema: tool arguments are a JSON object.', fix: 'Use {"type": "object", "properties": {...}, "required": [...]} with a description on every property.' },
    { rule: 'consequential-missing', tool: 'cancel_trip', severity: 'warning', why: 'Its name or description says it does something high-stakes or irreversible (deletes, pays, books, sends), but it does not declare consequentialHint.', fix: 'Add annotations: { consequentialHint: true } so agents ask their user first, and keep the app\'s own confirmation.' },
    { rule: 'form-param-undescribed', tool: 'form', severity: 'warning', why: 'Fields "a", "b" of the form have neither a <label> nor toolparamdescription: the agent sees only the field\'s name.', fix: 'Give every field a <label> (for= its id, or around it) or a toolparamdescription attribute.' },
  ]);
});
