/**
 * What a running call waits for (`CallContext.waiting`): set by the tools
 * and the consent gate as a call moves on, read by the fronts for the
 * progress messages they send while it runs and for the text of a pending
 * result (src/dispatch/pending.ts). Plain JSON: it crosses the relay as the
 * `waiting` frame (src/relay/protocol.ts).
 */
import { consentProgress, type ConsentWaiting } from '../consent/gate.js';
import { surfaceName } from '../consent/channel.js';

/** One state of a running call. Times are epoch ms. */
export type WaitingFor =
  /** The consent gate asks the human about a WebMCP tool (src/consent/gate.ts). */
  | ConsentWaiting
  /** A page's WebMCP tool is running. */
  | { kind: 'page_tool'; tool: string; origin: string; tabId: number }
  /** A declarative WebMCP form without `toolautosubmit`: it was filled and waits for the person at the browser to submit it. */
  | { kind: 'form_submit'; tool: string; origin: string; tabId: number }
  /** `execute` code is running in the tab. */
  | { kind: 'execute'; tabId: number }
  /** Another call holds the tab (calls that act on one tab run one at a time, src/dispatch/tabLocks.ts). */
  | { kind: 'tab_lock'; tabId?: number }
  /** Connecting to the user's own Chrome waits for them to click Allow in its "Allow remote debugging?" dialog. */
  | { kind: 'browser_approval'; expiresAt: number }
  /**
   * pick_elements waits for the person at the browser to select elements in the overlay and confirm
   * (docs/picker.md); `headless`: the browser tabwright launched is headless, so nobody can see the overlay.
   */
  | { kind: 'pick'; tabId: number; expiresAt: number; headless?: boolean };

/** The `waitingFor` field of a pending result: the state, or `{kind: 'tool', tool}` when the tool said nothing more. */
export type WaitingField = (WaitingFor | { kind: 'tool'; tool: string }) & { text: string };

function seconds(ms: number): number {
  return Math.max(0, Math.round(ms / 1000));
}

/**
 * What `tool`'s call waits for, as a phrase after "waiting for" (English, for
 * the model and the person): "the user's answer to the consent prompt for …".
 */
export function waitingPhrase(tool: string, w: WaitingFor | undefined, now = Date.now()): string {
  if (!w) return `${tool} to finish`;
  switch (w.kind) {
    case 'consent':
      return `the user's answer to the consent prompt for WebMCP tool "${w.tool}" of ${w.origin}${w.tabId !== undefined ? ` (tab ${w.tabId})` : ''}, shown in ${askedIn(w)} (it expires in ${seconds(w.expiresAt - now)} s)`;
    case 'page_tool':
      return `WebMCP tool "${w.tool}" of ${w.origin} (tab ${w.tabId}) to finish`;
    case 'form_submit':
      return `the person at the browser to submit the declarative form "${w.tool}" of ${w.origin} (tab ${w.tabId}): it was filled in, and the call ends only when it is submitted`;
    case 'execute':
      return `the code given to execute in tab ${w.tabId} to finish`;
    case 'tab_lock':
      return `another call on ${w.tabId !== undefined ? `tab ${w.tabId}` : 'the tab'} to finish (calls that act on one tab run one at a time)`;
    case 'browser_approval':
      return `the user to click Allow in Chrome's "Allow remote debugging?" dialog, so that tabwright can use their browser (Cancel is the default button; it gives up in ${seconds(w.expiresAt - now)} s)`;
    case 'pick':
      return `the user to pick elements in tab ${w.tabId}: click each element in the page's picker overlay, optionally add a comment, then press Confirm (it gives up in ${seconds(w.expiresAt - now)} s)${w.headless ? HEADLESS : ''}`;
  }
}

/** What the pick's phrase adds when the launched browser is headless. */
const HEADLESS = '; the browser is headless, so nobody can see the overlay: a person picks in a headed browser (restart tabwright with --headed, or attach to a visible browser)';

/** Where a consent prompt is shown, in words: "the MCP client and the tabwright dashboard (http://…)". */
function askedIn(w: ConsentWaiting): string {
  const ways = (w.askedIn ?? []).map(way => way === 'dashboard' && w.dashboardUrl ? `the tabwright dashboard (${w.dashboardUrl})` : surfaceName(way));
  if (!ways.length) return 'their MCP client or terminal';
  return ways.length === 1 ? ways[0]! : `${ways.slice(0, -1).join(', ')} and ${ways.at(-1)}`;
}

/** What the model could do meanwhile, for the pending text; undefined when nothing but waiting helps. */
export function waitingAdvice(w: WaitingFor | undefined): string | undefined {
  if (w?.kind === 'consent' && w.dashboardUrl) {
    return `Tell the user a consent prompt is waiting for their answer: they can answer it in the tabwright dashboard at ${w.dashboardUrl} (\`tabwright dashboard\` prints the address with its key).`;
  }
  if (w?.kind === 'consent') return 'Tell the user a consent prompt is waiting for their answer.';
  if (w?.kind === 'form_submit') return 'Tell the user the form is filled in and waits for them to submit it in the browser.';
  if (w?.kind === 'browser_approval') return 'Tell the user Chrome is asking "Allow remote debugging?" and that they should click Allow.';
  if (w?.kind === 'pick') return `Tell the user to pick the elements in tab ${w.tabId} of the browser: click each one (again to unselect), optionally write a comment, then press Confirm (Esc cancels).`;
  return undefined;
}

/** The progress message while `tool`'s call waits (shown by clients that display progress, ≤200 characters matter). */
export function waitingProgress(tool: string, w: WaitingFor | undefined, startedAt: number, now = Date.now()): string {
  // The consent wait keeps the gate's own wording (src/consent/gate.ts).
  if (w?.kind === 'consent') return consentProgress(w, now);
  if (w?.kind === 'form_submit') return `Waiting for the person at the browser to submit the form "${w.tool}" (${seconds(now - startedAt)} s)`;
  if (w?.kind === 'page_tool') return `WebMCP tool "${w.tool}" is running (${seconds(now - startedAt)} s)`;
  if (w?.kind === 'execute') return `execute is running in tab ${w.tabId} (${seconds(now - startedAt)} s)`;
  if (w?.kind === 'browser_approval') return `Waiting for the user to click Allow in Chrome's "Allow remote debugging?" (${seconds(w.expiresAt - now)} s left)`;
  if (w?.kind === 'pick') return `Waiting for the user to pick elements in tab ${w.tabId} and press Confirm (${seconds(w.expiresAt - now)} s left)`;
  if (w?.kind === 'tab_lock') return `Waiting for another call on ${w.tabId !== undefined ? `tab ${w.tabId}` : 'the tab'} (${seconds(now - startedAt)} s)`;
  return `${tool} is running (${seconds(now - startedAt)} s)`;
}

/** The `waitingFor` field of a pending result (the state without its timing knobs, plus its phrase). */
export function waitingField(tool: string, w: WaitingFor | undefined, now = Date.now()): WaitingField {
  const text = waitingPhrase(tool, w, now);
  if (!w) return { kind: 'tool', tool, text };
  if (w.kind === 'consent') {
    const { everyMs: _everyMs, ...rest } = w;
    return { ...rest, text };
  }
  return { ...w, text };
}
