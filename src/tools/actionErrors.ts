/**
 * Maps Playwright action failures to tabwright error types. Messages are
 * built from fixed phrases only: typed text and page-provided values never
 * reach an error.
 */
import { stuckClause, stuckHint, type Tab } from '../session/tab.js';
import { extensionDenial, firstLine, ToolError } from '../errors.js';
import { classifyPlaywrightError, isTimeoutError, type PlaywrightErrorKind } from '../util/playwrightErrors.js';
import { CallTimeout } from '../webmcp/source.js';

/** Why an element was not actionable, for the kinds that say so. */
const REASONS: Partial<Record<PlaywrightErrorKind, string>> = {
  covered: 'another element covers it and would receive the click',
  not_visible: 'it is not visible',
  not_enabled: 'it is disabled',
  not_editable: 'it does not accept text',
  not_text_input: 'it is an input that takes no typed text (a checkbox, radio button, file input or button)',
  not_a_number: 'it is a number field and the text is not a number',
  not_stable: 'it keeps moving (animation)',
  outside_viewport: 'it is outside the viewport and cannot be scrolled into view',
  not_checkable: 'it is not a checkbox or radio button',
  not_select: 'it is not a <select>',
  option_missing: 'some of the requested options do not exist',
};

/** The hint of the kinds that have a better one than "take a fresh snapshot". */
const HINTS: Partial<Record<PlaywrightErrorKind, string>> = {
  not_text_input: 'Use click for a checkbox, radio button or button (fill_form takes true/false for a checkbox), and upload_file for a file input.',
  not_a_number: 'Type digits only (a leading minus sign, a decimal point and an exponent are allowed).',
  option_missing: 'Pass option values or labels as the snapshot shows them (get_page_context lists a select\'s options after "options:").',
  not_select: 'select_option takes a <select>; for a custom dropdown, click it open and click the option.',
};

const SNAPSHOT_HINT = 'Take a fresh snapshot (get_page_context) to check the element; scroll, close overlays, or pick another element.';

/**
 * Whether a failed Playwright action had dispatched its input: its call log says when it began to ("performing click
 * action"); before that it was still waiting for the element ("waiting for element…", "element is not enabled"), and
 * nothing reached the page (src/tools/recovery.ts). `unlogged`: the answer for an error without a call log (a
 * keyboard action, or a limit of tabwright's own around it).
 */
function dispatchedBy(error: unknown, unlogged: 'unknown' | 'no'): 'unknown' | 'no' {
  const log = error instanceof Error ? error.message : String(error);
  if (/performing \w+ action|action done|waiting for scheduled navigations/.test(log)) return 'unknown';
  return /waiting for|element is not|retrying/.test(log) ? 'no' : unlogged;
}

/**
 * Converts an error thrown by a Playwright locator action into a ToolError.
 * @param what  a short description of the action, e.g. "click e12".
 */
export function actionError(error: unknown, what: string): ToolError {
  if (error instanceof ToolError) return error;
  // A refusal of the companion extension's gate (consent_pending while its consent window asks about the tab, ...).
  const denied = extensionDenial(error instanceof Error ? error.message : String(error));
  if (denied) return denied;
  const kinds = classifyPlaywrightError(error);
  // The page closed (or the browser went away) while Playwright still waited for the element: that is the cause, not
  // the last thing its call log says it waited for ("element is not enabled"). Whether the input was dispatched is
  // read from the log as for a timeout.
  if (kinds.has('target_closed')) {
    return new ToolError('tab_not_found', `The tab closed while trying to ${what}.`, 'Call list_tabs for the open tabs.', { dispatched: dispatchedBy(error, 'unknown') });
  }
  const kind = [...kinds].find(k => REASONS[k]);
  // Its frame went away while Playwright waited (the tab closed under it): the action (Tab.act) asks whether it got out.
  const gone = kinds.has('document_gone') ? { dispatched: dispatchedBy(error, 'unknown') } : undefined;
  if (kind) return new ToolError('element_not_actionable', `Could not ${what}: ${REASONS[kind]}.`, HINTS[kind] ?? SNAPSHOT_HINT, gone);
  if (kinds.has('not_attached')) {
    return new ToolError('stale_ref', `Could not ${what}: the element left the page (it was removed or re-rendered).`, 'Take a fresh snapshot (get_page_context) and use the new ref.');
  }
  if (kinds.has('timeout')) {
    // Playwright's call log says when it began to dispatch the input ("performing click action"); before that, it
    // was still waiting for the element, and nothing reached the page (src/tools/recovery.ts).
    return new ToolError('timeout', `Could not ${what} within the time limit.`, 'The element may be covered, hidden or busy; take a fresh snapshot, or pass a larger timeoutMs.', { dispatched: dispatchedBy(error, 'no') });
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
  const stuck = await tab.stopIfStuck();
  if (!stuck) return undefined;
  return new ToolError('timeout', `Could not ${what}: ${stuckClause(stuck)}.`, stuckHint(stuck, 'The page may be half-updated; take a fresh snapshot (get_page_context) before going on.'));
}

/**
 * The error of a page read that failed (a snapshot, a search, a WebMCP listing): a ToolError as it is; on a page
 * whose main thread is stuck, the stuck-page `timeout` (stuckPageError, `what` e.g. "take a snapshot"); a
 * Playwright timeout, or a WebMCP source's own limit (CallTimeout), as `timeout` with `onTimeout`'s message and hint;
 * anything else as it is.
 * @returns what the caller throws.
 */
export async function pageReadError(tab: Tab, error: unknown, what: string, onTimeout: { message: string; hint: string }): Promise<unknown> {
  if (error instanceof ToolError) return error;
  const stuck = await stuckPageError(tab, what);
  if (stuck) return stuck;
  if (isTimeoutError(error) || error instanceof CallTimeout) return new ToolError('timeout', onTimeout.message, onTimeout.hint);
  return error;
}
