/**
 * Covered elements: "a click whose target is covered by another
 * element fails with `element_not_actionable` naming the covering element
 * (tag, id, accessible name); no silent fallback to a script click that
 * bypasses the overlay; `force: true` is the explicit way. A
 * `pointer-events: none` decoration is not an obstacle."
 *
 * Playwright notices a covered target too, but only by retrying until the
 * action times out. `assertNotCovered` asks the page instead (the runtime's
 * `hitTest`: `elementFromPoint` at the click point, which skips
 * `pointer-events: none` elements by definition) and fails within
 * COVER_GRACE_MS.
 */
import type { ElementHandle } from 'playwright-core';
import { playwrightTimeout } from '../browser/playwright.js';
import { pollUntil, raceTimeout } from '../util/wait.js';
import { ToolError } from '../errors.js';

import type { CoverInfo, DispatchClickOptions, FieldState, HitResult } from '../page/actions.js';

export type { CoverInfo, DispatchClickOptions, FieldState, HitResult };

/** The runtime helpers of src/page/actions.ts, as seen from an evaluate callback. */
export interface ActionsRuntime {
  __tabwright: {
    hitTest(el: Element): HitResult;
    dispatchClick(el: Element, opts: DispatchClickOptions): void;
    fieldState(el: Element): FieldState;
    focusEditable(el: Element, caretAtEnd: boolean): boolean;
  };
}

/**
 * How long a covered target is re-tested before the call fails, in ms: an
 * overlay that is fading out (a closing dialog) gets this long to go.
 */
export const COVER_GRACE_MS = 500;
const RETEST_MS = 100;

/** `<div id="consent"> dialog "Cookie consent"`: tag and id, then role and name (or the start of its text). */
export function describeCover(cover: CoverInfo): string {
  let out = `<${cover.tag}${cover.id ? ` id=${JSON.stringify(cover.id)}` : ''}>`;
  if (cover.role) out += ` ${cover.role}`;
  if (cover.name) out += ` ${JSON.stringify(cover.name)}`;
  else if (cover.text) out += ` containing ${JSON.stringify(cover.text)}`;
  return out;
}

/**
 * Fails with `element_not_actionable` when another element covers the
 * element's click point (re-tested for up to COVER_GRACE_MS), naming the
 * covering element. Scrolls the element to the centre once when its point
 * is not on it. Returns quietly when the element has no box in view (hidden
 * elements keep Playwright's own errors).
 * @param what    the action, for the message: "click e5".
 * @param forceHint  whether the hint may offer `force: true`.
 * @param timeout  ms for each page evaluation.
 * @throws ToolError element_not_actionable; Playwright errors of the evaluation.
 */
export async function assertNotCovered(handle: ElementHandle<Element>, ref: string, what: string, forceHint: boolean, timeout: number): Promise<void> {
  let cover: CoverInfo | undefined;
  const uncovered = await pollUntil(async () => {
    const result = await raceTimeout(handle.evaluate(el => (globalThis as unknown as ActionsRuntime).__tabwright.hitTest(el)), playwrightTimeout(timeout));
    if (result.status !== 'covered') return true;
    cover = result.cover;
    return false;
  }, { ms: Math.min(COVER_GRACE_MS, timeout), intervalMs: RETEST_MS });
  if (!uncovered) {
    throw new ToolError('element_not_actionable', `Could not ${what}: it is covered by ${describeCover(cover!)}, which would receive the pointer events.`,
      `Close or dismiss the covering element first (find its button in a fresh snapshot)${forceHint ? `, or pass force: true to dispatch the click to ${ref} itself` : ''}.`);
  }
}

/**
 * `click {force: true}`: dispatches the click's events to the element from
 * script (`isTrusted` false), bypassing whatever covers it.
 * @param timeout  ms.
 */
export async function forceClick(handle: ElementHandle<Element>, opts: DispatchClickOptions, timeout: number): Promise<void> {
  await raceTimeout(handle.evaluate((el, o) => (globalThis as unknown as ActionsRuntime).__tabwright.dispatchClick(el, o), opts), playwrightTimeout(timeout));
}
