/**
 * What an action report says about an element when the server has no
 * snapshot line for it (src/session/pageReport.ts): its role and accessible
 * name, computed by the snapshot walker's own `roleOf` / `nameOf`
 * (./snapshot.ts), and its nearest container that places it (a row by its
 * cells, a list item by its first text, a named form or region, a dialog),
 * by the rules the server applies to snapshot text
 * (src/session/snapshotLines.ts, `containerLabel`). Also the focused
 * element (press_key) and the element a changed snapshot region belongs to
 * (a ref to scope `get_page_context` to).
 */
import { interactiveKind } from './dom.js';
import { CONTAINER_ROLES, LABEL_MAX, PLACED_BY_ROLE } from './roles.js';
import { shadowRootOf } from './shadow.js';
import { assignId, cut, INTERACTIVE_ROLES, NAMED_ONLY, nameOf, roleOf, SKIP, squash, flatChildren, byId } from './snapshot.js';

/** An element or container as the report names it. */
export interface Described {
  role: string;
  name?: string;
  /** The element's snapshot id (the server maps it to a ref); only for the focused element. */
  id?: string;
}

/** What `describe` returns. */
export interface Description extends Described {
  container?: Described;
}

/** The parent in the flat tree: the parent element, or the host of a shadow root. */
function parentOf(el: Element): Element | null {
  if (el.parentElement) return el.parentElement;
  const root = el.parentNode;
  return root && (root as ShadowRoot).host ? (root as ShadowRoot).host : null;
}

function interactive(el: Element): boolean {
  if (interactiveKind(el)) return true;
  const role = (el.getAttribute('role') ?? '').trim().split(/\s+/)[0] ?? '';
  return INTERACTIVE_ROLES.has(role);
}

/** Text of a subtree without the text of its links, buttons and controls (what a row's cells show in the snapshot). */
function plainText(node: Node, max = 200): string {
  let out = '';
  const visit = (n: Node) => {
    if (out.length > max) return;
    if (n.nodeType === 3) {
      out += (n as Text).data;
      return;
    }
    if (n.nodeType !== 1) return;
    const el = n as Element;
    if (SKIP.has(el.localName) || interactive(el) || el.getAttribute('aria-hidden') === 'true') return;
    const kids = flatChildren(el);
    for (let i = 0; i < kids.length; i++) visit(kids[i]!);
    out += ' ';
  };
  const kids = flatChildren(node as Element);
  for (let i = 0; i < kids.length; i++) visit(kids[i]!);
  return squash(out);
}

/** The first non-blank text in a subtree (a list item's label). */
function firstText(el: Element): string {
  const walker = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const parent = n.parentElement;
    if (parent && SKIP.has(parent.localName)) continue;
    const text = squash((n as Text).data);
    if (text) return text;
  }
  return '';
}

/** A row's label: its cells' plain text, `a | b | c`, trailing empty cells dropped. */
function rowText(row: Element): string {
  const cells: string[] = [];
  const kids = flatChildren(row);
  for (let i = 0; i < kids.length; i++) {
    const kid = kids[i]!;
    if (kid.nodeType === 1 && !SKIP.has((kid as Element).localName)) cells.push(plainText(kid));
  }
  while (cells.length && !cells[cells.length - 1]) cells.pop();
  return cells.join(' | ');
}

/** The label a container gets (src/session/snapshotLines.ts `containerLabel` rules), or undefined when it places nothing. */
function containerOf(el: Element, role: string): Described | undefined {
  if (!CONTAINER_ROLES.has(role)) return undefined;
  const named = NAMED_ONLY.has(role) || el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || role === 'iframe';
  const name = named ? nameOf(el, role) : '';
  if (name) return { role, name: cut(name, LABEL_MAX) };
  if (role === 'row') {
    const text = rowText(el);
    if (text) return { role, name: cut(text, LABEL_MAX) };
  }
  if (role === 'listitem' || role === 'treeitem') {
    const text = firstText(el);
    if (text) return { role, name: cut(text, LABEL_MAX) };
  }
  if (PLACED_BY_ROLE.has(role)) return { role };
  return undefined;
}

/** Role, accessible name and nearest placing container of an element. */
export function describe(el: Element): Description {
  const role = roleOf(el, interactiveKind(el)) || 'generic';
  const name = nameOf(el, role);
  const out: Description = { role };
  if (name) out.name = cut(name, 100);
  for (let p = parentOf(el); p; p = parentOf(p)) {
    const container = containerOf(p, roleOf(p, interactiveKind(p)));
    if (container) {
      out.container = container;
      break;
    }
  }
  return out;
}

interface FrameRuntime {
  __tabwright?: { focused?: () => Description | null };
}

/**
 * The element that has focus, through shadow roots and same-origin frames
 * (a frame's own runtime answers for it), with its id; null when nothing
 * but the body has focus.
 */
export function focused(): Description | null {
  let el: Element | null = document.activeElement;
  for (let root = el ? shadowRootOf(el) : null; el && root?.activeElement; root = shadowRootOf(el)) el = root.activeElement;
  if (!el || el === document.body || el === document.documentElement) return null;
  if (el.localName === 'iframe' || el.localName === 'frame') {
    try {
      const inner = ((el as HTMLIFrameElement).contentWindow as unknown as FrameRuntime | null)?.__tabwright?.focused?.();
      if (inner) return inner;
    } catch {
      // cross-origin: report the frame itself
    }
  }
  return { ...describe(el), id: assignId(el) };
}

/**
 * The id of the nearest ancestor of the element of `id` with `role` (and
 * accessible name `name`, when given), skipping `skip` such ancestors; null
 * when there is none. Finds the element of a snapshot line that has no ref.
 */
export function ancestorId(id: string, role: string, name: string | undefined, skip: number): string | null {
  const el = byId(id);
  let left = skip;
  for (let p = el ? parentOf(el) : null; p; p = parentOf(p)) {
    if (roleOf(p, interactiveKind(p)) !== role) continue;
    if (name !== undefined && cut(nameOf(p, role), 100) !== name && containerOf(p, role)?.name !== name) continue;
    if (left-- === 0) return assignId(p);
  }
  return null;
}
