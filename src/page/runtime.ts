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

/** A link, button or form control, as `census` and `interactiveElements` classify it. */
type InteractiveKind = 'link' | 'button' | 'control';

/** One visible interactive element found by `interactiveElements`. */
interface InteractiveEntry {
  element: Element;
  kind: InteractiveKind;
  /** Frame nesting depth: 0 for the document the runtime runs in, 1 for its child frames, ... */
  frame: number;
  /** Inside an `aria-hidden="true"` subtree (accessibility trees give such nodes no name). */
  ariaHidden: boolean;
  /** False when `pointer-events: none` (the mouse cannot hit it). */
  pointerEvents: boolean;
}

const BUTTON_INPUT_TYPES = new Set(['button', 'submit', 'reset', 'image']);

/**
 * Classifies an element: an explicit `role="button"` / `role="link"` wins,
 * then the tag (`a`/`area` with href, `button`, `input`, `select`,
 * `textarea`). Anything else is null.
 */
function interactiveKind(el: Element): InteractiveKind | null {
  const role = (el.getAttribute('role') ?? '').trim().toLowerCase().split(/\s+/)[0];
  if (role === 'button') return 'button';
  if (role === 'link') return 'link';
  const tag = el.localName;
  if ((tag === 'a' || tag === 'area') && el.hasAttribute('href')) return 'link';
  if (tag === 'button') return 'button';
  if (tag === 'input') {
    const type = (el.getAttribute('type') ?? '').toLowerCase();
    if (type === 'hidden') return null;
    return BUTTON_INPUT_TYPES.has(type) ? 'button' : 'control';
  }
  if (tag === 'select' || tag === 'textarea') return 'control';
  return null;
}

function styleOf(el: Element): CSSStyleDeclaration | null {
  const view = el.ownerDocument.defaultView;
  return view ? view.getComputedStyle(el) : null;
}

/** Not hidden by style: no `display: none` or `content-visibility: hidden` ancestor, `visibility: visible`. */
function styleVisible(el: Element): boolean {
  if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) return false;
  const style = styleOf(el);
  return !!style && style.visibility === 'visible' && style.display !== 'none';
}

function hasArea(el: Element): boolean {
  const rect = el.getBoundingClientRect();
  return rect.width > 0 && rect.height > 0;
}

function textHasArea(node: Text): boolean {
  const range = node.ownerDocument.createRange();
  range.selectNodeContents(node);
  const rect = range.getBoundingClientRect();
  return rect.width > 0 && rect.height > 0;
}

/**
 * Visible to a person looking at the page: not hidden by style, and with a
 * non-empty box of its own, or (an empty box, e.g. an inline link around a
 * float or an absolutely positioned child) with a visible descendant that
 * has one. A `display: contents` element has no box: it is visible when a
 * child element is, or a child text has an area. Off-screen, covered and
 * ancestor-clipped elements count as visible (scrolling or closing an
 * overlay reveals them), as in Playwright's snapshot.
 */
function isVisible(el: Element): boolean {
  const style = styleOf(el);
  if (!style) return false;
  if (style.display === 'contents') {
    for (const child of el.childNodes) {
      if (child.nodeType === 1 ? isVisible(child as Element) : child.nodeType === 3 && style.visibility === 'visible' && textHasArea(child as Text)) return true;
    }
    return false;
  }
  if (!styleVisible(el)) return false;
  if (hasArea(el)) return true;
  // An empty box that clips its overflow shows nothing of its content.
  if (style.overflowX !== 'visible' || style.overflowY !== 'visible') return false;
  for (const child of el.querySelectorAll('*')) {
    if (hasArea(child) && styleVisible(child)) return true;
  }
  return false;
}

function insideAriaHidden(el: Element): boolean {
  for (let node: Element | null = el; node; node = node.parentElement ?? ((node.getRootNode() as ShadowRoot).host ?? null)) {
    if ((node.getAttribute('aria-hidden') ?? '').toLowerCase() === 'true') return true;
  }
  return false;
}

/**
 * Every visible link, button and form control of a document, its open
 * shadow roots and its visible same-origin frames (recursively), in
 * document order (a shadow tree right after its host). Cross-origin frames
 * cannot be read from the page; they are only counted.
 */
function collectInteractive(root: Document | ShadowRoot, frame: number, out: InteractiveEntry[], frames: { sameOrigin: number; crossOrigin: number }): void {
  for (const el of root.querySelectorAll('*')) {
    const kind = interactiveKind(el);
    if (kind && isVisible(el)) {
      out.push({ element: el, kind, frame, ariaHidden: insideAriaHidden(el), pointerEvents: styleOf(el)?.pointerEvents !== 'none' });
    }
    if (el.shadowRoot) collectInteractive(el.shadowRoot, frame, out, frames);
    if ((el.localName === 'iframe' || el.localName === 'frame') && styleVisible(el) && hasArea(el)) {
      let doc: Document | null = null;
      try {
        doc = (el as HTMLIFrameElement).contentDocument;
      } catch {
        doc = null;
      }
      if (doc?.documentElement) {
        frames.sameOrigin++;
        collectInteractive(doc, frame + 1, out, frames);
      } else {
        frames.crossOrigin++;
      }
    }
  }
}

/** What `census({ elements: true })` says about one element. */
interface CensusElement {
  kind: InteractiveKind;
  tag: string;
  /** The `role` attribute, if any. */
  role?: string;
  /** Resolved URL of a link with href. */
  href?: string;
  frame: number;
  ariaHidden: boolean;
  pointerEvents: boolean;
  /** First 60 characters of its text (or value, for inputs). */
  text: string;
}

/** What `census` returns. */
interface CensusResult {
  links: number;
  buttons: number;
  controls: number;
  /** Child frames read (same-origin, visible) and skipped (cross-origin). */
  frames: { sameOrigin: number; crossOrigin: number };
  elements?: CensusElement[];
}

const IMPLICIT_CONTROL_ROLE: Record<string, string> = {
  checkbox: 'checkbox', radio: 'radio', number: 'spinbutton', range: 'slider', search: 'searchbox', file: 'button', color: 'button',
};

/** The role the snapshot line of a supplementary ref shows: the explicit role, else the implicit one (approximation). */
function roleOf(el: Element, kind: InteractiveKind): string {
  const explicit = (el.getAttribute('role') ?? '').trim().toLowerCase().split(/\s+/)[0];
  if (explicit && explicit !== 'none' && explicit !== 'presentation') return explicit;
  if (kind !== 'control') return kind;
  if (el.localName === 'select') return (el as HTMLSelectElement).multiple || (el as HTMLSelectElement).size > 1 ? 'listbox' : 'combobox';
  if (el.localName === 'textarea') return 'textbox';
  return IMPLICIT_CONTROL_ROLE[(el.getAttribute('type') ?? '').toLowerCase()] ?? 'textbox';
}

const squash = (text: string | null | undefined, max = 100) => (text ?? '').replace(/\s+/g, ' ').trim().slice(0, max);

/** A short accessible name (approximation): aria-label, aria-labelledby, label, alt, text content, title, placeholder. */
function nameOf(el: Element): string {
  const label = squash(el.getAttribute('aria-label'));
  if (label) return label;
  const ids = (el.getAttribute('aria-labelledby') ?? '').split(/\s+/).filter(Boolean);
  const byIds = squash(ids.map(id => el.ownerDocument.getElementById(id)?.textContent ?? '').join(' '));
  if (byIds) return byIds;
  const labels = (el as HTMLInputElement).labels;
  if (labels?.length) return squash([...labels].map(l => l.textContent).join(' '));
  if (el.localName === 'input' && BUTTON_INPUT_TYPES.has(((el as HTMLInputElement).type ?? '').toLowerCase())) {
    return squash((el as HTMLInputElement).value || el.getAttribute('alt'));
  }
  const text = el.localName === 'input' || el.localName === 'select' || el.localName === 'textarea' ? '' : squash(el.textContent);
  return text || squash(el.querySelector('img[alt]')?.getAttribute('alt')) || squash(el.getAttribute('title')) || squash(el.getAttribute('placeholder'));
}

/** Supplementary refs: id -> the element to act on (see `unreffed`). */
const supplementary = new Map<string, WeakRef<Element>>();
const supplementaryIds = new WeakMap<Element, string>();
let supplementaryCount = 0;

/** One visible interactive element the AI snapshot gives no ref, as `unreffed` reports it. */
interface Unreffed {
  /** Id for `byRef` (stable per element in this document). */
  id: string;
  role: string;
  name: string;
  /** The href attribute of a link, as the snapshot shows it. */
  url?: string;
  /** Why Playwright gives it no ref. */
  reason: 'no-box' | 'no-pointer-events';
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
   * Every visible link, button and form control of this document, its open
   * shadow roots and its visible same-origin frames, as live elements with
   * their kind (for code run through `execute`, e.g. tests that check each
   * one against a snapshot). "Visible" as in `census`.
   */
  interactiveElements(): InteractiveEntry[] {
    const out: InteractiveEntry[] = [];
    collectInteractive(document, 0, out, { sameOrigin: 0, crossOrigin: 0 });
    return out;
  },
  /**
   * The visible links, buttons and controls of this document (and its open
   * shadow roots; not its frames) that Playwright's AI snapshot leaves
   * without a ref: an element whose own box is empty although its content
   * shows (an inline link around a float or an absolutely positioned box),
   * or one with `pointer-events: none`. Each gets an id that `byRef`
   * resolves; for an empty box it resolves to the first visible descendant,
   * which is what a person would click. Used by the snapshot's
   * supplementary pass (src/session/snapshot.ts).
   */
  unreffed(): Unreffed[] {
    const result: Unreffed[] = [];
    const visit = (root: Document | ShadowRoot) => {
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) visit(el.shadowRoot);
        const kind = interactiveKind(el);
        if (!kind) continue;
        // Cheap checks first: most elements have a box and receive pointer events.
        const style = styleOf(el);
        if (!style || style.display === 'contents') continue;
        const noPointer = style.pointerEvents === 'none';
        const noBox = !hasArea(el);
        if ((!noPointer && !noBox) || !isVisible(el)) continue;
        const target = noBox ? [...el.querySelectorAll('*')].find(c => hasArea(c) && styleVisible(c)) ?? el : el;
        let id = supplementaryIds.get(el);
        if (!id) {
          id = `s${++supplementaryCount}`;
          supplementaryIds.set(el, id);
        }
        supplementary.set(id, new WeakRef(target));
        const entry: Unreffed = { id, role: roleOf(el, kind), name: nameOf(el), reason: noBox ? 'no-box' : 'no-pointer-events' };
        if (kind === 'link' && el.hasAttribute('href')) entry.url = el.getAttribute('href') ?? '';
        result.push(entry);
      }
    };
    visit(document);
    return result;
  },
  /** The element of a supplementary id from `unreffed`, if it is still in the document. */
  byRef(id: string): Element | null {
    const el = supplementary.get(id)?.deref();
    return el && el.isConnected ? el : null;
  },
  /**
   * Counts the visible interactive elements: links with href (or
   * role=link), buttons (or role=button), and form controls, across open
   * shadow roots and visible same-origin frames; `frames` says how many
   * frames were read and how many were cross-origin (not counted). With
   * `elements: true`, also one descriptor per element in document order.
   * Used to measure snapshot coverage (tests, `npm run bench`).
   */
  census(opts: { elements?: boolean } = {}): CensusResult {
    const entries: InteractiveEntry[] = [];
    const frames = { sameOrigin: 0, crossOrigin: 0 };
    collectInteractive(document, 0, entries, frames);
    const count = (kind: InteractiveKind) => entries.filter(e => e.kind === kind).length;
    const result: CensusResult = { links: count('link'), buttons: count('button'), controls: count('control'), frames };
    if (opts.elements) {
      result.elements = entries.map(({ element: el, kind, frame, ariaHidden, pointerEvents }) => {
        const value = (el as HTMLInputElement).value;
        const text = (el.localName === 'input' || el.localName === 'textarea' ? String(value ?? '') : el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60);
        const d: CensusElement = { kind, tag: el.localName, frame, ariaHidden, pointerEvents, text };
        const role = el.getAttribute('role');
        if (role !== null) d.role = role;
        const href = (el as HTMLAnchorElement).href;
        if (kind === 'link' && typeof href === 'string' && href) d.href = href;
        return d;
      });
    }
    return result;
  },
});

if (!('__tabwright' in globalThis)) {
  Object.defineProperty(globalThis, '__tabwright', { value: api, enumerable: false, writable: false, configurable: false });
}
