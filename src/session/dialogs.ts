/**
 * JavaScript dialogs of one tab.
 *
 * A dialog the page opens (alert, confirm, prompt, beforeunload) stays open
 * until `handle_dialog` answers it. The call that caused it returns as soon
 * as it opens (`untilDialog`), and while it is open other page calls on the
 * tab fail with `dialog_open` (Session.tab).
 *
 * Playwright's `dialog` event gives the Dialog object we answer through. The
 * tab's own CDP session sees `Page.javascriptDialogOpening` / `Closed` for
 * main-frame dialogs; a dialog closed by anyone else (the human in a headed
 * browser, another CDP client) is dropped on its `Closed` event, so no
 * phantom dialog stays behind. Per CDP session the events come strictly
 * opening, closed, opening, ...; a CDP dialog is paired with the Playwright
 * one of the same type and message, so a late `Closed` of an earlier dialog
 * never drops a newer one, and a Playwright dialog whose CDP pair has
 * closed already (answered before Playwright's event reached us) is never
 * recorded as open.
 *
 * The browser sends `Closed` to every CDP session before it answers the
 * client that closed the dialog, and a session's events and answers arrive
 * in order: so one round trip on the tab's session (`settle`) is enough for
 * a call that comes right after someone else answered a dialog to see it
 * closed (CDP Page domain, `javascriptDialogClosed`).
 */
import type { CDPSession, Dialog } from 'playwright-core';
import { logger } from '../log.js';
import { ToolError } from '../errors.js';
import { raceTimeout } from '../util/wait.js';

const log = logger('dialogs');

export type DialogType = 'alert' | 'confirm' | 'prompt' | 'beforeunload';

/** A dialog as the caller sees it: type, message, and a prompt's default value. */
export interface DialogInfo {
  type: DialogType;
  message: string;
  /** Only for prompt: the value the prompt shows. */
  defaultValue?: string;
}

interface Open extends DialogInfo {
  seq: number;
  dialog: Dialog;
  cdp?: CdpEntry;
}

interface CdpEntry {
  type: string;
  message: string;
  paired?: Open;
  /** When `Page.javascriptDialogClosed` came for it before its Playwright dialog did (ms since the epoch). */
  closedAt?: number;
}

/** The outcome of answering a dialog. */
export interface DialogAnswer extends DialogInfo {
  accepted: boolean;
  promptText?: string;
}

/** How many dialogs are open in this process, over all tabs. */
let openInProcess = 0;

/**
 * Whether any tab has an open dialog. Pages of one site that share a
 * renderer (an opener and its popups) are all paused while one of them shows
 * a dialog, so a page that does not answer is not necessarily stuck:
 * Tab.terminateExecution does nothing meanwhile.
 */
export function anyDialogOpen(): boolean {
  return openInProcess > 0;
}

export class TabDialogs {
  /** Open dialogs, oldest first (in practice at most one: an open dialog blocks its page). */
  private readonly open: Open[] = [];
  /** Dialogs the CDP session reports open, oldest first. */
  private readonly cdpOpen: CdpEntry[] = [];
  /** Dialogs the CDP session saw open and close before their Playwright dialog came (at most a few; oldest first). */
  private readonly cdpGone: CdpEntry[] = [];
  private cdp: CDPSession | undefined;
  private readonly waiters = new Set<(info: DialogInfo) => void>();
  private seq = 0;

  /** The open dialog, if any (what `list_tabs` and `dialog_open` report). */
  get current(): DialogInfo | undefined {
    const d = this.open[0];
    return d && infoOf(d);
  }

  /** Sequence number of the newest dialog (0 before the first). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Playwright's `dialog` event: the dialog stays open until answered. */
  onDialog(dialog: Dialog): void {
    const type = dialog.type() as DialogType;
    const entry: Open = { seq: ++this.seq, type, message: dialog.message(), dialog };
    if (type === 'prompt') entry.defaultValue = dialog.defaultValue();
    const gone = this.cdpGone.findIndex(c => c.type === type && c.message === entry.message && Date.now() - c.closedAt! < GONE_MS);
    if (gone >= 0) {
      // Closed in the browser (by someone else) before Playwright told us it opened: nothing waits for an answer.
      this.cdpGone.splice(gone, 1);
      log.debug(`dialog ${entry.seq} (${type}) was closed outside tabwright before it was reported`);
      return;
    }
    const cdp = this.cdpOpen.find(c => !c.paired && c.type === type && c.message === entry.message);
    if (cdp) {
      cdp.paired = entry;
      entry.cdp = cdp;
    }
    this.open.push(entry);
    openInProcess += 1;
    log.debug(`dialog ${entry.seq} opened: ${type}`);
    const info = infoOf(entry);
    for (const waiter of [...this.waiters]) waiter(info);
  }

  /** Listens on the tab's CDP session (after `Page.enable`) for dialogs closed outside tabwright. */
  attach(cdp: CDPSession): void {
    this.cdp = cdp;
    cdp.on('Page.javascriptDialogOpening', event => {
      const entry: CdpEntry = { type: event.type, message: event.message };
      const open = this.open.find(o => !o.cdp && o.type === event.type && o.message === event.message);
      if (open) {
        open.cdp = entry;
        entry.paired = open;
      }
      this.cdpOpen.push(entry);
    });
    cdp.on('Page.javascriptDialogClosed', () => {
      const closed = this.cdpOpen.shift();
      if (!closed) return;
      const open = closed.paired;
      if (!open) {
        // Its Playwright dialog has not come yet (or was answered by us and already dropped): remember it closed.
        closed.closedAt = Date.now();
        this.cdpGone.push(closed);
        if (this.cdpGone.length > GONE_KEPT) this.cdpGone.shift();
        return;
      }
      const index = this.open.indexOf(open);
      if (index >= 0) {
        this.open.splice(index, 1);
        openInProcess -= 1;
        log.debug(`dialog ${open.seq} was closed outside tabwright`);
      }
    });
  }

  /**
   * The open dialog once the tab's CDP session has caught up with the
   * browser: when one is recorded open, a round trip on that session (the
   * browser answers it while the page is blocked) delivers a
   * `javascriptDialogClosed` the browser already sent, so a dialog someone
   * else has just answered is not reported. Bounded by SETTLE_MS; without a
   * CDP session, `current` as it is.
   */
  async settle(): Promise<DialogInfo | undefined> {
    const cdp = this.cdp;
    if (!this.open.length || !cdp) return this.current;
    await raceTimeout(cdp.send('Target.getTargetInfo').catch(() => undefined), { ms: SETTLE_MS, onTimeout: 'undefined' });
    return this.current;
  }

  /**
   * Resolves with the next dialog that opens; `cancel()` stops waiting (the
   * promise then never settles).
   */
  next(): { opened: Promise<DialogInfo>; cancel(): void } {
    let waiter: (info: DialogInfo) => void = () => undefined;
    const opened = new Promise<DialogInfo>(resolve => {
      waiter = info => {
        this.waiters.delete(waiter);
        resolve(info);
      };
      this.waiters.add(waiter);
    });
    return { opened, cancel: () => this.waiters.delete(waiter) };
  }

  /**
   * Accepts (with `promptText` for a prompt) or dismisses the open dialog.
   * @throws ToolError no_dialog when no dialog is open (answered or closed meanwhile).
   */
  async answer(accept: boolean, promptText: string | undefined, tabId: number): Promise<DialogAnswer> {
    const entry = this.open.shift();
    if (!entry) throw noDialog(tabId);
    openInProcess -= 1;
    try {
      // Playwright answers a prompt with '' when given no text; a person pressing OK sends the default value.
      await (accept ? entry.dialog.accept(entry.type === 'prompt' ? promptText ?? entry.defaultValue : undefined) : entry.dialog.dismiss());
    } catch (error) {
      // Closed by someone else between our look and our answer.
      log.debug('answering the dialog failed', error);
      throw noDialog(tabId);
    }
    const answer: DialogAnswer = { ...infoOf(entry), accepted: accept };
    if (accept && entry.type === 'prompt') answer.promptText = promptText ?? entry.defaultValue ?? '';
    return answer;
  }

  /** Forgets every dialog (the tab closed). */
  clear(): void {
    openInProcess -= this.open.length;
    this.open.length = 0;
    this.cdpOpen.length = 0;
    this.cdpGone.length = 0;
  }
}

/** How many dialogs closed before their Playwright event a tab remembers (in practice one at a time). */
const GONE_KEPT = 4;
/**
 * How long such a dialog is remembered, in ms: Playwright's event trails the CDP session's by far less; a later
 * dialog with the same type and message is a new one.
 */
const GONE_MS = 2_000;
/** Longest wait for the round trip of `TabDialogs.settle`, in ms. */
const SETTLE_MS = 500;

function infoOf(d: Open): DialogInfo {
  return d.type === 'prompt' ? { type: d.type, message: d.message, defaultValue: d.defaultValue ?? '' } : { type: d.type, message: d.message };
}

/** One line describing an open dialog and how to answer it. */
export function describeDialog(tabId: number, d: DialogInfo): string {
  const message = d.message ? ` "${d.message.slice(0, 300)}"` : '';
  const value = d.defaultValue ? ` (default value "${d.defaultValue.slice(0, 100)}")` : '';
  const args = d.type === 'alert' ? 'accept: true' : d.type === 'prompt' ? 'accept: true|false, promptText' : 'accept: true|false';
  const how = `handle_dialog {tabId: ${tabId}, ${args}}`;
  return `${d.type === 'alert' ? 'An' : 'A'} ${d.type} dialog is open in tab ${tabId}${message}${value}; the page waits for it. Answer it with ${how}.`;
}

/**
 * The error for a call on a tab whose page waits for a dialog.
 * Issue #4: "while it is open, other calls say so and name the tool to answer it".
 */
export function dialogOpenError(tabId: number, d: DialogInfo): ToolError {
  const message = d.message ? `: "${d.message.slice(0, 200)}"` : '';
  return new ToolError('dialog_open', `Tab ${tabId} has an open ${d.type} dialog${message}; its page is blocked until the dialog is answered.`,
    `Call handle_dialog {tabId: ${tabId}, accept: true|false${d.type === 'prompt' ? ', promptText' : ''}} first (close_tab also works).`);
}

/** The error for handle_dialog on a tab without an open dialog. */
export function noDialog(tabId: number): ToolError {
  return new ToolError('no_dialog', `Tab ${tabId} has no open dialog (it was answered or closed already).`, 'Call list_tabs: a tab with an open dialog shows it under dialog.');
}

/** What `untilDialog` ended with: the promise's value, or a dialog that opened first. */
export type UntilDialog<T> = { done: true; value: T } | { done: false; dialog: DialogInfo };

/**
 * Waits for `work` unless a dialog opens in the tab first (one that was open
 * before the call does not count): a page blocked by
 * a dialog does not finish what it was doing until someone answers it.
 * When the dialog wins, `work` goes on in the background and its outcome
 * (usually a timeout or an abort) is ignored. Rejections of `work` before a
 * dialog opens are passed on. `elsewhere` resolves when a dialog that holds
 * the work up opens in another tab (a popup the action opened).
 */
export async function untilDialog<T>(dialogs: TabDialogs, work: Promise<T>, elsewhere?: Promise<DialogInfo>): Promise<UntilDialog<T>> {
  const waiter = dialogs.next();
  work.catch(error => log.debug('work after a dialog opened ended with', error));
  try {
    return await Promise.race([
      work.then(value => ({ done: true as const, value })),
      waiter.opened.then(dialog => ({ done: false as const, dialog })),
      ...(elsewhere ? [elsewhere.then(dialog => ({ done: false as const, dialog }))] : []),
    ]);
  } finally {
    waiter.cancel();
  }
}
