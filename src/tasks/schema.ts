/**
 * The caller's output schema of `extract` (docs/tasks.md, "Extraction"): compiled with ajv as call_webmcp_tool
 * compiles a page tool's inputSchema (src/tools/webmcp.ts: allErrors, no strict mode, formats not checked), within
 * size limits, and each field's provenance.
 */
import type { ValidateFunction } from 'ajv';
import { ToolError } from '../errors.js';
import { sharedAjv } from '../util/ajv.js';

/** The largest output schema taken, in characters of its JSON. */
export const MAX_SCHEMA_CHARS = 32_768;


/**
 * The validator of an output schema.
 * @throws ToolError invalid_arguments: not an object, over MAX_SCHEMA_CHARS, or not valid JSON Schema (ajv's message).
 */
export function compileOutputSchema(schema: unknown): ValidateFunction {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new ToolError('invalid_arguments', 'outputSchema must be a JSON Schema object.', 'Pass e.g. {"type":"object","properties":{"price":{"type":"number"}},"required":["price"]}.');
  const size = JSON.stringify(schema).length;
  if (size > MAX_SCHEMA_CHARS) throw new ToolError('invalid_arguments', `outputSchema is ${size} characters; at most ${MAX_SCHEMA_CHARS} are taken.`, 'Ask for fewer fields at once.');
  try {
    const validate = sharedAjv().compile(schema);
    sharedAjv().removeSchema(schema);
    return validate;
  } catch (error) {
    throw new ToolError('invalid_arguments', `outputSchema is not valid JSON Schema: ${(error as Error).message.slice(0, 300)}.`, 'Fix the schema (draft-07 or 2020-12 keywords).');
  }
}

/** ajv's findings, one line each (paths and rules, not values), at most 10. */
export function schemaErrors(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).slice(0, 10).map(e => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
}

/** The JSON pointers of every leaf (a value that is not a non-empty object or array) of `value`. */
export function leafPaths(value: unknown, at = ''): string[] {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    if (entries.length) return entries.flatMap(([key, v]) => leafPaths(v, `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`));
  }
  return [at || '/'];
}
