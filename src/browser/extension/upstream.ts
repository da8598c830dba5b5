/**
 * The CDP relay's upstream over the extension link (EXTENSION-DESIGN.md §4.5): Playwright's `connectOverCDP` sees a
 * browser whose only pages are the tabs the user shared (and the ones the agent opened through tabwright's tools).
 *
 * - Sessions: a shared tab is announced as session `tw-tab-<tabId>`; a child session (an OOPIF, a worker) keeps
 *   Chrome's own id, registered under its tab when its `Target.attachedToTarget` arrives, and is forwarded as
 *   `{tabId, sessionId}`.
 * - Root methods are synthesized: Browser.getVersion; Browser.setDownloadBehavior, grantPermissions and
 *   resetPermissions as no-ops (downloads go to the user's download folder); Target.setAutoAttach (announce the
 *   shared tabs), Target.getTargetInfo, Target.getBrowserContexts, Target.createTarget (the extension's
 *   tabs.create: the new tab joins the shared set), Target.closeTarget, Target.detachFromTarget; Storage.getCookies /
 *   setCookies limited to the shared tabs' origins (through a shared tab's Network domain; never clearCookies: it is
 *   the user's jar). Target.createBrowserContext makes a context that is a set of tabs in the user's profile (own
 *   tabs, the profile's cookies and storage: `--isolate-sessions` gives each session its own tabs, nothing more);
 *   disposing it closes its tabs. Everything else at the root is an error naming the method, never "whichever tab".
 * - Extension events: `cdp.event` → the event on its session; `cdp.detached` → Target.detachedFromTarget;
 *   `share.changed` and `tab.opened` → the new tabs attached and announced (Playwright fires `page` / `popup`).
 * The extension's own gate (extension/src/gate.ts) checks every command again: this side is not the boundary.
 */
import { logger } from '../../log.js';
import { CdpCommandError, replyWhenSettled, type CdpEvent, type CdpReply, type CdpUpstream } from '../cdpRelay/upstream.js';
import { ExtensionError, type ExtensionLink } from './link.js';
import type { SharedTab } from './protocol.js';
import type { LeftScope } from '../connection.js';
import { LeftScopeLog } from '../leftScope.js';

const log = logger('extension');

/** The browser context id the relay reports for the user's profile (every tab lives in it). */
const DEFAULT_CONTEXT = 'tw-default';

/** Session commands that replay state as events: sent only once the session's earlier commands are answered. */
const BARRIERS = new Set(['Runtime.enable', 'Target.setAutoAttach']);

const NO_OP_ROOT = new Set(['Browser.setDownloadBehavior', 'Browser.grantPermissions', 'Browser.resetPermissions', 'Target.setDiscoverTargets']);

interface TabState {
  tabId: number;
  /** DEFAULT_CONTEXT, or a context of Target.createBrowserContext (a group of tabs, not a separate profile). */
  context: string;
  sessionId: string;
  targetId: string;
  info: SharedTab;
}

export class ExtensionUpstream implements CdpUpstream {
  private emit: (event: CdpEvent) => void = () => undefined;
  private readonly tabs = new Map<number, TabState>();
  /** Tabs the user stopped sharing, or that went to a page the extension may not drive (still open in the browser). */
  private readonly left = new LeftScopeLog();
  private readonly children = new Map<string, number>();
  private autoAttach = false;
  /** Tabs being attached now (so a share.changed during an attach does not announce them twice). */
  private readonly attaching = new Map<number, Promise<TabState | undefined>>();
  private readonly offEvent: () => void;
  private readonly contexts = new Set<string>();
  private nextContext = 1;
  /** Sessions of Target.attachToBrowserTarget: they speak the root's synthesized methods. */
  private readonly browserSessions = new Set<string>();
  /**
   * Extra sessions on a tab or child target (Target.attachToTarget, what `newCDPSession` sends): chrome.debugger
   * gives an extension one session per tab, so an alias forwards to it and gets a copy of its events.
   */
  private readonly aliases = new Map<string, { tabId: number; child?: string; parent?: string }>();
  /** Child targets (OOPIFs, workers) by Chrome's target id: what an alias of a child session needs. */
  private readonly childTargets = new Map<string, { tabId: number; sessionId: string }>();
  private nextSession = 1;
  /** Per client session: commands not answered yet, and the queue behind a barrier command (see `ordered`). */
  private readonly sessionOrder = new Map<string, { inflight: Set<Promise<unknown>>; queue: Promise<void> | undefined }>();

  constructor(private readonly link: ExtensionLink) {
    this.offEvent = link.onEvent((ev, p) => this.onEvent(ev, p));
  }

  setEventSink(emit: (event: CdpEvent) => void): void {
    this.emit = emit;
  }

  /** The CDP target id of shared tab `tabId`, once it is announced. */
  targetIdOf(tabId: number): string | undefined {
    return this.tabs.get(tabId)?.targetId;
  }

  /** Why the tab of `targetId` left scope while it stays open in the browser, if it did. */
  leftScope(targetId: string): LeftScope | undefined {
    return this.left.get(targetId);
  }

  /** Chrome's tab id of the shared tab whose CDP target is `targetId`; undefined when no shared tab has it. */
  tabIdOfTarget(targetId: string): number | undefined {
    for (const [tabId, tab] of this.tabs) if (tab.targetId === targetId) return tabId;
    return undefined;
  }

  /** The tab ids announced to the client now. */
  get tabIds(): number[] {
    return [...this.tabs.keys()];
  }

  /**
   * Answers through `reply` once the command settles. The link's answers and events travel separately through the
   * extension anyway (chrome.debugger), so the order Playwright needs is kept by `ordered` below, not by replying
   * synchronously as a pass-through upstream must (src/browser/cdpRelay/upstream.ts).
   */
  command(method: string, params: Record<string, unknown>, sessionId: string | undefined, reply: CdpReply): void {
    replyWhenSettled(this.answer(method, params, sessionId), reply);
  }

  private async answer(method: string, params: Record<string, unknown>, sessionId: string | undefined): Promise<Record<string, unknown>> {
    if (sessionId === undefined || this.browserSessions.has(sessionId)) return await this.root(method, params, sessionId);
    const alias = this.aliases.get(sessionId);
    if (alias) return await this.ordered(sessionId, method, () => this.send(alias.tabId, method, params, alias.child));
    const tabId = this.tabOfSession(sessionId);
    if (tabId === undefined) throw new CdpCommandError(`Session with given id not found: ${sessionId}`, -32001);
    const child = sessionId.startsWith('tw-tab-') ? undefined : sessionId;
    return await this.ordered(sessionId, method, () => this.send(tabId, method, params, child));
  }

  clientClosed(): void {
    this.offEvent();
    const ids = [...this.tabs.keys()];
    this.tabs.clear();
    this.children.clear();
    // Leave every tab as it was: detached, open.
    for (const tabId of ids) void this.link.request('cdp.detach', { tabId }).catch(() => undefined);
  }

  private tabOfSession(sessionId: string): number | undefined {
    const match = /^tw-tab-(\d+)$/.exec(sessionId);
    if (match) return this.tabs.has(Number(match[1])) ? Number(match[1]) : undefined;
    return this.children.get(sessionId);
  }

  /**
   * Sends a session's command in order with the session's others. chrome.debugger delivers events and answers on
   * separate paths, so events of a later command can overtake answers of earlier ones; a client that attaches to a
   * loaded page depends on that order for two commands that replay state as events: Runtime.enable (the frames'
   * execution contexts must come after Page.getFrameTree's answer, or Playwright drops them) and
   * Target.setAutoAttach (the OOPIFs). Those wait until every earlier command of the session is answered; the
   * commands after them wait until they are sent. Everything else goes out at once, in the order it came.
   */
  private ordered(session: string, method: string, run: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const state = this.sessionOrder.get(session) ?? { inflight: new Set<Promise<unknown>>(), queue: undefined };
    this.sessionOrder.set(session, state);
    const track = (promise: Promise<Record<string, unknown>>) => {
      const settled = promise.then(() => undefined, () => undefined);
      state.inflight.add(settled);
      void settled.then(() => state.inflight.delete(settled));
      return promise;
    };
    if (!BARRIERS.has(method) && !state.queue) return track(run());
    const before = state.queue;
    const waitFor = BARRIERS.has(method) ? [...state.inflight] : [];
    let release!: () => void;
    const sent = new Promise<void>(resolve => (release = resolve));
    const queue = sent.then(() => {
      if (state.queue === queue) state.queue = undefined;
    });
    state.queue = queue;
    return (async () => {
      await before;
      await Promise.all(waitFor);
      const promise = track(run());
      release();
      return await promise;
    })();
  }

  private async send(tabId: number, method: string, params: Record<string, unknown>, sessionId?: string): Promise<Record<string, unknown>> {
    try {
      return await this.link.cdpSend({ tabId, method, params, ...(sessionId ? { sessionId } : {}) }) as Record<string, unknown>;
    } catch (error) {
      throw asCdpError(error);
    }
  }

  private async root(method: string, params: Record<string, unknown>, browserSession?: string): Promise<Record<string, unknown>> {
    switch (method) {
      case 'Target.attachToBrowserTarget': {
        const sessionId = `tw-browser-${this.nextSession++}`;
        this.browserSessions.add(sessionId);
        return { sessionId };
      }
      case 'Target.attachToTarget': {
        const targetId = String(params.targetId);
        const tab = [...this.tabs.values()].find(t => t.targetId === targetId);
        const child = this.childTargets.get(targetId);
        if (!tab && !child) throw new CdpCommandError(`tabwright extension [not_shared]: target ${targetId} is not a shared tab or a frame of one.`);
        const sessionId = `tw-session-${this.nextSession++}`;
        this.aliases.set(sessionId, tab ? { tabId: tab.tabId, parent: browserSession } : { tabId: child!.tabId, child: child!.sessionId, parent: browserSession });
        return { sessionId };
      }
      case 'Browser.getVersion': {
        const userAgent = this.link.peer.userAgent;
        const version = /(?:Headless)?Chrome\/([\d.]+)/.exec(userAgent)?.[1] ?? '0.0.0.0';
        return { protocolVersion: '1.3', product: `Chrome/${version}`, revision: '', userAgent, jsVersion: '' };
      }
      case 'Target.setAutoAttach': {
        this.autoAttach = Boolean(params.autoAttach);
        if (this.autoAttach) await this.announceShared();
        return {};
      }
      case 'Target.getTargetInfo': {
        const tab = typeof params.targetId === 'string' ? [...this.tabs.values()].find(t => t.targetId === params.targetId) : undefined;
        if (tab) return { targetInfo: this.targetInfo(tab) };
        return { targetInfo: { targetId: 'tw-browser', type: 'browser', title: '', url: '', attached: true, canAccessOpener: false } };
      }
      case 'Target.getBrowserContexts':
        return { browserContextIds: [...this.contexts] };
      case 'Target.createBrowserContext': {
        // A context here is a set of tabs in the user's profile: its own tabs, the profile's cookies and storage.
        const id = `tw-context-${this.nextContext++}`;
        this.contexts.add(id);
        return { browserContextId: id };
      }
      case 'Target.disposeBrowserContext': {
        const id = String(params.browserContextId);
        if (!this.contexts.delete(id)) throw new CdpCommandError(`Failed to find context with id ${id}`);
        const tabs = [...this.tabs.values()].filter(t => t.context === id);
        await Promise.all(tabs.map(async tab => {
          await this.link.request('tabs.close', { tabId: tab.tabId }).catch(() => undefined);
          this.detached(tab.tabId, 'context disposed');
        }));
        return {};
      }
      case 'Target.detachFromTarget': {
        const alias = typeof params.sessionId === 'string' ? this.aliases.get(params.sessionId) : undefined;
        if (alias) {
          this.dropAlias(String(params.sessionId));
          return {};
        }
        const tabId = typeof params.sessionId === 'string' ? this.tabOfSession(params.sessionId) : undefined;
        if (tabId === undefined || !String(params.sessionId).startsWith('tw-tab-')) throw new CdpCommandError(`No session with given id: ${String(params.sessionId)}`);
        await this.link.request('cdp.detach', { tabId }).catch(() => undefined);
        this.detached(tabId, 'detached by the client');
        return {};
      }
      case 'Target.createTarget': {
        const url = typeof params.url === 'string' ? params.url : 'about:blank';
        const context = typeof params.browserContextId === 'string' && this.contexts.has(params.browserContextId) ? params.browserContextId : DEFAULT_CONTEXT;
        const created = await this.link.request('tabs.create', { url }).catch(error => {
          throw asCdpError(error);
        }) as { tab: SharedTab };
        const tab = await this.attach(created.tab, true, context);
        if (!tab) throw new CdpCommandError(`tabwright extension: the new tab ${created.tab.tabId} could not be attached`);
        return { targetId: tab.targetId };
      }
      case 'Target.closeTarget': {
        const tab = [...this.tabs.values()].find(t => t.targetId === params.targetId);
        if (!tab) throw new CdpCommandError(`No target with given id found: ${String(params.targetId)}`);
        await this.link.request('tabs.close', { tabId: tab.tabId }).catch(error => {
          throw asCdpError(error);
        });
        return { success: true };
      }
      case 'Storage.getCookies':
        return { cookies: await this.sharedCookies(typeof params.browserContextId === 'string' ? params.browserContextId : DEFAULT_CONTEXT) };
      case 'Storage.setCookies': {
        // The extension's gate checks that every cookie belongs to a shared tab's origin.
        const tab = this.anyTab('Storage.setCookies');
        await this.send(tab, 'Network.setCookies', { cookies: params.cookies ?? [] });
        return {};
      }
      default:
        if (NO_OP_ROOT.has(method)) return {};
        throw new CdpCommandError(`tabwright extension [method_denied]: ${method} is not available through the extension (it would reach beyond the shared tabs).`);
    }
  }

  private anyTab(method: string): number {
    const first = this.tabs.keys().next();
    if (first.done) throw new CdpCommandError(`tabwright extension [not_shared]: ${method} needs a shared tab, and none is shared.`);
    return first.value;
  }

  /** The cookies of the origins of `context`'s tabs (Network.getCookies with their URLs, through one of them). */
  private async sharedCookies(context: string): Promise<Array<Record<string, unknown>>> {
    const urls = [...new Set([...this.tabs.values()].filter(t => t.context === context).map(t => t.info.url).filter(url => /^https?:/.test(url)))];
    if (!urls.length || !this.tabs.size) return [];
    const { cookies } = await this.send(this.anyTab('Storage.getCookies'), 'Network.getCookies', { urls }) as { cookies: Array<Record<string, unknown>> };
    return cookies;
  }

  private targetInfo(tab: TabState): Record<string, unknown> {
    const opener = tab.info.openerTabId !== undefined ? this.tabs.get(tab.info.openerTabId) : undefined;
    return {
      targetId: tab.targetId, type: 'page', title: tab.info.title, url: tab.info.url, attached: true, canAccessOpener: false,
      browserContextId: tab.context, ...(opener ? { openerId: opener.targetId } : {}),
    };
  }

  private async announceShared(): Promise<void> {
    let tabs: SharedTab[];
    try {
      tabs = (await this.link.request('tabs.list') as { tabs: SharedTab[] }).tabs;
    } catch (error) {
      throw asCdpError(error);
    }
    await Promise.all(tabs.map(tab => this.attach(tab, false)));
  }

  /**
   * Attaches a shared tab and announces it with Target.attachedToTarget (before it resolves).
   * @param required  rethrow a failure (Target.createTarget); else log it and resolve undefined (a tab that
   *   cannot be driven, e.g. a chrome:// page, is just not shown).
   */
  private attach(tab: SharedTab, required: boolean, context = DEFAULT_CONTEXT, attachedTargetId?: string): Promise<TabState | undefined> {
    const known = this.tabs.get(tab.tabId);
    if (known) return Promise.resolve(known);
    const running = this.attaching.get(tab.tabId);
    if (running) return running;
    const work = (async () => {
      try {
        let targetId = attachedTargetId;
        let info = tab;
        if (!targetId) {
          const attached = await this.link.request('cdp.attach', { tabId: tab.tabId }) as { tab: SharedTab };
          const { targetInfo } = await this.link.request('cdp.send', { tabId: tab.tabId, method: 'Target.getTargetInfo', params: {} }) as { targetInfo: { targetId: string } };
          targetId = targetInfo.targetId;
          info = { ...tab, ...attached.tab };
        }
        const state: TabState = { tabId: tab.tabId, context, sessionId: `tw-tab-${tab.tabId}`, targetId, info };
        this.tabs.set(tab.tabId, state);
        this.left.clear(state.targetId);
        this.emit({ method: 'Target.attachedToTarget', params: { sessionId: state.sessionId, targetInfo: this.targetInfo(state), waitingForDebugger: false } });
        return state;
      } catch (error) {
        if (required) throw asCdpError(error);
        log.info(`shared tab ${tab.tabId} is not shown: ${(error as Error).message}`);
        return undefined;
      } finally {
        this.attaching.delete(tab.tabId);
      }
    })();
    this.attaching.set(tab.tabId, work);
    return work;
  }

  /** Ends an alias session: its client sees Target.detachedFromTarget on the session that attached it. */
  private dropAlias(sessionId: string): void {
    const alias = this.aliases.get(sessionId);
    if (!alias) return;
    this.aliases.delete(sessionId);
    this.emit({ method: 'Target.detachedFromTarget', params: { sessionId }, ...(alias.parent ? { sessionId: alias.parent } : {}) });
  }

  private detached(tabId: number, reason: string): void {
    const tab = this.tabs.get(tabId);
    if (!tab) return;
    this.tabs.delete(tabId);
    if (reason === 'unshared' || reason === 'not_debuggable') this.left.note(tab.targetId, reason);
    else this.left.clear(tab.targetId);
    for (const [child, owner] of this.children) if (owner === tabId) this.children.delete(child);
    for (const [targetId, child] of this.childTargets) if (child.tabId === tabId) this.childTargets.delete(targetId);
    log.debug(`tab ${tabId} detached: ${reason}`);
    // The page first (Playwright closes it), then the extra sessions: a call in flight on one of those then fails
    // on a page that is already closed, as over a DevTools socket.
    this.emit({ method: 'Target.detachedFromTarget', params: { sessionId: tab.sessionId, targetId: tab.targetId } });
    for (const [id, alias] of this.aliases) if (alias.tabId === tabId) this.dropAlias(id);
  }

  private onEvent(ev: string, p: Record<string, unknown>): void {
    const tabId = Number(p.tabId);
    if (ev === 'cdp.event') {
      const tab = this.tabs.get(tabId);
      if (!tab) return;
      const method = String(p.method);
      const params = (p.params ?? {}) as Record<string, unknown>;
      const sessionId = typeof p.sessionId === 'string' ? p.sessionId : tab.sessionId;
      if (method === 'Target.attachedToTarget' && typeof params.sessionId === 'string') {
        this.children.set(params.sessionId, tabId);
        const targetId = (params.targetInfo as { targetId?: string } | undefined)?.targetId;
        if (targetId) this.childTargets.set(targetId, { tabId, sessionId: params.sessionId });
      }
      if (method === 'Target.detachedFromTarget' && typeof params.sessionId === 'string') {
        this.children.delete(params.sessionId);
        for (const [targetId, child] of this.childTargets) if (child.sessionId === params.sessionId) this.childTargets.delete(targetId);
        for (const [id, alias] of this.aliases) if (alias.child === params.sessionId) this.dropAlias(id);
      }
      if (method === 'Page.frameNavigated' && sessionId === tab.sessionId) {
        const frame = params.frame as { parentId?: string; url?: string } | undefined;
        if (frame && !frame.parentId && frame.url) tab.info.url = frame.url;
      }
      this.emit({ method, params, sessionId });
      const child = typeof p.sessionId === 'string' ? p.sessionId : undefined;
      for (const [id, alias] of this.aliases) if (alias.tabId === tabId && alias.child === child) this.emit({ method, params, sessionId: id });
    } else if (ev === 'cdp.detached') {
      this.detached(tabId, String(p.reason));
    } else if (ev === 'tab.opened') {
      if (!this.autoAttach) return;
      const opener = this.tabs.get(Number(p.openerTabId));
      if (typeof p.targetId === 'string' && p.tab) {
        // The extension attached it already: announce it now.
        void this.attach({ ...(p.tab as SharedTab), openerTabId: Number(p.openerTabId) }, false, opener?.context, p.targetId);
        return;
      }
      void this.link.request('tabs.list').then(
        list => {
          const tab = (list as { tabs: SharedTab[] }).tabs.find(t => t.tabId === tabId);
          const opener = this.tabs.get(Number(p.openerTabId));
          if (tab) return this.attach({ ...tab, openerTabId: Number(p.openerTabId) }, false, opener?.context);
        },
      ).catch(error => log.debug(`announcing popup ${tabId}: ${(error as Error).message}`));
    } else if (ev === 'share.changed') {
      if (!this.autoAttach) return;
      const tabs = (p.tabs ?? []) as SharedTab[];
      for (const tab of tabs) if (!this.tabs.has(tab.tabId)) void this.attach(tab, false);
      const still = new Set(tabs.map(t => t.tabId));
      for (const id of [...this.tabs.keys()]) if (!still.has(id)) this.detached(id, 'unshared');
    }
  }
}

/** A link failure as the CDP error the client sees; the gate's stable code stays in the message. */
function asCdpError(error: unknown): CdpCommandError {
  if (error instanceof CdpCommandError) return error;
  if (error instanceof ExtensionError) {
    return new CdpCommandError(error.code === 'failed' || error.message.startsWith('tabwright extension [') ? error.message : `tabwright extension [${error.code}]: ${error.message}`);
  }
  return new CdpCommandError(error instanceof Error ? error.message : String(error));
}
