/** navigate: load a URL, or go back / forward in a tab's history. */
import * as z from 'zod';
import { isTimeoutError, netErrorOf } from '../util/playwrightErrors.js';
import type { Response } from 'playwright-core';
import { describeDialog, untilDialog } from '../session/dialogs.js';
import { beforeUnloadQuestion } from '../session/leaving.js';
import { stuckClause, stuckHint, type Tab } from '../session/tab.js';
import type { ToolResponse } from './response.js';
import { defineTabTool } from './define.js';
import { firstLine, tabClosedDuring, ToolError } from '../errors.js';
import { historyStep, restoredStatus } from './historyStep.js';
import { tabIdField, timeoutMsField, waitUntilField } from './schemas.js';
import { pollUntil } from '../util/wait.js';

type WaitUntil = 'commit' | 'domcontentloaded' | 'load' | 'networkidle';

const ALLOWED_SCHEMES = new Set(['http:', 'https:', 'file:', 'about:', 'data:']);

/** True when `text` is an absolute URL with an allowed scheme. */
function isAllowedUrl(text: string): boolean {
  try {
    return ALLOWED_SCHEMES.has(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** An absolute URL with an allowed scheme. */
export const urlField = z.string().min(1).max(8192).refine(isAllowedUrl, 'must be an absolute http, https, file, about or data URL');

/**
 * navigate's `url`: an absolute URL, or "back" / "forward". One string schema, not a union: clients show an
 * `anyOf` of literals and a string as "unknown" (mcporter), and a plain string is what the model types anyway.
 */
const navigateTarget = z.string().min(1).max(8192)
  .refine(text => text === 'back' || text === 'forward' || isAllowedUrl(text), 'must be an absolute http, https, file, about or data URL, or "back" / "forward"');

/** Longest wait for the error page Chromium shows after a failed load, in ms. */
const ERROR_PAGE_MS = 2_000;

/**
 * Waits until the tab's document is no longer `previousInstanceId` (or
 * ERROR_PAGE_MS pass). Chromium commits its error page a moment after
 * Playwright reports the failed load; a navigation started before that
 * commit is interrupted by it.
 */
async function awaitErrorPage(tab: Tab, previousInstanceId: string): Promise<void> {
  await pollUntil(() => tab.instanceId !== previousInstanceId || tab.closed, { ms: ERROR_PAGE_MS, intervalMs: 25 });
}

/**
 * Turns a failed load into a ToolError. A timeout on a page whose main
 * thread is stuck stops that script, so the tab answers again. With
 * `previousInstanceId` (the document before the load), a network failure
 * returns only once the browser's error page has replaced it.
 */
export async function pageLoadError(tab: Tab, error: unknown, what: string, timeoutMs: number, previousInstanceId?: string): Promise<ToolError> {
  if (error instanceof ToolError) return error;
  if (isTimeoutError(error)) {
    const stuck = await tab.stopIfStuck();
    return new ToolError(
      'timeout',
      `Could not ${what} within ${timeoutMs} ms${stuck ? `; ${stuckClause(stuck)}` : ''}.`,
      stuckHint(stuck, 'The page runs an endless script; use another page, or call get_page_context to see what loaded.') || 'Pass a larger timeoutMs, or waitUntil "commit" to return as soon as the page starts loading.',
    );
  }
  const message = firstLine(error instanceof Error ? error.message : String(error));
  const netError = netErrorOf(error);
  // A load aborted because the tab closed (its opener or the user closed it, the browser went away): the page's close
  // event trails the load's failure by a moment.
  if (netError === 'net::ERR_ABORTED' && await pollUntil(() => tab.closed || tab.page.isClosed(), { ms: 500, intervalMs: 25 })) return tabClosedDuring(tab.id);
  if (netError && netError !== 'net::ERR_ABORTED' && previousInstanceId !== undefined) await awaitErrorPage(tab, previousInstanceId);
  // Where the tab is now: Chromium's error page replaces the document, and the refs of the page before it are gone.
  const replaced = previousInstanceId !== undefined && !tab.closed && tab.instanceId !== previousInstanceId;
  const where = replaced ? ` Tab ${tab.id} now shows the browser's error page (revision ${tab.revision}); the refs of the page before are gone.` : '';
  // A route the agent set (route, route_from_har) that aborted the document's request: name it, not the network. The
  // request's failure event may trail the load's error, so its mark is what counts.
  const routed = netError ? (await tab.network.query({ allDocuments: true, match: e => e.navigation && e.route?.action === 'abort' })).entries.at(-1)?.route : undefined;
  if (routed) {
    const how = routed.har ? `the HAR route ${routed.routeId} has no entry for it and aborts what its HAR lacks (notFound: "abort")` : `route ${routed.routeId} aborts it`;
    return new ToolError('navigation_failed', `Could not ${what}: ${netError}: ${how}.${where}`, `That route was set through tabwright: list_routes shows it, unroute {routeId: "${routed.routeId}"} removes it${routed.har ? ' (or route_from_har again with notFound: "fallback")' : ''}.`, { routeId: routed.routeId });
  }
  return new ToolError('navigation_failed', `Could not ${what}: ${netError ?? message}.${where}`, 'Check that the URL is right and the site is reachable from this machine.');
}

/**
 * Waits for a load (goto, goBack, reload) to finish, or for a dialog to open
 * first (an alert in an inline script, a beforeunload handler): a page
 * waiting for a dialog does not finish loading until it is answered (issue
 * #4), so the call returns then and the caller reports `tab.dialogs.current`.
 * Returns the HTTP status of the main document (0 when there is none yet,
 * e.g. about:blank or a load held by beforeunload).
 * @throws what `load` throws before a dialog opens.
 */
export async function loadOrDialog(tab: Tab, load: Promise<Response | null>): Promise<number> {
  let status = 0;
  const onResponse = (response: Response) => {
    if (response.request().isNavigationRequest() && response.frame() === tab.page.mainFrame()) status = response.status();
  };
  tab.page.on('response', onResponse);
  try {
    const outcome = await untilDialog(tab.dialogs, load);
    return outcome.done ? outcome.value?.status() ?? 0 : status;
  } finally {
    tab.page.off('response', onResponse);
  }
}

/**
 * Adds the tab's open dialog, if any, to a navigation result (field `dialog` and a line saying how to answer it);
 * for beforeunload also what it holds (field `leaving`, src/session/leaving.ts) and what each answer does.
 */
export async function reportDialog(tab: Tab, res: ToolResponse): Promise<void> {
  const dialog = tab.dialogs.current;
  if (!dialog) return;
  res.set('dialog', dialog).text(describeDialog(tab.id, dialog));
  if (dialog.type !== 'beforeunload') return;
  const leaving = await tab.leaving.seen();
  if (leaving) res.set('leaving', leaving);
  res.text(beforeUnloadQuestion(leaving));
}

/**
 * Loads `url` in `tab`; returns the HTTP status (0 when there is no HTTP response, e.g. about:blank).
 * Returns early when a dialog opens during the load (see loadOrDialog).
 * @throws ToolError navigation_failed, timeout
 */
export async function gotoUrl(tab: Tab, url: string, opts: { waitUntil?: WaitUntil; timeoutMs?: number }): Promise<number> {
  const timeout = opts.timeoutMs ?? 30_000;
  const started = Date.now();
  const previous = tab.instanceId;
  const waitUntil = opts.waitUntil ?? 'domcontentloaded';
  let status: number;
  try {
    status = await loadOrDialog(tab, tab.page.goto(url, { waitUntil, timeout }));
  } catch (error) {
    throw await pageLoadError(tab, error, `load ${url.slice(0, 200)}`, timeout, previous);
  }
  await settleFrames(tab, waitUntil, timeout, started);
  return status;
}

/** Longest wait, after the document of a load is ready, for the frames it has to get theirs, in ms. */
const FRAMES_MS = 5_000;

/**
 * After a load (navigate, back / forward, reload) that waited for `domcontentloaded`: waits for the frames the
 * page has by then to get their documents too, within what is left of `timeoutMs` since `started` (epoch ms) and
 * at most FRAMES_MS, so that a snapshot right after the load sees what they hold; a frame that does not load in
 * time shows as `[loading]` in the snapshot. Returns at once when a dialog is open (or opens) or the tab closed.
 * Other `waitUntil` values wait for their own event only. Never throws.
 */
export async function settleFrames(tab: Tab, waitUntil: WaitUntil, timeoutMs: number, started: number): Promise<void> {
  if (waitUntil !== 'domcontentloaded' || tab.dialogs.current || tab.closed) return;
  const left = Math.min(timeoutMs - (Date.now() - started), FRAMES_MS);
  if (left > 0) await untilDialog(tab.dialogs, tab.frameLoads.settle(left));
}

/**
 * Whether the tab's session history has an entry to go `direction` to. Asks
 * the browser (not the page), so a busy page still answers; true when the
 * browser cannot say.
 */
export async function hasHistoryEntry(tab: Tab, direction: 'back' | 'forward'): Promise<boolean> {
  if (!tab.cdp) return true;
  try {
    const { currentIndex, entries } = await tab.cdp.send('Page.getNavigationHistory');
    return direction === 'back' ? currentIndex > 0 : currentIndex < entries.length - 1;
  } catch {
    return true;
  }
}

export const navigate = defineTabTool({
  name: 'navigate',
  title: 'Navigate',
  description: 'Load a URL in a tab, or go "back" / "forward" in its history. Returns the final URL, title, HTTP status and the new revision.',
  needs: [],
  effect: 'interact',
  launchesBrowser: true,
  target: 'tab',
  // A crashed page is replaced by a new one under the same tab id, which loads the URL (Session.replaceCrashed).
  crashed: 'replace',
  input: z.object({
    tabId: tabIdField,
    url: navigateTarget.describe('Absolute URL to load, or "back" / "forward"'),
    waitUntil: waitUntilField,
    timeoutMs: timeoutMsField(30_000),
  }),
  async handle(tab, { url, waitUntil, timeoutMs }, _ctx, res) {
    if (tab.replacedUrl !== undefined) res.text(`The page of tab ${tab.id} had crashed: a new page took its place.`);
    tab.replacedUrl = undefined;
    // A stuck script would hold the navigation (and any attempt to stop it) forever.
    await tab.stopIfStuck();
    const timeout = timeoutMs ?? 30_000;
    const started = Date.now();
    let status: number;
    if (url === 'back' || url === 'forward') {
      if (!(await hasHistoryEntry(tab, url))) {
        throw new ToolError('navigation_failed', `There is no history entry to go ${url} to.`, 'Load a URL with navigate instead.');
      }
      const previous = tab.instanceId;
      try {
        // With the back-forward cache on (attached browsers), a restored page fires no new load: historyStep.ts.
        const step = historyStep(tab, url, { waitUntil: waitUntil ?? 'domcontentloaded', timeout });
        status = await loadOrDialog(tab, step.done);
        if (step.restored() && status === 0) status = await restoredStatus(tab);
      } catch (error) {
        throw await pageLoadError(tab, error, `go ${url}`, timeout, previous);
      }
      await settleFrames(tab, waitUntil ?? 'domcontentloaded', timeout, started);
    } else {
      status = await gotoUrl(tab, url, { waitUntil, timeoutMs: timeout });
    }
    const { url: finalUrl, title } = await tab.urlAndTitle();
    res.merge({ tabId: tab.id, url: finalUrl, title, status, revision: tab.revision, instanceId: tab.instanceId });
    res.text(`Tab ${tab.id} at ${finalUrl} "${title}" — HTTP ${status || 'n/a'}, revision ${tab.revision}.`);
    if (status >= 400) res.text(`The server answered HTTP ${status}; the page shown is its error page.`);
    await reportDialog(tab, res);
  },
});
