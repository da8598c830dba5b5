/**
 * What a failed page-changing call tells its caller about recovery (docs/actions.md, "After a failed action"):
 * whether the action was dispatched to the page (`no`: refused before anything reached it; `yes`: it reached the
 * page; `unknown`: it may have), the tab's revision before and after, and whether calling again is safe. An error
 * that may have gone through never says to retry: it says to look first.
 */
import { ToolError, type ErrorType } from '../errors.js';
import type { Tab } from '../session/tab.js';
import { pollUntil } from '../util/wait.js';

/** How long a failed action that may have reached the page is given for a navigation it began to commit, in ms. */
const SETTLE_MS = 500;

/** What is known of a failed action, in an error's `details.recovery`. */
export interface Recovery {
  dispatched: 'no' | 'yes' | 'unknown';
  /** The tab's revision when the call resolved it, and now (absent when the tab closed). */
  revisionBefore: number;
  revisionAfter?: number;
  /**
   * `safe`: nothing reached the page, call again once the cause is fixed; `check_first`: look at the page before any
   * retry; `ask_user`: a person refused (DENIED_BY_PERSON), so calling again only asks them again: ask them first.
   */
  retry: 'safe' | 'check_first' | 'ask_user';
}

/**
 * Errors raised before anything was sent to the page: the tool's checks, the guard, consent, targeting,
 * actionability (an element_not_actionable raised after input went out says `dispatched` itself, ./pointerDelivery.ts).
 */
const REFUSED_BEFORE: ReadonlySet<ErrorType> = new Set<ErrorType>([
  'invalid_arguments', 'revision_mismatch', 'element_not_actionable', 'dialog_open', 'no_dialog', 'capability_unavailable', 'path_not_allowed',
  'file_not_found', 'consent_denied', 'consent_expired', 'consent_unavailable', 'webmcp_tool_not_found', 'stale_ref',
  'approval_denied', 'approval_timeout', 'extension_denied', 'browser_unavailable', 'unknown_tool', 'conflict',
]);

/** Refusals a person gave (a consent prompt, Chrome's approval, the extension): nothing ran, and a retry asks them again. */
const DENIED_BY_PERSON: ReadonlySet<ErrorType> = new Set<ErrorType>(['consent_denied', 'approval_denied', 'extension_denied']);

/** Errors that say the action reached the page (its input went out, its code ran, its effect is there). */
const REACHED: ReadonlySet<ErrorType> = new Set<ErrorType>(['input_not_applied', 'evaluation_failed', 'result_too_large', 'navigation_failed']);

/**
 * Errors whose own words already say what happened to the page (the input did not stick, the result was too
 * large, the page failed to load, the page crashed: nothing is left to look at) they only get `details.recovery`,
 * their message and hint stay. A failed navigation (the load went out, the tab shows the browser's error page) may be loaded again:
 * `retry: safe`.
 */
const SAYS_ITSELF: ReadonlySet<ErrorType> = new Set<ErrorType>(['input_not_applied', 'result_too_large', 'navigation_failed', 'page_crashed']);

/**
 * Whether the action of a failed call was dispatched: the error's own `details.dispatched` when its raiser knew
 * (with `details.described: true` when its words already say what happened; they are then kept as they are)
 * (a Playwright timeout before the input went out, ./actionErrors.ts), else by its type.
 */
export function dispatchedOf(error: ToolError): Recovery['dispatched'] {
  const said = error.details?.dispatched;
  if (said === 'no' || said === 'yes' || said === 'unknown') return said;
  if (REFUSED_BEFORE.has(error.type)) return 'no';
  if (REACHED.has(error.type)) return 'yes';
  return 'unknown';
}

/**
 * The error a page-changing call returns: `error` with `details.recovery`; when the action may have reached the page
 * (or did, and the tab has moved to another document or closed since), its message says so with the revisions and
 * its hint says to look before calling again.
 * @param tab  the tab the call acted on; `revisionBefore` its revision when the call resolved it.
 * Waits up to SETTLE_MS for a navigation the action may have begun.
 */
export async function withRecovery(error: ToolError, tab: Tab, revisionBefore: number): Promise<ToolError> {
  const dispatched = dispatchedOf(error);
  // An action that navigated fails as the old document goes ("Execution context was destroyed"): give the new one a
  // moment to commit, so the revision after is the page's, not the moment's.
  if (dispatched !== 'no') await pollUntil(() => tab.closed || tab.revision !== revisionBefore, { ms: SETTLE_MS, intervalMs: 50 }).catch(() => false);
  const revisionAfter = tab.closed ? undefined : tab.revision;
  const safe = dispatched === 'no' || error.type === 'navigation_failed';
  const recovery: Recovery = { dispatched, revisionBefore, ...(revisionAfter !== undefined ? { revisionAfter } : {}), retry: DENIED_BY_PERSON.has(error.type) ? 'ask_user' : safe ? 'safe' : 'check_first' };
  const { dispatched: _said, described, ...details } = error.details ?? {};
  // `details.described`: the raiser's own words already say what reached the page and what to do.
  // An action known to have reached a page that is still the same document: the error's words say what it did.
  const plain = dispatched === 'yes' && revisionAfter === revisionBefore;
  if (dispatched === 'no' || SAYS_ITSELF.has(error.type) || described === true || plain) return new ToolError(error.type, error.message, error.hint, { ...details, recovery });
  const moved = revisionAfter === undefined
    ? `tab ${tab.id} has closed`
    : revisionAfter === revisionBefore ? `tab ${tab.id} still shows revision ${revisionBefore}` : `tab ${tab.id} went from revision ${revisionBefore} to ${revisionAfter}`;
  const known = dispatched === 'yes' ? `The action reached the page; ${moved}.` : `The action may have reached the page; ${moved}.`;
  return new ToolError(
    error.type,
    `${error.message.replace(/\s*$/, '')} ${known}`,
    // A hint that already sends the caller to look at the page stays; any other gives way to "look first".
    /get_page_context|check the page/i.test(error.hint) ? error.hint : `Do not call it again blindly: check the page first (get_page_context${revisionAfter === undefined ? ', list_tabs' : ''}) to see whether it took effect, then decide.`,
    { ...details, recovery },
  );
}
