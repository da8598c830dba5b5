/**
 * A tool's inputSchema as list_webmcp_tools serves it to the model: local
 * `$ref`s (`#`, `#/$defs/…`, `#/definitions/…`, any JSON Pointer into the
 * schema, RFC 6901) replaced by what they point to, so a model reads one
 * self-contained schema (docs/webmcp.md, "What a listing tells"). A
 * reference into itself (a cycle) stays a `$ref`, with the definitions it
 * needs kept; so does one that points nowhere or outside the schema (`$id`
 * anchors, URLs), and each is reported. Arguments are still validated
 * against the page's own schema (src/tools/webmcp.ts), never this one.
 */

/** A `$ref` left in the served schema, and why. */
export interface SchemaRefLeft {
  ref: string;
  /** `cycle`: it refers to a schema that contains it; `unresolved`: not a pointer into this schema, or to nothing; `size`: resolving would grow the schema too much, nothing was resolved. */
  reason: 'cycle' | 'unresolved' | 'size';
}

/** Keywords whose values are data, not schemas: a `$ref` key inside them is not a reference. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);
/** Keywords that only describe: a `$ref`'s sibling of these wins over the target's. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly']);
/** Where a schema keeps definitions for `$ref`s (JSON Schema 2019+ and draft 7). */
const DEFINITIONS = ['$defs', 'definitions'];
/** The most schema nodes resolving may produce (inlining can multiply a schema). */
const NODE_BUDGET = 20_000;
/**
 * The deepest nesting walked (objects and arrays): a page's schema may nest
 * deeper than the stack goes, and such a schema is served as it is
 * (reason `size`), like one over NODE_BUDGET.
 */
const MAX_DEPTH = 512;

class TooLarge extends Error {}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whether `node` has a `$ref` anywhere outside data keywords; true also past MAX_DEPTH (resolving then says `size`). */
function hasRef(node: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH) return true;
  if (Array.isArray(node)) return node.some(n => hasRef(n, depth + 1));
  if (!isObject(node)) return false;
  if (typeof node.$ref === 'string') return true;
  return Object.entries(node).some(([k, v]) => !DATA_KEYWORDS.has(k) && hasRef(v, depth + 1));
}

/** The node `ref` points to in `root` (`#` or `#/a/b`, ~0 ~1 and percent escapes decoded); undefined when none. */
function lookup(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node = root;
  for (const raw of ref.slice(2).split('/')) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) node = /^\d+$/.test(key) ? node[Number(key)] : undefined;
    else if (isObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** `target` (the resolved `$ref`) with the `$ref` node's other keywords: merged when they only add or describe, else `allOf`. */
function merge(target: unknown, rest: Record<string, unknown>): unknown {
  if (!Object.keys(rest).length) return target;
  if (isObject(target) && Object.keys(rest).every(k => !Object.hasOwn(target, k) || ANNOTATIONS.has(k))) return { ...target, ...rest };
  return { allOf: [target], ...rest };
}

/**
 * `schema` with its local references resolved, and the references left
 * (see the module doc); undefined when it has no `$ref` at all (serve it
 * as it is). Never changes `schema`.
 */
export function resolveSchemaRefs(schema: unknown): { schema: unknown; left: SchemaRefLeft[] } | undefined {
  if (!hasRef(schema)) return undefined;
  const left = new Map<string, SchemaRefLeft>();
  const leave = (ref: string, reason: SchemaRefLeft['reason']) => left.set(`${reason} ${ref}`, { ref, reason });
  let nodes = 0;
  /**
   * `node` (at JSON Pointer `path` of the page's schema) resolved; `stack`:
   * the references being inlined around it. A reference is a cycle when
   * its target contains the node, or is being inlined already.
   */
  const resolve = (node: unknown, stack: string[], path: string, depth = 0): unknown => {
    if (++nodes > NODE_BUDGET || depth > MAX_DEPTH) throw new TooLarge();
    if (Array.isArray(node)) return node.map((n, i) => resolve(n, stack, `${path}/${i}`, depth + 1));
    if (!isObject(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') continue;
      if (path === '#' && DEFINITIONS.includes(k)) continue; // the root's definitions: kept below only as needed
      out[k] = DATA_KEYWORDS.has(k) ? v : resolve(v, stack, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1);
    }
    if (typeof node.$ref !== 'string') return out;
    const ref = node.$ref;
    const target = lookup(schema, ref);
    if (target === undefined || (!isObject(target) && typeof target !== 'boolean')) {
      leave(ref, 'unresolved');
      return { $ref: ref, ...out };
    }
    if (stack.includes(ref) || ref === '#' || path === ref || path.startsWith(`${ref}/`)) {
      leave(ref, 'cycle');
      return { $ref: ref, ...out };
    }
    return merge(resolve(target, [...stack, ref], ref, depth + 1), out);
  };
  try {
    const resolved = resolve(schema, [], '#');
    // Of the definitions, only those a reference left in the schema points to stay, each resolved as seen from
    // itself (so its own cycles stay references, which may need more definitions: until none is added).
    if (isObject(resolved) && isObject(schema)) {
      for (const defs of DEFINITIONS) {
        if (!Object.hasOwn(schema, defs)) continue;
        const given = schema[defs];
        const kept: Record<string, unknown> = {};
        for (let added = true; added && isObject(given); ) {
          added = false;
          for (const { ref } of [...left.values()]) {
            const name = ref.startsWith(`#/${defs}/`) && !ref.slice(defs.length + 3).includes('/') ? ref.slice(defs.length + 3).replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
            if (name === undefined || Object.hasOwn(kept, name) || !Object.hasOwn(given, name)) continue;
            kept[name] = resolve(given[name], [ref], ref);
            added = true;
          }
        }
        if (Object.keys(kept).length) resolved[defs] = kept;
        else delete resolved[defs];
      }
    }
    return { schema: resolved, left: [...left.values()] };
  } catch (error) {
    if (!(error instanceof TooLarge)) throw error;
    return { schema, left: [{ ref: '*', reason: 'size' }] };
  }
}
