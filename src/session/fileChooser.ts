/**
 * File choosers a tab opened. Playwright intercepts
 * every chooser once a `filechooser` listener exists, so a chooser never
 * blocks the page; the tab keeps the newest one so that `upload_file` can
 * fill it later, even when its `<input type=file>` was never attached to
 * the document.
 *
 * A chooser may open after the action that caused it returned (a handler
 * that calls `input.click()` after a timer or a fetch): it is then named
 * after the ref of the action that was last run on the tab, and the next
 * action's report carries it (docs/actions.md, "Choosers in action
 * results"). Each chooser is reported at most once, and never after
 * upload_file answered it or a newer one.
 */
import type { FileChooser } from 'playwright-core';
import { raceTimeout } from '../util/wait.js';

/** One intercepted chooser. */
export interface OpenChooser {
  /** 1, 2, ... per tab. */
  seq: number;
  chooser: FileChooser;
  /** The document (tab instanceId) that opened it; a chooser of a replaced document is useless. */
  instanceId: string;
  /** Whether upload_file has filled (or dropped) it. */
  used: boolean;
  /** Whether an action's result has told of it already. */
  reported: boolean;
  /** The ref of the action running (or last run) on the tab when it opened, if that action named one. */
  openedBy?: string;
  /** The number of the action (FileChoosers.acting) running or last run when it opened: before an action's own, it opened late. */
  action: number;
}

/** How long a chooser the tab's CDP session saw is awaited from Playwright before it is given up, in ms. */
const DELIVERY_MS = 2_000;

/** How long after a click a chooser that has not opened yet is still expected from it, in ms (upload_file). */
export const LATE_CHOOSER_MS = 10_000;

export class FileChoosers {
  private latest: OpenChooser | undefined;
  private count = 0;
  private waiters: Array<() => void> = [];
  /** The ref of the action running or last run on the tab (what a chooser opening now is attributed to). */
  private actionRef: string | undefined;
  /** The last click by ref: which ref, in which document, when, and how many choosers had opened before it. */
  private lastClick: { ref: string; instanceId: string; at: number; seq: number } | undefined;
  /** A chooser expected from upload_file's own click, to be dropped when it opens: its document and deadline. */
  private drop: { instanceId: string; until: number } | undefined;
  /** Actions started on the tab so far (acting). */
  private actions = 0;
  /**
   * Choosers the tab's CDP session saw (`Page.fileChooserOpened`) that Playwright has not delivered yet, oldest
   * first, each with the action it opened under: Playwright resolves the input element before its `filechooser`
   * event, so the event can come after the next action started, and that action must neither miss it nor claim it.
   */
  private signals: Array<{ ref: string | undefined; action: number; at: number }> = [];

  /** The tab's CDP session saw a chooser open (`Page.fileChooserOpened`); Playwright's event follows. */
  signalled(): void {
    this.signals.push({ ref: this.actionRef, action: this.actions, at: Date.now() });
  }

  /** Records a chooser the page opened (the tab's `filechooser` listener). */
  opened(chooser: FileChooser, instanceId: string): void {
    this.pruneSignals();
    const seen = this.signals.shift() ?? { ref: this.actionRef, action: this.actions };
    const entry: OpenChooser = { seq: ++this.count, chooser, instanceId, used: false, reported: false, openedBy: seen.ref, action: seen.action };
    if (this.drop && this.drop.instanceId === instanceId && Date.now() < this.drop.until) {
      // The duplicate of a chooser upload_file answered already (its own click and an earlier one both opened one).
      entry.used = true;
      this.drop = undefined;
    }
    this.latest = entry;
    for (const wake of this.waiters.splice(0)) wake();
  }

  /**
   * An action starts on the tab: `ref` is the element it acts on (undefined: none), `clicks` whether it clicks it.
   * A chooser that opens from now until the next action is attributed to `ref`.
   */
  acting(ref: string | undefined, clicks: boolean, instanceId: string): number {
    this.actionRef = ref;
    this.actions += 1;
    if (ref && clicks) this.lastClick = { ref, instanceId, at: Date.now(), seq: this.count };
    return this.actions;
  }

  /**
   * Waits at most `ms` (default 1 s) until Playwright delivered every chooser the CDP session saw (see `signalled`); a signal
   * older than DELIVERY_MS is given up (Playwright could not resolve its input), so a lost one costs one wait.
   */
  async delivered(ms = 1_000): Promise<void> {
    const deadline = Date.now() + ms;
    for (;;) {
      this.pruneSignals();
      const left = deadline - Date.now();
      if (!this.signals.length || left <= 0) return;
      await this.nextOpened(Math.min(left, DELIVERY_MS));
    }
  }

  /**
   * Whether the last click was on `ref` in document `instanceId`, less than LATE_CHOOSER_MS ago, and no chooser has
   * opened since: a chooser from it may still come (a handler that opens it late).
   */
  owedTo(ref: string, instanceId: string): boolean {
    const c = this.lastClick;
    return !!c && c.ref === ref && c.instanceId === instanceId && c.seq === this.count && Date.now() - c.at < LATE_CHOOSER_MS;
  }

  /**
   * upload_file answered a chooser after clicking the element itself while an earlier click's chooser was still
   * owed: the next chooser of document `instanceId` within LATE_CHOOSER_MS of that earlier click is the other
   * click's, and is dropped.
   */
  dropNext(instanceId: string): void {
    this.drop = { instanceId, until: (this.lastClick?.at ?? Date.now()) + LATE_CHOOSER_MS };
  }

  /**
   * The chooser of document `instanceId` that no result has told of and nothing answered (it opened after the
   * last action returned), marked as told now; undefined when there is none.
   */
  takeUnreported(instanceId: string): OpenChooser | undefined {
    const c = this.pending(instanceId);
    if (!c || c.reported) return undefined;
    c.reported = true;
    return c;
  }

  /** Marks every chooser opened so far as answered (upload_file chose the files: none of them is still a question). */
  answeredAll(): void {
    if (this.latest) this.latest.used = true;
  }

  /** Sequence number of the newest chooser (0 when none opened). */
  get lastSeq(): number {
    return this.count;
  }

  /** The newest chooser if it is not used yet and belongs to document `instanceId`. */
  pending(instanceId: string): OpenChooser | undefined {
    const c = this.latest;
    return c && !c.used && c.instanceId === instanceId ? c : undefined;
  }

  /** The newest chooser opened after `seq`, waiting at most `ms` for it; undefined if none opened. */
  async after(seq: number, ms: number): Promise<OpenChooser | undefined> {
    const deadline = Date.now() + ms;
    while (this.count <= seq) {
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await this.nextOpened(left);
    }
    return this.latest;
  }

  /** Resolves when the next chooser opens, or after `ms`. */
  private async nextOpened(ms: number): Promise<void> {
    let wake!: () => void;
    const woken = new Promise<void>(resolve => {
      wake = resolve;
    });
    this.waiters.push(wake);
    await raceTimeout(woken, { ms, onTimeout: 'undefined' });
    this.waiters = this.waiters.filter(w => w !== wake);
  }

  /** Drops the signals older than DELIVERY_MS (choosers Playwright never delivered: it could not resolve their input). */
  private pruneSignals(): void {
    const now = Date.now();
    this.signals = this.signals.filter(s => now - s.at < DELIVERY_MS);
  }
}
