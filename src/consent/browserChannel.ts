/**
 * The prompt channel of the companion extension (EXTENSION-DESIGN.md §4.8; docs/own-browser.md, "Consent"): the
 * question goes to a popup window of the extension, whose answer the extension accepts only from that window, from
 * a click by the user (`isTrusted`), once. Nothing an agent drives can reach it: not a page (the window is the
 * extension's, not web-accessible), not the agent's CDP (the extension attaches only to shared web pages).
 */
import type { Page } from 'playwright-core';
import { ToolError } from '../errors.js';
import type { BrowserConnection } from '../browser/connection.js';
import { extensionOf } from '../browser/extension/extensionConnection.js';
import { questionText, type ConsentAnswer, type PromptChannel } from './channel.js';

let nextAsk = 1;

/**
 * The extension's consent window as a channel, when `connection` is the extension's and its link is up; else
 * undefined. `page`: the tab the question is about; while the window is open the extension refuses input events
 * (`Input.*`) to that tab (`consent_pending`), so nothing the agent drives acts in the page while its human decides.
 */
export function browserChannel(connection: BrowserConnection, page?: Page): PromptChannel | undefined {
  const extension = extensionOf(connection);
  if (!extension?.bridge.link) return undefined;
  const bridge = extension.bridge;
  return {
    name: 'browser',
    async ask(question, signal) {
      const link = bridge.link;
      if (!link) throw new ToolError('consent_unavailable', 'The tabwright extension disconnected before it could ask.', 'Retry the call.');
      const askId = nextAsk++;
      const tabId = page ? await extension.browserTabIdOf(page).catch(() => undefined) : undefined;
      const onAbort = () => void link.request('consent.cancel', { askId }).catch(() => undefined);
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        const asked = link.request('consent.ask', {
          askId,
          ...(tabId === undefined ? {} : { tabId }),
          title: `Allow "${question.tool.slice(0, 128)}" on ${question.origin.slice(0, 200)}?`,
          detail: questionText(question),
          timeoutMs: Math.max(1000, question.expiresAt - Date.now()),
        }) as Promise<{ decision: string }>;
        const aborted = new Promise<never>((_, reject) => {
          const fail = () => reject(signal.reason instanceof ToolError ? signal.reason : new ToolError('cancelled', 'The consent question was withdrawn.', 'Send the call again if it is still wanted.'));
          if (signal.aborted) fail();
          else signal.addEventListener('abort', fail, { once: true });
        });
        const { decision } = await Promise.race([asked, aborted]);
        if (decision === 'once' || decision === 'always' || decision === 'deny' || decision === 'never') return decision as ConsentAnswer;
        if (decision === 'timeout') throw new ToolError('consent_expired', 'Nobody answered the tabwright extension\'s consent window in time.', 'The user may be away; ask them, then try once more.');
        throw new ToolError('cancelled', 'The consent question was withdrawn.', 'Send the call again if it is still wanted.');
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
  };
}
