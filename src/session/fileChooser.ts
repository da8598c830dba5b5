/**
 * File choosers a tab opened. Playwright intercepts
 * every chooser once a `filechooser` listener exists, so a chooser never
 * blocks the page; the tab keeps the newest one so that `upload_file` can
 * fill it later, even when its `<input type=file>` was never attached to
 * the document.
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
  /** The ref whose action (a click) reported it, if known. */
  openedBy?: string;
}

export class FileChoosers {
  private latest: OpenChooser | undefined;
  private count = 0;
  private waiters: Array<() => void> = [];

  /** Records a chooser the page opened (the tab's `filechooser` listener). */
  opened(chooser: FileChooser, instanceId: string): void {
    this.latest = { seq: ++this.count, chooser, instanceId, used: false };
    for (const wake of this.waiters.splice(0)) wake();
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
      let wake!: () => void;
      const woken = new Promise<void>(resolve => {
        wake = resolve;
      });
      this.waiters.push(wake);
      await raceTimeout(woken, { ms: left, onTimeout: 'undefined' });
      this.waiters = this.waiters.filter(w => w !== wake);
    }
    return this.latest;
  }
}
