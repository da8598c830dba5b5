/**
 * Consent for code (docs/policy.md, "Consent for code"): `execute` and `add_element` run code the agent wrote, so the
 * gate judges them as tabwright's own tools (`builtin`) of the tab's origin, and a prompt about them offers three
 * grants besides "allow once": this exact code on this origin (`code`, saved with the code's hash), any code on this
 * origin (`always`), any code on every origin (`everywhere`).
 */
import { createHash } from 'node:crypto';

/** The tools the gate judges as code (their saved answers and rules are their own, apart from WebMCP tools). */
export const CODE_TOOLS: ReadonlySet<string> = new Set(['execute', 'add_element']);

/** JSON with object keys sorted at every level: the same value gives the same text whatever order its keys came in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map(k => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The hash a `code` grant is saved with: SHA-256 (hex) of the tool's name and its code, `execute`'s `code` string as
 * it is, `add_element`'s element (tag, attributes, properties: where it goes is not part of it) as canonical JSON.
 */
export function codeHash(tool: string, code: string | Record<string, unknown>): string {
  return createHash('sha256').update(`${tool}\n${typeof code === 'string' ? code : canonical(code)}`).digest('hex');
}
