/**
 * The in-page runtime (DESIGN.md, "in-page runtime"): bundled by esbuild into
 * dist/page/runtime.js and injected at document start into every frame of
 * every page the session owns. No Node imports here.
 *
 * It is defined as a non-writable, non-configurable global so page scripts
 * that run later cannot replace it. Later issues add the WebMCP polyfill,
 * userscript GM_* API and the element picker here.
 */

interface RunResult {
  ok: boolean;
  /** JSON text of the value (ok). */
  json?: string;
  /** UTF-8 size of `json` in bytes. */
  bytes?: number;
  /** Size in bytes of a result over the cap (not ok). */
  tooLarge?: number;
  /** The page's own error (not ok). */
  error?: { name: string; message: string };
}

function describeNode(node: Node): string {
  if (node instanceof Element) {
    const id = node.id ? `#${node.id}` : '';
    const cls = typeof node.className === 'string' && node.className.trim() ? `.${node.className.trim().split(/\s+/).join('.')}` : '';
    return `<${node.tagName.toLowerCase()}${id}${cls}>`;
  }
  return `[${node.nodeName}]`;
}

/** JSON.stringify that survives what pages return: DOM nodes, cycles, Map/Set, BigInt, functions, undefined. */
function serialize(value: unknown): string {
  const seen = new WeakSet<object>();
  const json = JSON.stringify(value, function (_key, v: unknown) {
    if (typeof v === 'bigint') return `${v}n`;
    if (typeof v === 'function') return `[Function ${(v as { name?: string }).name || 'anonymous'}]`;
    if (typeof v === 'symbol') return v.toString();
    if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
    if (v && typeof v === 'object') {
      if (typeof Node !== 'undefined' && v instanceof Node) return describeNode(v);
      if (typeof Window !== 'undefined' && v instanceof Window) return '[Window]';
      if (seen.has(v)) return '[Circular]';
      seen.add(v);
      if (v instanceof Map) return Object.fromEntries(v);
      if (v instanceof Set) return [...v];
      if (v instanceof Error) return { name: v.name, message: v.message };
    }
    return v;
  });
  return json === undefined ? 'null' : json;
}

function isVisible(el: Element): boolean {
  const style = getComputedStyle(el);
  if (style.visibility === 'hidden' || style.visibility === 'collapse' || style.display === 'none') return false;
  const rect = el.getBoundingClientRect();
  return rect.width > 0 && rect.height > 0;
}

const api = Object.freeze({
  version: 1,
  /**
   * Runs `fn` and returns its value as JSON, capped at `maxBytes`
   * (issue #2, `execute`). Page exceptions come back as `error`.
   */
  async run(fn: () => unknown, maxBytes: number): Promise<RunResult> {
    let value: unknown;
    try {
      value = await fn();
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      return { ok: false, error: { name: err.name, message: err.message } };
    }
    let json: string;
    try {
      json = serialize(value);
    } catch (e) {
      return { ok: false, error: { name: 'SerializationError', message: e instanceof Error ? e.message : String(e) } };
    }
    const bytes = new TextEncoder().encode(json).length;
    if (bytes > maxBytes) return { ok: false, tooLarge: bytes };
    return { ok: true, json, bytes };
  },
  /**
   * Counts the visible interactive elements of this document (not its
   * frames): links with href, buttons, and form controls. Used to measure
   * snapshot coverage (tests, `npm run bench`).
   */
  census(): { links: number; buttons: number; controls: number } {
    const visible = (selector: string) => [...document.querySelectorAll(selector)].filter(isVisible).length;
    return {
      links: visible('a[href]:not([role]), area[href]'),
      buttons: visible('button, input[type=button], input[type=submit], input[type=reset], input[type=image], [role=button]'),
      controls: visible('input:not([type=hidden]):not([type=button]):not([type=submit]):not([type=reset]):not([type=image]), select, textarea'),
    };
  },
});

if (!('__tabwright' in globalThis)) {
  Object.defineProperty(globalThis, '__tabwright', { value: api, enumerable: false, writable: false, configurable: false });
}
