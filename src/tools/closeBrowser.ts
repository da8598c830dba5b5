/**
 * close_browser: ends tabwright's use of the browser (docs/tabs.md, "Closing the browser"). The browser tabwright
 * launched closes; an attached browser (cdp, own-chrome, extension) is detached, never closed: its process and tabs
 * stay as they were. A session with a context of its own (`--isolate-sessions`, the daemon's `/mcp`) closes only
 * that context. The next call that needs a browser launches or attaches again, as at start.
 */
import * as z from 'zod';
import type { BrowserConnection, BrowserRelease } from '../browser/connection.js';
import { ToolError } from '../errors.js';
import { defineTool } from './define.js';

/** What close_browser did: a BrowserRelease, or `none` when there was no browser to leave. */
export type CloseBrowserAction = BrowserRelease | 'none';

export const closeBrowser = defineTool({
  name: 'close_browser',
  title: 'Close the browser',
  description:
    'Close the browser tabwright launched, with all its tabs; an attached browser (--cdp-endpoint, --own-chrome, the extension) is only ' +
    'detached and keeps running with its tabs. A session with a context of its own closes only that context. The next call that needs ' +
    'a browser starts or attaches again (new tabIds). Calls still running on its tabs fail with browser_disconnected.',
  needs: [],
  effect: 'interact',
  launchesBrowser: false,
  destructive: true,
  input: z.object({}),
  async handle(_input, { session }, res) {
    const connection = session.connection;
    const others = session.otherSessions?.() ?? 0;
    if (others > 0 && session.running) {
      throw new ToolError('browser_in_use',
        `The browser is shared with ${others} other MCP session${others === 1 ? '' : 's'} that ha${others === 1 ? 's' : 've'} a context of ${others === 1 ? 'its' : 'their'} own in it; close_browser here would close ${others === 1 ? 'it' : 'them'} too. Nothing was closed.`,
        'Close this session\'s tabs with close_tab instead, or call close_browser from those sessions (each closes only its own context).',
        { otherSessions: others });
    }
    const wasRunning = session.running;
    const { release, tabCount } = await session.closeBrowser();
    const action: CloseBrowserAction = wasRunning ? release : 'none';
    res.merge({ action, connection: connection.kind, endpoint: connection.endpoint ?? null, tabCount, sessionContext: connection.sessionContext === true, browserRunning: false });
    res.text(closedText(action, connection, tabCount));
  },
});

/** The one line close_browser answers with: exactly what happened to the browser and its tabs, and what the next call does. */
function closedText(action: CloseBrowserAction, connection: Pick<BrowserConnection, 'kind' | 'endpoint' | 'sessionContext'>, tabCount: number): string {
  const tabs = `${tabCount} tab${tabCount === 1 ? '' : 's'}`;
  const at = connection.endpoint ? ` at ${connection.endpoint}` : '';
  if (connection.sessionContext) {
    if (action === 'none') return 'This session has no browser context open; nothing was closed.';
    return `Closed this session's browser context (${tabs}); the browser stays up for the other sessions. The next call opens a new context.`;
  }
  if (action === 'none') {
    return connection.kind === 'launch'
      ? 'The managed browser is not running; nothing was closed.'
      : `Not attached to the browser${at}; nothing was detached.`;
  }
  if (action === 'closed') {
    return connection.kind === 'playwright-server'
      ? `Disconnected from the Playwright server${at}; it closed the browser it launched for this connection (${tabs}). The next call connects again and gets a new browser.`
      : `Closed the managed browser (${tabs}). The next call that needs a browser starts a fresh one.`;
  }
  if (action === 'context_closed') {
    return `Detached from the browser${at}; it keeps running. tabwright's own context in it (--new-context) closed with its ${tabs}. The next call attaches again.`;
  }
  if (connection.kind === 'extension') return `Detached from the user's browser (through the tabwright extension); it keeps running with its ${tabs}. The next call attaches again.`;
  if (connection.kind === 'own-chrome') return `Detached from the user's Chrome${at}; it keeps running with its ${tabs}. The next call connects again, and Chrome asks the user to allow it again.`;
  return `Detached from the browser${at}; it keeps running with its ${tabs}. The next call attaches again.`;
}
