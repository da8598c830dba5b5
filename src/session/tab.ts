/**
 * One page target and its documents (docs/tabs.md, "Tabs, documents,
 * revisions").
 *
 * - `id`: small integer, never reused in a process.
 * - `instanceId`: opaque id of the loaded document (Chromium's loader id).
 * - `revision`: starts at 1, +1 each time the main frame's document is
 *   replaced; unchanged by same-document navigation (pushState, #hash).
 *
 * The tab keeps its own CDP session: document changes come from
 * `Page.frameNavigated` (cross-document only; same-document navigations are
 * `Page.navigatedWithinDocument`), and title/URL come from
 * `Target.getTargetInfo`, which the browser answers even while the page's
 * main thread is stuck in a loop.
 */
import type { CDPSession, Page } from 'playwright-core';
import { logger } from '../log.js';
import { raceTimeout, pollUntil } from '../util/wait.js';
import type { Session } from './session.js';
import { actOnTab, type ActionReport, type ActOptions } from './tabAction.js';
import { ConsoleBuffer, levelOf } from './consoleBuffer.js';
import { formatConsoleText } from './consoleFormat.js';
import { NetworkLog } from './networkLog.js';
import { anyDialogOpen, TabDialogs, type DialogInfo } from './dialogs.js';
import { FileChoosers } from './fileChooser.js';
import { FrameLoads } from './frameLoads.js';
import { LeavingTracker } from './leaving.js';
import { TabScripts, type MenuCommand, type RanScript } from './tabScripts.js';
import type { EmulationState } from './emulation.js';

const log = logger('tab');

export interface TabInfo {
  tabId: number;
  url: string;
  title: string;
  active: boolean;
  instanceId: string;
  revision: number;
  /** The tab that opened this one (window.open, a target=_blank link), when it is known. */
  openerTabId?: number;
  /**
   * True for a popup: a window opened with window.open that keeps
   * `window.opener` (the browser's `canAccessOpener`); absent for a plain tab.
   */
  popup?: boolean;
  /** The open dialog the page waits for; absent when none. */
  dialog?: DialogInfo;
  /** True when the page crashed (its renderer went away): reload_tab or navigate load it again, close_tab closes it. */
  crashed?: boolean;
  /** Userscripts that ran in the current document, in any frame; absent when none. */
  scripts?: RanScript[];
  /** Menu commands those scripts registered (GM_registerMenuCommand; run with run_menu_command); absent when none. */
  menuCommands?: MenuCommand[];
}

/** A whole-page snapshot kept as the diff baseline of a tab's document. */
export interface SnapshotBaseline {
  instanceId: string;
  revision: number;
  text: string;
}

export class Tab {
  readonly console = new ConsoleBuffer();
  /** The tab's network requests from its first document on (list_network_requests); set in the constructor. */
  readonly network: NetworkLog;
  /** JavaScript dialogs (fed by the session's context-level listener): the open one stays open until handle_dialog answers it. */
  readonly dialogs = new TabDialogs();
  /** What the open beforeunload dialog holds up: a navigation, reload, history step or the closing of the tab. */
  readonly leaving = new LeavingTracker();
  /** File choosers the page opened, kept for upload_file. */
  readonly fileChoosers = new FileChoosers();
  /** Userscripts that ran in the current document and their menu commands. */
  readonly userscripts = new TabScripts();
  /** Child frames whose documents are still loading or failed to load (the snapshot marks them). */
  readonly frameLoads: FrameLoads;
  /**
   * The workspace (absolute folder) of the call that last acted on the tab:
   * downloads the tab starts are saved under it. Undefined: the session's.
   */
  workspace: string | undefined;
  /** What the tab emulates (emulate, src/session/emulation.ts); undefined: nothing. */
  emulation: EmulationState | undefined;
  /** Names the userscript an uncaught error's stack comes from (set by the session). */
  scriptOfStack: ((stack: string | undefined) => { id: string; name: string } | undefined) | undefined;
  instanceId = 'pending';
  /** The CDP target id of the tab (its main frame's id, Page.getFrameTree), once attached; undefined without a CDP session. */
  targetId: string | undefined;
  revision = 1;
  openerTabId: number | undefined;
  /**
   * Aborted when the page closes (Playwright's `close` event: closed by tabwright, its opener, the user, or itself;
   * or the browser went away): a wait on the page (wait_for) joins it. Its reason reads as Playwright's own closed
   * page, so toToolError makes it tab_not_found (browser_disconnected when the browser went away: invokeTool).
   */
  private readonly closes = new AbortController();
  get closeSignal(): AbortSignal {
    return this.closes.signal;
  }
  /** True once the page closed or the session let the tab go (markClosed): read from the close signal. */
  get closed(): boolean {
    return this.closes.signal.aborted;
  }
  /** Marks the tab closed (its page closed, or the session forgot it: close_tab, close_browser); idempotent. */
  markClosed(): void {
    if (!this.closes.signal.aborted) this.closes.abort(new Error(`Page has been closed (tab ${this.id})`));
  }
  /** Aborted when the page's renderer goes away (Playwright's `crash` event): a wait on the page (wait_for) joins it. */
  private readonly crashes = new AbortController();
  get crashSignal(): AbortSignal {
    return this.crashes.signal;
  }
  /**
   * True once the page's renderer went away (crashSignal aborted): tools other than reload_tab, navigate and
   * close_tab answer page_crashed (src/tools/define.ts), and those two replace the page (Session.replaceCrashed).
   */
  get crashed(): boolean {
    return this.crashes.signal.aborted;
  }
  /** On a tab that replaced a crashed one (Session.replaceCrashed): the URL the crashed page showed, which reload_tab loads. */
  replacedUrl: string | undefined;
  /** How many new windows the page asked for (window.open, target=_blank), counted from `Page.windowOpen`. */
  windowOpens = 0;
  /**
   * File choosers and downloads of the main frame, counted from the tab's own
   * CDP session (`Page.fileChooserOpened`, `Page.downloadWillBegin`). They
   * arrive before the action that caused them returns, while Playwright's
   * `filechooser` / `download` events may come a moment later; an action
   * waits for Playwright's only when one of these moved. -1: not counted (no
   * CDP session), so callers flush the page instead.
   */
  fileSignals = { choosers: -1, downloads: -1 };
  /**
   * The last whole-page snapshot of the current document (get_page_context
   * or an action took it): what the next action's snapshot diff compares
   * with (src/session/pageReport.ts). Set by `takeSnapshot`, dropped with
   * the document.
   */
  baseline: SnapshotBaseline | undefined;
  /** The document whose last whole-page walk reached the snapshot budget: actions skip their diff there. */
  overBudgetDocument: string | undefined;
  private cdpSession: CDPSession | undefined;
  private cachedTitle = '';
  private readonly documentListeners: Array<(oldInstanceId: string) => void> = [];

  constructor(
    readonly id: number,
    readonly page: Page,
    /** The session the tab belongs to (its other tabs, refs and downloads). */
    readonly session: Session,
  ) {
    this.frameLoads = new FrameLoads(page);
    this.network = new NetworkLog(page);
    page.on('console', msg => {
      const args = msg.args();
      try {
        const loc = msg.location();
        if (isFaviconNoise(msg.text(), loc.url)) return;
        // The arguments' previews come with the event (JSHandle.toString() evaluates nothing).
        this.console.push({
          level: levelOf(msg.type()),
          kind: 'console',
          text: args.length ? formatConsoleText(args.map(arg => arg.toString())) : msg.text(),
          source: loc.url ? { url: loc.url, line: loc.lineNumber + 1, column: loc.columnNumber + 1 } : undefined,
          timestamp: Date.now(),
          revision: this.revision,
        });
      } finally {
        // Each argument is a handle Playwright keeps (with the page's object behind it) until it is disposed or the
        // page closes, whatever document logged it: a long-lived tab kept every console argument (the soak,
        // docs/reliability.md). Only the preview above is used.
        for (const arg of args) void arg.dispose().catch(() => undefined);
      }
    });
    page.on('pageerror', error => {
      // A rejection with a non-Error value arrives with an empty name and stack.
      const text = error.stack || (error.name ? `${error.name}: ${error.message}` : error.message);
      const script = this.scriptOfStack?.(error.stack);
      this.console.push({
        level: 'error',
        kind: 'exception',
        text: script ? `[${script.name}] ${text}` : text,
        source: sourceOfStack(error.stack),
        timestamp: Date.now(),
        revision: this.revision,
        script,
      });
    });
    page.on('filechooser', chooser => this.fileChoosers.opened(chooser, this.instanceId));
    // Playwright's Page.Events.Crash (the renderer went away): the page object answers nothing from now on.
    page.on('crash', () => {
      this.crashes.abort(new Error(`the page of tab ${this.id} crashed`));
    });
    page.on('close', () => {
      this.dialogs.clear();
      this.markClosed();
    });
  }

  /** Attaches the tab's CDP session; call once before use. */
  async attach(): Promise<void> {
    try {
      const cdp = await this.page.context().newCDPSession(this.page);
      this.cdpSession = cdp;
      cdp.on('Page.frameNavigated', event => {
        if (event.frame.parentId) return;
        this.newDocument(event.frame.loaderId);
      });
      cdp.on('Page.windowOpen', () => {
        this.windowOpens += 1;
      });
      cdp.on('Page.fileChooserOpened', () => {
        this.fileSignals.choosers += 1;
        this.fileChoosers.signalled();
      });
      cdp.on('Page.downloadWillBegin', () => {
        this.fileSignals.downloads += 1;
      });
      this.dialogs.attach(cdp);
      this.leaving.attach(cdp);
      await cdp.send('Page.enable');
      // Playwright intercepts choosers on its own session; intercepting here too only adds the event to ours.
      if (await cdp.send('Page.setInterceptFileChooserDialog', { enabled: true }).then(() => true, () => false)) this.fileSignals = { choosers: 0, downloads: 0 };
      const { frameTree } = await cdp.send('Page.getFrameTree');
      this.leaving.setMainFrame(frameTree.frame.id);
      // A page target's main frame has the target's id (Chromium).
      this.targetId = frameTree.frame.id;
      if (this.instanceId === 'pending') this.instanceId = frameTree.frame.loaderId;
    } catch (error) {
      if (!this.closed) log.warn(`tab ${this.id}: CDP attach failed:`, error);
      if (this.instanceId === 'pending') this.instanceId = `doc-${this.id}-1`;
    }
  }

  private newDocument(loaderId: string): void {
    if (loaderId === this.instanceId) return;
    const old = this.instanceId;
    this.instanceId = loaderId;
    if (old !== 'pending') this.revision += 1;
    this.baseline = undefined;
    this.userscripts.clear();
    for (const listener of this.documentListeners) listener(old);
  }

  /** Called with the old instanceId whenever the document is replaced. */
  onDocument(listener: (oldInstanceId: string) => void): void {
    this.documentListeners.push(listener);
  }

  /**
   * Sends input through `page.mouse` or `page.keyboard` (`send`) and then does what Playwright does after its element
   * actions, which those skip (its input epilogue and signal barrier): a `Page.enable` round trip on the tab's CDP
   * session, so the navigation events the input caused have arrived (per session, events come in order), and when
   * the input requested or started a main-frame navigation (LeavingTracker), a wait until it commits or ends, at most
   * `ms`. An action report then sees the navigation's request as after Playwright's own click.
   * @returns what `send` returns. @throws what `send` throws.
   */
  async sendInput<T>(send: () => Promise<T>, ms: number): Promise<T> {
    const before = this.leaving.navigationsStarted;
    const result = await send();
    const cdp = this.cdpSession;
    if (!cdp || this.closed) return result;
    await cdp.send('Page.enable').catch(() => undefined);
    if (this.leaving.navigationsStarted !== before) await pollUntil(() => this.closed || !this.leaving.current, { ms, intervalMs: 10 });
    return result;
  }

  /** The tab's CDP session (undefined if attaching failed). */
  get cdp(): CDPSession | undefined {
    return this.cdpSession;
  }

  /**
   * Runs `action` on this tab and returns what it changed: navigation,
   * dialog, console errors, new tabs, files, the page's diff or snapshot
   * (./tabAction.ts; a tool writes the report with reportAction).
   * @throws what `action` throws (a stuck page's script is stopped first and the error says so).
   */
  act(action: () => Promise<void>, opts: ActOptions = {}): Promise<ActionReport> {
    return actOnTab(this, action, opts);
  }

  /**
   * URL and title without touching the page's main thread (a busy page still answers).
   * Falls back to Playwright's cached URL and the last title seen.
   */
  async urlAndTitle(): Promise<{ url: string; title: string; canAccessOpener?: boolean }> {
    if (this.cdp && !this.closed) {
      try {
        const info = await raceTimeout(this.cdp.send('Target.getTargetInfo'), { ms: 1000, onTimeout: 'undefined' });
        if (info) {
          this.cachedTitle = info.targetInfo.title;
          // Right at a commit the browser may not know the new URL yet (empty); Playwright's does.
          // While a dialog holds a navigation (beforeunload), the browser shows the URL it
          // is leaving for; the page is still at Playwright's committed one.
          const url = this.dialogs.current ? this.page.url() : info.targetInfo.url;
          return { url: url || this.page.url(), title: info.targetInfo.title, canAccessOpener: info.targetInfo.canAccessOpener };
        }
      } catch (error) {
        log.debug('Target.getTargetInfo failed', error);
      }
    }
    return { url: this.page.url(), title: this.cachedTitle };
  }

  async info(active: boolean): Promise<TabInfo> {
    const [{ url, title, canAccessOpener }, dialog] = await Promise.all([this.urlAndTitle(), this.dialogs.settle()]);
    const scripts = this.userscripts.scripts();
    const menuCommands = this.userscripts.menuCommands();
    return {
      tabId: this.id, url, title, active, instanceId: this.instanceId, revision: this.revision, openerTabId: this.openerTabId, popup: canAccessOpener || undefined, dialog,
      crashed: this.crashed || undefined,
      scripts: scripts.length ? scripts : undefined, menuCommands: menuCommands.length ? menuCommands : undefined,
    };
  }

  /**
   * True when the page's main thread answers a trivial evaluation within `ms`.
   * A page stuck in a loop answers false.
   */
  async responsive(ms = 500): Promise<boolean> {
    if (!this.cdp || this.closed) return false;
    const answer = await raceTimeout(this.cdp.send('Runtime.evaluate', { expression: '1', returnByValue: true }).then(() => true, () => false), { ms, onTimeout: 'undefined' });
    return answer === true;
  }

  /**
   * True only when the page's main thread is stuck: `STUCK_PROBES` trivial
   * evaluations in a row each get no answer within `STUCK_PROBE_MS`. A page
   * that is merely slow (a long task, a snapshot of a huge page under load)
   * answers one of them and is not stuck.
   * @param early  see stopIfStuck
   */
  async isStuck(early?: MainThreadProbe): Promise<boolean> {
    const cdp = this.cdp;
    // A page waiting for a dialog (its own or a popup's) is not stuck, and answers nothing until the dialog closes.
    if (!cdp || this.closed || anyDialogOpen()) return false;
    // A probe unanswered for a whole probe window says as much as the probes below would: wait out its window.
    if (early && !early.answered) {
      const left = early.sentAt + STUCK_PROBE_MS * STUCK_PROBES - Date.now();
      if (left > 0) await raceTimeout(early.answer, { ms: left, onTimeout: 'undefined' });
      if (!early.answered) return !this.closed;
    }
    for (let i = 0; i < STUCK_PROBES; i++) {
      // Any answer, an error included (a context torn down by a navigation), means the thread is not stuck.
      const answered = await raceTimeout(cdp.send('Runtime.evaluate', { expression: '1', returnByValue: true }).then(() => true, () => true), { ms: STUCK_PROBE_MS, onTimeout: 'undefined' });
      if (answered || this.closed) return false;
    }
    return true;
  }

  /**
   * Stops the JavaScript that is running on the page's main thread (a loop),
   * only when the page is stuck (`isStuck`): terminating an idle page would
   * kill the next script it runs. Gives up after 2 s: while a navigation of
   * the stuck page is pending, the browser holds the command back.
   */
  async terminateExecution(): Promise<void> {
    await this.stopIfStuck();
  }

  /**
   * Sends one probe of the page's main thread now (a `Runtime.evaluate` of `1`), for a caller that asks
   * `stopIfStuck(probe)` at a deadline of its own: a probe still unanswered a whole probe window
   * (STUCK_PROBE_MS × STUCK_PROBES) after it was sent settles the question at once, so a call that times out on
   * a stuck page answers at its deadline instead of a probe window later.
   * @returns the probe; `answered` turns true when the page answers (an error counts as an answer)
   */
  probeMainThread(): MainThreadProbe {
    const sent = this.cdp ? this.cdp.send('Runtime.evaluate', { expression: '1', returnByValue: true }) : Promise.resolve();
    const probe: MainThreadProbe = {
      sentAt: Date.now(),
      answered: false,
      answer: sent.then(() => undefined, () => undefined).then(() => void (probe.answered = true)),
    };
    return probe;
  }

  /**
   * When the page's main thread is stuck (`isStuck`: a script in an endless
   * loop), stops that script. Returns what it found and did (StuckOutcome). A
   * page that answered a probe is never terminated.
   * @param early  a probe sent earlier (probeMainThread): waited for until it is a whole probe window old; still
   *   unanswered then, the page counts as stuck without probing again
   */
  async stopIfStuck(early?: MainThreadProbe): Promise<StuckOutcome> {
    if (!(await this.isStuck(early))) return false;
    const refused = await raceTimeout(this.cdp!.send('Runtime.terminateExecution').then(() => undefined, (error: Error) => {
      log.debug('terminateExecution failed', error);
      return error.message;
    }), { ms: 2000, onTimeout: 'undefined' });
    // Chrome 156 answers an extension's chrome.debugger "Runtime.terminateExecution is not allowed for untrusted
    // clients": through the companion extension a stuck script cannot be stopped (docs/own-browser.md).
    return refused && /not allowed/i.test(refused) ? 'not_stopped' : 'stopped';
  }
}

/** One probe of a page's main thread (Tab.probeMainThread): when it was sent (ms since the epoch), and whether the page answered. */
export interface MainThreadProbe {
  readonly sentAt: number;
  answered: boolean;
  /** Settles when the page answers. */
  readonly answer: Promise<void>;
}

/**
 * What stopIfStuck found and did: `false` the page was not stuck; `'stopped'` its script was stuck and has been
 * terminated; `'not_stopped'` it is stuck and the browser refused to terminate it (an extension's debugger).
 */
export type StuckOutcome = false | 'stopped' | 'not_stopped';

/** The clause an error adds for a stuck page, after "; " (empty when it was not stuck). */
export function stuckClause(outcome: StuckOutcome): string {
  if (outcome === 'stopped') return 'the page\'s script was stuck (an endless loop) and has been stopped';
  if (outcome === 'not_stopped') return 'the page\'s script is stuck (an endless loop) and could not be stopped: Chrome does not let an extension stop a page\'s script';
  return '';
}

/** The hint for a stuck page's error: how to leave a page that could not be stopped, `fallback` for one that was, '' when it was not stuck. */
export function stuckHint(outcome: StuckOutcome, fallback: string): string {
  if (outcome === 'not_stopped') return 'The tab stays stuck until it leaves the page: navigate it elsewhere (or close_tab); reload_tab runs the same script again.';
  return outcome ? fallback : '';
}

const stuckProbeEnv = Number(process.env.TABWRIGHT_STUCK_PROBE_MS);
/**
 * How long one probe of a page's main thread may take before it counts as
 * unanswered, in ms: 1.5 s; `TABWRIGHT_STUCK_PROBE_MS` shortens it (tests; it can only shorten).
 */
export const STUCK_PROBE_MS = stuckProbeEnv > 0 ? Math.min(stuckProbeEnv, 1_500) : 1_500;
/** How many probes in a row must go unanswered before a page counts as stuck. */
export const STUCK_PROBES = 2;

/**
 * The browser's own "Failed to load resource" error for the favicon it
 * fetches by itself: not the page's doing, and noise for an agent.
 */
export function isFaviconNoise(text: string, url: string | undefined): boolean {
  return /\/favicon\.ico(\?|$)/.test(url ?? '') && text.startsWith('Failed to load resource');
}

/** The innermost `url:line:column` of a V8 stack trace (both numbers count from 1), if any. */
export function sourceOfStack(stack: string | undefined): { url: string; line: number; column: number } | undefined {
  const m = /^\s+at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/m.exec(stack ?? '');
  return m ? { url: m[1]!, line: Number(m[2]), column: Number(m[3]) } : undefined;
}
