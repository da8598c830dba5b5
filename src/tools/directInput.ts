/**
 * Direct element actions on relayed connections (docs/actions.md, "Direct actions on relayed connections"). Through
 * own-chrome's relay or the companion extension every CDP round trip costs more than the command it carries, and
 * Playwright's click takes about 20 of them one after the other (actionability checks, scrolling, the click point,
 * its hit-target interceptor), its fill about 8. Here a click is one evaluation in the page (the runtime's
 * `directClick`: checks, scrolls, waits one frame for stability, hit-tests, answers the point) and one batch of
 * trusted mouse events; a fill is one evaluation (`directFill`: checks, selects, focuses), the trusted text
 * insertion, and the read-back every fill has. Only for an element of the top document; whenever the page answers
 * anything but "ready" the caller takes Playwright's way, so its waits, retries and errors stay what the agent sees
 * for an element that is not ready. What this way does not do that Playwright's does: watch, while the events go
 * out, that they land on the element (the point was hit-tested a moment before).
 */
import type { FieldState } from '../page/actions.js';
import type { DirectClick, DirectFill } from '../page/directActions.js';
import { playwrightTimeout } from '../browser/playwright.js';
import { logger } from '../log.js';
import { goneError, type ResolvedRef } from '../session/refs.js';
import { raceTimeout } from '../util/wait.js';
import { assertTyped, sanitized } from './realInput.js';

const log = logger('input');

type Gone = { status: 'gone' };

/** The runtime's direct-action entries (src/page/runtime.ts), by snapshot id. */
interface DirectRuntime {
  __tabwright?: {
    directClick?(id: string): Promise<DirectClick | Gone>;
    directFill?(id: string): DirectFill | Gone;
    fieldStateOf?(id: string): FieldState | null;
  };
}

/** Whether `el`'s actions take the direct way: a relayed connection (BrowserConnection.relayed), the top document. */
export function takesDirectWay(el: ResolvedRef): boolean {
  return el.tab.session.connection.relayed === true && !el.frame.parentFrame();
}

/**
 * Clicks `el` the direct way: one page evaluation, then the mouse events (moved, pressed, released; twice pressed
 * and released for a double click) in one batch, as Playwright sends them, then a navigation it started is waited
 * for as Playwright waits for it (Tab.sendInput).
 * @param opts.timeout  ms for each of the two steps.
 * @returns true when it clicked; false when the page said the element is not plainly ready (the reason is logged),
 *   or the connection or frame does not take this way: then nothing was done and Playwright's way follows.
 * @throws ToolError stale_ref when the ref's element left the page; a timeout error (actionError maps it).
 */
export async function directClick(el: ResolvedRef, ref: string, opts: { button: 'left' | 'right' | 'middle'; clickCount: number; timeout: number }): Promise<boolean> {
  if (!takesDirectWay(el)) return false;
  const found = await raceTimeout(el.frame.evaluate(id => (globalThis as unknown as DirectRuntime).__tabwright?.directClick?.(id) ?? { status: 'other' as const, reason: 'no runtime' }, el.id), playwrightTimeout(opts.timeout));
  if (found.status === 'gone') throw goneError(ref);
  if (found.status !== 'ok') {
    log.debug(`click ${ref}: ${found.reason}, Playwright's way`);
    return false;
  }
  // A link or a submit button: its navigation is under way before the click counts as done, as after Playwright's.
  const mouse = el.frame.page().mouse;
  await el.tab.sendInput(() => raceTimeout(mouse.click(found.x, found.y, { button: opts.button, clickCount: opts.clickCount }), playwrightTimeout(opts.timeout)), opts.timeout);
  return true;
}

/**
 * Replaces the text of the field `el` is with `text` the direct way (Playwright's fill without its round trips),
 * then reads it back as every fill is.
 * @param opts.timeout  ms for each step.
 * @returns true when it typed; false when the field is not a plain text field that is ready (nothing was done).
 * @throws ToolError stale_ref (the element left the page), input_not_applied (the value did not stick); a timeout
 *   error (actionError maps it).
 */
export async function directFill(el: ResolvedRef, ref: string, text: string, opts: { timeout: number }): Promise<boolean> {
  if (!takesDirectWay(el)) return false;
  const ready = await raceTimeout(el.frame.evaluate(id => (globalThis as unknown as DirectRuntime).__tabwright?.directFill?.(id) ?? { status: 'other' as const, reason: 'no runtime' }, el.id), playwrightTimeout(opts.timeout));
  if (ready.status === 'gone') throw goneError(ref);
  if (ready.status !== 'ok') {
    log.debug(`type into ${ref}: ${ready.reason}, Playwright's way`);
    return false;
  }
  const keyboard = el.frame.page().keyboard;
  // As Playwright's fill: the selection is replaced by the text, or deleted for none.
  await raceTimeout(text ? keyboard.insertText(text) : keyboard.press('Delete'), playwrightTimeout(opts.timeout));
  const after = await raceTimeout(el.frame.evaluate(id => (globalThis as unknown as DirectRuntime).__tabwright?.fieldStateOf?.(id) ?? null, el.id), playwrightTimeout(opts.timeout));
  // A field the page took out of the document at once cannot be read back (Playwright's handle would read the detached one).
  if (after) assertTyped(ref, ready.state, after, sanitized(text, ready.state));
  return true;
}
