/**
 * Tab.act: runs an action on a tab and reports what it changed: navigation
 * (new URL, revision), dialogs opened, new console errors, and, only when
 * `snapshot: true` is passed, a fresh snapshot (docs/actions.md, "Actions
 * report what changed").
 * The report is data (ActionReport); src/tools/actionReport.ts writes it on
 * a tool's response, the same for every tool and front.
 */
import type { Request } from 'playwright-core';
import { ToolError } from '../errors.js';
import { awaitFiles, markFiles, type ActionFiles } from './actionFiles.js';
import { untilDialog, type DialogInfo } from './dialogs.js';
import { describeFocused, describeRefs, type ElementInfo } from './elementInfo.js';
import type { Leaving } from './leaving.js';
import { currentBaseline, ensureBaseline, readPage, type PageReport } from './pageReport.js';
import type { ResolvedRef } from './refs.js';
import type { Session } from './session.js';
import { takeSnapshot } from './snapshot.js';
import { stuckClause, stuckHint, type Tab } from './tab.js';
import { pollUntil, raceTimeout, sleep } from '../util/wait.js';
import { classifyPlaywrightError } from '../util/playwrightErrors.js';

/** Longest wait for a navigation the action started, in ms. */
const SETTLE_MS = 10_000;
/** Longest wait for a tab the action opened to show up in the session, in ms. */
const NEW_TAB_MS = 5_000;
/** Longest wait for a tab the action opened to load its first document (its URL and title), in ms. */
const NEW_TAB_LOAD_MS = 3_000;
/** Longest wait for a tab the action opened blank to commit a page (its opener navigates it a moment later), in ms. */
const NEW_TAB_BLANK_MS = 1_500;
/** Longest wait for the responses to fetch / XHR requests the action started, before the page is read for its diff, in ms. */
const REQUESTS_MS = 1_000;
/** Pause after those responses, for the page's handlers to read and apply them, in ms. */
const AFTER_REQUESTS_MS = 50;
/** Longest wait for a page that called window.close() to close, in ms. */
const SELF_CLOSE_MS = 5_000;

/** What Tab.act does besides running the action. */
export interface ActOptions {
  /** Take the whole snapshot after the action (instead of the diff). */
  snapshot?: boolean;
  /** The ref a file chooser the action opens is answered with (upload_file). */
  ref?: string;
  /**
   * For actions that learn it themselves: whether the page's window was
   * closed when the action returned (undefined: unknown, so the page is
   * asked). A WebMCP call passes it (speed); such an action also
   * skips the wait for `domcontentloaded` when nothing navigated during it.
   */
  windowClosed?: () => boolean | undefined;
  /** Report the page after the action: a snapshot diff, or the new document (the element tools). */
  diff?: boolean;
  /** The elements acted on, described before the action (ActionReport.elements). */
  targets?: ReadonlyArray<{ ref: string; resolved: ResolvedRef }>;
  /** Describe the focused element before the action (press_key). */
  focused?: boolean;
  /** The action clicks its targets (click): a target that is an `<a download>` makes the report wait for its download. */
  clicks?: boolean;
}

/** A navigation during the action: the `navigation` field of its result. */
export interface ActionNavigation {
  url: string;
  title: string;
  /** HTTP status of the new document's response (redirects followed); absent without one. */
  status?: number;
  revision: number;
  instanceId: string;
  /** The URL changed within the document (pushState, #hash). */
  sameDocument: boolean;
}

/** What an action's result says about a tab it opened. */
export interface NewTabInfo {
  tabId: number;
  openerTabId?: number;
  url: string;
  title: string;
  /**
   * Opened as a window that keeps `window.opener` (window.open without
   * noopener: a login or payment window that reports back to its opener);
   * false for a plain tab (a target=_blank or rel=noopener link, which
   * Chromium opens without an opener).
   */
  popup: boolean;
  /** The tab still showed no page of its own (about:blank) when the report was made: its page may load later. */
  blank?: boolean;
  dialog?: DialogInfo;
}

/**
 * What an action changed, in the order its result tells it (src/tools/actionReport.ts#reportAction).
 * Optional parts are absent when nothing of the kind happened.
 */
export interface ActionReport {
  tabId: number;
  /** The elements acted on (ActOptions.targets), or the focused one (ActOptions.focused), described before the action. */
  elements: ElementInfo[];
  /** The tab closed during the action (by its own script or its opener), and the active tab after that. */
  tabClosed?: { activeTabId: number | undefined };
  /** The URL or the document changed. */
  navigation?: ActionNavigation;
  /** The tab's revision after the action (absent when the tab closed). */
  revision?: number;
  /** The dialog the tab waits for: one the action opened (the action returned when it opened). */
  dialog?: DialogInfo;
  /** For a beforeunload `dialog`: what it holds up (the link's navigation, a reload, the closing of the tab), when known. */
  leaving?: Leaving;
  /** Console errors logged during the action (texts cut at 500 characters). */
  consoleErrors?: Array<{ seq: number; text: string }>;
  /** Tabs the action opened, the active tab then, and the dialogs those tabs wait for. */
  newTabs?: { tabs: NewTabInfo[]; activeTabId: number | undefined; dialogs: Array<{ tabId: number; dialog: DialogInfo }> };
  /** Downloads and a file chooser the action caused (not looked for while a dialog holds the page). */
  files: ActionFiles;
  /** The whole snapshot after the action (ActOptions.snapshot). */
  snapshot?: string;
  /** The page after the action: a diff, the new document or a line why neither (ActOptions.diff). */
  page?: PageReport;
}

/**
 * Runs `action` on `tab` (Tab.act) and returns what it changed. The action
 * returns early when a dialog opens (in the tab, or in a tab it opened that
 * shares the page's renderer): the report says so. A page stuck in a script
 * that made the action fail is stopped (the error says so).
 * @throws what `action` throws, unless the tab closed itself meanwhile.
 */
export async function actOnTab(tab: Tab, action: () => Promise<void>, opts: ActOptions = {}): Promise<ActionReport> {
  const session = tab.session;
  const started = Date.now();
  const before = {
    url: tab.page.url(),
    revision: tab.revision,
    consoleSeq: tab.console.lastSeq,
    tabIds: new Set(session.openTabs().map(t => t.id)),
    windowOpens: tab.windowOpens,
    instanceId: tab.instanceId,
  };
  const diff = opts.diff && !opts.snapshot;
  // The diff needs a baseline; a page that has none gets one now (one walk), which also names the targets for free.
  if (diff) await ensureBaseline(session, tab);
  const page = { instanceId: tab.instanceId, baseline: currentBaseline(tab) };
  const elements = opts.targets?.length ? await describeRefs(tab, opts.targets) : [];
  if (opts.focused && !tab.dialogs.current) {
    const focused = await describeFocused(session, tab);
    if (focused) elements.push(focused);
  }
  const files = markFiles(session, tab, opts);
  // Asked before the action, while the element is there and no navigation can hold the evaluation: a click on an
  // `<a download>` starts its download in the browser process, which may report it after the click returned.
  const clicksDownloadLink = opts.clicks === true && elements.some(e => e.role === 'link') && (await downloadLink(opts.targets ?? []));
  // A navigation the action asked for (a form submit, location.assign) may commit
  // after the action returns; Playwright's own wait covers clicks, not page tools.
  let navigation: Request | undefined;
  // fetch / XHR the action started: the diff waits (bounded) for their responses, so content they bring is in it.
  // (Request.response() is a call, not an event: listening for `requestfinished` would subscribe every request's
  // end, which also ends settleNavigation's wait early, before a download announces itself.)
  const fetches: Array<Promise<unknown>> = [];
  const onRequest = (request: Request) => {
    if (request.isNavigationRequest()) {
      if (request.frame() === tab.page.mainFrame()) navigation = request;
    } else if (diff && (request.resourceType() === 'fetch' || request.resourceType() === 'xhr')) {
      fetches.push(request.response().catch(() => null));
    }
  };
  tab.page.on('request', onRequest);
  // A dialog in a tab the action opened pauses this page too when they share a
  // renderer (a same-site popup that alerts on load): end the call then as well.
  let stopWatching: () => void = () => undefined;
  const elsewhere = new Promise<DialogInfo>(resolve => {
    stopWatching = session.watchDialogs(other => {
      const current = other.dialogs.current;
      if (other !== tab && current && (!before.tabIds.has(other.id) || other.openerTabId === tab.id)) resolve(current);
    });
  });
  let outcome;
  try {
    // A dialog blocks the page, and with it the action (a click whose handler
    // calls confirm() returns only once the dialog is answered): the call
    // returns when the dialog opens and reports it.
    outcome = await untilDialog(tab.dialogs, stoppingStuckScript(tab, action), elsewhere);
  } catch (error) {
    // The page closed itself (window.close() in a handler) during the action.
    if (!tab.closed && !tab.page.isClosed()) throw error;
    // Not by itself when the action had not reached the page (it still waited for its element), or when the browser
    // went away: the call fails then (tab_not_found, browser_disconnected: src/tools/define.ts, invoke.ts).
    const undispatched = error instanceof ToolError && error.details?.dispatched === 'no';
    if (undispatched || (await session.browserGoneSince(started))) throw error;
    outcome = { done: true as const, value: undefined };
  } finally {
    tab.page.off('request', onRequest);
    stopWatching();
  }
  // A dialog that opened as the action ended (a handler that alerts after its await) counts too.
  const dialog = tab.closed ? undefined : tab.dialogs.current;
  const heldByDialog = !outcome.done;
  const newTabs = () => (tab.windowOpens > before.windowOpens ? waitForNewTabs(session, before.tabIds, tab.windowOpens - before.windowOpens, NEW_TAB_MS, files.downloadId) : undefined);
  if (!heldByDialog) {
    if (navigation && tab.instanceId === before.instanceId && !tab.closed) await settleNavigation(tab, navigation, before.instanceId, files.signals.downloads);
    await newTabs();
    const closed = opts.windowClosed?.();
    await awaitSelfClose(tab, closed);
    // The document the action started on had loaded as far as it will before the action, unless something navigated.
    const unchanged = closed !== undefined && !navigation && tab.instanceId === before.instanceId;
    if (!tab.closed && !unchanged) await tab.page.waitForLoadState('domcontentloaded', { timeout: SETTLE_MS }).catch(() => undefined);
    if (fetches.length && !tab.closed && tab.instanceId === before.instanceId) {
      await raceTimeout(Promise.all(fetches), { ms: REQUESTS_MS, onTimeout: 'undefined' });
      await sleep(AFTER_REQUESTS_MS);
    }
  }
  // The page after the action, read before the file events are looked for: a download or chooser the
  // browser announces a moment after the click returned is seen then (its CDP event may trail the click).
  const pageReport = diff && !tab.closed && !heldByDialog && !tab.dialogs.current ? await readPage(session, tab, page) : undefined;
  // A window whose Page.windowOpen came only after the wait above (the event can trail the action's own answer) is
  // waited for now.
  if (!heldByDialog) await newTabs();
  const report: ActionReport = { tabId: tab.id, elements, files: {} };
  if (tab.closed) {
    report.tabClosed = { activeTabId: session.activeTabId };
  } else {
    const url = tab.page.url();
    if (url !== before.url || tab.revision !== before.revision) {
      const replaced = tab.revision !== before.revision;
      const { title } = await tab.urlAndTitle();
      // The HTTP status of the new document: the response to the last main-frame navigation request (redirects followed).
      // The response came before the document committed, but its event can trail the commit on a busy relay: up to 3 s.
      const response = replaced && navigation ? await raceTimeout(navigation.response().catch(() => null), { ms: 3000, onTimeout: 'undefined' }) : undefined;
      const status = response?.status();
      report.navigation = { url, title, ...(status ? { status } : {}), revision: tab.revision, instanceId: tab.instanceId, sameDocument: !replaced };
    }
    report.revision = tab.revision;
  }
  if (dialog) report.dialog = dialog;
  const leaving = dialog?.type === 'beforeunload' ? await tab.leaving.seen() : undefined;
  if (leaving) report.leaving = leaving;
  const errors = tab.console.errorsSince(before.consoleSeq);
  if (errors.length) report.consoleErrors = errors.map(e => ({ seq: e.seq, text: e.text.slice(0, 500) }));
  const opened = session.openTabs().filter(t => !before.tabIds.has(t.id));
  if (opened.length) {
    // The tab whose action opened a tab is its opener, also when the browser
    // keeps no opener (rel=noopener); recorded once, shown by list_tabs.
    for (const t of opened) t.openerTabId ??= tab.id;
    const tabs = await Promise.all(opened.map(describeNewTab));
    const dialogs = opened.flatMap(t => (t.dialogs.current ? [{ tabId: t.id, dialog: t.dialogs.current }] : []));
    report.newTabs = { tabs, activeTabId: session.activeTabId, dialogs };
  }
  // A page held by a dialog answers no round trip, so file choosers and downloads are not looked for then.
  if (!heldByDialog) report.files = await awaitFiles(session, tab, files, navigation, clicksDownloadLink);
  if (opts.snapshot && !tab.closed && !heldByDialog) report.snapshot = (await takeSnapshot(session, tab)).text;
  else if (pageReport) report.page = pageReport;
  return report;
}

/** Whether one of `targets` is, or lies inside, an `<a download>` (one evaluation per target frame, bounded). */
async function downloadLink(targets: ReadonlyArray<{ resolved: ResolvedRef }>): Promise<boolean> {
  const found = await Promise.all(targets.map(({ resolved }) =>
    raceTimeout(resolved.frame.evaluate(id => {
      const el = (globalThis as { __tabwright?: { byRef?(id: string): Element | null } }).__tabwright?.byRef?.(id);
      return Boolean(el && el.closest('a[download]'));
    }, resolved.id).catch(() => false), { ms: 1000, onTimeout: () => new Error('no answer') }).catch(() => false)));
  return found.some(Boolean);
}

/**
 * Runs `action`; when it fails because the page's main thread is stuck (a
 * handler that never returns), stops that script so the tab answers again
 * and says so in the error.
 */
async function stoppingStuckScript(tab: Tab, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (!(error instanceof ToolError) || !['timeout', 'element_not_actionable'].includes(error.type)) throw error;
    const stuck = await tab.stopIfStuck();
    if (!stuck) throw error;
    throw new ToolError('timeout', `${error.message.replace(/\.$/, '')}: ${stuckClause(stuck)}.`, stuckHint(stuck, 'The page runs an endless script (e.g. in an event handler); its state may be incomplete. Take a fresh snapshot before going on.'));
  }
}

/**
 * Waits until `count` tabs not in `known` are open (the browser announces a
 * window before its page is ready), or `ms` passes.
 */
async function waitForNewTabs(session: Session, known: Set<number>, count: number, ms: number, downloadId: number): Promise<void> {
  // A window opened for a download (target=_blank to an attachment) closes again without becoming a tab.
  await pollUntil(() => session.openTabs().filter(t => !known.has(t.id)).length >= count || session.downloads.lastId !== downloadId, { ms, intervalMs: 25 });
}

/**
 * Waits (at most SETTLE_MS) until a navigation request the action started has
 * replaced the document, or has finished or failed without doing so (a
 * download, a 204).
 */
async function settleNavigation(tab: Tab, request: Request, instanceId: string, downloadsBefore: number): Promise<void> {
  const done = request.response().then(response => response?.finished(), () => undefined).catch(() => undefined);
  let finished = false;
  void done.then(() => {
    finished = true;
  });
  const settled = await pollUntil(() => {
    if (tab.instanceId !== instanceId || tab.closed) return 'replaced';
    // A navigation that turned into a download never gets a response; the tab's CDP session saw the download begin.
    if (downloadsBefore >= 0 && tab.fileSignals.downloads > downloadsBefore) return 'download';
    return finished ? 'finished' : undefined;
  }, { ms: SETTLE_MS, intervalMs: 20 });
  if (settled === 'finished') await sleep(100); // the commit follows the response closely
}

/**
 * When the page called window.close() during the action (`window.closed` is
 * true at once; the tab closes a moment later), waits until the tab is gone,
 * so the result reports it and the next call no longer sees the tab.
 * `known`: what the action itself read of `window.closed` (a WebMCP call
 * reads it in its own evaluation); undefined asks the page (a round trip).
 */
async function awaitSelfClose(tab: Tab, known?: boolean): Promise<void> {
  const cdp = tab.cdp;
  if (tab.closed || !cdp || known === false) return;
  const closing = known ?? await raceTimeout(cdp.send('Runtime.evaluate', { expression: 'window.closed', returnByValue: true })
    .then(r => r.result.value === true, (error: Error) => classifyPlaywrightError(error).has('target_closed')), { ms: 500, onTimeout: 'undefined' });
  if (closing) await pollUntil(() => tab.closed, { ms: SELF_CLOSE_MS, intervalMs: 25 });
}

/**
 * URL, title and kind of a tab an action opened, once its first document has
 * loaded (bounded; not while a dialog holds it). A window opened blank that
 * its opener navigates a moment later (`window.open('')`, then
 * `w.location = url`) is given NEW_TAB_BLANK_MS to commit that page.
 */
async function describeNewTab(t: Tab): Promise<NewTabInfo> {
  const loaded = () => raceTimeout(t.page.waitForLoadState('domcontentloaded', { timeout: NEW_TAB_LOAD_MS }).catch(() => undefined), { ms: NEW_TAB_LOAD_MS, onTimeout: 'undefined' });
  if (!t.dialogs.current) {
    await loaded();
    if (isBlank(t.page.url()) && await pollUntil(() => !isBlank(t.page.url()) || t.closed || t.dialogs.current !== undefined, { ms: NEW_TAB_BLANK_MS, intervalMs: 25 }) && !t.closed && !t.dialogs.current) await loaded();
  }
  const { url, title, canAccessOpener } = await t.urlAndTitle();
  return {
    tabId: t.id, openerTabId: t.openerTabId, url, title, popup: !!canAccessOpener,
    ...(isBlank(url) ? { blank: true } : {}), ...(t.dialogs.current ? { dialog: t.dialogs.current } : {}),
  };
}

/** A window with no page of its own yet (the initial about:blank of a new window). */
function isBlank(url: string): boolean {
  return url === '' || url === 'about:blank';
}
