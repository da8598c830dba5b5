/**
 * What changed during an action (issue #2: "Each returns what changed:
 * navigation (new URL, revision), dialogs opened, new console errors, and,
 * only when `snapshot: true` is passed, a fresh snapshot").
 */
import * as z from 'zod';
import { describeFocused, describeRefs, type ElementInfo } from '../session/elementInfo.js';
import { takeSnapshot, type ResolvedRef } from '../session/snapshot.js';
import { markFiles, reportFiles } from './actionFiles.js';
import { currentBaseline, ensureBaseline, readPage } from './actionReport.js';
import type { Session } from '../session/session.js';
import type { Request } from 'playwright-core';
import type { Tab } from '../session/tab.js';
import { raceTimeout } from '../util/wait.js';
import { describeDialog, untilDialog, type DialogInfo } from '../session/dialogs.js';
import { ToolError } from '../errors.js';
import type { ToolResponse } from './response.js';

/** The `snapshot` flag every action tool accepts. */
export const snapshotFlag = z.boolean().optional().describe('Whole snapshot instead of the diff');

/** Longest wait for a navigation the action started, in ms. */
const SETTLE_MS = 10_000;
/** Longest wait for a tab the action opened to show up in the session, in ms. */
const NEW_TAB_MS = 5_000;
/** Longest wait for a tab the action opened to load its first document (its URL and title), in ms. */
const NEW_TAB_LOAD_MS = 3_000;
/** Longest wait for the responses to fetch / XHR requests the action started, before the page is read for its diff, in ms. */
const REQUESTS_MS = 1_000;
/** Pause after those responses, for the page's handlers to read and apply them, in ms. */
const AFTER_REQUESTS_MS = 50;

/**
 * Waits until `count` tabs not in `known` are open (the browser announces a
 * window before its page is ready), or `ms` passes.
 */
async function waitForNewTabs(session: Session, known: Set<number>, count: number, ms: number, downloadId: number): Promise<void> {
  const deadline = Date.now() + ms;
  // A window opened for a download (target=_blank to an attachment) closes again without becoming a tab.
  while (session.openTabs().filter(t => !known.has(t.id)).length < count && Date.now() < deadline && session.downloads.lastId === downloadId) {
    await new Promise(resolve => setTimeout(resolve, 25));
  }
}

/**
 * Waits (at most SETTLE_MS) until a navigation request the action started has
 * replaced the document, or has finished or failed without doing so (a
 * download, a 204).
 */
async function settleNavigation(tab: Tab, request: Request, instanceId: string, downloadsBefore: number): Promise<void> {
  const deadline = Date.now() + SETTLE_MS;
  const done = request.response().then(response => response?.finished(), () => undefined).catch(() => undefined);
  let finished = false;
  void done.then(() => {
    finished = true;
  });
  while (Date.now() < deadline && tab.instanceId === instanceId && !tab.closed) {
    // A navigation that turned into a download never gets a response; the tab's CDP session saw the download begin.
    if (downloadsBefore >= 0 && tab.fileSignals.downloads > downloadsBefore) break;
    if (finished) {
      await new Promise(resolve => setTimeout(resolve, 100)); // the commit follows the response closely
      break;
    }
    await new Promise(resolve => setTimeout(resolve, 20));
  }
}

/** Longest wait for a page that called window.close() to close, in ms. */
const SELF_CLOSE_MS = 5_000;

/**
 * When the page called window.close() during the action (`window.closed` is
 * true at once; the tab closes a moment later), waits until the tab is gone,
 * so the result reports it and the next call no longer sees the tab.
 * `known`: what the action itself read of `window.closed` (a WebMCP call
 * reads it in its own evaluation); undefined asks the page (a round trip).
 */
async function awaitSelfClose(tab: Tab, known?: boolean): Promise<void> {
  if (tab.closed || !tab.session || known === false) return;
  const closing = known ?? await raceTimeout(tab.session.send('Runtime.evaluate', { expression: 'window.closed', returnByValue: true })
    .then(r => r.result.value === true, (error: Error) => /closed/i.test(error.message)), { ms: 500, onTimeout: 'undefined' });
  if (!closing) return;
  const deadline = Date.now() + SELF_CLOSE_MS;
  while (!tab.closed && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 25));
}

/**
 * Runs `action`; when it fails because the page's main thread is stuck (a
 * handler that never returns), stops that script so the tab answers again
 * and says so in the error.
 */
async function unstuck(tab: Tab, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (!(error instanceof ToolError) || !['timeout', 'element_not_actionable'].includes(error.type) || !(await tab.stopIfStuck())) throw error;
    throw new ToolError('timeout', `${error.message.replace(/\.$/, '')}: the page's script was stuck and has been stopped.`, 'The page runs an endless script (e.g. in an event handler); its state may be incomplete. Take a fresh snapshot before going on.');
  }
}

/** How runAction reports an action. */
export interface ActionOptions {
  /** Return the whole snapshot after the action (instead of the diff). */
  snapshot?: boolean;
  /** The ref a file chooser the action opens is answered with (upload_file). */
  ref?: string;
  /**
   * For actions that learn it themselves: whether the page's window was
   * closed when the action returned (undefined: unknown, so the page is
   * asked). A WebMCP call passes it (issue #5, speed); such an action also
   * skips the wait for `domcontentloaded` when nothing navigated during it.
   */
  windowClosed?: () => boolean | undefined;
  /** Report the page after the action: a snapshot diff, or the new document (the element tools). */
  diff?: boolean;
  /** The elements acted on, described before the action: field `element` (the first; drag adds its drop target itself). */
  targets?: ReadonlyArray<{ ref: string; resolved: ResolvedRef }>;
  /** The targets are peers (fill_form's fields): field `elements` instead. */
  peers?: boolean;
  /** Describe the focused element before the action (press_key). */
  focused?: boolean;
}

/** The first line of an action's text, given the elements it acts on (as `describeRefs` names them). */
/**
 * The first line of an action's text, or a function of the described
 * elements and of the refs the page report below it shows (lines of its diff
 * or of the page as it now reads), so a label can leave out what that shows.
 */
export type ActionLabel = string | ((elements: ElementInfo[], shown: ReadonlySet<string>) => string);

/**
 * Runs `action` on `tab` and reports on `res` what it changed (docs/actions.md,
 * "Actions report what changed"). `label` is the first line of the text
 * ("Clicked button "Save" [ref=e5]."); empty for none. Returns the
 * described elements (`opts.targets`, or the focused one).
 */
export async function runAction(session: Session, tab: Tab, label: ActionLabel, res: ToolResponse, opts: ActionOptions, action: () => Promise<void>): Promise<ElementInfo[]> {
  const before = {
    url: tab.page.url(),
    revision: tab.revision,
    consoleSeq: tab.console.lastSeq,
    tabIds: new Set(session.openTabs().map(t => t.id)),
    windowOpens: tab.windowOpens,
    instanceId: tab.instanceId,
  };
  const report = opts.diff && !opts.snapshot;
  // The diff needs a baseline; a page that has none gets one now (one walk), which also names the targets for free.
  if (report) await ensureBaseline(session, tab);
  const page = { instanceId: tab.instanceId, baseline: currentBaseline(tab) };
  const elements = opts.targets?.length ? await describeRefs(tab, opts.targets) : [];
  if (opts.focused && !tab.dialogs.current) {
    const focused = await describeFocused(session, tab);
    if (focused) elements.push(focused);
  }
  const files = markFiles(session, tab);
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
    } else if (report && (request.resourceType() === 'fetch' || request.resourceType() === 'xhr')) {
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
    // returns when the dialog opens and reports it (issue #4).
    outcome = await untilDialog(tab.dialogs, unstuck(tab, action), elsewhere);
  } catch (error) {
    // The page closed itself (window.close() in a handler) during the action.
    if (!tab.closed && !tab.page.isClosed()) throw error;
    outcome = { done: true as const, value: undefined };
  } finally {
    tab.page.off('request', onRequest);
    stopWatching();
  }
  // A dialog that opened as the action ended (a handler that alerts after its await) counts too.
  const dialog = tab.closed ? undefined : tab.dialogs.current;
  const held = !outcome.done;
  if (!held) {
    if (navigation && tab.instanceId === before.instanceId && !tab.closed) await settleNavigation(tab, navigation, before.instanceId, files.signals.downloads);
    if (tab.windowOpens > before.windowOpens) await waitForNewTabs(session, before.tabIds, tab.windowOpens - before.windowOpens, NEW_TAB_MS, files.downloadId);
    const closed = opts.windowClosed?.();
    await awaitSelfClose(tab, closed);
    // The document the action started on had loaded as far as it will before the action, unless something navigated.
    const unchanged = closed !== undefined && !navigation && tab.instanceId === before.instanceId;
    if (!tab.closed && !unchanged) await tab.page.waitForLoadState('domcontentloaded', { timeout: SETTLE_MS }).catch(() => undefined);
    if (fetches.length && !tab.closed && tab.instanceId === before.instanceId) {
      await raceTimeout(Promise.all(fetches), { ms: REQUESTS_MS, onTimeout: 'undefined' });
      await new Promise(resolve => setTimeout(resolve, AFTER_REQUESTS_MS));
    }
  }
  // The page after the action, read before the file events are looked for: a download or chooser the
  // browser announces a moment after the click returned is seen then (its CDP event may trail the click).
  const pageReport = report && !tab.closed && !held && !tab.dialogs.current ? await readPage(session, tab, page) : undefined;
  const shown = new Set(pageReport?.lines.flatMap(l => [...l.text.matchAll(/\[ref=(e\d+)\]/g)].map(m => m[1]!)) ?? []);
  const text = typeof label === 'function' ? label(elements, shown) : label;
  if (text) res.text(text);
  res.set('tabId', tab.id);
  if (opts.peers) res.set('elements', elements);
  else res.set('element', elements[0]);

  if (tab.closed) {
    res.text(`Tab ${tab.id} closed during the action (the page closed itself); the active tab is now ${session.activeTabId ?? 'none'}.`).set('tabClosed', true).set('activeTabId', session.activeTabId);
  } else {
    const url = tab.page.url();
    if (url !== before.url || tab.revision !== before.revision) {
      const replaced = tab.revision !== before.revision;
      const { title } = await tab.urlAndTitle();
      // The HTTP status of the new document: the response to the last main-frame navigation request (redirects followed).
      const response = replaced && navigation ? await raceTimeout(navigation.response().catch(() => null), { ms: 1000, onTimeout: 'undefined' }) : undefined;
      const status = response?.status();
      const http = status ? `HTTP ${status}, ` : '';
      res.text(`${replaced ? 'Navigated' : 'URL changed (same document)'} to ${url} ${JSON.stringify(title)} (${http}revision ${tab.revision}).`);
      if (status && status >= 400) res.text(`The server answered HTTP ${status}; the page shown is its error page.`);
      res.set('navigation', { url, title, ...(status ? { status } : {}), revision: tab.revision, instanceId: tab.instanceId, sameDocument: !replaced });
    }
    res.set('revision', tab.revision);
  }
  if (dialog) res.set('dialog', dialog).text(describeDialog(tab.id, dialog));
  const errors = tab.console.errorsSince(before.consoleSeq);
  if (errors.length) {
    res.set('consoleErrors', errors.map(e => ({ seq: e.seq, text: e.text.slice(0, 500) })));
    res.text(`${errors.length} new console error${errors.length > 1 ? 's' : ''}: ${errors.slice(0, 3).map(e => e.text.split('\n')[0]!.slice(0, 200)).join(' | ')}`);
  }
  const opened = session.openTabs().filter(t => !before.tabIds.has(t.id));
  if (opened.length) {
    // The tab whose action opened a tab is its opener, also when the browser
    // keeps no opener (rel=noopener); recorded once, shown by list_tabs.
    for (const t of opened) t.openerTabId ??= tab.id;
    const infos = await Promise.all(opened.map(describeNewTab));
    res.set('newTabs', infos);
    res.set('activeTabId', session.activeTabId);
    for (const t of infos) {
      res.text(`New tab ${t.tabId} opened (${t.popup ? 'a popup: it can reach its opener through window.opener' : 'a plain tab'}, opener tab ${t.openerTabId}): ${t.url} ${JSON.stringify(t.title)}.`);
    }
    res.text(`The active tab stays ${session.activeTabId} (focus_tab {tabId: ${infos[0]!.tabId}} switches; tools take tabId).`);
    for (const t of opened) if (t.dialogs.current) res.text(describeDialog(t.id, t.dialogs.current));
  }
  // A page held by a dialog answers no round trip, so file choosers and downloads are not looked for then.
  if (!held) await reportFiles(session, tab, files, navigation, res, opts.ref);
  if (opts.snapshot && !tab.closed && !held) {
    const snap = await takeSnapshot(session, tab);
    res.set('snapshot', snap.text).text(`\n${snap.text}`, { mirrors: 'snapshot' });
  } else if (pageReport) {
    for (const line of pageReport.lines) res.text(line.text, line);
    res.merge(pageReport.fields);
  }
  return elements;
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
  dialog?: DialogInfo;
}

/** URL, title and kind of a tab an action opened, once its first document has loaded (bounded; not while a dialog holds it). */
async function describeNewTab(t: Tab): Promise<NewTabInfo> {
  if (!t.dialogs.current) {
    await raceTimeout(t.page.waitForLoadState('domcontentloaded', { timeout: NEW_TAB_LOAD_MS }).catch(() => undefined), { ms: NEW_TAB_LOAD_MS, onTimeout: 'undefined' });
  }
  const { url, title, canAccessOpener } = await t.urlAndTitle();
  return { tabId: t.id, openerTabId: t.openerTabId, url, title, popup: !!canAccessOpener, ...(t.dialogs.current ? { dialog: t.dialogs.current } : {}) };
}
