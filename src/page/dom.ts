/**
 * DOM helpers shared by the runtime's census and the snapshot walker
 * (src/page/snapshot.ts): what counts as a link, button or control, and
 * what counts as visible. One definition, so the snapshot and the coverage
 * census can never disagree.
 */
/** A link, button or form control, as `census` and `interactiveElements` classify it. */
export type InteractiveKind = 'link' | 'button' | 'control';

/** One visible interactive element found by `interactiveElements`. */
export interface InteractiveEntry {
  element: Element;
  kind: InteractiveKind;
  /** Frame nesting depth: 0 for the document the runtime runs in, 1 for its child frames, ... */
  frame: number;
  /** Inside an `aria-hidden="true"` subtree (accessibility trees give such nodes no name). */
  ariaHidden: boolean;
  /** False when `pointer-events: none` (the mouse cannot hit it). */
  pointerEvents: boolean;
}

export const BUTTON_INPUT_TYPES = new Set(['button', 'submit', 'reset', 'image']);

/**
 * Classifies an element: an explicit `role="button"` / `role="link"` wins,
 * then the tag (`a`/`area` with href, `button`, `input`, `select`,
 * `textarea`). Anything else is null.
 */
export function interactiveKind(el: Element): InteractiveKind | null {
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

export function styleOf(el: Element): CSSStyleDeclaration | null {
  const view = el.ownerDocument.defaultView;
  return view ? view.getComputedStyle(el) : null;
}

/** Not hidden by style: no `display: none` or `content-visibility: hidden` ancestor, `visibility: visible`. */
export function styleVisible(el: Element): boolean {
  if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) return false;
  const style = styleOf(el);
  return !!style && style.visibility === 'visible' && style.display !== 'none';
}

export function hasArea(el: Element): boolean {
  const rect = el.getBoundingClientRect();
  return rect.width > 0 && rect.height > 0;
}

export function textHasArea(node: Text): boolean {
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
export function isVisible(el: Element): boolean {
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

export function insideAriaHidden(el: Element): boolean {
  for (let node: Element | null = el; node; node = node.parentElement ?? ((node.getRootNode() as ShadowRoot).host ?? null)) {
    if ((node.getAttribute('aria-hidden') ?? '').toLowerCase() === 'true') return true;
  }
  return false;
}

