/**
 * What a tab's beforeunload dialog asks about: the navigation, reload or
 * history step it holds, or the closing of the tab (docs/tabs.md,
 * "Dialogs").
 *
 * Chromium runs beforeunload before a main-frame navigation commits, and
 * when a window closes (`window.close()` of a window a script opened). The
 * tab's own CDP session tells which: a navigation the browser starts
 * (`Page.navigate`, `Page.reload`, a history step) announces itself with
 * `Page.frameStartedNavigating` (URL and `navigationType`) before the
 * dialog; one the page starts (a link, `location.assign`, a form submit,
 * `location.reload()`) with `Page.frameRequestedNavigation` (URL and
 * `reason`). A commit (`Page.frameNavigated`, `Page.navigatedWithinDocument`)
 * or the end of loading (`Page.frameStoppedLoading`: a 204, a download)
 * means no navigation is pending any more. Per CDP session events arrive in
 * order, so at `Page.javascriptDialogOpening` the pending navigation is the
 * one the dialog holds; none pending means the window is closing.
 */
import type { CDPSession } from 'playwright-core';
import { pollUntil } from '../util/wait.js';

/** What a beforeunload dialog holds up: `kind`, and the URL a navigation goes to. */
export interface Leaving {
  /** `navigation` (a new URL), `reload`, `history` (back / forward), `close` (the window closes). */
  kind: 'navigation' | 'reload' | 'history' | 'close';
  /** Where a navigation, reload or history step goes (absent for close). */
  url?: string;
}

/** Follows a tab's main-frame navigations; knows what its open beforeunload dialog holds. */
export class LeavingTracker {
  /** The main-frame navigation that started and has not committed or ended yet. */
  private pending: Leaving | undefined;
  /** What the open beforeunload dialog holds, from its `Page.javascriptDialogOpening` on. */
  private atDialog: Leaving | undefined;
  private mainFrameId: string | undefined;
  /** How many main-frame navigations were requested or started so far (Tab.sendInput tells its own from earlier ones). */
  navigationsStarted = 0;

  /**
   * What the tab's open beforeunload dialog holds up. Until the tab's CDP
   * session has seen the dialog open (Playwright's `dialog` event may come
   * first), the pending navigation, if any. Undefined without a CDP session
   * or when nothing is known.
   */
  get current(): Leaving | undefined {
    return this.atDialog ?? this.pending;
  }

  /**
   * `current`, once the tab's CDP session has seen the open beforeunload
   * dialog (at most `ms` later: Playwright's `dialog` event, which told the
   * caller a dialog is open, can come before it).
   */
  async seen(ms = 500): Promise<Leaving | undefined> {
    await pollUntil(() => this.atDialog !== undefined, { ms, intervalMs: 20 });
    return this.current;
  }

  /** The main frame's CDP frame id (`Page.getFrameTree`), so child frames' navigations are told apart before the first commit. */
  setMainFrame(frameId: string): void {
    this.mainFrameId ??= frameId;
  }

  /** Listens on the tab's CDP session; call before `Page.enable`. */
  attach(cdp: CDPSession): void {
    const main = (frameId: string) => this.mainFrameId === undefined || frameId === this.mainFrameId;
    cdp.on('Page.frameStartedNavigating', event => {
      if (!main(event.frameId)) return;
      const type = event.navigationType;
      if (type === 'sameDocument' || type === 'historySameDocument') return; // no unload, no beforeunload
      this.pending = { kind: type === 'reload' || type === 'reloadBypassingCache' ? 'reload' : type.startsWith('history') ? 'history' : 'navigation', url: event.url };
      this.navigationsStarted++;
    });
    cdp.on('Page.frameRequestedNavigation', event => {
      if (!main(event.frameId) || event.disposition !== 'currentTab') return;
      this.pending = { kind: event.reason === 'reload' ? 'reload' : 'navigation', url: event.url };
      this.navigationsStarted++;
    });
    cdp.on('Page.frameNavigated', event => {
      if (event.frame.parentId) return;
      this.mainFrameId = event.frame.id;
      this.pending = undefined;
    });
    cdp.on('Page.navigatedWithinDocument', event => {
      if (main(event.frameId)) this.pending = undefined;
    });
    cdp.on('Page.frameStoppedLoading', event => {
      if (main(event.frameId)) this.pending = undefined;
    });
    cdp.on('Page.javascriptDialogOpening', event => {
      if (event.type !== 'beforeunload' || !main(event.frameId)) return;
      this.atDialog = this.pending ?? { kind: 'close' };
    });
    cdp.on('Page.javascriptDialogClosed', event => {
      if (!this.atDialog) return;
      this.atDialog = undefined;
      // Stay: the navigation will not happen. Leave: it goes on until it commits (or the window closes).
      if (!event.result) this.pending = undefined;
    });
  }
}

/** The clause naming what a beforeunload dialog holds: "the navigation to <url>", "the reload", "going back or forward to <url>", "closing the tab". */
export function leavingClause(leaving: Leaving | undefined): string {
  if (!leaving) return 'leaving the page';
  if (leaving.kind === 'close') return 'closing the tab';
  if (leaving.kind === 'reload') return 'the reload';
  const url = leaving.url ? ` to ${leaving.url.slice(0, 500)}` : '';
  return leaving.kind === 'history' ? `going back or forward${url}` : `the navigation${url}`;
}

/**
 * The sentence a result adds to an open beforeunload dialog's line: what it
 * holds and what each answer does.
 */
export function beforeUnloadQuestion(leaving: Leaving | undefined): string {
  const what = leavingClause(leaving);
  return `The page asks whether to leave (it holds ${what}): accept lets ${what} go on, dismiss cancels it and stays on the page with what was entered.`;
}
