/**
 * What a Playwright (or CDP) error means, read from its name and message:
 * the one place that matches Playwright's wording. Callers turn a kind into
 * their own ToolError (src/errors.ts, src/tools/actionErrors.ts, ...). No
 * imports: errors are matched by name and text, so playwright-core is never
 * loaded for it. The phrases are playwright-core 1.65's (test/util/playwrightErrors.test.ts
 * produces most of them with a real Chromium).
 */

/**
 * What a Playwright or CDP error says went wrong. One error can say several
 * things: a locator action that timed out carries Playwright's call log,
 * which names the state it waited for (`timeout` and `not_visible`); a page
 * that closed during an action carries it too.
 */
export type PlaywrightErrorKind =
  | 'covered' // another element would receive the click ("<div> intercepts pointer events")
  | 'not_visible'
  | 'not_enabled'
  | 'not_editable' // read-only, or not a text field at all
  | 'not_text_input' // fill on an <input> whose type takes no text (checkbox, radio, file, button, ...)
  | 'not_a_number' // fill on an input[type=number] with text that is not a number
  | 'not_attached' // an ElementHandle's element left the page ("Element is not attached to the DOM")
  | 'not_stable' // still moving (an animation)
  | 'outside_viewport' // cannot be scrolled into view
  | 'not_checkable' // check/uncheck on an element that is not a checkbox or radio
  | 'not_select' // selectOption on an element that is not a <select>
  | 'option_missing' // selectOption: some of the options do not exist
  | 'check_unchanged' // setChecked: clicking did not change the state (a page handler undid it)
  | 'single_file_only' // setInputFiles: several files for an input without `multiple`
  | 'timeout' // Playwright's TimeoutError (and timeoutError()'s), by name
  | 'target_closed' // the page, its context or the browser closed (or the connection to it)
  | 'unknown_key' // keyboard: a key or modifier name Playwright does not know
  | 'net_error' // a load failed with a Chromium network error (net::ERR_…; see `netErrorOf`)
  | 'document_gone' // the document went away under the call: navigated, frame detached, context destroyed
  | 'context_not_found' // CDP: an execution context id of a document that was replaced
  | 'webmcp_unavailable' // frame.webmcp without (this version of) WebMCP in the browser
  | 'already_registered' // selectors.register: an engine of that name exists already
  | 'webmcp_tool_gone' // frame.webmcp.callTool: the frame no longer has a tool of that name
  | 'protocol_error'; // the browser answered a DevTools protocol command with an error ("Protocol error (Runtime.evaluate): ..."); with the kinds above where they also apply

/** Each kind's phrases (or, for `timeout`, the test of the error's name), in the order of PlaywrightErrorKind. */
const PHRASES: ReadonlyArray<readonly [PlaywrightErrorKind, RegExp | ((error: unknown) => boolean)]> = [
  ['covered', /intercepts pointer events/],
  ['not_visible', /element is not visible/],
  ['not_enabled', /element is not enabled|element is disabled/],
  ['not_editable', /element is not editable|not an <input>, <textarea>|Element is not an <input>/],
  ['not_text_input', /Input of type "[^"]*" cannot be filled/],
  ['not_a_number', /Cannot type text into input\[type=number\]/],
  ['not_attached', /Element is not attached to the DOM/],
  ['not_stable', /element is not stable/],
  ['outside_viewport', /outside of the viewport/],
  ['not_checkable', /Not a checkbox or radio button/],
  ['not_select', /Element is not a <select> element/],
  ['option_missing', /did not find some options/],
  ['check_unchanged', /did not change its state/],
  ['single_file_only', /Non-multiple file input can only accept single file/],
  ['timeout', error => isTimeoutError(error)],
  ['target_closed', /Target page, context or browser has been closed|Target closed|(Browser|Page|Pipe) has been closed|Session already detached/i],
  ['unknown_key', /Unknown key|Unknown modifier/],
  ['net_error', /net::[A-Z_]+/],
  ['document_gone', /context was destroyed|detached|navigat/i],
  ['context_not_found', /Cannot find context with specified id/i],
  ['webmcp_unavailable', /WebMCP is not enabled|without WebMCP support|modelContext|not supported|is not a function/i],
  ['already_registered', /already registered/],
  // Playwright's two phrasings; src/tools/webmcpCall.ts words its own "not found" like the first.
  ['webmcp_tool_gone', /No WebMCP tool named|WebMCP tool ".*" is not registered in this frame/],
  // playwright-core's wording of a CDP error response (its crConnection: `Protocol error (${method}): ${message}`).
  ['protocol_error', /Protocol error \([\w.]+\)/],
];

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Every kind `error` is of, in the order of PlaywrightErrorKind (so the
 * first actionability kind is the one Playwright met first in that list);
 * empty for anything else (a page's own exception, a tabwright bug). The
 * whole message counts, Playwright's call log included.
 */
export function classifyPlaywrightError(error: unknown): ReadonlySet<PlaywrightErrorKind> {
  const message = messageOf(error);
  const kinds = new Set<PlaywrightErrorKind>();
  for (const [kind, test] of PHRASES) {
    if (test instanceof RegExp ? test.test(message) : test(error)) kinds.add(kind);
  }
  return kinds;
}

/**
 * True for Playwright's TimeoutError (and `timeoutError()`'s,
 * src/browser/playwright.ts), whatever its call log says. Matched by name
 * (Playwright's client sets `name = 'TimeoutError'`).
 */
export function isTimeoutError(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

/**
 * A DevTools protocol error's method and the browser's own reason
 * (`{method: 'Runtime.callFunctionOn', reason: 'Object reference chain is too long'}`), read from the first line
 * of the message (a reason that is the browser's error object as JSON, `{"code":-32000,"message":...}`, gives
 * its message); undefined for any other error.
 */
export function protocolErrorOf(error: unknown): { method: string; reason: string } | undefined {
  const m = /Protocol error \(([\w.]+)\):?\s*(.*)/.exec(messageOf(error).split('\n')[0]!);
  if (!m) return undefined;
  let reason = m[2]!.trim();
  // Through chrome.debugger (the companion extension) the reason is the browser's error object as JSON.
  if (reason.startsWith('{')) {
    try {
      const parsed = JSON.parse(reason) as { message?: unknown };
      if (typeof parsed.message === 'string') reason = parsed.message;
    } catch {
      // not JSON after all: keep the text
    }
  }
  return { method: m[1]!, reason };
}

/** The Chromium network error code in the first line of a failed load's message (`net::ERR_NAME_NOT_RESOLVED`), if any. */
export function netErrorOf(error: unknown): string | undefined {
  return /net::[A-Z_]+/.exec(messageOf(error).split('\n')[0]!)?.[0];
}
