/**
 * The session: the tabs of one browser connection, which one is active, the
 * element refs issued for them, and the in-page runtime injected into every
 * document (docs/architecture.md, "Layers").
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import type { BrowserConnection, BrowserRelease, LeftScope } from '../browser/connection.js';
import { LeftScopeLog } from '../browser/leftScope.js';
import type { Config } from '../config.js';
import { logger } from '../log.js';
import { ToolError } from '../errors.js';
import { dialogOpenError } from './dialogs.js';
import { Downloads } from './downloads.js';
import { Recordings } from './recording.js';
import { routeRequests } from './requestPolicy.js';
import { runtimeInitScript } from '../webmcp/runtimeScript.js';
import type { UserscriptInjector } from '../userscripts/injection.js';
import { RefRegistry, registerRefEngine } from './refs.js';
import { Tab } from './tab.js';
import { pollUntil, raceTimeout } from '../util/wait.js';

const log = logger('session');

/** The bundled in-page runtime (built by scripts/build.mjs from src/page). */
export const RUNTIME_PATH = fileURLToPath(new URL('../page/runtime.js', import.meta.url));

export class Session {
  readonly refs = new RefRegistry();
  /** Tab recordings (start_recording, src/session/recording.ts): finalized before the browser goes. */
  readonly recordings = new Recordings();
  private readonly tabs = new Map<number, Tab>();
  /** Tabs of the user's browser that left tabwright while they stay open, and why, by tab id (the newest 256). */
  private readonly leftTabs = new LeftScopeLog<number>();
  private readonly registering = new WeakMap<Page, Promise<Tab>>();
  private readonly tabOfPage = new WeakMap<Page, Tab>();
  private readonly dialogListeners = new Set<(tab: Tab) => void>();
  private nextTabId = 1;
  /** The crashed tab whose id the next new page takes (replaceCrashed). */
  private replacing: Tab | undefined;
  /** Scratch pages withScratchPage is opening, not yet seen by the context's `page` event. */
  private scratchWanted = 0;
  /** Pages of withScratchPage: never tabs. */
  private readonly scratch = new WeakSet<Page>();
  private activeId: number | undefined;
  private ctx: Promise<BrowserContext> | undefined;
  /** Aborted by close_browser (browserSignal). */
  private browserCalls = new AbortController();
  /** When close_browser last left the browser (ms since the epoch; 0: never). */
  private closedAt = 0;
  /**
   * How many other sessions have a context open in this session's browser (set by the dispatcher on the main
   * session under `--isolate-sessions` and the daemon's `/mcp`): close_browser refuses to close it under them.
   */
  otherSessions: (() => number) | undefined;
  /** Every download of the session, saved under `<workspace>/.tabwright/downloads/`. */
  readonly downloads: Downloads;
  /** Injects enabled userscripts into every page; set before the browser starts. */
  userscripts: UserscriptInjector | undefined;
  /** `runtimeScript()`'s answer once read (null: the bundle is not built). */
  private runtime: string | null | undefined;

  constructor(
    readonly connection: BrowserConnection,
    readonly config: Config,
  ) {
    this.downloads = new Downloads(join(config.workspace, '.tabwright', 'downloads'));
    connection.onDisconnect(() => {
      for (const tab of this.tabs.values()) this.forget(tab);
      this.ctx = undefined;
      // Calls still running on the browser (a wait, a page tool) end now instead of waiting on pages that are gone.
      this.abortBrowserCalls('the browser went away');
    });
  }

  /** The browser context, launching the browser on first use. */
  context(): Promise<BrowserContext> {
    this.ctx ??= this.setUp().catch(error => {
      this.ctx = undefined;
      throw error;
    });
    return this.ctx;
  }

  private async setUp(): Promise<BrowserContext> {
    // The ref engine first: a context that opens while it registers would lack it (several sessions in one process).
    await registerRefEngine();
    const ctx = await this.connection.context();
    // The host rules first: no request of a page may slip past them (docs/policy.md).
    await routeRequests(ctx, this.config.policy);
    const runtime = this.runtimeScript();
    if (runtime) await ctx.addInitScript({ content: runtime });
    else log.warn(`in-page runtime missing at ${RUNTIME_PATH}; run npm run build`);
    // After the runtime: in each document the engine runs second (it claims the polyfill's AgentScript registrar).
    await this.userscripts?.install(ctx, page => this.register(page), this.connection.userScripts);
    ctx.on('page', page => {
      // A page withScratchPage opens starts blank; it is never a tab (docs/storage.md, "What a load changes").
      if (this.scratchWanted > 0 && page.url() === 'about:blank' && !this.tabOfPage.has(page)) {
        this.scratchWanted--;
        this.scratch.add(page);
        return;
      }
      void this.register(page);
      // A tab of an attached browser that comes into view later (a tab the user shares) has its document loaded already.
      if (runtime && this.connection.endpoint !== undefined) void this.injectIntoLoaded([page]);
    });
    // Dialogs are taken at the context, not the page: a popup's page object reaches
    // us after its first script may have run, and Playwright dismisses a dialog
    // nobody listens for (an alert on a popup's load stays open).
    ctx.on('dialog', dialog => {
      const page = dialog.page();
      if (!page) return;
      void this.register(page);
      const tab = this.tabOfPage.get(page);
      if (!tab) return;
      tab.dialogs.onDialog(dialog);
      for (const listener of [...this.dialogListeners]) listener(tab);
    });
    const existing = ctx.pages();
    for (const page of existing) await this.register(page);
    // Pages loaded before we came (an attached browser's tabs) get the runtime now.
    if (runtime) await this.injectIntoLoaded(existing);
    return ctx;
  }

  /**
   * The in-page runtime as every document gets it from the init script:
   * the bundle wrapped with this session's `--webmcp` mode
   * (src/webmcp/runtimeScript.ts, read by src/page/runtime.ts). Undefined
   * when the bundle is not built. Read once.
   */
  runtimeScript(): string | undefined {
    this.runtime ??= existsSync(RUNTIME_PATH) ? runtimeInitScript(RUNTIME_PATH, this.config.webmcp) : null;
    return this.runtime ?? undefined;
  }

  /**
   * Runs the in-page runtime, with this session's `--webmcp` mode, in
   * `frame`'s current document: for a document older than the session's
   * init script (a tab open before attach, the first tab of a profile). The
   * one way tabwright injects the runtime late (the attach, execute, the
   * snapshot). A document that has a runtime keeps it: the runtime installs
   * itself once per document.
   * @throws ToolError internal when the bundle is not built; Playwright's errors of the evaluation.
   */
  async injectRuntime(frame: Frame): Promise<void> {
    const runtime = this.runtimeScript();
    if (!runtime) throw new ToolError('internal', `The in-page runtime is missing at ${RUNTIME_PATH}.`, 'Run npm run build (a source checkout), or reinstall tabwright.');
    await frame.evaluate(runtime);
  }

  /**
   * Injects the runtime into every frame of `pages`, whose documents loaded
   * before the session's init script existed (tabs open at attach time), except about:blank ones. Each frame gets INJECT_TIMEOUT_MS; a
   * failure is logged, never thrown. WebMCP tools such a page registered
   * before this point went to the browser's native registry or nowhere; the
   * polyfill sees only tools registered after it (docs/attach.md).
   */
  private async injectIntoLoaded(pages: Page[]): Promise<void> {
    const frames = pages.flatMap(page => page.frames()).filter(frame => !/^(about:blank|)$/.test(frame.url()));
    await Promise.all(frames.map(frame => raceTimeout(this.injectRuntime(frame).catch(error => log.debug(`runtime injection into ${frame.url()} failed:`, error)), { ms: INJECT_TIMEOUT_MS, onTimeout: 'undefined' })));
  }

  /**
   * Attaches to a remote browser (a connection with an `endpoint`)
   * so that tools which never launch one (list_tabs, get_bridge_status) see
   * its open tabs; does nothing for a launch connection, nor for one that asks the user to connect unless it
   * resumes the tabs an earlier leader had in scope (BrowserConnection.resumesScope).
   * @throws ToolError browser_unavailable when the endpoint does not answer.
   */
  async attachRemote(): Promise<void> {
    if (this.connection.endpoint !== undefined && (!this.connection.asksToConnect || this.connection.resumesScope?.())) await this.context();
  }

  /**
   * `tab` once its registration is done: a tab is listed (a new popup an action reports) before its CDP session is
   * attached and its document known (instanceId 'pending'); a call on it waits for that, or the refs of a snapshot
   * taken meanwhile would belong to no document and go stale at once. A registration that failed, or takes longer
   * than REGISTER_WAIT_MS, leaves the tab as it is.
   */
  private async registered(tab: Tab): Promise<Tab> {
    const pending = this.registering.get(tab.page);
    if (pending) await raceTimeout(pending.catch(() => undefined), { ms: REGISTER_WAIT_MS, onTimeout: 'undefined' });
    return tab;
  }

  /** Returns the Tab for a page, creating it on first sight. */
  register(page: Page): Promise<Tab> {
    let pending = this.registering.get(page);
    if (!pending) {
      pending = this.createTab(page);
      this.registering.set(page, pending);
    }
    return pending;
  }

  private async createTab(page: Page): Promise<Tab> {
    // The page replacing a crashed tab's (replaceCrashed) takes that tab's id.
    const replacing = this.replacing;
    this.replacing = undefined;
    const tab = new Tab(replacing?.id ?? this.nextTabId++, page, this);
    if (replacing) {
      tab.openerTabId = replacing.openerTabId;
      // Revisions only go up in a tab: the new page's first document comes after the crashed one's.
      tab.revision = replacing.revision;
    }
    const scripts = this.userscripts;
    if (scripts) tab.scriptOfStack = stack => scripts.scriptOfStack(stack);
    this.tabs.set(tab.id, tab);
    this.tabOfPage.set(page, tab);
    tab.onDocument(old => this.refs.dropDocument(old));
    page.on('close', () => this.forget(tab));
    // Into the workspace of the call that last acted on the tab (a daemon or relay leader serves many workspaces).
    // Under --policy hardened every download is cancelled and reported refused (docs/policy.md).
    const refuse = this.config.policy.mode === 'hardened' ? '--policy hardened' : undefined;
    page.on('download', download => this.downloads.add(tab.id, download, tab.workspace ? join(tab.workspace, '.tabwright', 'downloads') : undefined, refuse));
    const opener = replacing ? null : await page.opener().catch(() => null);
    if (opener) tab.openerTabId = (await this.register(opener)).id;
    await tab.attach();
    this.activeId ??= tab.id;
    log.debug(`tab ${tab.id} registered (opener ${tab.openerTabId ?? '-'})`);
    return tab;
  }

  private forget(tab: Tab): void {
    tab.markClosed();
    if (this.tabs.get(tab.id) !== tab) {
      // A crashed tab's page closed after a new page took its id (replaceCrashed): only its refs go.
      this.refs.dropDocument(tab.instanceId);
      return;
    }
    // A tab of the user's browser that left tabwright without closing (unshared): later calls on it are told so.
    const left = tab.targetId ? this.connection.leftScope?.(tab.targetId) : undefined;
    if (left) this.leftTabs.note(tab.id, left);
    this.tabs.delete(tab.id);
    this.refs.dropDocument(tab.instanceId);
    if (this.activeId === tab.id) {
      const opener = tab.openerTabId !== undefined ? this.tabs.get(tab.openerTabId) : undefined;
      this.activeId = opener?.id ?? [...this.tabs.keys()].pop();
    }
  }

  /**
   * Calls `listener` with the tab whenever a dialog opens in any tab, until
   * the returned function is called.
   */
  watchDialogs(listener: (tab: Tab) => void): () => void {
    this.dialogListeners.add(listener);
    return () => {
      this.dialogListeners.delete(listener);
    };
  }

  /** The active tab's id, if any tab is open. */
  get activeTabId(): number | undefined {
    return this.activeId;
  }

  /** Open tabs in tabId order (no browser launch). */
  openTabs(): Tab[] {
    return [...this.tabs.values()].sort((a, b) => a.id - b.id);
  }

  /** Whether the browser is up. */
  get running(): boolean {
    return this.connection.isRunning();
  }

  /**
   * The tab to act on: `tabId`, or the active one (opening a tab if none is open).
   * A tab whose page waits for a dialog is refused unless `opts.dialogOk`
   * (handle_dialog, close_tab, focus_tab, reading the console buffer).
   * @throws ToolError tab_not_found for an unknown or closed tabId; dialog_open.
   */
  async tab(tabId?: number, opts: { dialogOk?: boolean } = {}): Promise<Tab> {
    const tab = await this.pick(tabId);
    if (opts.dialogOk || !tab.dialogs.current) return tab;
    // A dialog answered elsewhere a moment ago (another CDP client, the user) is closed once the tab's session has caught up.
    const dialog = await tab.dialogs.settle();
    if (dialog) throw dialogOpenError(tab.id, dialog);
    return tab;
  }

  private async pick(tabId?: number): Promise<Tab> {
    if (tabId !== undefined) {
      // An explicit tab exists only once the browser runs: never launch for it.
      const tab = this.tabs.get(tabId);
      if (!tab || tab.closed) throw tabNotFound(tabId, this.leftTabs.get(tabId));
      return await this.registered(tab);
    }
    const ctx = await this.context();
    const active = this.activeId !== undefined ? this.tabs.get(this.activeId) : undefined;
    if (active && !active.closed) return await this.registered(active);
    return this.openTab(ctx);
  }

  /**
   * Runs `fn` on a page of the session's context that is never a tab (not listed, not reported, not active), and
   * closes it after: for work in a document of some origin that must leave the user's tabs alone (loading a storage
   * state). The page is blank; `fn` routes and loads it.
   * @throws what `fn` or opening the page throws.
   */
  async withScratchPage<T>(fn: (page: Page) => Promise<T>): Promise<T> {
    const context = await this.context();
    this.scratchWanted++;
    let page: Page;
    try {
      page = await context.newPage();
    } catch (error) {
      this.scratchWanted = Math.max(0, this.scratchWanted - 1);
      throw error;
    }
    if (!this.scratch.has(page)) {
      // The page event did not claim it (it came as a tab): no scratch page is wanted any more.
      this.scratchWanted = Math.max(0, this.scratchWanted - 1);
      this.scratch.add(page);
    }
    try {
      return await fn(page);
    } finally {
      await page.close().catch(() => undefined);
    }
  }

  /**
   * Opens a new tab (about:blank) and makes it active unless `background`;
   * a background tab leaves the active one in front of the window.
   */
  async openTab(ctx?: BrowserContext, background = false): Promise<Tab> {
    const context = ctx ?? (await this.context());
    const page = this.userscripts ? await this.userscripts.creatingPage(() => context.newPage()) : await context.newPage();
    const tab = await this.register(page);
    const active = this.activeId !== undefined ? this.tabs.get(this.activeId) : undefined;
    if (!background || !active || active === tab) this.activeId = tab.id;
    else await active.page.bringToFront().catch(() => undefined);
    return tab;
  }

  /**
   * Replaces the page of `tab`, whose renderer crashed (Tab.crashed), by a new page (about:blank) in the same browser
   * context under the same tab id, then closes the crashed page. The new tab keeps the old one's opener and revision
   * (the next document it loads is the revision after) and, if it was active, stays active. The caller loads what it wants into it. Should another page appear in the browser in
   * the same instant (a popup), it may take the id instead: the returned tab's id is the one to report.
   * @returns the new Tab. @throws what opening a page throws (e.g. browser_disconnected).
   */
  async replaceCrashed(tab: Tab): Promise<Tab> {
    const context = tab.page.context();
    this.replacing = tab;
    let page: Page;
    try {
      page = this.userscripts ? await this.userscripts.creatingPage(() => context.newPage()) : await context.newPage();
    } finally {
      if (this.replacing === tab) this.replacing = undefined;
    }
    const fresh = await this.register(page);
    fresh.replacedUrl = tab.page.url();
    await tab.page.close().catch(() => undefined);
    log.info(`tab ${tab.id}: the crashed page was replaced by a new one (tab ${fresh.id})`);
    return fresh;
  }

  /**
   * Makes a tab active and brings it to the front.
   * @throws ToolError tab_not_found
   */
  async focusTab(tabId: number): Promise<Tab> {
    const tab = await this.tab(tabId, { dialogOk: true });
    this.activeId = tab.id;
    await tab.page.bringToFront();
    return tab;
  }

  /**
   * Closes a tab (beforeunload handlers do not run). The active tab falls
   * back to the closed tab's opener, else the newest open tab.
   * @throws ToolError tab_not_found
   */
  async closeTab(tabId: number): Promise<void> {
    const tab = await this.tab(tabId, { dialogOk: true });
    await tab.page.close();
    this.forget(tab);
  }

  /**
   * close_browser: leaves the browser (BrowserConnection.release: closes the one tabwright launched, detaches
   * from an attached one) and forgets every tab, ref and dialog of this session; the next call that needs the
   * browser starts or attaches again, as at start. Calls in flight on its tabs fail (`closedBrowserSince`).
   * @returns what happened to the browser and how many tabs the session had.
   */
  async closeBrowser(): Promise<{ release: BrowserRelease; tabCount: number }> {
    const tabCount = this.tabs.size;
    await this.recordings.stopAll('browser_closed');
    this.closedAt = Date.now();
    const release = await this.connection.release();
    this.ctx = undefined;
    for (const tab of [...this.tabs.values()]) {
      tab.markClosed();
      this.tabs.delete(tab.id);
      this.refs.dropDocument(tab.instanceId);
    }
    this.activeId = undefined;
    this.closedAt = Date.now();
    // Calls still running (a wait on a page that went away, a pending page tool) stop now, whatever they wait for.
    this.abortBrowserCalls('close_browser left the browser');
    return { release, tabCount };
  }

  /**
   * Aborts when close_browser leaves the browser: the dispatcher joins it to each call's signal, so a call in
   * flight on the browser ends (`browser_disconnected`) instead of waiting on pages that are gone. A fresh signal
   * after each close_browser.
   */
  get browserSignal(): AbortSignal {
    return this.browserCalls.signal;
  }

  /** Aborts browserSignal (the calls in flight on the browser) and starts a fresh one for the calls to come. */
  private abortBrowserCalls(why: string): void {
    const calls = this.browserCalls;
    this.browserCalls = new AbortController();
    calls.abort(new Error(why));
  }

  /**
   * True when the browser went away at or after `since` (ms since the epoch): its connection dropped (the launched
   * browser's process ended, an attached one closed) or close_browser left it. Playwright closes the pages a moment
   * before it reports the drop, so a closed page waits up to 500 ms for the drop to be known.
   */
  async browserGoneSince(since: number): Promise<boolean> {
    const gone = () => this.closedBrowserSince(since) || this.connection.disconnectedSince?.(since) === true;
    if (gone() || !this.connection.disconnectedSince) return gone();
    return (await pollUntil(gone, { ms: 500, intervalMs: 25 })) === true;
  }

  /** True when close_browser ran at or after `since` (ms since the epoch): a call that started then and failed says so. */
  closedBrowserSince(since: number): boolean {
    return this.closedAt >= since;
  }

  /** Closes the browser (and with it every tab). */
  async close(): Promise<void> {
    // Each recording's file is finalized while its ffmpeg still gets frames' end (the server exits right after).
    await this.recordings.stopAll('server_exit');
    await this.connection.close();
  }
}

/** How long a call on a tab waits for the tab's registration (its CDP session attached), in ms. */
const REGISTER_WAIT_MS = 5_000;

/** How long injecting the runtime into one already-loaded frame may take, in ms (a page waiting on a dialog never answers). */
const INJECT_TIMEOUT_MS = 3_000;

/**
 * The error for a tabId that is not open; `left`: the tab is still open in the user's browser but left
 * tabwright (connection.ts LeftScope), which the message says instead of "no open tab".
 */
export function tabNotFound(tabId: number, left?: LeftScope): ToolError {
  if (left === 'unshared') {
    return new ToolError('tab_not_found', `Tab ${tabId} is no longer shared with tabwright: the user stopped sharing it (it is still open in their browser).`,
      'Do not act on it; if the task needs it, ask the user to share it again (the extension\'s popup, or `tabwright share`). Call list_tabs for the tabs you can use.', { left });
  }
  if (left === 'not_debuggable') {
    return new ToolError('tab_not_found', `Tab ${tabId} went to a page tabwright may not drive (a chrome:// or extension page); it is still open in the user's browser.`,
      'Call list_tabs for the tabs you can use; once the tab shows a web page again, the user can share it again from the extension\'s popup.', { left });
  }
  return new ToolError('tab_not_found', `There is no open tab ${tabId}.`, 'Call list_tabs for the open tabs and their tabIds.');
}
