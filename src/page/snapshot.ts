/**
 * The compact snapshot walker (docs/snapshot.md): one pass over the flat
 * tree of a document (open shadow roots and slots included), computing an
 * approximate ARIA role and accessible name per element, giving every
 * actionable element an id the server turns into a ref, and writing the
 * `- role "name" [ref=eN]` lines the agent reads. It drops what an agent
 * does not act on (wrappers without a role, URLs unless asked for, pointer
 * hints) and summarises long runs of siblings with a paging instruction.
 *
 * Ids (`<nonce>_<n>`) are kept per element for the life of the document, so
 * the same element gets the same ref in every snapshot; the nonce makes an
 * id of one document unknown to any other (a frame that navigated).
 * Refs appear in the output as `\u0001id\u0001` placeholders.
 */
import { stringify } from './natives.js';
import { BUTTON_INPUT_TYPES, hasArea, interactiveKind, isVisible, styleVisible, type InteractiveKind } from './dom.js';
import { noteCandidate, pendingCandidates, shadowRootOf } from './shadow.js';

export interface SnapshotOptions {
  /** Snapshot this element (an id from an earlier snapshot) instead of the document. */
  rootId?: string;
  /** Snapshot this element (a selector match) instead of the document. */
  root?: Element;
  /** Skip the first `offset` children of the root (paging through a long container). */
  offset?: number;
  /** Children shown per container before the rest is summarised (default 50). */
  limit?: number;
  /** Show each link's href (`- /url: ...` under the link). */
  urls?: boolean;
  /** Longest text line before it is cut with a marker; 0 for no cut (default 0). */
  maxText?: number;
  /**
   * Characters the walk may write (an estimate of the output, counted while
   * walking); past it the walk stops and every open container ends with a
   * paging line that says where to continue. Default: no budget.
   */
  budget?: number;
  /**
   * How much to write (docs/snapshot.md, "Levels"): `full` (default) every line; `interactive` only
   * actionable elements, headings and landmarks (no text lines, no row texts); `summary` only headings
   * and landmarks (landmarks with refs), every actionable element counted in `counts` instead.
   */
  level?: SnapshotLevel;
}

/** How much a snapshot writes: see SnapshotOptions.level. */
export type SnapshotLevel = 'summary' | 'interactive' | 'full';

/** What a `summary` walk counted (this document and its same-origin frames walked inline). */
export interface ElementCounts {
  /** Actionable elements with role link. */
  links: number;
  /** Actionable elements with role button. */
  buttons: number;
  /** Form fields: text boxes, selects, checkboxes, radios, sliders, spin buttons, switches. */
  fields: number;
  /** Other actionable elements (tabs, menu items, clickable wrappers). */
  other: number;
  /** `<form>` elements and role=form (rendered). */
  forms: number;
}

export interface SnapshotResult {
  lines: string[];
  /** Ids of the iframe nodes in `lines` whose documents could not be read from here (cross-origin): the server splices them in. */
  frames: string[];
  /** The nonce of this document's ids. */
  nonce: string;
  /** The root id no longer names an element of this document. */
  gone?: boolean;
  /** Custom elements (this document and its same-origin frames) that may hide a closed shadow root, for the server to ask CDP about (src/page/shadow.ts). */
  candidates?: number;
  /** The walk stopped at its budget (the lines end in paging lines saying where to continue). */
  cut?: boolean;
  /** Budget left after the walk (characters; Infinity without a budget). */
  budgetLeft?: number;
  /** With level `summary`: the elements counted instead of written. */
  counts?: ElementCounts;
}

const MARK = '\u0001';
/** This document's part of every id: ids of another document (a frame that navigated) never match here. */
export const nonce = Math.random().toString(36).slice(2, 8).padEnd(6, '0');
let counter = 0;
const ids = new WeakMap<Element, string>();
const elements = new Map<string, WeakRef<Element>>();
/** What to act on for an element whose own box is empty (a link around a float): its first visible descendant. */
const targets = new Map<string, WeakRef<Element>>();

/** The id of an element (issued on first use, kept for the life of the document). */
export function assignId(el: Element): string {
  let id = ids.get(el);
  if (!id) {
    id = `${nonce}_${++counter}`;
    ids.set(el, id);
    elements.set(id, new WeakRef(el));
  }
  return id;
}

/** The element of an id (for actions: the visible descendant of an empty-box element). */
export function byId(id: string): Element | null {
  const el = (targets.get(id) ?? elements.get(id))?.deref();
  return el && el.isConnected ? el : null;
}

export function idOf(el: Element): string | null {
  return ids.get(el) ?? null;
}

export const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'base', 'datalist', 'option', 'optgroup', 'param', 'source', 'track', 'map']);
export const INTERACTIVE_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem', 'gridcell']);
/** Roles written as nodes when not actionable; everything else is a wrapper and is collapsed. */
const STRUCTURAL = new Set(['heading', 'list', 'listitem', 'table', 'grid', 'treegrid', 'row', 'navigation', 'main', 'banner', 'contentinfo', 'complementary',
  'form', 'region', 'dialog', 'alertdialog', 'search', 'group', 'img', 'tablist', 'tabpanel', 'menu', 'menubar', 'toolbar', 'tree', 'listbox', 'radiogroup', 'alert', 'status']);
/** Roles whose accessible name comes from their content (their text is not repeated under them). */
const NAME_FROM_CONTENT = new Set(['button', 'link', 'heading', 'cell', 'columnheader', 'rowheader', 'gridcell', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
  'tab', 'treeitem', 'checkbox', 'radio', 'switch', 'tooltip']);
export const NAMED_ONLY = new Set(['form', 'region', 'group', 'img']);
const CHECKABLE = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
const VALUED = new Set(['textbox', 'searchbox', 'spinbutton', 'slider', 'combobox', 'listbox']);
const INTERACTIVE_SELECTOR = 'a[href],area[href],button,input,select,textarea,[role],[tabindex],[contenteditable],[onclick]';
const IMPLICIT_INPUT_ROLE: Record<string, string> = {
  checkbox: 'checkbox', radio: 'radio', number: 'spinbutton', range: 'slider', search: 'searchbox', file: 'button', color: 'button',
};

export const squash = (text: string | null | undefined) => (text ?? '').replace(/[\s\u0000-\u001f]+/g, ' ').trim();
export const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function explicitRole(el: Element): string {
  const attr = el.getAttribute('role');
  if (!attr) return '';
  for (const token of attr.trim().toLowerCase().split(/\s+/)) {
    if (/^[a-z]+$/.test(token) && token !== 'none' && token !== 'presentation' && token !== 'generic') return token;
  }
  return '';
}

function controlRole(el: Element): string {
  if (el.localName === 'select') return (el as HTMLSelectElement).multiple || (el as HTMLSelectElement).size > 1 ? 'listbox' : 'combobox';
  if (el.localName === 'textarea') return 'textbox';
  const type = (el.getAttribute('type') ?? '').toLowerCase();
  if (BUTTON_INPUT_TYPES.has(type)) return 'button';
  return IMPLICIT_INPUT_ROLE[type] ?? 'textbox';
}

function landmarkScoped(el: Element): boolean {
  return !el.parentElement?.closest('article,aside,main,nav,section');
}

/** The role the snapshot gives an element: explicit (first valid token), else implicit (HTML-AAM, common elements); '' for a wrapper. */
export function roleOf(el: Element, kind: InteractiveKind | null): string {
  const explicit = explicitRole(el);
  if (explicit) return explicit;
  if (kind === 'link') return 'link';
  if (kind === 'button') return el.localName === 'input' ? controlRole(el) : 'button';
  if (kind === 'control') return controlRole(el);
  switch (el.localName) {
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
    case 'ul': case 'ol': case 'menu': return 'list';
    case 'li': return 'listitem';
    case 'table': return 'table';
    case 'tr': return 'row';
    case 'td': return 'cell';
    case 'thead': case 'tbody': case 'tfoot': return 'rowgroup';
    case 'th': return 'columnheader';
    case 'nav': return 'navigation';
    case 'main': return 'main';
    case 'aside': return 'complementary';
    case 'header': return landmarkScoped(el) ? 'banner' : '';
    case 'footer': return landmarkScoped(el) ? 'contentinfo' : '';
    case 'form': return 'form';
    case 'section': return 'region';
    case 'dialog': return 'dialog';
    case 'search': return 'search';
    case 'fieldset': return 'group';
    case 'img': return 'img';
    case 'summary': return 'button';
    case 'iframe': case 'frame': return 'iframe';
    default: return '';
  }
}

/** Text of a subtree for a name: text nodes, aria-label and alt of elements, no form controls or scripts. */
function textOf(node: Node, max = 200): string {
  let out = '';
  const visit = (n: Node) => {
    if (out.length > max) return;
    if (n.nodeType === 3) {
      out += (n as Text).data;
      return;
    }
    if (n.nodeType !== 1) return;
    const el = n as Element;
    const tag = el.localName;
    if (SKIP.has(tag) || tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'svg') {
      const label = el.getAttribute('aria-label');
      if (label && tag === 'svg') out += ` ${label} `;
      return;
    }
    if (el.getAttribute('aria-hidden') === 'true') return;
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) {
      out += ` ${label} `;
      return;
    }
    if (tag === 'img') {
      out += ` ${el.getAttribute('alt') ?? ''} `;
      return;
    }
    const block = tag === 'br' || tag === 'p' || tag === 'div' || tag === 'li';
    if (block) out += ' ';
    const kids = flatChildren(el);
    for (let i = 0; i < kids.length; i++) visit(kids[i]!);
    if (block) out += ' ';
  };
  if (node.nodeType === 1) {
    const kids = flatChildren(node as Element);
    for (let i = 0; i < kids.length; i++) visit(kids[i]!);
  } else visit(node);
  return squash(out);
}

/** An approximation of the accessible name (aria-labelledby, aria-label, labels, alt, content, title, placeholder). */
export function nameOf(el: Element, role: string): string {
  const labelledBy = el.getAttribute('aria-labelledby');
  if (labelledBy) {
    const root = el.getRootNode() as Document | ShadowRoot;
    const text = squash(labelledBy.split(/\s+/).map(id => {
      const target = root.getElementById?.(id) ?? el.ownerDocument.getElementById(id);
      return target ? textOf(target) || squash(target.getAttribute('aria-label')) : '';
    }).join(' '));
    if (text) return text;
  }
  const label = squash(el.getAttribute('aria-label'));
  if (label) return label;
  const tag = el.localName;
  if (tag === 'input' || tag === 'select' || tag === 'textarea') {
    const type = (el.getAttribute('type') ?? '').toLowerCase();
    if (tag === 'input' && BUTTON_INPUT_TYPES.has(type)) {
      const value = squash((el as HTMLInputElement).getAttribute('value'));
      if (type === 'image') return squash(el.getAttribute('alt')) || value || 'Submit';
      return value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
    }
    const labels = (el as HTMLInputElement).labels;
    if (labels?.length) {
      const text = squash([...labels].map(l => textOf(l)).join(' '));
      if (text) return text;
    }
    return squash(el.getAttribute('title')) || squash(el.getAttribute('placeholder'));
  }
  if (tag === 'img' || tag === 'area') return squash(el.getAttribute('alt')) || squash(el.getAttribute('title'));
  if (tag === 'fieldset') {
    const legend = el.querySelector(':scope > legend');
    if (legend) return textOf(legend);
  }
  if (NAME_FROM_CONTENT.has(role)) {
    const text = textOf(el);
    if (text) return text;
  }
  return squash(el.getAttribute('title'));
}

function states(el: Element, role: string): string {
  let s = '';
  if (CHECKABLE.has(role)) {
    const input = el as HTMLInputElement;
    const aria = el.getAttribute('aria-checked');
    if (el.localName === 'input' && (input.type === 'checkbox' || input.type === 'radio')) {
      if (input.indeterminate) s += ' [checked=mixed]';
      else if (input.checked) s += ' [checked]';
    } else if (aria === 'true') s += ' [checked]';
    else if (aria === 'mixed') s += ' [checked=mixed]';
  }
  if ((el as HTMLButtonElement).disabled || el.getAttribute('aria-disabled') === 'true') s += ' [disabled]';
  const expanded = el.getAttribute('aria-expanded');
  if (expanded === 'true') s += ' [expanded]';
  else if (expanded === 'false') s += ' [expanded=false]';
  else if (el.localName === 'summary' && el.parentElement?.localName === 'details') s += (el.parentElement as HTMLDetailsElement).open ? ' [expanded]' : ' [expanded=false]';
  if (el.getAttribute('aria-selected') === 'true') s += ' [selected]';
  if (el.getAttribute('aria-pressed') === 'true') s += ' [pressed]';
  if ((el as HTMLInputElement).required) s += ' [required]';
  return s;
}

/** The value shown after the colon of a control's line, and for selects a line listing the options. */
function valueOf(el: Element, role: string): { value?: string; options?: string } {
  const tag = el.localName;
  if (tag === 'select') {
    const select = el as HTMLSelectElement;
    const opts = [...select.options];
    const chosen = opts.filter(o => o.selected).map(o => squash(o.label || o.text));
    const names = opts.slice(0, 25).map(o => cut(squash(o.label || o.text), 40));
    return { value: chosen.join(', ') || undefined, options: `options: ${names.join(' | ')}${opts.length > 25 ? ` | …+${opts.length - 25}` : ''}` };
  }
  if (!VALUED.has(role)) return {};
  if (tag === 'input' || tag === 'textarea') {
    const input = el as HTMLInputElement;
    if (!input.value) return {};
    if (input.type === 'password') return { value: '•'.repeat(Math.min(input.value.length, 8)) };
    return { value: cut(squash(input.value), 200) };
  }
  const now = el.getAttribute('aria-valuetext') ?? el.getAttribute('aria-valuenow');
  if (now) return { value: cut(squash(now), 100) };
  if ((el as HTMLElement).isContentEditable) return { value: cut(squash(el.textContent), 200) || undefined };
  return {};
}

/** Children in the flat tree: a shadow root's children (open or recorded closed) for a host, assigned nodes for a slot. */
export function flatChildren(el: Element): ArrayLike<Node> {
  const root = shadowRootOf(el);
  if (root) return root.childNodes;
  if (el.localName === 'slot') {
    const assigned = (el as HTMLSlotElement).assignedNodes();
    if (assigned.length) return assigned;
  }
  return el.childNodes;
}

interface SnapNode {
  role: string;
  name?: string;
  id?: string;
  attrs?: string;
  value?: string;
  /** Extra text lines right under the node (select options, link URL). */
  notes?: string[];
  /** Lines already written (a same-origin frame's snapshot), indented under the node. */
  pre?: string[];
  kids: Item[];
  /** The paging line for a summarised container. */
  more?: string;
}

const BREAK = 0;
type Item = SnapNode | string | typeof BREAK;

interface Ctx {
  limit: number;
  maxText: number;
  urls: boolean;
  frames: string[];
  /** Closed-root candidates of same-origin frames walked inline (src/page/shadow.ts). */
  candidates: number;
  /** Inside a node named from its content, or an aria-hidden subtree: only actionable nodes are written. */
  quiet: boolean;
  /** The element whose children start at `offset` (the root of a paged snapshot). */
  pagedEl?: Element;
  offset: number;
  /** Shared by every level of one walk: characters left, and whether the walk stopped at the budget. */
  budget: Budget;
  level: SnapshotLevel;
  /** Shared by one walk (level summary). */
  counts: ElementCounts;
}

interface Budget {
  left: number;
  cut: boolean;
}

/** Shown children `[from, to)` of `total` countable ones; `cut` when the budget, not the limit, stopped the walk. */
type Paging = [from: number, to: number, total: number, cut?: boolean];

/** Estimated characters a node's line costs (role, name, ref, value, indentation). */
function cost(node: SnapNode): number {
  // A row's value is its cells' text, already counted as the cells were walked.
  const value = node.role === 'row' ? 0 : (node.value?.length ?? 0);
  return 20 + (node.id ? 12 : 0) + (node.name?.length ?? 0) + value + (node.notes?.reduce((n, l) => n + l.length, 0) ?? 0);
}

function isCountable(n: Node): boolean {
  return n.nodeType === 1 ? !SKIP.has((n as Element).localName) : n.nodeType === 3 && /\S/.test((n as Text).data);
}

/**
 * Walks the children of `el` into `out`; past `ctx.limit` countable
 * children (elements and non-blank texts) only counts them, and once the
 * budget is spent it stops. Returns `[shown from, shown to, total, cut]`
 * when it summarised or stopped, else null. A child the budget ran out in
 * is not counted as shown, so the continuation starts with it.
 */
function walkChildren(el: Element, out: Item[], ctx: Ctx): Paging | null {
  const kids = flatChildren(el);
  const offset = el === ctx.pagedEl ? ctx.offset : 0;
  const budget = ctx.budget;
  if (kids.length <= ctx.limit && offset === 0) {
    let shown = 0;
    for (let i = 0; i < kids.length; i++) {
      const kid = kids[i]!;
      if (!isCountable(kid)) {
        walkNode(kid, out, ctx);
        continue;
      }
      if (budget.left <= 0) return stopped(kids, 0, shown, budget);
      const wasCut = budget.cut;
      walkNode(kid, out, ctx);
      if (budget.cut && !wasCut) return stopped(kids, 0, shown, budget);
      shown++;
    }
    return null;
  }
  const countable: Node[] = [];
  for (let i = 0; i < kids.length; i++) if (isCountable(kids[i]!)) countable.push(kids[i]!);
  const all = (countable.length <= ctx.limit && offset === 0) || ctx.quiet;
  const end = all ? countable.length : Math.min(countable.length, offset + ctx.limit);
  const from = all ? 0 : offset;
  for (let i = from; i < end; i++) {
    if (budget.left <= 0) return [from, i, countable.length, (budget.cut = true)];
    const wasCut = budget.cut;
    walkNode(countable[i]!, out, ctx);
    if (budget.cut && !wasCut) return [from, i, countable.length, true];
  }
  return all ? null : [from, end, countable.length];
}

/** The paging of a container whose walk stopped at the budget after `shown` countable children. */
function stopped(kids: ArrayLike<Node>, from: number, shown: number, budget: Budget): Paging {
  budget.cut = true;
  let total = 0;
  for (let i = 0; i < kids.length; i++) if (isCountable(kids[i]!)) total++;
  return [from, from + shown, total, true];
}

function moreLine(id: string, [from, to, total, cut]: Paging, limit: number, level: SnapshotLevel = 'full'): string | undefined {
  const lv = level === 'full' ? '' : `, level: "${level}"`;
  const ref = `get_page_context {ref: "${MARK}${id}${MARK}", offset: ${to}${lv}}`;
  if (cut) return `… snapshot budget reached${to > from ? ` after item ${to} of ${total}` : ` in item ${to + 1} of ${total}`}; continue: ${ref}`;
  if (from === 0 && to >= total) return undefined;
  const shown = to > from ? `items ${from + 1}–${to} of ${total} shown` : `${total} items, none past ${from}`;
  if (to >= total) return `… ${shown}; this is the end (earlier ones: get_page_context {ref: "${MARK}${id}${MARK}", offset: ${Math.max(0, from - limit)}${lv}})`;
  return `… ${shown}; ${total - to} more: ${ref}`;
}

function walkNode(n: Node, out: Item[], ctx: Ctx): void {
  if (n.nodeType === 3) {
    if (!ctx.quiet && ctx.level === 'full') {
      const data = (n as Text).data;
      out.push(data);
      if (isCountable(n)) ctx.budget.left -= ctx.maxText ? Math.min(data.length, ctx.maxText) : data.length;
    }
    return;
  }
  if (n.nodeType === 1) walkElement(n as Element, out, ctx);
}

function isActionable(el: Element, style: CSSStyleDeclaration, role: string): boolean {
  if (INTERACTIVE_ROLES.has(role) || el.localName === 'summary') return true;
  const tabindex = el.getAttribute('tabindex');
  if (tabindex !== null && Number(tabindex) >= 0 && el !== el.ownerDocument.body) return true;
  if ((el as HTMLElement).isContentEditable && !el.parentElement?.closest('[contenteditable]')) return true;
  if (el.hasAttribute('onclick')) return true;
  if (el.getAttribute('draggable') === 'true') return true; // a drag source for `drag`
  if (style.cursor === 'pointer') {
    const parent = el.parentElement;
    if (parent && getComputedStyle(parent).cursor === 'pointer') return false;
    return !el.querySelector(INTERACTIVE_SELECTOR);
  }
  return false;
}

function walkElement(el: Element, out: Item[], ctx: Ctx): void {
  const tag = el.localName;
  if (SKIP.has(tag)) return;
  if (tag === 'br') {
    out.push(BREAK);
    return;
  }
  const style = getComputedStyle(el);
  if (style.display === 'none') return;
  noteCandidate(el);
  const inline = style.display === 'contents' || style.display.startsWith('inline');
  const kind = interactiveKind(el);
  const role = roleOf(el, kind);
  const ariaHidden = el.getAttribute('aria-hidden') === 'true';
  const push = (item: Item) => {
    if (typeof item === 'object') ctx.budget.left -= cost(item);
    if (!inline) out.push(BREAK);
    out.push(item);
    if (!inline) out.push(BREAK);
  };

  if (tag === 'svg') {
    const label = squash(el.getAttribute('aria-label'));
    if (label && !ctx.quiet && !ariaHidden) push({ role: 'img', name: cut(label, 100), kids: [] });
    return;
  }
  if (tag === 'iframe' || tag === 'frame') {
    if (!styleVisible(el) || !hasArea(el)) return;
    const id = assignId(el);
    const name = squash(el.getAttribute('title')) || squash(el.getAttribute('aria-label'));
    const node: SnapNode = { role: 'iframe', name: name ? cut(name, 100) : undefined, id, kids: [] };
    // A same-origin frame is walked here, by its own runtime (its ids carry its nonce).
    let sub: SnapshotResult | undefined;
    try {
      const rt = ((el as HTMLIFrameElement).contentWindow as unknown as { __tabwright?: { snapshot?: (o: SnapshotOptions) => SnapshotResult } } | null)?.__tabwright;
      if (rt?.snapshot) sub = rt.snapshot({ limit: ctx.limit, urls: ctx.urls, maxText: ctx.maxText, budget: ctx.budget.left, level: ctx.level });
    } catch {
      sub = undefined; // cross-origin
    }
    if (sub) {
      node.pre = sub.lines;
      ctx.frames.push(...sub.frames);
      ctx.candidates += sub.candidates ?? 0;
      if (sub.budgetLeft !== undefined) ctx.budget.left = sub.budgetLeft;
      if (sub.cut) ctx.budget.cut = true;
      if (sub.counts) addCounts(ctx.counts, sub.counts);
    } else ctx.frames.push(id);
    push(node);
    return;
  }

  const actionable = kind ? isVisible(el) : isActionable(el, style, role) && isVisible(el);
  if (actionable && ctx.level === 'summary') {
    // Counted, not written; what is inside (a nested control) is counted too.
    countActionable(ctx.counts, role || 'generic', kind);
    walkChildren(el, out, { ...ctx, quiet: true });
    return;
  }
  if (actionable) {
    const id = assignId(el);
    if (!hasArea(el) && style.display !== 'contents') {
      const shown = [...el.querySelectorAll('*')].find(c => hasArea(c) && styleVisible(c));
      if (shown) targets.set(id, new WeakRef(shown));
    }
    const r = role || 'generic';
    const node: SnapNode = { role: r, id, kids: [], attrs: states(el, r) };
    const name = nameOf(el, r);
    if (name) node.name = cut(name, 100);
    const { value, options } = valueOf(el, r);
    if (value) node.value = value;
    if (options) node.notes = [options];
    if (r === 'link' || kind === 'link') {
      const href = el.getAttribute('href');
      if (ctx.urls && href !== null) (node.notes ??= []).push(`- /url: ${yamlValue(href)}`);
      else if (!name && href) node.value = cut(href, 80);
    }
    if (tag === 'select' || tag === 'textarea' || (tag === 'input')) {
      push(node);
      return;
    }
    const quiet = ctx.quiet || NAME_FROM_CONTENT.has(r) || ariaHidden;
    const more = walkChildren(el, node.kids, { ...ctx, quiet });
    if (more) node.more = moreLine(id, more, ctx.limit, ctx.level);
    push(node);
    return;
  }

  // Text already in a name: an aria-hidden subtree, a label of a control, a fieldset's legend.
  if (ctx.quiet || ariaHidden || (tag === 'label' && (el as HTMLLabelElement).control) || (tag === 'legend' && el.parentElement?.localName === 'fieldset')) {
    if (!inline) out.push(BREAK);
    walkChildren(el, out, { ...ctx, quiet: true });
    if (!inline) out.push(BREAK);
    return;
  }
  if (role === 'heading') {
    const level = /^h([1-6])$/.exec(tag)?.[1] ?? el.getAttribute('aria-level') ?? '2';
    const node: SnapNode = { role, kids: [], attrs: ` [level=${level}]` };
    if (ctx.level === 'summary') {
      // The heading's name, and what is inside it counted (a heading that is a link).
      const name = nameOf(el, role);
      walkChildren(el, [], { ...ctx, quiet: true });
      if (!name) return;
      node.name = cut(name, 100);
      push(node);
      return;
    }
    if (el.querySelector(INTERACTIVE_SELECTOR)) {
      walkChildren(el, node.kids, ctx);
    } else {
      const name = nameOf(el, role);
      if (!name) return;
      node.name = name;
    }
    push(node);
    return;
  }
  if (role === 'row') {
    const row = rowNode(el, ctx);
    if (ctx.level !== 'full') {
      // No cell texts: a row is its actionable nodes.
      for (const k of row.kids) out.push(k);
      return;
    }
    push(row);
    return;
  }
  if (role === 'img') {
    if (ctx.level !== 'full') return;
    const name = nameOf(el, role);
    if (name) push({ role, name: cut(name, 100), kids: [] });
    return;
  }
  if (role === 'form' && ctx.level === 'summary') ctx.counts.forms++;
  const kids: Item[] = [];
  const more = walkChildren(el, kids, ctx);
  if (ctx.level !== 'full' && !OUTLINE.has(role)) {
    // Levels below full keep headings, landmarks and actionable nodes only: any other container is its children.
    if (more && ctx.level === 'interactive') {
      const id = assignId(el);
      const line = moreLine(id, more, ctx.limit, ctx.level);
      if (line) kids.push(BREAK, { role: '', kids: [], more: line }, BREAK);
    }
    for (const k of kids) out.push(k);
    return;
  }
  const structural = STRUCTURAL.has(role);
  const name = structural && (NAMED_ONLY.has(role) || el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')) ? nameOf(el, role) : '';
  const paged = el === ctx.pagedEl;
  if (more || paged || (structural && (!NAMED_ONLY.has(role) || name))) {
    const node: SnapNode = { role: role || 'generic', kids };
    if (name) node.name = cut(name, 100);
    if (more || paged || (ctx.level === 'summary' && LANDMARKS.has(role))) {
      node.id = assignId(el);
      if (more) node.more = moreLine(node.id, more, ctx.limit, ctx.level);
    }
    if (!kids.length && !node.more && !paged && !(ctx.level === 'summary' && node.id)) return;
    push(node);
    return;
  }
  if (!inline) out.push(BREAK);
  for (const k of kids) out.push(k);
  if (!inline) out.push(BREAK);
}

/** Landmark roles: a summary gives them refs (to scope a snapshot or get_text to one). */
const LANDMARKS = new Set(['navigation', 'main', 'banner', 'contentinfo', 'complementary', 'form', 'search', 'region', 'dialog', 'alertdialog']);
/** What levels below full keep of the non-actionable nodes: headings and landmarks. */
const OUTLINE = new Set([...LANDMARKS, 'heading']);
const FIELD_ROLES = new Set([...VALUED, ...CHECKABLE, 'switch']);

function countActionable(counts: ElementCounts, role: string, kind: InteractiveKind | null): void {
  if (role === 'link') counts.links++;
  else if (role === 'button') counts.buttons++;
  else if (FIELD_ROLES.has(role) || kind === 'control') counts.fields++;
  else counts.other++;
}

function addCounts(into: ElementCounts, from: ElementCounts): void {
  into.links += from.links;
  into.buttons += from.buttons;
  into.fields += from.fields;
  into.other += from.other;
  into.forms += from.forms;
}

/** A table row: its cells' texts on one line (`- row: a | b | c`), the actionable nodes in it below. */
function rowNode(el: Element, ctx: Ctx): SnapNode {
  const node: SnapNode = { role: 'row', kids: [] };
  const cells: string[] = [];
  const kids = flatChildren(el);
  for (let i = 0; i < kids.length; i++) {
    const items: Item[] = [];
    walkNode(kids[i]!, items, ctx);
    let text = '';
    for (const item of items) {
      if (typeof item === 'string') text += item;
      else if (item === BREAK) text += ' ';
      else node.kids.push(item);
    }
    if (kids[i]!.nodeType === 1 && !SKIP.has((kids[i] as Element).localName)) cells.push(squash(text));
  }
  while (cells.length && !cells[cells.length - 1]) cells.pop();
  if (cells.length) node.value = cells.join(' | ');
  if (el.id || el === ctx.pagedEl) node.id = assignId(el);
  if (!node.id) delete node.id;
  return node;
}

function yamlValue(text: string): string {
  return /^[\s\-&*!|>%@`'"#,[\]{}?…]|[:#]\s|:$|\s$|[\n\r]/.test(text) || text === '' ? stringify(text) : text;
}

function textLine(text: string, maxText: number): string {
  let t = text;
  if (maxText && t.length > maxText) t = `${t.slice(0, maxText)}…(+${t.length - maxText} chars)`;
  return /^(- |…|#|\/)/.test(t) || t === '-' ? stringify(t) : t;
}

/**
 * A text line of separators only (`|`, `·`, `•`, `/`, `»`, a dash...: what pages put between links of a nav or
 * a footer, each part of it at most 2 characters): it tells the model nothing, so the snapshot leaves it out.
 */
const SEPARATORS_ONLY = /^(?:[|·•∙/\\»«›‹>:;,~–—-]{1,2}(?: |$))+$/;

function write(items: Item[], indent: string, lines: string[], maxText: number): void {
  let text = '';
  const flush = () => {
    const t = squash(text);
    text = '';
    if (t && !SEPARATORS_ONLY.test(t)) lines.push(indent + textLine(t, maxText));
  };
  for (const item of items) {
    if (item === BREAK) flush();
    else if (typeof item === 'string') text += item;
    else {
      flush();
      writeNode(item, indent, lines, maxText);
    }
  }
  flush();
}

/** The items of `kids` that are not breaks or blank text. */
function solid(kids: Item[]): Item[] {
  return kids.filter(k => k !== BREAK && (typeof k !== 'string' || /\S/.test(k)));
}

function writeNode(node: SnapNode, indent: string, lines: string[], maxText: number): void {
  if (!node.role) {
    if (node.more) lines.push(indent + node.more);
    return;
  }
  // A wrapper or list item around one thing is that thing.
  if (!node.id && !node.name && !node.value && !node.more && (node.role === 'listitem' || node.role === 'generic')) {
    const inner = solid(node.kids);
    if (inner.length <= 1 || node.role === 'generic') {
      write(node.kids, indent, lines, maxText);
      return;
    }
  }
  let head = `${indent}- ${node.role}`;
  if (node.name) head += ` ${stringify(node.name)}`;
  if (node.id) head += ` [ref=${MARK}${node.id}${MARK}]`;
  if (node.attrs) head += node.attrs;
  const sub: string[] = [];
  const inner = `${indent}  `;
  for (const note of node.notes ?? []) sub.push(inner + note);
  for (const line of node.pre ?? []) sub.push(inner + line);
  write(node.kids, inner, sub, maxText);
  if (node.more) sub.push(inner + node.more);
  if (node.value) head += `: ${node.role === 'row' ? node.value : yamlValue(node.value)}`;
  else if (sub.length) head += ':';
  lines.push(head);
  for (const l of sub) lines.push(l);
}

/**
 * The snapshot of this document (its body), or of one element (`root` /
 * `rootId`), as lines with ref placeholders.
 */
export function snapshot(opts: SnapshotOptions = {}): SnapshotResult {
  const level = opts.level ?? 'full';
  // A summary writes headings and landmarks only: no paging, no budget (the server caps its lines).
  const budget: Budget = { left: level === 'summary' ? Infinity : opts.budget ?? Infinity, cut: false };
  const counts: ElementCounts = { links: 0, buttons: 0, fields: 0, other: 0, forms: 0 };
  const ctx: Ctx = { limit: level === 'summary' ? 1e9 : Math.max(1, opts.limit ?? 50), maxText: opts.maxText ?? 0, urls: !!opts.urls, frames: [], candidates: 0, quiet: false, offset: Math.max(0, opts.offset ?? 0), budget, level, counts };
  const items: Item[] = [];
  if (opts.root || opts.rootId) {
    const root = opts.root ?? elements.get(opts.rootId!)?.deref();
    if (!root || !root.isConnected) return { lines: [], frames: [], nonce, gone: true };
    ctx.pagedEl = root;
    walkElement(root, items, ctx);
  } else {
    const body = document.body ?? document.documentElement;
    if (!body) return { lines: [], frames: [], nonce };
    const more = walkChildren(body, items, ctx);
    if (more) {
      const line = moreLine(assignId(body), more, ctx.limit, ctx.level);
      if (line) items.push(BREAK, { role: '', kids: [], more: line }, BREAK);
    }
  }
  const lines: string[] = [];
  write(items, '', lines, opts.maxText ?? 0);
  const candidates = ctx.candidates + pendingCandidates();
  return { lines, frames: ctx.frames, nonce, cut: budget.cut || undefined, budgetLeft: budget.left, candidates: candidates || undefined, counts: level === 'summary' ? counts : undefined };
}
