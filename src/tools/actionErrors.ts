/**
 * Maps Playwright action failures to tabwright error types. Messages are
 * built from fixed phrases only: typed text and page-provided values never
 * reach an error.
 */
import type { Tab } from '../session/tab.js';
import { firstLine, ToolError } from '../errors.js';
import { classifyPlaywrightError, type PlaywrightErrorKind } from '../util/playwrightErrors.js';

/** Why an element was not actionable, for the kinds that say so. */
const REASONS: Partial<Record<PlaywrightErrorKind, string>> = {
  covered: 'another element covers it and would receive the click',
  not_visible: 'it is not visible',
  not_enabled: 'it is disabled',
  not_editable: 'it does not accept text',
  not_stable: 'it keeps moving (animation)',
  outside_viewport: 'it is outside the viewport and cannot be scrolled into view',
  not_checkable: 'it is not a checkbox or radio button',
  not_select: 'it is not a <select>',
  option_missing: 'some of the requested options do not exist',
};

/**
 * Converts an error thrown by a Playwright locator action into a ToolError.
 * @param what  a short description of the action, e.g. "click e12".
 */
export function actionError(error: unknown, what: string): ToolError {
  if (error instanceof ToolError) return error;
  const kinds = classifyPlaywrightError(error);
  const reason = [...kinds].map(kind => REASONS[kind]).find(Boolean);
  if (reason) {
    return new ToolError('element_not_actionable', `Could not ${what}: ${reason}.`, 'Take a fresh snapshot (get_page_context) to check the element; scroll, close overlays, or pick another element.');
  }
  if (kinds.has('timeout')) {
    return new ToolError('timeout', `Could not ${what} within the time limit.`, 'The element may be covered, hidden or busy; take a fresh snapshot, or pass a larger timeoutMs.');
  }
  if (kinds.has('target_closed')) {
    return new ToolError('tab_not_found', `The tab closed while trying to ${what}.`, 'Call list_tabs for the open tabs.');
  }
  if (kinds.has('unknown_key')) {
    const text = error instanceof Error ? error.message : String(error);
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
