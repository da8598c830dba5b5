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
import { raceTimeout } from '../util/wait.js';
import type { Session } from './session.js';
import { actOnTab, type ActionReport, type ActOptions } from './tabAction.js';
import { ConsoleBuffer, levelOf } from './consoleBuffer.js';
import { anyDialogOpen, TabDialogs, type DialogInfo } from './dialogs.js';
import { FileChoosers } from './fileChooser.js';
import { TabScripts, type MenuCommand, type RanScript } from './tabScripts.js';

const log = logger('tab');

export interface TabInfo {
  tabId: number;
  url: string;
  title: string;
  active: boolean;
  instanceId: string;
  revision: number;
  openerTabId?: number;
  /** The open dialog the page waits for; absent when none. */
  dialog?: DialogInfo;
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
  /** JavaScript dialogs (fed by the session's context-level listener): the open one stays open until handle_dialog answers it. */
  readonly dialogs = new TabDialogs();
  /** File choosers the page opened, kept for upload_file. */
  readonly fileChoosers = new FileChoosers();
  /** Userscripts that ran in the current document and their menu commands. */
  readonly userscripts = new TabScripts();
  /**
   * The workspace (absolute folder) of the call that last acted on the tab:
   * downloads the tab starts are saved under it. Undefined: the session's.
   */
  workspace: string | undefined;
  /** Names the userscript an uncaught error's stack comes from (set by the session). */
  scriptOfStack: ((stack: string | undefined) => { id: string; name: string } | undefined) | undefined;
  instanceId = 'pending';
  revision = 1;
  openerTabId: number | undefined;
  closed = false;
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
    page.on('console', msg => {
      const loc = msg.location();
      if (isFaviconNoise(msg.text(), loc.url)) return;
      this.console.push({
        level: levelOf(msg.type()),
        kind: 'console',
        text: msg.text(),
        source: loc.url ? { url: loc.url, line: loc.lineNumber + 1, column: loc.columnNumber + 1 } : undefined,
        timestamp: Date.now(),
        revision: this.revision,
      });
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
    page.on('close', () => {
      this.closed = true;
      this.dialogs.clear();
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
      });
      cdp.on('Page.downloadWillBegin', () => {
        this.fileSignals.downloads += 1;
      });
      this.dialogs.attach(cdp);
      await cdp.send('Page.enable');
      // Playwright intercepts choosers on its own session; intercepting here too only adds the event to ours.
      if (await cdp.send('Page.setInterceptFileChooserDialog', { enabled: true }).then(() => true, () => false)) this.fileSignals = { choosers: 0, downloads: 0 };
      const { frameTree } = await cdp.send('Page.getFrameTree');
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
    const { url, title } = await this.urlAndTitle();
    const scripts = this.userscripts.scripts();
    const menuCommands = this.userscripts.menuCommands();
    return {
      tabId: this.id, url, title, active, instanceId: this.instanceId, revision: this.revision, openerTabId: this.openerTabId, dialog: this.dialogs.current,
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
   */
  async isStuck(): Promise<boolean> {
    const cdp = this.cdp;
    // A page waiting for a dialog (its own or a popup's) is not stuck, and answers nothing until the dialog closes.
    if (!cdp || this.closed || anyDialogOpen()) return false;
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
   * When the page's main thread is stuck (`isStuck`: a script in an endless
   * loop), stops that script. Returns whether the page was stuck. A page
   * that answered a probe is never terminated.
   */
  async stopIfStuck(): Promise<boolean> {
    if (!(await this.isStuck())) return false;
    await raceTimeout(this.cdp!.send('Runtime.terminateExecution').catch(error => log.debug('terminateExecution failed', error)), { ms: 2000, onTimeout: 'undefined' });
    return true;
  }
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
