/**
 * The `find` tool's in-page half (docs/snapshot.md, "Finding elements"):
 * one walk of the flat tree of a document, or of one element (open and
 * closed shadow roots, slots, same-origin frames through their own
 * runtimes), matching every visible element against a query by text, by
 * role and accessible name (the snapshot walker's own `roleOf` / `nameOf`,
 * so a match has the role and name a snapshot would show), or by CSS
 * selector. Criteria combine (all must hold). A text-only query matches the
 * innermost elements whose text holds the text (Playwright's `getByText`
 * rule), not each of their ancestors.
 *
 * Each match gets a snapshot id (`assignId`), whether or not the element is
 * actionable, so the server can issue a ref for it. Iframes this document
 * cannot read (cross-origin) come back as placeholders at their place in
 * document order, for the server to search with their own runtime.
 */
import { interactiveKind, isVisible } from './dom.js';
import { assignId, byId, cut, flatChildren, nameOf, nonce, roleOf, SKIP, squash } from './snapshot.js';

/** A find query (every given criterion must hold). */
export interface FindQuery {
  /** Text the element's text holds (case-insensitive), or equals with `exact`. */
  text?: string;
  /** The role a snapshot shows (`button`, `row`, `cell`, `heading`, ...). */
  role?: string;
  /** Accessible name: held (case-insensitive), or equal with `exact`. */
  name?: string;
  /** A CSS selector the element matches (within its own tree: document or shadow root). */
  selector?: string;
  /** `text` and `name` match the whole string, case-sensitively (whitespace still normalised). */
  exact?: boolean;
  /** Search this element (a snapshot id) and what is under it, instead of the document. */
  rootId?: string;
  /** Matches to describe; the rest are only counted. */
  limit: number;
}

/** One element found. */
export interface FoundElement {
  /** The element's snapshot id (the server turns it into a ref). */
  id: string;
  /** Its role as a snapshot shows it, `generic` when it has none. */
  role: string;
  name?: string;
  /** Its text (or a field's value), whitespace normalised, cut at 100 characters. */
  text?: string;
  tag: string;
  /** The snapshot id of the iframe it is in, when that frame was searched inline from here. */
  frameId?: string;
}

/** In document order: an element found, or an iframe this document could not read (cross-origin) to search from outside. */
export type FindItem = { match: FoundElement } | { frame: string };

/** What `find` returns. */
export interface FindResult {
  /** The first `limit` matches and every unreadable iframe, in document order. */
  items: FindItem[];
  /** Matches in this document and the frames searched inline from it (described or not). */
  total: number;
  /** The prefix of this document's snapshot ids. */
  nonce: string;
  /** With no match: elements that nearly match (the role without the name or text, a word of the text), at most 8. */
  near?: FoundElement[];
  /** With no element of the role asked for: the roles present and how many elements have each, most first (at most 12). */
  roles?: Array<[role: string, count: number]>;
  /** Elements that match but are hidden (`display: none` and the like): counted for a selector query only. */
  hidden?: number;
  /** The root id no longer names an element of this document. */
  gone?: boolean;
  /** The selector does not parse. */
  badSelector?: string;
}

const NEAR_MAX = 8;
const TEXT_MAX = 100;
/** Block-level elements separate their text from their neighbours' (as in the snapshot's text lines). */
const INLINE = /^(inline|contents)/;

interface Hit {
  el: Element;
  seq: number;
  frameId?: string;
}

interface Walk {
  q: FindQuery;
  needle?: string;
  name?: string;
  role?: string;
  seq: number;
  hits: Hit[];
  /** Results of inline (same-origin) frames and placeholders of unreadable ones, at their position. */
  frames: Array<{ seq: number; id: string; result?: FindResult }>;
  /** Near matches kept while walking (the role alone, a word of the text). */
  near: Hit[];
  nearWord?: string;
  roles: Map<string, number>;
  hidden: number;
}

const norm = (text: string, exact: boolean | undefined) => (exact ? squash(text) : squash(text).toLowerCase());

function holds(value: string, wanted: string, exact: boolean | undefined): boolean {
  return exact ? value === wanted : value.includes(wanted);
}

/** The text a person reads in a field: its value (a password as dots), else its text. */
function shownText(el: Element): string {
  const tag = el.localName;
  if (tag === 'input' || tag === 'textarea') {
    const input = el as HTMLInputElement;
    if (input.type === 'password') return input.value ? '•'.repeat(Math.min(input.value.length, 8)) : '';
    return input.value ?? '';
  }
  if (tag === 'select') return [...(el as HTMLSelectElement).selectedOptions].map(o => o.label || o.text).join(', ');
  return '';
}

/** The role of an element as the snapshot writes it ('' for a wrapper). */
function roleFor(el: Element): string {
  return roleOf(el, interactiveKind(el));
}

/** Describes a hit for the server. */
function describeHit(hit: Hit): FoundElement {
  const el = hit.el;
  const role = roleFor(el) || 'generic';
  const found: FoundElement = { id: assignId(el), role, tag: el.localName };
  const name = nameOf(el, role);
  if (name) found.name = cut(name, TEXT_MAX);
  const text = squash(shownText(el) || textOfElement(el));
  if (text && text !== name) found.text = cut(text, TEXT_MAX);
  if (hit.frameId) found.frameId = hit.frameId;
  return found;
}

/** The flat-tree text of an element (text nodes, no scripts or hidden subtrees), for a description. */
function textOfElement(el: Element): string {
  let out = '';
  const visit = (node: Node) => {
    if (out.length > 400) return;
    if (node.nodeType === 3) {
      out += (node as Text).data;
      return;
    }
    if (node.nodeType !== 1) return;
    const e = node as Element;
    if (SKIP.has(e.localName)) return;
    const kids = flatChildren(e);
    for (let i = 0; i < kids.length; i++) visit(kids[i]!);
    out += ' ';
  };
  const kids = flatChildren(el);
  for (let i = 0; i < kids.length; i++) visit(kids[i]!);
  return out;
}

/** Whether `el` passes the criteria other than text (role, name, selector). */
function passes(el: Element, w: Walk, role: string): boolean {
  if (w.role !== undefined && role !== w.role) return false;
  if (w.name !== undefined && (!role || !holds(norm(nameOf(el, role), w.q.exact), w.name, w.q.exact))) return false;
  if (w.q.selector !== undefined && !el.matches(w.q.selector)) return false;
  return true;
}

interface Walked {
  /** The element's text (not yet normalised), when the query has a text criterion. */
  text: string;
  /** The element or a descendant matched the text (the innermost rule). */
  textHit: boolean;
  /** The element or a descendant is a near match (the innermost rule again). */
  nearHit: boolean;
  inline: boolean;
}

const NONE: Walked = { text: '', textHit: false, nearHit: false, inline: true };

/** Walks `el` in post-order: its descendants' hits are found before its own. */
function walkEl(el: Element, w: Walk): Walked {
  if (SKIP.has(el.localName)) return NONE;
  const style = getComputedStyle(el);
  if (style.display === 'none') {
    if (w.q.selector !== undefined) w.hidden += (el.matches(w.q.selector) ? 1 : 0) + el.querySelectorAll(w.q.selector).length;
    return NONE;
  }
  const seq = w.seq++;
  const hitAt = w.hits.length;
  const nearAt = w.near.length;
  const tag = el.localName;
  const role = w.role !== undefined || w.name !== undefined ? roleFor(el) : '';
  if (w.role !== undefined && role) w.roles.set(role, (w.roles.get(role) ?? 0) + 1);
  let text = '';
  let childHit = false;
  let childNear = false;
  if (tag === 'iframe' || tag === 'frame') {
    const id = assignId(el);
    let sub: FindResult | undefined;
    try {
      const rt = ((el as HTMLIFrameElement).contentWindow as unknown as { __tabwright?: { find?: (q: FindQuery) => FindResult } } | null)?.__tabwright;
      if (rt?.find) sub = rt.find({ ...w.q, rootId: undefined });
    } catch {
      sub = undefined; // cross-origin
    }
    w.frames.push({ seq, id, result: sub });
  } else {
    const kids = flatChildren(el);
    for (let i = 0; i < kids.length; i++) {
      const kid = kids[i]!;
      if (kid.nodeType === 3) {
        if (w.needle !== undefined) text += (kid as Text).data;
      } else if (kid.nodeType === 1) {
        const r = walkEl(kid as Element, w);
        if (w.needle !== undefined) text += r.inline ? r.text : ` ${r.text} `;
        if (r.textHit) childHit = true;
        if (r.nearHit) childNear = true;
      }
    }
  }
  const inline = INLINE.test(style.display);
  const own = shownText(el);
  const full = own ? `${text} ${own}` : text;
  let textMatch = true;
  let lower = '';
  if (w.needle !== undefined) {
    const normalised = squash(full);
    lower = normalised.toLowerCase();
    textMatch = holds(w.q.exact ? normalised : lower, w.needle, w.q.exact);
  }
  const textOnly = w.role === undefined && w.name === undefined && w.q.selector === undefined;
  const visible = () => isVisible(el);
  let hit = false;
  if (textMatch && !(textOnly && childHit) && passes(el, w, role) && visible()) {
    hit = true;
    // Descendants' hits were pushed first (post-order): insert before them to keep document order.
    w.hits.splice(hitAt, 0, { el, seq });
  }
  let near = false;
  if (!hit && !(childNear && w.role === undefined) && isNear(el, w, role, lower) && visible()) {
    near = true;
    w.near.splice(nearAt, 0, { el, seq });
  }
  return { text: full, textHit: childHit || hit, nearHit: near || childNear, inline };
}

/** Whether an element that does not match nearly does: the role asked for, or the longest word of the text or name. */
function isNear(el: Element, w: Walk, role: string, lowerText: string): boolean {
  if (w.near.length >= NEAR_MAX * 4) return false;
  if (w.role !== undefined) return role === w.role && w.q.selector === undefined;
  const word = w.nearWord;
  if (!word) return false;
  if (w.needle !== undefined) return lowerText.includes(word);
  return !!role && nameOf(el, role).toLowerCase().includes(word);
}

/** The longest word of a query (3 characters or more), lower-cased: what a near match must hold. */
function longestWord(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const words = squash(text).toLowerCase().split(/[\s,.;:!?()"']+/).filter(x => x.length >= 3);
  return words.sort((a, b) => b.length - a.length)[0];
}

/** Finds the elements of this document (or of `rootId`'s element) that match `q`. */
export function find(q: FindQuery): FindResult {
  if (q.selector !== undefined) {
    try {
      document.createDocumentFragment().querySelector(q.selector);
    } catch (error) {
      return { items: [], total: 0, nonce, badSelector: error instanceof Error ? error.message : String(error) };
    }
  }
  const w: Walk = {
    q,
    needle: q.text !== undefined ? norm(q.text, q.exact) : undefined,
    name: q.name !== undefined ? norm(q.name, q.exact) : undefined,
    role: q.role !== undefined ? q.role.trim().toLowerCase() : undefined,
    seq: 0,
    hits: [],
    frames: [],
    near: [],
    nearWord: q.exact ? undefined : longestWord(q.text ?? q.name),
    roles: new Map(),
    hidden: 0,
  };
  // With exact: a near match holds the text (or name) in any case.
  if (q.exact && (q.text ?? q.name)) w.nearWord = squash(q.text ?? q.name).toLowerCase();
  let root: Element | null;
  if (q.rootId) {
    root = byId(q.rootId);
    if (!root) return { items: [], total: 0, nonce, gone: true };
  } else root = document.body ?? document.documentElement;
  if (root) walkEl(root, w);
  return collect(w);
}

/** Merges this document's hits with its frames' results, in document order, the first `limit` described. */
function collect(w: Walk): FindResult {
  const limit = w.q.limit;
  const entries: Array<{ seq: number; hit?: Hit; frame?: { id: string; result?: FindResult } }> = [
    ...w.hits.map(hit => ({ seq: hit.seq, hit })),
    ...w.frames.map(f => ({ seq: f.seq, frame: f })),
  ].sort((a, b) => a.seq - b.seq);
  const items: FindItem[] = [];
  let total = 0;
  let described = 0;
  let hidden = w.hidden;
  const near: FoundElement[] = [];
  for (const e of entries) {
    if (e.hit) {
      total++;
      if (described < limit) {
        items.push({ match: describeHit(e.hit) });
        described++;
      }
      continue;
    }
    const f = e.frame!;
    if (!f.result) {
      items.push({ frame: f.id });
      continue;
    }
    // A same-origin frame searched inline: its items stand at the iframe's place.
    total += f.result.total;
    hidden += f.result.hidden ?? 0;
    for (const item of f.result.items) {
      if ('frame' in item) items.push(item);
      else if (described < limit) {
        items.push({ match: { ...item.match, frameId: item.match.frameId ?? f.id } });
        described++;
      }
    }
    for (const n of f.result.near ?? []) near.push({ ...n, frameId: n.frameId ?? f.id });
  }
  const result: FindResult = { items, total, nonce };
  if (hidden) result.hidden = hidden;
  if (total === 0) {
    const own = w.near.sort((a, b) => a.seq - b.seq).slice(0, NEAR_MAX).map(describeHit);
    const all = [...own, ...near].slice(0, NEAR_MAX);
    if (all.length) result.near = all;
    if (w.role !== undefined && !w.roles.has(w.role) && w.roles.size) {
      result.roles = [...w.roles].sort((a, b) => b[1] - a[1]).slice(0, 12);
    }
  }
  return result;
}

