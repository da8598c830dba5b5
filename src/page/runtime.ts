/**
 * The in-page runtime: bundled by esbuild into dist/page/runtime.js and
 * added with `context.addInitScript`, so it runs at document start in every
 * frame of every page the session owns, before page scripts; documents that
 * existed before (a persistent profile's first tab, a browser attached over
 * CDP) get it injected on first use. No Node imports here.
 *
 * `globalThis.__tabwright` is a non-writable, non-configurable global that
 * page scripts cannot replace, defined once per window. It holds the
 * `execute` harness (runs the code, serialises the value with DOM nodes
 * described and cycles marked, and measures its UTF-8 size against
 * `maxBytes` in the page, so an oversized value never crosses the wire),
 * the snapshot walker and ref lookup (./snapshot.ts; docs/snapshot.md), `find`
 * (./find.ts), the cookie consent banner scan (./consentBanners.ts), the hit test and input helpers of the element tools (./actions.ts), the action
 * descriptions (./describe.ts), closed shadow roots (./shadow.ts), `add_element` (./addElement.ts),
 * `census()` (the count of visible links, buttons and controls that
 * snapshot coverage is measured against), and `webmcp`, the bridge of the
 * WebMCP polyfill it installs per the `--webmcp` mode (./webmcp.ts;
 * docs/webmcp.md). The userscript engine and its GM_* API are a bundle of
 * their own (src/userscripts/gmPage.ts), and so is the element picker's
 * overlay (./picker.ts), which runs in an isolated world, not here.
 */

/** What `run` (the `execute` tool, src/tools/execute.ts) resolves to: the value as JSON, or why there is none. */
export interface RunResult {
  ok: boolean;
  /** JSON text of the value (ok). */
  json?: string;
  /** UTF-8 size of `json` in bytes. */
  bytes?: number;
  /** Size in bytes of a result over the cap (not ok; with `truncate`, ok and the full size). */
  tooLarge?: number;
  /** With `truncate`, a result over the cap: where it was cut (`json` is its first `maxBytes`). */
  cuts?: JsonCut[];
  /** The page's own error (not ok). */
  error?: { name: string; message: string };
  /** The code's value was `undefined` (`json` is `null`): a function body without `return`, or an expression of nothing. */
  undefined?: true;
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
  const json = stringify(value, function (_key, v: unknown) {
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

import { stringify } from './natives.js';
import { hasArea, insideAriaHidden, interactiveKind, isVisible, styleOf, styleVisible, type InteractiveEntry, type InteractiveKind } from './dom.js';
import { adoptClosedRoot, recordClosedRoots, shadowRootOf, takeCandidates } from './shadow.js';
import { byId, idOf, nonce, snapshot } from './snapshot.js';
import { countPointerInput, dispatchClick, fieldState, focusEditable, hitTest, pointerInputSeen } from './actions.js';
import { ancestorId, describe, focused } from './describe.js';
import { directClickPoint, directFill } from './directActions.js';
import { find } from './find.js';
import { scanConsentBanner } from './consentBanners.js';
import { text } from './text.js';
import { truncateJson, type JsonCut } from './truncateJson.js';
import { addElement, addElementAt } from './addElement.js';
import { installWebMcp, type WebMcpMode } from './webmcp.js';

/**
 * The `--webmcp` mode, defined by the scope the server wraps the bundle in
 * (src/webmcp/runtimeScript.ts): in the init script and in every late
 * injection alike (Session.injectRuntime). `auto` for the bare bundle.
 */
declare const __TABWRIGHT_WEBMCP__: WebMcpMode | undefined;
const webmcpMode: WebMcpMode = typeof __TABWRIGHT_WEBMCP__ === 'string' ? __TABWRIGHT_WEBMCP__ : 'auto';

/**
 * Every visible link, button and form control of a document, its shadow
 * roots (open, and closed ones the runtime recorded) and its visible same-origin frames (recursively), in
 * document order (a shadow tree right after its host). Cross-origin frames
 * cannot be read from the page; they are only counted.
 */
function collectInteractive(root: Document | ShadowRoot, frame: number, out: InteractiveEntry[], frames: { sameOrigin: number; crossOrigin: number }): void {
  for (const el of root.querySelectorAll('*')) {
    const kind = interactiveKind(el);
    if (kind && isVisible(el)) {
      out.push({ element: el, kind, frame, ariaHidden: insideAriaHidden(el), pointerEvents: styleOf(el)?.pointerEvents !== 'none' });
    }
    const shadow = shadowRootOf(el);
    if (shadow) collectInteractive(shadow, frame, out, frames);
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

/** Builds the runtime's API; `webmcp` is the polyfill bridge (./webmcp.ts), installed once per document. */
const makeApi = (webmcp: ReturnType<typeof installWebMcp>) => Object.freeze({
  version: 1,
  /** The WebMCP polyfill's server bridge: state, list, call, abort. */
  webmcp,
  /**
   * Runs `fn` and returns its value as JSON, capped at `maxBytes`
   * (`execute`): over it, `tooLarge`, and with `truncate` also the first
   * `maxBytes` as valid JSON and its cuts (./truncateJson.ts). Page
   * exceptions come back as `error`.
   */
  async run(fn: () => unknown, maxBytes: number, truncate = false): Promise<RunResult> {
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
    if (bytes > maxBytes) {
      if (!truncate) return { ok: false, tooLarge: bytes };
      const cut = truncateJson(json, maxBytes);
      return { ok: true, json: cut.json, bytes: cut.bytes, tooLarge: bytes, cuts: cut.cuts };
    }
    return value === undefined ? { ok: true, json, bytes, undefined: true } : { ok: true, json, bytes };
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
   * The compact snapshot of this document, or of one element of it
   * (src/page/snapshot.ts; the format is docs/snapshot.md). Refs come back
   * as `[ref=@ID]` placeholders the server turns into process-unique refs.
   */
  snapshot,
  /**
   * The elements of this document (or of one element) that match a query by
   * text, role and name, or CSS selector (the `find` tool, ./find.ts), with
   * ids the server turns into refs.
   */
  find,
  /**
   * The cookie / privacy consent banner of this document, if any: its CMP,
   * the reject or necessary-only control to click, its buttons
   * (./consentBanners.ts; `dismiss_consent_banner`).
   */
  consentBanner: scanConsentBanner,
  /** The visible text of this document or of one element (the `get_text` tool, ./text.ts). */
  text,
  /** The element of a snapshot id, if it is still in the document (the `tabwright-ref` selector engine). */
  byRef: byId,
  /** The snapshot id of an element, if it has one (used to find an iframe's node). */
  idOf,
  /** The prefix of this document's snapshot ids (finds the frame of a ref). */
  nonce,
  /** Custom elements the walker listed as possible closed-root hosts, for the server's CDP probe (src/page/shadow.ts). */
  takeCandidates,
  /** Records a closed shadow root the server found through CDP, so the walker walks it. */
  adoptClosedRoot,
  /** Input-tool helpers (src/page/actions.ts): hit test, forced click, text field state, editable focus. */
  hitTest,
  dispatchClick,
  fieldState,
  focusEditable,
  /**
   * Direct element actions on relayed connections (./directActions.ts, src/tools/directInput.ts): by snapshot id,
   * the point a trusted click goes to, or the text field made ready for inserted text; `gone` when the id names
   * no element any more.
   */
  directClick: (id: string) => {
    const el = byId(id);
    return el ? directClickPoint(el) : { status: 'gone' as const };
  },
  directFill: (id: string) => {
    const el = byId(id);
    return el ? directFill(el) : { status: 'gone' as const };
  },
  /** The state of the text field of a snapshot id (null when gone): read back after a direct fill. */
  fieldStateOf: (id: string) => {
    const el = byId(id);
    return el ? fieldState(el) : null;
  },
  /** Trusted pointer events that reached this document (src/tools/pointerDelivery.ts). */
  pointerInputSeen,
  /**
   * Action reports (src/page/describe.ts): role, name and nearest container
   * of an element; the focused element with its id; the id of a snapshot
   * line's element found from a descendant's id.
   */
  describe,
  describeRef: (id: string) => {
    const el = byId(id);
    return el ? describe(el) : null;
  },
  focused,
  ancestorId,
  /** `add_element` (./addElement.ts): under an element, or under a selector's match in this document. */
  addElement,
  addElementAt,
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
  recordClosedRoots();
  countPointerInput();
  Object.defineProperty(globalThis, '__tabwright', { value: makeApi(installWebMcp(webmcpMode)), enumerable: false, writable: false, configurable: false });
}
