/**
 * Closed shadow roots (docs/snapshot.md rule 9). Page JavaScript
 * cannot reach a closed root through `host.shadowRoot`, so the runtime, which
 * runs at document start in every frame before page scripts, wraps
 * `Element.prototype.attachShadow` and keeps each closed root it creates in a
 * WeakMap that only the runtime can read. The walker, the census and the
 * `tabwright-ref` engine then treat closed roots like open ones.
 *
 * Roots the wrapper never sees (a declarative `<template shadowrootmode=
 * "closed">`, parsed before any script, or a document that existed before the
 * runtime was injected) are handed over by the server through CDP with
 * `adoptClosedRoot` (src/session/closedShadow.ts).
 */

const closedRoots = new WeakMap<Element, ShadowRoot>();
/** Custom elements already listed for CDP (asked about once: a later attachShadow is recorded by the wrapper). */
const probed = new WeakSet<Element>();
/** Listed, not yet taken by the server. */
let pending: Element[] = [];

/** The shadow root of `el`, open or closed (closed ones only when recorded), or null. */
export function shadowRootOf(el: Element): ShadowRoot | null {
  return el.shadowRoot ?? closedRoots.get(el) ?? null;
}

/** Whether `el` is a host whose closed root the runtime knows. */
export function hasClosedRoot(el: Element): boolean {
  return closedRoots.has(el);
}

/**
 * Records a closed root found by the server through CDP (`DOM.describeNode`
 * exposes closed roots). Ignores anything that is not the closed root of its
 * own host. Returns whether it was recorded.
 */
export function adoptClosedRoot(root: unknown): boolean {
  if (!(root instanceof ShadowRoot) || root.mode !== 'closed' || !root.host) return false;
  closedRoots.set(root.host, root);
  return true;
}

/** Most candidates handed to the server per snapshot (each costs it a CDP round trip); the rest wait for the next one. */
const MAX_TAKEN = 50;

/**
 * Whether the light DOM of `el` accounts for what it shows: it has children
 * and each of them is rendered. A host whose shadow tree shows instead has
 * no children, or children that are not rendered (not assigned to a slot).
 */
function lightDomShows(el: Element): boolean {
  let any = false;
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1) {
      const child = n as Element;
      if (child.getClientRects().length === 0 && getComputedStyle(child).display !== 'contents') return false;
      any = true;
    } else if (n.nodeType === 3 && /\S/.test((n as Text).data)) {
      const range = document.createRange();
      range.selectNodeContents(n);
      if (range.getClientRects().length === 0) return false;
      any = true;
    }
  }
  return any;
}

/**
 * Called by the walker for every element it shows. A custom element (a tag
 * with a hyphen) with no shadow root the runtime knows, a box of its own,
 * and light DOM that does not account for what it shows may host a closed
 * root the wrapper did not see (a declarative one). Each such element is
 * listed once per document, for the server to ask CDP about. Custom elements
 * whose light DOM renders (most of them) cost nothing.
 */
export function noteCandidate(el: Element): void {
  if (!el.localName.includes('-') || el.shadowRoot || closedRoots.has(el) || probed.has(el)) return;
  const rect = el.getBoundingClientRect();
  if (rect.width === 0 || rect.height === 0) return; // looked at again once it shows
  probed.add(el);
  if (!lightDomShows(el)) pending.push(el);
}

/** How many candidates wait for the server. */
export function pendingCandidates(): number {
  return pending.length;
}

/** Up to 50 listed candidates (forgotten once taken): the server asks CDP about each, then `adoptClosedRoot`s what it finds. */
export function takeCandidates(): Element[] {
  const taken = pending.slice(0, MAX_TAKEN);
  pending = pending.slice(MAX_TAKEN);
  return taken.filter(el => el.isConnected);
}

/** Wraps `attachShadow` once per document to record closed roots (called when the runtime is installed). */
export function recordClosedRoots(): void {
  const proto = Element.prototype;
  const descriptor = Object.getOwnPropertyDescriptor(proto, 'attachShadow');
  const original = descriptor?.value as ((this: Element, init: ShadowRootInit) => ShadowRoot) | undefined;
  if (!descriptor || typeof original !== 'function') return;
  const wrapped = {
    attachShadow(this: Element, init: ShadowRootInit): ShadowRoot {
      const root = original.call(this, init);
      if (root.mode === 'closed') closedRoots.set(this, root);
      return root;
    },
  }.attachShadow;
  Object.defineProperty(proto, 'attachShadow', { ...descriptor, value: wrapped });
}
