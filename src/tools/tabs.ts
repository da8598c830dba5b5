/** Tab tools: list_tabs, open_tab, close_tab, focus_tab, reload_tab. */
import * as z from 'zod';
import type { BrowserConnection } from '../browser/connection.js';
import type { Session } from '../session/session.js';
import type { Tab, TabInfo } from '../session/tab.js';
import { defineTabTool, defineTool } from './define.js';
import { toToolError, ToolError } from '../errors.js';
import { gotoUrl, loadOrDialog, pageLoadError, reportDialog, settleFrames, urlField } from './navigation.js';
import type { ToolResponse } from './response.js';
import { tabIdField, tabIdRequired, timeoutMsField, waitUntilField } from './schemas.js';

/** Adds a tab's info to the response (fields and one line of text). */
async function reportTab(session: Session, tab: Tab, res: ToolResponse, verb: string, status?: number | null): Promise<void> {
  const info = await tab.info(session.activeTabId === tab.id);
  res.merge({ ...info });
  const http = status === undefined ? '' : `HTTP ${status ?? 'n/a'}, `;
  res.text(`${verb} tab ${info.tabId}: ${info.url} "${info.title}" (${http}revision ${info.revision}${info.active ? ', active' : ''}).`);
}

/** What list_tabs says when it lists no tab: for a browser tabwright launches, or the user's own (shared tabs only). */
function noTabsText(running: boolean, connection: Pick<BrowserConnection, 'kind' | 'asksToConnect' | 'sessionContext'>): string {
  // A session's own context in a browser other sessions share: the browser may well run, with other sessions' tabs.
  if (connection.sessionContext) return 'This MCP session has no tabs yet: it has a browser context of its own, so the tabs of the CLI and of other sessions are not listed. Any page tool (e.g. navigate) opens one.';
  const own = connection.kind === 'own-chrome' || connection.kind === 'extension';
  if (running) return own ? 'No tab is shared with the agent yet: it sees the tabs it opens (open_tab) and the tabs the user shares.' : 'No tabs are open.';
  if (connection.asksToConnect) return 'Not connected to the user\'s Chrome yet; no tabs. The first page tool (e.g. open_tab) connects, and Chrome asks the user "Allow remote debugging?".';
  return own ? 'Not connected to the user\'s browser yet; no tabs. The first page tool (e.g. open_tab) connects.' : 'The browser is not running yet; no tabs. Any page tool (e.g. navigate) starts it.';
}

export const listTabs = defineTool({
  name: 'list_tabs',
  title: 'List tabs',
  description: 'List the open tabs: tabId, url, title, whether active, the document instanceId and revision, and which tab opened a popup. Does not start the browser.',
  needs: [],
  effect: 'observe',
  launchesBrowser: false,
  input: z.object({}),
  async handle(_input, { session }, res) {
    const remote = session.connection.remoteTabs;
    if (remote) {
      const tabs = remote.list().map(t => ({ ...t, active: false }));
      res.set('tabs', tabs);
      res.text(tabs.length
        ? `${tabs.length} connected tab${tabs.length === 1 ? '' : 's'} (through the companion userscript; URLs and titles as the pages report them):`
        : 'No tab is connected: the user opts tabs in one at a time from the companion userscript\'s menu ("Allow agent access to this tab"); `tabwright userscript` prints its install URL.');
      for (const t of tabs) res.text(tabLine(t));
      return;
    }
    await session.attachRemote();
    const tabs = await Promise.all(session.openTabs().map(tab => tab.info(tab.id === session.activeTabId)));
    res.set('tabs', tabs);
    if (tabs.length) res.text(`${tabs.length} tab${tabs.length === 1 ? '' : 's'} (* the active one):`);
    if (!tabs.length) res.text(noTabsText(session.running, session.connection));
    for (const t of tabs) res.text(tabLine(t));
  },
});

export const openTab = defineTool({
  name: 'open_tab',
  title: 'Open tab',
  description: 'Open a new tab, optionally loading a URL. It becomes the active tab unless background is true.',
  needs: [],
  effect: 'interact',
  launchesBrowser: true,
  input: z.object({
    url: urlField.optional().describe('URL to load (default about:blank)'),
    background: z.boolean().optional().describe('Do not make it the active tab'),
    waitUntil: waitUntilField,
    timeoutMs: timeoutMsField(30_000),
  }),
  async handle({ url, background, waitUntil, timeoutMs }, { session, config }, res) {
    const tab = await session.openTab(undefined, background ?? false);
    tab.workspace = config.workspace;
    let status: number | undefined;
    if (url) {
      try {
        status = await gotoUrl(tab, url, { waitUntil, timeoutMs });
      } catch (error) {
        // The tab stays open, as in a browser (it shows the error page): say which one it is.
        const e = toToolError(error);
        throw new ToolError(e.type, `${e.message} The tab stays open as tab ${tab.id}${background ? '' : ' (now the active tab)'}.`, `${e.hint} close_tab {tabId: ${tab.id}} closes it.`, { ...e.details, tabId: tab.id });
      }
      res.set('status', status);
    }
    await reportTab(session, tab, res, 'Opened', status);
    await reportDialog(tab, res);
  },
});

export const closeTab = defineTabTool({
  name: 'close_tab',
  title: 'Close tab',
  description: 'Close a tab. If it was active, its opener (or the newest remaining tab) becomes active.',
  needs: [],
  effect: 'interact',
  // Nothing of a closed tab is left to check.
  verifiable: false,
  launchesBrowser: false,
  destructive: true,
  target: 'tab',
  dialogOk: true,
  crashed: 'as-is',
  input: z.object({ tabId: tabIdRequired.describe('Tab to close (from list_tabs)') }),
  async handle(tab, { tabId }, { session }, res) {
    await session.closeTab(tab.id);
    res.set('closedTabId', tabId).set('activeTabId', session.activeTabId);
    res.text(`Closed tab ${tabId}. Active tab: ${session.activeTabId ?? 'none'}.`);
  },
});

export const focusTab = defineTabTool({
  name: 'focus_tab',
  title: 'Focus tab',
  description: 'Make a tab the active one (the default for tools without tabId) and bring it to the front.',
  needs: [],
  effect: 'interact',
  launchesBrowser: false,
  target: 'tab',
  dialogOk: true,
  input: z.object({ tabId: tabIdRequired.describe('Tab to activate (from list_tabs)') }),
  async handle(tab, _input, { session }, res) {
    await session.focusTab(tab.id);
    await reportTab(session, tab, res, 'Focused');
  },
});

export const reloadTab = defineTabTool({
  name: 'reload_tab',
  title: 'Reload tab',
  description: 'Reload a tab (a new document: the revision goes up and earlier refs become stale).',
  needs: [],
  effect: 'interact',
  launchesBrowser: true,
  target: 'tab',
  // A crashed page is replaced by a new one that loads its URL (Session.replaceCrashed).
  crashed: 'replace',
  input: z.object({ tabId: tabIdField, waitUntil: waitUntilField, timeoutMs: timeoutMsField(30_000) }),
  async handle(tab, { waitUntil, timeoutMs }, { session }, res) {
    // A stuck script would hold the reload (and any attempt to stop it) forever.
    await tab.stopIfStuck();
    const previous = tab.instanceId;
    const started = Date.now();
    const timeout = timeoutMs ?? 30_000;
    const replaced = tab.replacedUrl;
    tab.replacedUrl = undefined;
    if (replaced !== undefined) res.text(`The page of tab ${tab.id} had crashed: a new page took its place and loads ${replaced}.`);
    let status;
    try {
      const load = replaced !== undefined && !/^(about:blank)?$/.test(replaced)
        ? tab.page.goto(replaced, { waitUntil: waitUntil ?? 'domcontentloaded', timeout })
        : tab.page.reload({ waitUntil: waitUntil ?? 'domcontentloaded', timeout });
      status = await loadOrDialog(tab, load);
      res.set('status', status);
    } catch (error) {
      throw await pageLoadError(tab, error, 'reload the tab', timeout, previous);
    }
    await settleFrames(tab, waitUntil ?? 'domcontentloaded', timeout, started);
    if (tab.dialogs.current?.type === 'beforeunload' && tab.instanceId === previous) {
      // The page's beforeunload handler holds the reload: nothing was reloaded yet (the dialog's answer decides).
      await reportTab(session, tab, res, 'Not reloaded yet:');
    } else {
      await reportTab(session, tab, res, 'Reloaded', status);
    }
    await reportDialog(tab, res);
  },
});

export const tabTools = [listTabs, openTab, closeTab, focusTab, reloadTab];

/**
 * One list_tabs line: everything the tab's fields say, for the model
 * (`* [2] Title — URL (revision 3) · popup of tab 1 (window.opener reaches it) · confirm dialog open: "Sure?" (...) ·
 * scripts: A · menu commands: ...`; a tab opened without an opener says `opened by tab 1`).
 */
export function tabLine(t: TabInfo): string {
  const parts = [`${t.active ? '*' : ' '} [${t.tabId}] ${t.title || '(no title)'} — ${t.url} (revision ${t.revision})`];
  if (t.popup) parts.push(t.openerTabId === undefined ? 'a popup (window.opener reaches its opener)' : `popup of tab ${t.openerTabId} (window.opener reaches it)`);
  else if (t.openerTabId !== undefined) parts.push(`opened by tab ${t.openerTabId}`);
  if (t.crashed) parts.push(`page crashed (reload_tab {tabId: ${t.tabId}} loads it again; close_tab closes it)`);
  // A beforeunload dialog has no message of the page's (Chromium shows its own text): no empty quotes then.
  if (t.dialog) parts.push(`${t.dialog.type} dialog open${t.dialog.message ? `: "${t.dialog.message.slice(0, 200)}"` : ''} (handle_dialog {tabId: ${t.tabId}, accept})`);
  if (t.scripts?.length) parts.push(`scripts: ${t.scripts.map(s => s.name).join(', ')}`);
  if (t.menuCommands?.length) parts.push(`menu commands: ${t.menuCommands.map(m => `${m.scriptName} › ${m.caption} (commandId ${m.commandId})`).join(', ')}; run_menu_command runs one`);
  return parts.join(' · ');
}
