/**
 * Page-side helpers for the input tools (docs/actions.md, "Covered targets,
 * real input, drag"): a hit test at the point a click would land, a click dispatched
 * from script for `click {force: true}`, and the state of a text field for
 * reading a typed value back. No Node imports (bundled into the runtime).
 */
import { interactiveKind } from './dom.js';
import { nameOf, roleOf } from './snapshot.js';

/** The element that would receive a click instead of the target. */
export interface CoverInfo {
  /** Lower-case tag name. */
  tag: string;
  id?: string;
  /** The role the snapshot would give it (explicit or implicit). */
  role?: string;
  /** Its accessible name (approximated as in snapshots), at most 60 characters. */
  name?: string;
  /** When it has no name: the start of its visible text, at most 40 characters. */
  text?: string;
}

/**
 * What a click at the element's click point would hit:
 * - `ok`: the element, its content, or one of its labels;
 * - `covered`: another element (`cover`), which would get the click;
 * - `unknown`: nothing to test (no box, off screen, or the point hits an
 *   ancestor because the element itself takes no pointer events); the
 *   caller leaves the verdict to Playwright's own checks.
 */
export type HitResult =
  | { status: 'ok' }
  | { status: 'covered'; cover: CoverInfo }
  | { status: 'unknown' };

const squash = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Parent in the flat tree: the assigned slot, else the parent element, else the shadow host. */
function flatParent(n: Element): Element | null {
  return n.assignedSlot ?? n.parentElement ?? ((n.parentNode as ShadowRoot | null)?.host ?? null);
}

/** Whether `node` is `ancestor` or lies below it in the flat tree (Node.contains, across slots and shadow roots). */
function flatContains(ancestor: Element, node: Element | null): boolean {
  for (let cur = node; cur; cur = flatParent(cur)) if (cur === ancestor) return true;
  return false;
}

/** The innermost element at (x, y), looking into open shadow roots (elementFromPoint stops at the host). */
function deepElementFromPoint(doc: Document, x: number, y: number): Element | null {
  let hit = doc.elementFromPoint(x, y);
  while (hit?.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}

/**
 * The point a mouse click lands on (as Playwright computes it): the centre
 * of the element's first box, clipped to the viewport; null when no box of
 * it shows in the viewport.
 */
export function clickPoint(el: Element): { x: number; y: number } | null {
  const doc = el.ownerDocument;
  const vw = doc.documentElement.clientWidth || doc.defaultView?.innerWidth || 0;
  const vh = doc.documentElement.clientHeight || doc.defaultView?.innerHeight || 0;
  for (const r of el.getClientRects()) {
    if (r.width * r.height < 1) continue;
    const left = Math.max(r.left, 0);
    const top = Math.max(r.top, 0);
    const right = Math.min(r.right, vw);
    const bottom = Math.min(r.bottom, vh);
    if (right - left < 1 || bottom - top < 1) return null;
    return { x: (left + right) / 2, y: (top + bottom) / 2 };
  }
  return null;
}

/** The hit test at the element's click point as it is now (no scrolling); `retry` when it has no point in view. */
export function hitAt(el: Element): HitResult | { status: 'retry' } {
  const point = clickPoint(el);
  if (!point) return { status: 'retry' };
  const hit = deepElementFromPoint(el.ownerDocument, point.x, point.y);
  if (!hit) return { status: 'retry' };
  if (flatContains(el, hit)) return { status: 'ok' };
  const labels = (el as HTMLInputElement).labels;
  if (labels) for (const label of labels) if (flatContains(label, hit)) return { status: 'ok' };
  if (flatContains(hit, el)) return { status: 'unknown' };
  return { status: 'covered', cover: describeCover(hit, el) };
}

/**
 * The element to name for a cover: the nearest element from `hit` upwards
 * (not containing the target) that has an id, an aria-label or a role
 * attribute, or is a <dialog>; else `hit` itself.
 */
function describeCover(hit: Element, target: Element): CoverInfo {
  let pick = hit;
  for (let cur: Element | null = hit; cur && !flatContains(cur, target); cur = flatParent(cur)) {
    if (cur.id || cur.hasAttribute('aria-label') || cur.hasAttribute('role') || cur.localName === 'dialog') {
      pick = cur;
      break;
    }
  }
  const info: CoverInfo = { tag: pick.localName };
  if (pick.id) info.id = cut(pick.id, 60);
  const role = roleOf(pick, interactiveKind(pick));
  if (role) info.role = role;
  const name = cut(squash(nameOf(pick, role)), 60);
  if (name) info.name = name;
  else {
    const text = cut(squash((pick as HTMLElement).innerText ?? pick.textContent), 40);
    if (text) info.text = text;
  }
  return info;
}

/**
 * Hit-tests the element at its click point. When the point is not on the
 * element, scrolls the element to the centre of its scroll containers once
 * (as Playwright's retries do) and tests again.
 */
export function hitTest(el: Element): HitResult {
  const first = hitAt(el);
  if (first.status === 'ok') return first;
  el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
  const second = hitAt(el);
  return second.status === 'retry' ? { status: 'unknown' } : second;
}

/** Options of `dispatchClick`. */
export interface DispatchClickOptions {
  button: 'left' | 'right' | 'middle';
  /** 1 for a click, 2 for a double click. */
  clickCount: number;
  /** Playwright modifier names: Alt, Control, ControlOrMeta, Meta, Shift. */
  modifiers: string[];
}

/**
 * Dispatches the events of a mouse click to the element itself, from
 * script (`isTrusted` false), whatever covers it: pointerdown, mousedown,
 * focus, pointerup, mouseup, then click (left), auxclick (middle, right)
 * and contextmenu (right); dblclick after a double left click. Activation
 * behaviour (following a link, toggling a checkbox, submitting) runs as for
 * a script `click()`. Used by `click {force: true}`.
 */
export function dispatchClick(el: Element, opts: DispatchClickOptions): void {
  const rect = el.getBoundingClientRect();
  const mac = /Mac/.test(navigator.platform);
  const has = (m: string) => opts.modifiers.includes(m);
  const button = opts.button === 'left' ? 0 : opts.button === 'middle' ? 1 : 2;
  const buttons = button === 0 ? 1 : button === 1 ? 4 : 2;
  const base = {
    bubbles: true, cancelable: true, composed: true, view: el.ownerDocument.defaultView,
    clientX: rect.left + rect.width / 2, clientY: rect.top + rect.height / 2, button,
    altKey: has('Alt'), shiftKey: has('Shift'),
    ctrlKey: has('Control') || (has('ControlOrMeta') && !mac), metaKey: has('Meta') || (has('ControlOrMeta') && mac),
  };
  const pointer = { pointerId: 1, pointerType: 'mouse', isPrimary: true };
  for (let i = 1; i <= opts.clickCount; i++) {
    el.dispatchEvent(new PointerEvent('pointerdown', { ...base, ...pointer, buttons, detail: i }));
    el.dispatchEvent(new MouseEvent('mousedown', { ...base, buttons, detail: i }));
    if (i === 1 && el instanceof HTMLElement) el.focus({ preventScroll: true });
    el.dispatchEvent(new PointerEvent('pointerup', { ...base, ...pointer, buttons: 0, detail: i }));
    el.dispatchEvent(new MouseEvent('mouseup', { ...base, buttons: 0, detail: i }));
    if (button === 0) el.dispatchEvent(new PointerEvent('click', { ...base, ...pointer, buttons: 0, detail: i }));
    else {
      el.dispatchEvent(new PointerEvent('auxclick', { ...base, ...pointer, buttons: 0, detail: i }));
      if (button === 2) el.dispatchEvent(new PointerEvent('contextmenu', { ...base, ...pointer, buttons: 0, detail: i }));
    }
  }
  if (button === 0 && opts.clickCount === 2) el.dispatchEvent(new MouseEvent('dblclick', { ...base, buttons: 0, detail: 2 }));
}

/**
 * A text field as `type` sees it when it reads the typed value back:
 * - `value`: an <input> or <textarea> (a <label> stands for its control);
 *   `value` is its current value;
 * - `editable`: inside a contenteditable editing host; `value` is the
 *   host's innerText;
 * - `none`: anything else.
 * `secret` is true for password and one-time-code fields (their values
 * never go into an error); `inputType` is the <input> type; `maxLength` is
 * -1 when unset.
 */
export interface FieldState {
  kind: 'value' | 'editable' | 'none';
  value: string;
  secret: boolean;
  tag: string;
  inputType: string;
  maxLength: number;
}

const NOT_TEXT = new Set(['checkbox', 'radio', 'file', 'button', 'submit', 'reset', 'image', 'hidden', 'range']);

/** The editing host of a node inside a contenteditable region. */
function editingHost(el: Element): HTMLElement | null {
  if (!(el instanceof HTMLElement) || !el.isContentEditable) return null;
  let host: HTMLElement = el;
  while (host.parentElement?.isContentEditable) host = host.parentElement;
  return host;
}

/** The state of the text field `el` is, or stands for (see FieldState). */
export function fieldState(el: Element): FieldState {
  const target = el.localName === 'label' && (el as HTMLLabelElement).control ? (el as HTMLLabelElement).control! : el;
  const tag = target.localName;
  const inputType = tag === 'input' ? (target as HTMLInputElement).type : '';
  if (tag === 'textarea' || (tag === 'input' && !NOT_TEXT.has(inputType))) {
    const field = target as HTMLInputElement | HTMLTextAreaElement;
    const autocomplete = (target.getAttribute('autocomplete') ?? '').toLowerCase();
    const secret = inputType === 'password' || /\b(current-password|new-password|one-time-code)\b/.test(autocomplete);
    return { kind: 'value', value: field.value, secret, tag, inputType, maxLength: field.maxLength };
  }
  const host = editingHost(target);
  if (host) return { kind: 'editable', value: host.innerText, secret: false, tag, inputType, maxLength: -1 };
  return { kind: 'none', value: '', secret: false, tag, inputType, maxLength: -1 };
}

/**
 * Focuses the editing host of `el`; with `caretAtEnd`, puts the caret at
 * the end of its content (for `type {clear: false}`). False when `el` is
 * not inside a contenteditable region.
 */
export function focusEditable(el: Element, caretAtEnd: boolean): boolean {
  const host = editingHost(el);
  if (!host) return false;
  host.focus({ preventScroll: false });
  if (caretAtEnd) {
    const selection = host.ownerDocument.getSelection();
    if (selection) {
      const range = host.ownerDocument.createRange();
      range.selectNodeContents(host);
      range.collapse(false);
      selection.removeAllRanges();
      selection.addRange(range);
    }
  }
  return true;
}

/** The pointer events whose arrival `pointerInputSeen` counts. */
const POINTER_TYPES = ['pointerdown', 'pointerup', 'pointermove', 'pointerover', 'mousedown', 'mouseup', 'mousemove', 'mouseover', 'click'];
let pointerInput = 0;

/**
 * Starts counting the trusted pointer events that reach this document, with
 * listeners on its window in the capture phase. Called once, when the
 * runtime installs itself: at document start that is before any page
 * script, whose own window listener could otherwise stop the event before
 * ours sees it (DOM: listeners of one target run in the order they were
 * added; stopImmediatePropagation skips the rest).
 */
export function countPointerInput(): void {
  for (const type of POINTER_TYPES) addEventListener(type, event => { if (event.isTrusted) pointerInput++; }, { capture: true, passive: true });
}

/** How many trusted pointer events reached this document since the runtime came (see countPointerInput). */
export function pointerInputSeen(): number {
  return pointerInput;
}
