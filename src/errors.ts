/**
 * Tool errors with stable `type` strings (docs/errors.md).
 * Numbers and messages may change between releases; types do not.
 */
import { classifyPlaywrightError, protocolErrorOf } from './util/playwrightErrors.js';

/** Every error type a tool can return. Adding one means documenting it in docs/errors.md. */
export const ERROR_TYPES = [
  'browser_unavailable',
  'browser_disconnected',
  'browser_error',
  'browser_in_use',
  'approval_denied',
  'approval_timeout',
  'tab_not_found',
  'page_crashed',
  'stale_ref',
  'revision_mismatch',
  'expectation_failed',
  'expectation_indeterminate',
  'lease_held',
  'element_not_actionable',
  'input_not_applied',
  'timeout',
  'cancelled',
  'navigation_failed',
  'document_replaced',
  'invalid_arguments',
  'evaluation_failed',
  'element_not_added',
  'result_too_large',
  'webmcp_tool_not_found',
  'capability_unavailable',
  'dialog_open',
  'no_dialog',
  'not_recognized',
  'path_not_allowed',
  'file_not_found',
  'consent_denied',
  'consent_expired',
  'consent_unavailable',
  'unknown_tool',
  'relay_version_mismatch',
  'extension_denied',
  'origin_not_shared',
  'leader_lost',
  'script_not_found',
  'script_rejected',
  'conflict',
  'call_not_found',
  'request_not_found',
  'route_not_found',
  'workspace_unwritable',
  'disk_full',
  'policy_denied_host',
  'policy_denied_scheme',
  'policy_denied_execute',
  'policy_denied_upload',
  'policy_denied_download',
  'call_budget_exceeded',
  'pick_cancelled',
  'pick_timeout',
  'pick_not_running',
  'recording_active',
  'recording_not_running',
  'model_unavailable',
  'run_not_found',
  'extraction_failed',
  'internal',
] as const;

export type ErrorType = (typeof ERROR_TYPES)[number];

/** The wire shape of an error: `structuredContent.error` of an `isError` result. */
export interface ToolErrorData {
  type: ErrorType;
  message: string;
  hint: string;
}

/**
 * An error a tool reports to its caller. `message` says what went wrong,
 * `hint` says what to do next. Never put typed text or evaluated source in
 * either.
 */
export class ToolError extends Error {
  constructor(
    readonly type: ErrorType,
    message: string,
    readonly hint: string,
    /** Structured fields returned next to `error` in structuredContent (e.g. `diagnostics` of script_rejected). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ToolError';
  }

  toData(): ToolErrorData {
    return { type: this.type, message: this.message, hint: this.hint };
  }
}

/**
 * Converts anything thrown by a handler to a ToolError: the extension's
 * refusals are `extension_denied`, a closed page `tab_not_found`, any other
 * error the browser answered a protocol command with `browser_error`
 * (browserError), a full disk `disk_full` (diskFull), unknown errors `internal`.
 */
export function toToolError(error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  const full = diskFull(error);
  if (full) return full;
  const message = error instanceof Error ? error.message : String(error);
  const denied = extensionDenial(message);
  if (denied) return denied;
  const kinds = classifyPlaywrightError(error);
  if (kinds.has('target_closed')) {
    return new ToolError('tab_not_found', 'The tab or browser closed during the call.', 'Call list_tabs to see the open tabs.');
  }
  if (kinds.has('protocol_error')) return browserError(error, 'the call');
  return new ToolError('internal', firstLine(message), 'This is a tabwright bug if it repeats; run with TABWRIGHT_LOG=debug and report the log.');
}

/** Error codes of a write that found no space: errno's (POSIX write(2), ENOSPC and EDQUOT) and SQLite's (result code SQLITE_FULL). */
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

/**
 * `disk_full` for an error of a write that found no space left (a node fs error with code ENOSPC or EDQUOT, a
 * better-sqlite3 SqliteError with code SQLITE_FULL), else undefined. `where` names what was being written (a path,
 * "the script store"), when the caller knows it. tabwright writes files through a temporary file renamed into place
 * and the store in transactions, so such a write leaves nothing half-written.
 */
export function diskFull(error: unknown, where?: string): ToolError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !FULL_CODES.has(code)) return undefined;
  return new ToolError('disk_full', `The disk is full: ${where ?? 'a file tabwright writes'} could not be written (${code}). Nothing was half-written: what was there before is unchanged.`,
    'Free space on the disk that holds the workspace and tabwright\'s data dir (`tabwright doctor` prints the data dir), then call again.');
}

/**
 * `tab_not_found` for tab `tabId` that closed while the call ran on it (its opener or the user closed it; the page
 * closed itself while the call still waited on it), not a tabId that was never open. `details` (e.g.
 * `{ dispatched: 'no' }` when the action's input never left tabwright) come along.
 */
export function tabClosedDuring(tabId: number, details?: Record<string, unknown>): ToolError {
  const notDone = details?.dispatched === 'no' ? ' before its action was done' : '';
  return new ToolError('tab_not_found', `Tab ${tabId} closed during the call${notDone}: its page is gone, and nothing more can be read or done there.`,
    'Call list_tabs to see the open tabs; open_tab opens a new one.', details);
}

/**
 * `document_replaced`: tab `tabId`'s page replaced its document `times` times while tabwright read it (`what`:
 * "read the text"), so nothing was read: a redirect loop, or a page that reloads itself faster than it can be read.
 */
export function documentReplaced(tabId: number, what: string, times: number): ToolError {
  return new ToolError('document_replaced', `Could not ${what}: the page of tab ${tabId} replaced its document ${times} times while it was read (a redirect loop, or a page that reloads itself), so nothing was read.`,
    'Wait for the page to settle (wait_for {text} of what it should show) and call again; list_network_requests shows what it keeps loading.');
}

/**
 * `page_crashed`: the renderer of tab `tabId`'s page went away (out of memory, a browser bug, a killed process:
 * Chrome shows "Aw, Snap!"); `during`: while the call ran (its message says its action may or may not have reached
 * the page). The page object is dead; reload_tab or navigate load the tab again in a new page under
 * the same tab id (Session.replaceCrashed).
 */
export function pageCrashed(tabId: number, during = false): ToolError {
  return new ToolError('page_crashed', `The page of tab ${tabId} crashed${during ? ' during the call' : ''}: its renderer went away (out of memory, or the browser ended it), and nothing on it can be read or done.${during ? ' Whether the call\'s action reached the page first is not known.' : ''}`,
    `reload_tab {tabId: ${tabId}} loads it again (a new page under the same tab id), navigate {tabId: ${tabId}, url} loads another URL there, or close_tab {tabId: ${tabId}}.`);
}

/**
 * `browser_error` for an error the browser answered a DevTools protocol
 * command with (`Protocol error (<method>): <reason>`), during `what` ("the
 * call", "the call of WebMCP tool \"x\""): the message names the method
 * and quotes the browser's reason, never as the page's own error. `hint`
 * replaces the default one (which says to check the tab and call again).
 */
export function browserError(error: unknown, what: string, hint?: string): ToolError {
  const found = protocolErrorOf(error);
  const reason = found ? `${found.method} failed: ${found.reason.replace(/\.$/, '') || 'no reason given'}` : firstLine(error instanceof Error ? error.message : String(error));
  return new ToolError('browser_error', `The browser failed a protocol command during ${what} (${reason.slice(0, 500)}); this is the browser's error, not the page's.`,
    hint ?? 'Check the tab (list_tabs, get_page_context) and call again; if it repeats, run with TABWRIGHT_LOG=debug and report the log.', found ? { method: found.method } : undefined);
}

/** What to do after each refusal of the companion extension's policy gate (extension/src/gate.ts). */
const EXTENSION_DENIAL_HINTS: Record<string, string> = {
  not_shared: 'The user has not shared that tab with tabwright: ask them to click "Share this tab" in the tabwright extension\'s popup, or open a tab with open_tab.',
  not_debuggable: 'tabwright drives web pages only: not chrome:// pages, extension pages, or file: pages without the extension\'s file access.',
  method_denied: 'Through the extension tabwright reaches the shared tabs only; this operation would reach beyond them (docs/own-browser.md lists what the extension allows).',
  cookie_scope: 'Through the extension, cookies can be read and written only for the origins the shared tabs show.',
  scheme_denied: 'Use an http(s), about:blank or data: URL.',
  file_access: 'Turn on "Allow access to file URLs" for the tabwright extension (chrome://extensions → tabwright → Details) to hand the browser file paths.',
  consent_pending: 'Input waits while the extension\'s consent window about this tab is open: the user answers it first.',
};

/**
 * A refusal of the companion extension's gate inside a Playwright/CDP error (`tabwright extension [<code>]: ...`)
 * as `extension_denied`, with the gate's stable code in `details.code`; undefined for any other error.
 */
export function extensionDenial(message: string): ToolError | undefined {
  const match = /tabwright extension \[(\w+)\]: ([^\n]*)/.exec(message);
  if (!match) return undefined;
  const [, code, reason] = match;
  return new ToolError('extension_denied', `The tabwright extension refused: ${reason}`, EXTENSION_DENIAL_HINTS[code!] ?? 'See docs/own-browser.md.', { code });
}

/** The first line of a (Playwright) error message, without its call log. */
export function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/^\w+\.\w+: /, '').trim();
}
