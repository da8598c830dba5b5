/**
 * Maps Playwright action failures to tabwright error types. Messages are
 * built from fixed phrases only: typed text and page-provided values never
 * reach an error (issue #2).
 */
import { isTimeoutError } from '../browser/playwright.js';
import type { Tab } from '../session/tab.js';
import { firstLine, ToolError } from '../errors.js';

const REASONS: Array<[RegExp, string]> = [
  [/intercepts pointer events/, 'another element covers it and would receive the click'],
  [/element is not visible/, 'it is not visible'],
  [/element is not enabled|element is disabled/, 'it is disabled'],
  [/element is not editable|not an <input>, <textarea>|Element is not an <input>/, 'it does not accept text'],
  [/element is not stable/, 'it keeps moving (animation)'],
  [/outside of the viewport/, 'it is outside the viewport and cannot be scrolled into view'],
  [/Not a checkbox or radio button/, 'it is not a checkbox or radio button'],
  [/Element is not a <select> element/, 'it is not a <select>'],
  [/did not find some options/, 'some of the requested options do not exist'],
];

/**
 * Converts an error thrown by a Playwright locator action into a ToolError.
 * @param what  a short description of the action, e.g. "click e12".
 */
export function actionError(error: unknown, what: string): ToolError {
  if (error instanceof ToolError) return error;
  const text = error instanceof Error ? error.message : String(error);
  for (const [pattern, reason] of REASONS) {
    if (pattern.test(text)) {
      return new ToolError('element_not_actionable', `Could not ${what}: ${reason}.`, 'Take a fresh snapshot (get_page_context) to check the element; scroll, close overlays, or pick another element.');
    }
  }
  if (isTimeoutError(error)) {
    return new ToolError('timeout', `Could not ${what} within the time limit.`, 'The element may be covered, hidden or busy; take a fresh snapshot, or pass a larger timeoutMs.');
  }
  if (/Target page, context or browser has been closed|Target closed/.test(text)) {
    return new ToolError('tab_not_found', `The tab closed while trying to ${what}.`, 'Call list_tabs for the open tabs.');
  }
  if (/Unknown key|Unknown modifier/.test(text)) {
    return new ToolError('invalid_arguments', firstLine(text).replace(/"[^"]{40,}"/, '"…"'), 'Use key names such as Enter, Tab, ArrowDown, Control+A (Playwright keyboard names).');
  }
  return new ToolError('element_not_actionable', `Could not ${what}.`, 'Take a fresh snapshot (get_page_context) and try again with a current ref.');
}

/**
 * After a call on `tab` failed: when the page's main thread is stuck (a
 * script in an endless loop), stops that script and returns a `timeout`
 * error saying so; otherwise undefined.
 * @param what  a short description of the call, e.g. "take a snapshot".
 */
export async function stuckPageError(tab: Tab, what: string): Promise<ToolError | undefined> {
  if (!(await tab.stopIfStuck())) return undefined;
  return new ToolError('timeout', `Could not ${what}: the page's script was stuck (an endless loop) and has been stopped.`, 'The page may be half-updated; take a fresh snapshot (get_page_context) before going on.');
}
