/**
 * The file side of an action's report: a file chooser the action
 * opened (the agent answers it with upload_file) and downloads it started
 * (saved under `<workspace>/.tabwright/downloads/` before the report is
 * made, within a bound). Part of Tab.act (./tabAction.ts).
 */
import type { Request } from 'playwright-core';
import type { DownloadRecord } from './downloads.js';
import type { Session } from './session.js';
import type { Tab } from './tab.js';
import { raceTimeout } from '../util/wait.js';

/** Longest wait for downloads the action started to be saved, in ms; longer ones are reported as in_progress. */
const DOWNLOAD_SAVE_MS = 15_000;
/** Longest wait for the download an attachment response or an `<a download>` click announces to start, in ms. */
const DOWNLOAD_START_MS = 5_000;
/** Longest wait for the page round trips that flush Playwright's chooser and download events, in ms. */
const FLUSH_MS = 1_000;

/** Where the file events stood before an action. */
export interface FilesMark {
  /** The action's number (FileChoosers.acting): a chooser opened under an earlier one is late. */
  action: number;
  /** `Tab.fileSignals` before the action. */
  signals: { choosers: number; downloads: number };
  downloadId: number;
  instanceId: string;
}

/**
 * Records where the file events stand before an action on `target.ref` (undefined: none), which clicks it when
 * `target.clicks` (a chooser opening from now on is attributed to that ref, ./fileChooser.ts).
 */
export function markFiles(session: Session, tab: Tab, target: { ref?: string; clicks?: boolean } = {}): FilesMark {
  const action = tab.fileChoosers.acting(target.ref, target.clicks === true, tab.instanceId);
  return { action, signals: { ...tab.fileSignals }, downloadId: session.downloads.lastId, instanceId: tab.instanceId };
}

/** The files an action caused, as its report gives them. */
export interface ActionFiles {
  /** Downloads the action started, saved or failed or still in progress (within DOWNLOAD_SAVE_MS). */
  downloads?: DownloadRecord[];
  /**
   * A file chooser nothing has answered or reported yet: one the action opened, or (`late`) one that opened after
   * the previous action returned. upload_file answers it, naming `ref`.
   */
  fileChooser?: { multiple: boolean; ref?: string; late?: boolean };
}

/**
 * Waits for the choosers and downloads the action caused and returns them,
 * with a chooser no result has told of yet (opened during the action, or
 * late, after the previous one): it is named by the ref of the action it
 * opened under, so upload_file with that ref answers it.
 * @param navigation  the main-frame navigation request the action started, if any.
 * @param expectDownload  the action clicked an `<a download>`: wait up to DOWNLOAD_START_MS for its download to start.
 */
export async function awaitFiles(session: Session, tab: Tab, mark: FilesMark, navigation: Request | undefined, expectDownload = false): Promise<ActionFiles> {
  // The action clicked an `<a download>`: its download starts a moment later, reported by the browser process.
  if (expectDownload && session.downloads.lastId === mark.downloadId) await session.downloads.started(mark.downloadId, DOWNLOAD_START_MS);
  if (!tab.closed) {
    // Playwright delivers `filechooser` after resolving the input element, which can be
    // just after the click itself returns. The tab's own CDP session has seen the chooser
    // (or download) by then, so wait for Playwright's event only when it did.
    const now = tab.fileSignals;
    if (mark.signals.choosers < 0 || now.choosers < 0) {
      await raceTimeout((async () => {
        await tab.page.evaluate('0').catch(() => undefined);
        await tab.page.evaluate('0').catch(() => undefined);
      })(), { ms: FLUSH_MS, onTimeout: 'undefined' });
    } else {
      // Every chooser seen so far, this action's and one that opened late before it (not delivered when it began).
      await tab.fileChoosers.delivered(FLUSH_MS);
      if (now.downloads > mark.signals.downloads) await session.downloads.started(mark.downloadId, FLUSH_MS);
    }
  }
  if (navigation && !tab.closed && tab.instanceId === mark.instanceId && session.downloads.lastId === mark.downloadId) {
    // A navigation that ended in an attachment becomes a download a moment later.
    const response = await navigation.response().catch(() => null);
    const disposition = response ? await response.headerValue('content-disposition').catch(() => null) : null;
    if (disposition && /^\s*attachment/i.test(disposition)) await session.downloads.started(mark.downloadId, DOWNLOAD_START_MS);
  }
  const files: ActionFiles = {};
  if (session.downloads.lastId > mark.downloadId) {
    await session.downloads.settle(mark.downloadId, DOWNLOAD_SAVE_MS);
    files.downloads = session.downloads.since(mark.downloadId);
  }
  const chooser = tab.closed ? undefined : tab.fileChoosers.takeUnreported(tab.instanceId);
  if (chooser) {
    files.fileChooser = { multiple: chooser.chooser.isMultiple(), ref: chooser.openedBy, ...(chooser.action < mark.action ? { late: true } : {}) };
  }
  return files;
}
