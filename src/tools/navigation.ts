/** navigate (issue #2): load a URL, or go back / forward in a tab's history. */
import * as z from 'zod';
import { errors } from 'playwright-core';
import type { Tab } from '../session/tab.js';
import { defineTool } from './define.js';
import { firstLine, ToolError } from './errors.js';
import { tabIdField, timeoutMsField, waitUntilField } from './schemas.js';

type WaitUntil = 'commit' | 'domcontentloaded' | 'load' | 'networkidle';

const ALLOWED_SCHEMES = new Set(['http:', 'https:', 'file:', 'about:', 'data:']);

/** An absolute URL with an allowed scheme. */
export const urlField = z.string().min(1).max(8192).refine(text => {
  try {
    return ALLOWED_SCHEMES.has(new URL(text).protocol);
  } catch {
    return false;
  }
}, 'must be an absolute http, https, file, about or data URL');

/**
 * Turns a failed load into a ToolError. A timeout on a page whose main
 * thread is stuck stops that script, so the tab answers again.
 */
export async function pageLoadError(tab: Tab, error: unknown, what: string, timeoutMs: number): Promise<ToolError> {
  if (error instanceof ToolError) return error;
  if (error instanceof errors.TimeoutError) {
    const stuck = !(await tab.responsive());
    if (stuck) await tab.terminateExecution();
    return new ToolError(
      'timeout',
      `Could not ${what} within ${timeoutMs} ms${stuck ? '; the page\'s script was stuck and has been stopped' : ''}.`,
      stuck ? 'The page runs an endless script; use another page, or call get_page_context to see what loaded.' : 'Pass a larger timeoutMs, or waitUntil "commit" to return as soon as the page starts loading.',
    );
  }
  const message = firstLine(error instanceof Error ? error.message : String(error));
  const netError = /net::[A-Z_]+/.exec(message)?.[0];
  return new ToolError('navigation_failed', `Could not ${what}: ${netError ?? message}.`, 'Check that the URL is right and the site is reachable from this machine.');
}

/**
 * Loads `url` in `tab`; returns the HTTP status (0 when there is no HTTP response, e.g. about:blank).
 * @throws ToolError navigation_failed, timeout
 */
export async function gotoUrl(tab: Tab, url: string, opts: { waitUntil?: WaitUntil; timeoutMs?: number }): Promise<number> {
  const timeout = opts.timeoutMs ?? 30_000;
  try {
    const response = await tab.page.goto(url, { waitUntil: opts.waitUntil ?? 'domcontentloaded', timeout });
    return response?.status() ?? 0;
  } catch (error) {
    throw await pageLoadError(tab, error, `load ${url.slice(0, 200)}`, timeout);
  }
}

export const navigate = defineTool({
  name: 'navigate',
  title: 'Navigate',
  description: 'Load a URL in a tab (default: the active tab), or go "back" / "forward" in its history. Returns the final URL, title, HTTP status and the new document revision.',
  needs: [],
  consent: 'interact',
  launchesBrowser: true,
  input: z.object({
    tabId: tabIdField,
    url: z.union([z.literal('back'), z.literal('forward'), urlField]).describe('Absolute URL to load, or "back" / "forward"'),
    waitUntil: waitUntilField,
    timeoutMs: timeoutMsField(30_000),
  }),
  async handle({ tabId, url, waitUntil, timeoutMs }, { session }, res) {
    const tab = await session.tab(tabId);
    const timeout = timeoutMs ?? 30_000;
    let status: number;
    if (url === 'back' || url === 'forward') {
      let response;
      try {
        const opts = { waitUntil: waitUntil ?? 'domcontentloaded', timeout } as const;
        response = url === 'back' ? await tab.page.goBack(opts) : await tab.page.goForward(opts);
      } catch (error) {
        throw await pageLoadError(tab, error, `go ${url}`, timeout);
      }
      if (response === null && tab.page.url() === 'about:blank') {
        throw new ToolError('navigation_failed', `There is no history entry to go ${url} to.`, 'Load a URL with navigate instead.');
      }
      status = response?.status() ?? 0;
    } else {
      status = await gotoUrl(tab, url, { waitUntil, timeoutMs: timeout });
    }
    const { url: finalUrl, title } = await tab.urlAndTitle();
    res.merge({ tabId: tab.id, url: finalUrl, title, status, revision: tab.revision, instanceId: tab.instanceId });
    res.text(`Tab ${tab.id} at ${finalUrl} "${title}" — HTTP ${status || 'n/a'}, revision ${tab.revision}.`);
    if (status >= 400) res.text(`The server answered HTTP ${status}; the page shown is its error page.`);
  },
});
