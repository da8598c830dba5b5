/**
 * The user's running Chrome in approval mode, behind the CDP relay (docs/own-browser.md, "Chrome's approval
 * prompt"; OWN-BROWSER.md §2-§4): ONE WebSocket to the browser target, opened once per tabwright leader, so
 * the user answers "Allow remote debugging?" once however many clients and CLI calls come; no probe socket before
 * it (liveness is a TCP connect, ./activePort.ts).
 *
 * Selective attach: the browser's targets are discovered (`Target.setDiscoverTargets`), never auto-attached. Only
 * the tabs in scope are attached (`Target.attachToTarget {flatten}`) and shown to Playwright: the tabs the agent
 * opened through tabwright (`Target.createTarget`, popups of attached tabs) and the tabs the user shared
 * (`tabwright share`). So connect time does not grow with the user's hundreds of tabs, and a discarded or frozen
 * tab nobody shared is never touched. Within scope the client has the whole browser protocol (cookies, downloads,
 * contexts): approval mode is whole-browser access, scoped only by tabwright.
 *
 * Session ids are Chrome's own (flat protocol over one socket): commands on a session and every session event
 * pass through unchanged; root commands are handled here (`Target.setAutoAttach`, `Target.createTarget`,
 * `Target.attachToTarget` of a target in scope) or forwarded.
 */
import WebSocket from 'ws';
import { ToolError } from '../../errors.js';
import { logger } from '../../log.js';
import { raceTimeout } from '../../util/wait.js';
import type { LeftScope, UserTab } from '../connection.js';
import { LeftScopeLog } from '../leftScope.js';
import { CdpCommandError, replyWhenSettled, type CdpEvent, type CdpReply, type CdpUpstream } from '../cdpRelay/upstream.js';
import { ENABLE_HINT, type ActivePort } from './activePort.js';

const log = logger('own-chrome');

/** What the user sees and must do, in the message a waiting or failed connect gives. */
export const APPROVAL_PROMPT = 'Chrome is asking "Allow remote debugging?": click Allow (Cancel is the default button).';

/** How long one attach to a tab in scope may take before it is skipped (a discarded tab), in ms. */
const ATTACH_TIMEOUT_MS = 5_000;

/**
 * How long a popup of a tab in scope that shows no document yet (`about:blank`, the initial empty document) may
 * wait before it is attached anyway, in ms. A popup is attached once Chrome names the URL its first navigation
 * committed (`Target.targetInfoChanged`): attaching while that navigation commits made Chrome 156 end the popup's
 * renderer ("Terminating renderer for bad IPC message, reason 346"; Playwright then reports "Page crashed") on a
 * slow machine (docs/own-browser.md, "What differs from the managed browser"). A popup that stays on about:blank
 * (`window.open()` and `document.write`) is attached after this wait.
 */
const POPUP_ATTACH_WAIT_MS = 1_000;

/** Whether Chrome names a document of the target's own: a URL other than the initial empty document's. */
function hasDocument(info: TargetInfo): boolean {
  return info.url !== '' && info.url !== 'about:blank';
}

/** The largest frame accepted from the browser, in bytes (full-page screenshots). */
const MAX_FRAME_BYTES = 512 * 1024 * 1024;

/** A page target as Chrome describes it (`Target.TargetInfo`). */
export interface TargetInfo {
  targetId: string;
  type: string;
  title: string;
  url: string;
  attached?: boolean;
  openerId?: string;
  browserContextId?: string;
}


interface Pending {
  /** Called synchronously with the browser's answer (the relay's ordering contract). */
  settle: CdpReply;
  method: string;
}

export class OwnChromeUpstream implements CdpUpstream {
  private emit: (event: CdpEvent) => void = () => undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly targets = new Map<string, TargetInfo>();
  /** Session id by target id, for the tabs in scope attached for the current client. */
  private readonly attached = new Map<string, string>();
  private readonly shared = new Set<string>();
  private readonly agents = new Set<string>();
  /** Tabs the user stopped sharing (still open in the browser). */
  private readonly left = new LeftScopeLog();
  private readonly scopeListeners = new Set<() => void>();
  /** True between the client's `Target.setAutoAttach` and its leaving: tabs entering scope are attached at once. */
  private clientActive = false;
  /** Popups of tabs in scope not attached yet: they wait for their first document (POPUP_ATTACH_WAIT_MS). */
  private readonly popupWaits = new Map<string, NodeJS.Timeout>();
  private closedReason: string | undefined;
  private readonly dropListeners = new Set<(reason: string) => void>();

  private constructor(
    private readonly socket: WebSocket,
    readonly port: ActivePort,
  ) {
    socket.on('message', data => this.onMessage(data.toString()));
    socket.on('close', (code, reason) => this.dropped(`the browser closed the connection (${code}${reason.length ? ` ${reason.toString()}` : ''})`));
    socket.on('error', error => log.debug(`socket: ${error.message}`));
  }

  /**
   * Opens the one WebSocket to the browser and waits for the user's answer to Chrome's dialog, then turns on
   * target discovery.
   * @param approvalTimeoutMs  how long to wait for "Allow" (120 s by default).
   * @throws ToolError approval_timeout when nobody answered in time (the dialog may still be on screen),
   *   approval_denied when the browser refused the connection (Cancel clicked, or the toggle turned off),
   *   browser_unavailable when the upgrade failed without an HTTP answer (the browser went away).
   */
  static async connect(port: ActivePort, approvalTimeoutMs: number): Promise<OwnChromeUpstream> {
    log.warn(`connecting to the Chrome of ${port.profileDir} on port ${port.port}. ${APPROVAL_PROMPT}`);
    const started = Date.now();
    const socket = new WebSocket(port.wsUrl, { perMessageDeflate: false, maxPayload: MAX_FRAME_BYTES });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.terminate();
        reject(new ToolError(
          'approval_timeout',
          `Chrome did not answer within ${Math.round(approvalTimeoutMs / 1000)} s. ${APPROVAL_PROMPT}`,
          'Click Allow in Chrome\'s dialog, then call again (the next call raises one new dialog). If no dialog shows, bring the Chrome window to the front; TABWRIGHT_APPROVAL_TIMEOUT_MS sets the wait.',
        ));
      }, approvalTimeoutMs);
      const fail = (why: string) => {
        clearTimeout(timer);
        socket.terminate();
        reject(new ToolError(
          'approval_denied',
          `Chrome refused the connection after ${Math.round((Date.now() - started) / 1000)} s (${why}): "Allow remote debugging?" was answered Cancel, or remote debugging was turned off.`,
          `To let tabwright in, call again and click Allow. ${ENABLE_HINT}`,
        ));
      };
      socket.once('open', () => {
        clearTimeout(timer);
        resolve();
      });
      // Cancel answers the upgrade `403 Forbidden` "Connection rejected" (test/attach/ownChromeFixture.test.ts).
      socket.once('unexpected-response', (_req, res) => fail(`HTTP ${res.statusCode}`));
      // No HTTP answer at all: the browser went away between the port check and the upgrade.
      socket.once('error', error => {
        clearTimeout(timer);
        socket.terminate();
        reject(new ToolError('browser_unavailable', `The Chrome of ${port.profileDir} did not take the connection on port ${port.port}: ${error.message}.`, `Check that Chrome still runs with remote debugging on. ${ENABLE_HINT}`));
      });
    });
    socket.removeAllListeners('error');
    socket.removeAllListeners('unexpected-response');
    const upstream = new OwnChromeUpstream(socket, port);
    await upstream.send('Target.setDiscoverTargets', { discover: true, filter: [{ type: 'page' }] });
    log.info(`connected to the Chrome of ${port.profileDir} after ${Date.now() - started} ms; ${upstream.targets.size} tab(s), none attached`);
    return upstream;
  }

  setEventSink(emit: (event: CdpEvent) => void): void {
    this.emit = emit;
  }

  /** Calls `listener` once with the reason when the browser socket closes. */
  onDrop(listener: (reason: string) => void): () => void {
    this.dropListeners.add(listener);
    return () => void this.dropListeners.delete(listener);
  }

  /** The browser's tabs (page targets), each with its scope. */
  tabs(): UserTab[] {
    return [...this.targets.values()].filter(t => t.type === 'page').map(t => ({
      targetId: t.targetId,
      title: t.title,
      url: t.url,
      scope: this.shared.has(t.targetId) ? 'shared' : this.agents.has(t.targetId) ? 'agent' : undefined,
    }));
  }

  /**
   * Puts the user's tabs in scope (attached now when a client is connected, else at its connect).
   * @throws ToolError tab_not_found naming an id that is not one of the browser's tabs.
   */
  async share(targetIds: readonly string[]): Promise<void> {
    for (const id of targetIds) {
      if (this.targets.get(id)?.type !== 'page') throw new ToolError('tab_not_found', `The browser has no tab ${id}.`, 'Run `tabwright share` to list the browser\'s tabs and their ids.');
    }
    for (const id of targetIds) {
      this.shared.add(id);
      this.left.clear(id);
    }
    this.scopeChanged();
    if (this.clientActive) await Promise.all(targetIds.map(id => this.attach(id)));
  }

  /** Takes tabs out of scope: detached (the tab stays open in the browser, as the user left it). */
  async unshare(targetIds: readonly string[]): Promise<void> {
    for (const id of targetIds) {
      if (this.inScope(id)) this.left.note(id, 'unshared');
      this.shared.delete(id);
      this.agents.delete(id);
      this.scopeChanged();
      const sessionId = this.attached.get(id);
      if (sessionId) await this.detach(id, sessionId);
    }
  }

  command(method: string, params: Record<string, unknown>, sessionId: string | undefined, reply: CdpReply): void {
    // Session traffic passes through and is answered the moment the browser answers.
    if (sessionId) this.sendRaw(method, params, sessionId, reply);
    else replyWhenSettled(this.rootCommand(method, params), reply);
  }

  private async rootCommand(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    switch (method) {
      case 'Target.setAutoAttach':
        // Never forwarded: the browser would attach every tab. The tabs in scope are attached instead.
        this.clientActive = true;
        await Promise.all([...this.shared, ...this.agents].map(id => this.attach(id)));
        return {};
      case 'Target.setDiscoverTargets':
        return {};
      case 'Target.createTarget': {
        const result = await this.send(method, params);
        const targetId = String(result.targetId);
        this.agents.add(targetId);
        this.scopeChanged();
        // Playwright expects the new tab's Target.attachedToTarget before this reply (src/browser/cdpRelay/upstream.ts).
        await this.attach(targetId);
        return result;
      }
      case 'Target.attachToTarget':
      case 'Target.closeTarget':
      case 'Target.activateTarget': {
        const targetId = String(params.targetId);
        if (!this.inScope(targetId)) throw new CdpCommandError(`tabwright: ${method} is limited to the tabs the agent opened or the user shared; ${targetId} is neither.`);
        if (method === 'Target.attachToTarget' && this.attached.has(targetId)) return { sessionId: this.attached.get(targetId)! };
        return this.send(method, params);
      }
      default:
        return this.send(method, params);
    }
  }

  clientClosed(): void {
    this.clientActive = false;
    this.cancelPopupWaits();
    for (const [targetId, sessionId] of [...this.attached]) void this.detach(targetId, sessionId);
  }

  /** Closes the browser socket: Chrome detaches every session of it; the user's tabs and windows stay. */
  close(): void {
    this.clientActive = false;
    this.socket.close();
    this.dropped('closed by tabwright');
  }

  /** Why the tab of `targetId` left scope while it stays open (the user stopped sharing it), if it did. */
  leftScope(targetId: string): LeftScope | undefined {
    return this.left.get(targetId);
  }

  /**
   * The tabs in scope by target id: `shared` by the user, `agents` opened by tabwright. A new leader on the same
   * browser takes them over (`restoreScope`; ./scopeFile.ts keeps them between leaders).
   */
  scope(): { shared: string[]; agents: string[] } {
    return { shared: [...this.shared], agents: [...this.agents] };
  }

  /**
   * Puts back in scope the tabs an earlier leader had there, those of them that are still tabs of this browser;
   * before the client attaches (Target.setAutoAttach attaches them). Raises no listener.
   */
  restoreScope(scope: { shared: readonly string[]; agents: readonly string[] }): void {
    for (const id of scope.shared) if (this.targets.get(id)?.type === 'page') this.shared.add(id);
    for (const id of scope.agents) if (this.targets.get(id)?.type === 'page' && !this.shared.has(id)) this.agents.add(id);
  }

  /** Calls `listener` after every change of the scope (a share, an unshare, a tab opened or closed in scope). */
  onScope(listener: () => void): () => void {
    this.scopeListeners.add(listener);
    return () => void this.scopeListeners.delete(listener);
  }

  private scopeChanged(): void {
    for (const listener of [...this.scopeListeners]) listener();
  }

  private inScope(targetId: string): boolean {
    return this.shared.has(targetId) || this.agents.has(targetId);
  }

  /** Attaches a tab in scope for the client (once); Chrome's Target.attachedToTarget reaches the client. A tab that does not attach in time is skipped, logged. */
  private async attach(targetId: string): Promise<void> {
    if (this.attached.has(targetId) || !this.targets.has(targetId)) return;
    try {
      const { sessionId } = await raceTimeout(this.send('Target.attachToTarget', { targetId, flatten: true }), {
        ms: ATTACH_TIMEOUT_MS,
        onTimeout: () => new Error(`no answer within ${ATTACH_TIMEOUT_MS} ms (a discarded or frozen tab?)`),
      });
      this.attached.set(targetId, String(sessionId));
    } catch (error) {
      log.warn(`could not attach tab ${targetId} (${this.targets.get(targetId)?.url ?? '?'}): ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private cancelPopupWaits(): void {
    for (const timer of this.popupWaits.values()) clearTimeout(timer);
    this.popupWaits.clear();
  }

  /** Ends a popup's wait for its first document; false when it was not waiting. */
  private endPopupWait(targetId: string): boolean {
    const timer = this.popupWaits.get(targetId);
    if (!timer) return false;
    clearTimeout(timer);
    this.popupWaits.delete(targetId);
    return true;
  }

  /** Attaches a popup that waited for its first document (POPUP_ATTACH_WAIT_MS), once. */
  private attachPopup(targetId: string): void {
    if (this.endPopupWait(targetId)) void this.attach(targetId);
  }

  private async detach(targetId: string, sessionId: string): Promise<void> {
    this.attached.delete(targetId);
    // Chrome's Target.detachedFromTarget (root) tells the client the page is gone for it.
    await this.send('Target.detachFromTarget', { sessionId }).catch(() => undefined);
  }

  /** Sends one command to the browser. @throws CdpCommandError with the browser's error. */
  private send(method: string, params: Record<string, unknown>, sessionId?: string): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      this.sendRaw(method, params, sessionId, outcome => ('result' in outcome ? resolve(outcome.result) : reject(new CdpCommandError(outcome.error.message, outcome.error.code))));
    });
  }

  /** Sends one command; `settle` gets the browser's answer synchronously when it arrives. */
  private sendRaw(method: string, params: Record<string, unknown>, sessionId: string | undefined, settle: CdpReply): void {
    if (this.closedReason) {
      settle({ error: { code: -32000, message: `tabwright: the browser connection is closed (${this.closedReason}).` } });
      return;
    }
    const id = this.nextId++;
    this.pending.set(id, { settle, method });
    this.socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
  }

  private onMessage(text: string): void {
    let message: { id?: number; method?: string; params?: Record<string, unknown>; sessionId?: string; result?: Record<string, unknown>; error?: { code: number; message: string } };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message.id !== undefined) {
      const pending = this.pending.get(message.id);
      if (!pending) return;
      this.pending.delete(message.id);
      pending.settle(message.error ? { error: message.error } : { result: message.result ?? {} });
      return;
    }
    if (!message.method) return;
    const params = message.params ?? {};
    if (message.sessionId) {
      this.emit({ method: message.method, params, sessionId: message.sessionId });
      return;
    }
    this.onRootEvent(message.method, params);
  }

  private onRootEvent(method: string, params: Record<string, unknown>): void {
    switch (method) {
      case 'Target.targetCreated':
      case 'Target.targetInfoChanged': {
        const info = params.targetInfo as TargetInfo;
        this.targets.set(info.targetId, info);
        // A popup of a tab in scope is the agent's too (a page's window.open, a target=_blank link).
        if (method === 'Target.targetCreated' && info.openerId && this.attached.has(info.openerId) && this.clientActive) {
          this.agents.add(info.targetId);
          this.scopeChanged();
          if (hasDocument(info)) void this.attach(info.targetId);
          else this.popupWaits.set(info.targetId, setTimeout(() => this.attachPopup(info.targetId), POPUP_ATTACH_WAIT_MS));
        } else if (this.popupWaits.has(info.targetId) && hasDocument(info)) {
          this.attachPopup(info.targetId);
        }
        return;
      }
      case 'Target.targetDestroyed': {
        const targetId = String(params.targetId);
        this.endPopupWait(targetId);
        this.targets.delete(targetId);
        this.left.clear(targetId);
        if (this.inScope(targetId)) {
          this.shared.delete(targetId);
          this.agents.delete(targetId);
          this.scopeChanged();
        }
        return;
      }
      case 'Target.attachedToTarget': {
        const info = params.targetInfo as TargetInfo;
        if (this.inScope(info.targetId) && this.clientActive) this.emit({ method, params });
        return;
      }
      case 'Target.detachedFromTarget': {
        const targetId = String(params.targetId ?? '');
        if (this.attached.get(targetId) === params.sessionId) this.attached.delete(targetId);
        this.emit({ method, params });
        return;
      }
      default:
        // Browser.downloadWillBegin / downloadProgress and other browser events.
        this.emit({ method, params });
    }
  }

  private dropped(reason: string): void {
    if (this.closedReason) return;
    this.closedReason = reason;
    this.attached.clear();
    this.cancelPopupWaits();
    for (const pending of this.pending.values()) pending.settle({ error: { code: -32000, message: `tabwright: the browser connection closed (${reason}) during ${pending.method}.` } });
    this.pending.clear();
    for (const listener of [...this.dropListeners]) listener(reason);
  }
}
