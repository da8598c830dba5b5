/**
 * The first `maxBytes` of a JSON value, as valid JSON (`execute` with
 * `truncate: true`; docs/errors.md, `result_too_large`): the value is written in order until
 * the bytes run out, and where they run out a string is cut, an array ends
 * before its next item, an object before its next key; everything after
 * that is dropped. So the cuts form one chain from the top down to the
 * place the bytes ran out, and each is reported with its JSON path. No
 * Node imports: it runs in the page, so an oversized value never crosses
 * the wire.
 */
import { parse, stringify } from './natives.js';

/** One place the value was cut. */
export interface JsonCut {
  /** JSONPath-like location: `$`, `$.items[19].title`, `$["a key"]`. */
  path: string;
  kind: 'string' | 'array' | 'object';
  /** What was kept: characters of a string, items of an array, keys of an object. */
  kept: number;
  /** What there was. */
  total: number;
}

/** What `truncateJson` returns. */
export interface Truncated {
  json: string;
  /** UTF-8 bytes of `json`. */
  bytes: number;
  /** Outermost first. */
  cuts: JsonCut[];
}

const encoder = new TextEncoder();
const size = (text: string) => encoder.encode(text).length;

function keyPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${stringify(key)}]`;
}

/** The longest prefix of `s` whose JSON string (quotes included) fits `budget` bytes; its length in code units. */
function fittingPrefix(s: string, budget: number): number {
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (size(stringify(s.slice(0, mid))) <= budget) lo = mid;
    else hi = mid - 1;
  }
  // Never split a surrogate pair.
  if (lo > 0 && lo < s.length && /[\uD800-\uDBFF]/.test(s[lo - 1]!)) lo--;
  return lo;
}

/**
 * Writes `value` (a parsed JSON value) in at most `budget` bytes. Returns
 * its JSON, or undefined when not even a cut version fits (the caller ends
 * its container there).
 */
function write(value: unknown, budget: number, path: string, cuts: JsonCut[]): string | undefined {
  const whole = stringify(value);
  if (size(whole) <= budget) return whole;
  if (typeof value === 'string') {
    // A cut string keeps at least a few characters, else it is dropped with what follows.
    const n = fittingPrefix(value, budget);
    if (n < Math.min(8, value.length)) return undefined;
    cuts.push({ path, kind: 'string', kept: n, total: value.length });
    return stringify(value.slice(0, n));
  }
  if (value === null || typeof value !== 'object') return undefined;
  const array = Array.isArray(value);
  const entries: Array<[string, unknown]> = array ? (value as unknown[]).map((v, i) => [String(i), v]) : Object.entries(value as Record<string, unknown>);
  if (budget < 2) return undefined;
  const at = cuts.length;
  cuts.push({ path, kind: array ? 'array' : 'object', kept: 0, total: entries.length });
  let out = array ? '[' : '{';
  let left = budget - 2; // the brackets
  let kept = 0;
  for (const [k, v] of entries) {
    const head = (kept ? ',' : '') + (array ? '' : `${stringify(k)}:`);
    const headBytes = size(head);
    if (headBytes >= left) break;
    const inner = write(v, left - headBytes, array ? `${path}[${k}]` : keyPath(path, k), cuts);
    if (inner === undefined) break;
    out += head + inner;
    left -= headBytes + size(inner);
    kept++;
    if (cuts.length > at + 1) break; // an item was cut: nothing after it fits
  }
  cuts[at]!.kept = kept;
  if (kept === entries.length) cuts.splice(at, 1); // only a descendant was cut
  return out + (array ? ']' : '}');
}

/** The first `maxBytes` (at least 2) of `json`'s value as valid JSON, with what was cut. */
export function truncateJson(json: string, maxBytes: number): Truncated {
  const cuts: JsonCut[] = [];
  const value: unknown = parse(json);
  // Only a string can fail to fit at all (a container always fits its brackets): it becomes "".
  const out = write(value, maxBytes, '$', cuts) ?? '""';
  if (out === '""' && typeof value === 'string' && value) cuts.push({ path: '$', kind: 'string', kept: 0, total: value.length });
  return { json: out, bytes: size(out), cuts };
}
