/**
 * The process's one ajv (JSON Schema validation of WebMCP tool arguments and of extract's output schemas), loaded on
 * first use, not at startup, which keeps a cold start short. Options: every error reported (`allErrors`), unknown
 * keywords allowed (`strict: false`: pages write loose schemas), formats not checked.
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvClass } from 'ajv';

let ajv: AjvClass | undefined;

/** The shared ajv; callers that add schemas to it remove them when done (`removeSchema`) or cache what they compile. */
export function sharedAjv(): AjvClass {
  if (!ajv) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  }
  return ajv;
}
