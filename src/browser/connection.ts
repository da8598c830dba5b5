/**
 * The seam between the session and a browser (docs/connections.md, "The
 * seam"; one folder per kind, src/browser/<kind>).
 * Each connection kind (launch, cdp, playwright-server, extension, userscript)
 * implements it: src/browser/launch, src/browser/cdp (both remote kinds).
 */
import type { BrowserContext, Page } from 'playwright-core';
import type { Capability, ConnectionKind } from './capabilities.js';

export interface BrowserConnection {
  readonly kind: ConnectionKind;
  readonly capabilities: ReadonlySet<Capability>;
  /**
   * The browser context, starting the browser on first use (lazily).
   * @throws ToolError browser_unavailable when no browser can be started.
   */
  context(): Promise<BrowserContext>;
  /** True once the browser is up and until it closes. */
  isRunning(): boolean;
  /** Browser product and version (`Chromium 156.0...`) once running. */
  browserVersion(): string | undefined;
  /**
   * Calls `listener` with no argument when the browser goes away (crash, window closed, close()).
   * @returns a function that removes the listener again.
   */
  onDisconnect(listener: () => void): () => void;
  /** Closes the browser and removes temporary profiles. Safe to call twice. */
  close(): Promise<void>;
  /**
   * Ends this use of the browser but not the connection (close_browser): closes a browser tabwright launched,
   * detaches from one it attached to (its process and tabs stay). The next context() launches or attaches
   * again, as at start. Calls in flight on its pages fail (their pages close or detach). Never throws.
   * @returns what happened to the browser.
   */
  release(): Promise<BrowserRelease>;
  /**
   * True for one MCP session's own context in a browser other sessions share (`--isolate-sessions`, the daemon's
   * `/mcp`: ./sessionContext.ts): close_browser closes only that context.
   */
  readonly sessionContext?: boolean;
  /**
   * True when every CDP command crosses tabwright's in-process relay to a browser socket it holds (own-chrome,
   * extension; the extension's also crosses its link and chrome.debugger): a round trip costs more than the
   * command, so snapshots and element actions of the top document take their ways with fewer round trips
   * (docs/actions.md, "Direct actions on relayed connections").
   */
  readonly relayed?: boolean;
  /** The remote endpoint with its secrets redacted; undefined for a launched browser. */
  readonly endpoint?: string;
  /**
   * True when connecting asks the user first (own-chrome: Chrome's "Allow remote debugging?"): status calls do
   * not connect, only tools that need the browser do.
   */
  readonly asksToConnect?: boolean;
  /** What the agent may reach through this connection, when the kind limits or widens it (get_bridge_status). */
  readonly scope?: string;
  /**
   * Calls `listener` with `{expiresAt}` (epoch ms) while connecting waits for the user to approve it (own-chrome:
   * Chrome's "Allow remote debugging?"), then with undefined. A call that connects reports it as what it waits for.
   * @returns a function that removes the listener again.
   */
  onApproval?(listener: (pending: { expiresAt: number } | undefined) => void): () => void;
  /** The user's tabs and which of them tabwright may drive (own-chrome; the `shareTabs` capability). */
  readonly sharing?: TabSharing;
  /**
   * Why the page of CDP target `targetId` went away while its tab is still open in the user's browser, if it did
   * (the user's own browser; absent on the other kinds): what tab_not_found says for it afterwards.
   */
  leftScope?(targetId: string): LeftScope | undefined;
  /**
   * True when tabs an earlier tabwright leader had in scope wait on the running browser (own-chrome, after a
   * takeover: the user let tabwright in already): list_tabs connects then, to show them, instead of answering
   * "not connected" (`asksToConnect`).
   */
  resumesScope?(): boolean;
  /**
   * True when the connection to the browser dropped at or after `since`
   * (ms since the epoch): a call that started then and failed reports
   * `browser_disconnected`. Absent: never.
   */
  disconnectedSince?(since: number): boolean;
  /**
   * The browser's own userscript API (the extension's chrome.userScripts), when the kind can have one
   * (docs/userscripts.md, "Through the extension").
   */
  readonly userScripts?: UserScriptsHost;
  /**
   * Tabs reached from inside their pages, with no browser to drive (the userscript kind: `context()` fails there).
   * Tab tools that can serve such a tab do so through it (TabToolDef `remote`); the others answer
   * capability_unavailable (docs/connections.md, "The seam").
   */
  readonly remoteTabs?: RemoteTabs;
}

/** A tab of `RemoteTabs`: what list_tabs shows of it. */
export interface RemoteTabInfo {
  /** A small integer the connection gives the tab, never reused within the process. */
  tabId: number;
  /** The document loaded now (a new one for every document), and its revision (1, then +1 per new document). */
  instanceId: string;
  revision: number;
  /** What the page reports: display information, not a verified origin. */
  url: string;
  title: string;
}

/** Bounds and guards of a call on a remote tab. */
export interface RemoteCallLimits {
  /** ms until the call fails with timeout (or navigate mode answers `navigation: "timeout"`). */
  timeoutMs: number;
  /** The largest result accepted, in bytes of JSON; a larger one is result_too_large, never cut. */
  maxBytes: number;
  /** Fail with revision_mismatch when the tab holds another document. */
  instanceId?: string;
  revision?: number;
  signal?: AbortSignal;
}

/** What navigate mode saw after the code ran (docs/userscript-connection.md, "execute"). */
export interface RemoteNavigation {
  /** `document`: a new document loaded in the tab; `same-document`: the page reported one; `timeout`: neither. */
  navigation: 'document' | 'same-document' | 'timeout';
  /** Why nothing was observed (timeout only). */
  reason?: string;
  revision: number;
  instanceId: string;
  url: string;
  title: string;
  /** The code's value, when it answered before the navigation. */
  value?: unknown;
}

/**
 * The tabs of a connection with no browser to drive, each reached from inside its page (the userscript kind).
 * Every call fails with tab_not_found for a tab that is not connected now.
 */
export interface RemoteTabs {
  /** The connected tabs. */
  list(): RemoteTabInfo[];
  /**
   * Runs `fn` (an async arrow function's source, `async () => …`) in the tab's page world.
   * @returns its value, as JSON allows (undefined: null).
   * @throws ToolError tab_not_found, revision_mismatch, timeout, cancelled, browser_disconnected, evaluation_failed,
   *   result_too_large.
   */
  execute(tabId: number, fn: string, limits: RemoteCallLimits): Promise<unknown>;
  /**
   * Navigate mode: runs `fn` once the page said it is ready, then waits for a new document or a same-document
   * navigation. One at a time per tab.
   * @throws ToolError as execute, and conflict when a navigation already waits on the tab.
   */
  navigate(tabId: number, fn: string, limits: RemoteCallLimits): Promise<RemoteNavigation>;
  /**
   * Inserts an element through the page side's own API (the userscript manager's GM_addElement, which can pass the
   * page's CSP): the add_element tool's way on this kind.
   * @returns the element's tag and id (null when it has none).
   * @throws ToolError as execute; evaluation_failed when the parent selector matches nothing.
   */
  addElement(tabId: number, element: RemoteElement, limits: RemoteCallLimits): Promise<{ tag: string; id: string | null }>;
}

/** An element for RemoteTabs.addElement. */
export interface RemoteElement {
  tag: string;
  /** A CSS selector of the parent; undefined: <head> for script, style, link and meta, else <body> (as add_element elsewhere). */
  parent?: string;
  /** HTML attributes, set as strings. */
  attributes?: Record<string, string>;
  /** DOM properties given at creation (textContent, innerHTML, …). */
  properties?: Record<string, unknown>;
}

/**
 * What `release()` did: `closed` (the browser tabwright launched, or a Playwright server's browser for this
 * connection, ended with its tabs), `detached` (an attached browser keeps running with its tabs), `context_closed`
 * (tabwright's own context in a browser it does not own closed with its tabs; the browser keeps running).
 */
export type BrowserRelease = 'closed' | 'detached' | 'context_closed';

/** Whether the browser's userscript API can be used now, and if not why (`reason` is a stable code). */
export interface UserScriptsAvailability {
  available: boolean;
  /** `allow-user-scripts-off` (the per-extension toggle, Chrome 138+), `developer-mode-off` (before 138), `no-link`, `failed`. */
  reason?: string;
  /** Chrome's major version, when known. */
  chromeMajor?: number;
}

/**
 * What the extension registers (chrome.userScripts.register, docs/userscripts.md "Through the extension"): one
 * MAIN-world script holding tabwright's engine and the enabled scripts, and one USER_SCRIPT-world messenger.
 */
export interface UserScriptsRegistration {
  /** The MAIN-world code: the userscript engine's init script built for the extension. */
  code: string;
  /** Chrome match patterns the two scripts are registered for (a coarse filter: the engine matches each script). */
  matches: string[];
  /** The name of the DOM events that carry the engine's messages between the two worlds (a per-process secret). */
  event: string;
  /** The global the extension sets over CDP in shared tabs it is attached to: present at document start, the tab is shared. */
  flag: string;
}

/** Where a message of a page's userscript engine came from, as the extension saw its sender. */
export interface UserScriptsOrigin {
  /** Chrome's tab id (a shared tab: the extension answers no other). */
  tabId: number;
  /** Chrome's frame id: 0 is the tab's main frame. */
  frameId: number;
  /** The sending frame's URL. */
  url: string;
}

/** The browser-side userscript API of a connection (the extension's chrome.userScripts). */
export interface UserScriptsHost {
  /** Asks the browser now. Never throws: a failure is `{available: false, reason: 'failed' | 'no-link'}`. */
  availability(): Promise<UserScriptsAvailability>;
  /**
   * Registers `registration` (replacing what was registered), or unregisters everything when undefined.
   * @throws Error when the browser refuses it (the caller falls back to its CDP injector).
   */
  sync(registration: UserScriptsRegistration | undefined): Promise<void>;
  /** Calls `handler` with every engine message of a shared tab; its result is the message's answer. One handler. */
  onMessage(handler: (origin: UserScriptsOrigin, msg: unknown) => Promise<unknown>): void;
  /** The Playwright page of Chrome's tab `tabId` (waits up to `waitMs` for it to be attached), or undefined. */
  pageOf(tabId: number, waitMs?: number): Promise<Page | undefined>;
}

/** One of the user's browser tabs, whether or not tabwright may drive it. */
export interface UserTab {
  /** The browser's target id (stable while the tab lives). */
  targetId: string;
  title: string;
  url: string;
  /** `shared`: the user shared it; `agent`: tabwright opened it; undefined: out of scope, never attached. */
  scope?: 'shared' | 'agent';
}

/** Selective attach over a browser the user owns (docs/own-browser.md, "Sharing tabs"). */
export interface TabSharing {
  /** The browser's tabs, connecting first when needed (which may ask the user). @throws ToolError as context(). */
  tabs(): Promise<UserTab[]>;
  /** Puts tabs in scope; they are attached and appear as tabwright tabs. @throws ToolError tab_not_found for an unknown id. */
  share(targetIds: readonly string[]): Promise<void>;
  /** Takes tabs out of scope: detached, left open in the browser as they are. */
  unshare(targetIds: readonly string[]): Promise<void>;
}

/**
 * Why a tab left tabwright while it stays open in the user's browser: `unshared` (the user stopped sharing it),
 * `not_debuggable` (it went to a page the extension may not drive, such as chrome:// or an extension page).
 */
export type LeftScope = 'unshared' | 'not_debuggable';
