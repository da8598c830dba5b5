/**
 * Page-side halves of the direct element actions (docs/actions.md, "Direct actions on relayed connections"): on a
 * connection whose every CDP round trip crosses a relay, a click or a fill checks and prepares its element in this
 * one evaluation, where Playwright's sequence takes a dozen round trips. Each check stands for one of Playwright's
 * actionability checks (https://playwright.dev/docs/actionability: visible, stable, enabled, editable, receives
 * events, not inert); whatever is not plainly fine answers `{ status: 'other' }` and the server takes Playwright's
 * own way, whose waits, retries and errors stay the reference. No Node imports (bundled into the runtime).
 */
import { styleVisible } from './dom.js';
import { clickPoint, fieldState, hitAt, type FieldState } from './actions.js';

/** What `directClickPoint` found: the point to click, in CSS pixels of the top document's viewport, or why not. */
export type DirectClick = { status: 'ok'; x: number; y: number } | { status: 'other'; reason: string };

/** What `directFill` did: the field selected and focused (its state before), or why it left it alone. */
export type DirectFill = { status: 'ok'; state: FieldState } | { status: 'other'; reason: string };

/** How long one animation frame may take before the element counts as not known to be stable, in ms. */
const FRAME_MS = 100;

/** Input types whose text Playwright's `fill` types (number excepted: it checks the text is a number first). */
const TYPED_INTO = new Set(['', 'email', 'password', 'search', 'tel', 'text', 'url']);

const other = (reason: string) => ({ status: 'other' as const, reason });

/** True after the next animation frame; false when none came within FRAME_MS (a hidden tab draws nothing). */
function nextFrame(): Promise<boolean> {
  return new Promise(resolve => {
    const timer = setTimeout(() => resolve(false), FRAME_MS);
    requestAnimationFrame(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Why `el` is not plainly actionable, or null: detached, inert, without a box, hidden, disabled (natively or by
 * aria-disabled on it or an ancestor; Playwright's own check is narrower, so a few enabled elements take its way).
 */
function notActionable(el: Element): string | null {
  if (!el.isConnected) return 'detached';
  if (el.closest('[inert]')) return 'inert';
  const rect = el.getBoundingClientRect();
  if (rect.width <= 0 || rect.height <= 0) return 'no box';
  if (!styleVisible(el)) return 'hidden';
  if (el.matches(':disabled') || el.closest('[aria-disabled="true"]')) return 'disabled';
  return null;
}

/** Whether the whole border box of `el` lies in its document's viewport. */
function fullyInView(el: Element): boolean {
  const doc = el.ownerDocument;
  const r = el.getBoundingClientRect();
  const vw = doc.documentElement.clientWidth || doc.defaultView?.innerWidth || 0;
  const vh = doc.documentElement.clientHeight || doc.defaultView?.innerHeight || 0;
  return r.left >= 0 && r.top >= 0 && r.right <= vw && r.bottom <= vh;
}

/**
 * Gets `el` ready for a trusted click and says where: visible, enabled, not inert, scrolled into view (centred, as
 * CDP's DOM.scrollIntoViewIfNeeded does, only when not wholly in view), at the same place over one animation frame,
 * and the element (or its content, or one of its labels) is what the click point hits. The point is the centre of
 * its first box clipped to the viewport, rounded to 1/100 px as Playwright rounds it. Only for an element of the top
 * document: a child frame's point would need its offsets.
 */
export async function directClickPoint(el: Element): Promise<DirectClick> {
  const view = el.ownerDocument.defaultView;
  if (!view || view !== view.top) return other('child frame');
  const why = notActionable(el);
  if (why) return other(why);
  if (!fullyInView(el)) el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
  const before = el.getBoundingClientRect();
  if (!(await nextFrame())) return other('no animation frame');
  const after = el.getBoundingClientRect();
  if (before.x !== after.x || before.y !== after.y || before.width !== after.width || before.height !== after.height) return other('moving');
  if (!el.isConnected) return other('detached');
  const hit = hitAt(el);
  if (hit.status !== 'ok') return other(hit.status);
  const point = clickPoint(el);
  if (!point) return other('out of view');
  return { status: 'ok', x: Math.round(point.x * 100) / 100, y: Math.round(point.y * 100) / 100 };
}

/**
 * Playwright's `fill` up to the typing, for a text field (`<input>` of a text type, `<textarea>`; a `<label>`
 * stands for its control): checks it is visible, enabled, editable and not inert, then selects all its text and
 * focuses it, so the trusted text the server inserts next replaces the content. Any other element, and a number,
 * date or colour input, is left alone (`other`).
 */
export function directFill(el: Element): DirectFill {
  const target = el.localName === 'label' && (el as HTMLLabelElement).control ? (el as HTMLLabelElement).control! : el;
  const tag = target.localName;
  if (tag !== 'textarea' && !(tag === 'input' && TYPED_INTO.has((target as HTMLInputElement).type))) return other('not a text field');
  const why = notActionable(target);
  if (why) return other(why);
  const field = target as HTMLInputElement | HTMLTextAreaElement;
  if (field.readOnly || field.closest('[aria-readonly="true"]')) return other('read-only');
  const state = fieldState(field);
  if (tag === 'input') {
    (field as HTMLInputElement).select();
  } else {
    field.selectionStart = 0;
    field.selectionEnd = field.value.length;
  }
  field.focus();
  // A page that moves the focus away at once would get the text elsewhere: Playwright's way says what happened.
  if (!field.matches(':focus')) return other('focus moved');
  return { status: 'ok', state };
}
