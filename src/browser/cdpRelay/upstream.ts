/**
 * What the CDP relay (./endpoint.ts) forwards to: the browser behind it, reached over a wire that is not
 * a plain DevTools socket, or one that must not be given to Playwright whole (docs/connections.md, "The CDP
 * relay"). Two kinds implement it: the user's own Chrome in approval mode (src/browser/ownChrome/, one real
 * browser socket with selective attach) and the companion extension (src/browser/extension/, chrome.debugger
 * over the extension link, scoped to shared tabs).
 *
 * The relay speaks flat CDP (one socket, `sessionId` on each message) to playwright-core's
 * `connectOverCDP`; an upstream answers every command of that client, root ones (no `sessionId`:
 * `Browser.getVersion`, `Target.setAutoAttach`, `Target.createTarget`, cookies, ...) and session ones alike, and
 * emits the events the client should see.
 *
 * Ordering contract: the client sees replies and events in the order the upstream hands them over, so a
 * pass-through upstream must reply synchronously when the browser's answer arrives, not through a promise: `ws`
 * emits every frame of one TCP read before any microtask runs, and a reply deferred to a `.then` would reach the
 * client after the events that followed it (Playwright then drops a `Runtime.executionContextCreated` that
 * overtook its `Page.getFrameTree` reply, and the page never gets a main world). Root commands the upstream
 * handles itself may reply later (`replyWhenSettled`); an event it emits before it replies arrives first
 * (Playwright's `Target.createTarget` expects the new tab's `Target.attachedToTarget` before the reply).
 */

/** A CDP error for the client: `code` as in CDP (-32000 server error, -32601 method not found), message for the agent. */
export class CdpCommandError extends Error {
  constructor(
    message: string,
    readonly code = -32000,
  ) {
    super(message);
    this.name = 'CdpCommandError';
  }
}

/** How an upstream answers one command: its result, or its error. */
export type CdpReply = (outcome: { result: Record<string, unknown> } | { error: { code: number; message: string } }) => void;

/**
 * Replies with what `work` settles to: its result, or its error (a CdpCommandError's code, else -32000). For root
 * commands an upstream handles itself; never for pass-through traffic (see the ordering contract above).
 */
export function replyWhenSettled(work: Promise<Record<string, unknown>>, reply: CdpReply): void {
  work.then(
    result => reply({ result }),
    (error: unknown) => reply({ error: { code: error instanceof CdpCommandError ? error.code : -32000, message: error instanceof Error ? error.message : String(error) } }),
  );
}

/** One CDP event for the client. `sessionId` undefined: a root (browser) event. */
export interface CdpEvent {
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

/** The browser behind a CDP relay, as seen by the relay's one client. */
export interface CdpUpstream {
  /**
   * Answers one command of the client through `reply`, exactly once.
   * @param sessionId  undefined for a root command, else a session id the upstream announced with
   *   `Target.attachedToTarget` (or one Chrome gave a child target of such a session).
   * @param reply  the command's `result`, or its `error` (a method the upstream refuses names itself and why:
   *   "tabwright: Storage.getCookies is limited to the shared tabs' origins").
   */
  command(method: string, params: Record<string, unknown>, sessionId: string | undefined, reply: CdpReply): void;
  /** Where the upstream sends events for the client; set once by the relay before the first command. */
  setEventSink(emit: (event: CdpEvent) => void): void;
  /** The relay's client went away (Playwright closed the connection): detach what it attached, keep the browser. */
  clientClosed(): void;
}
