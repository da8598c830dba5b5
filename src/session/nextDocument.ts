/**
 * Reading a page while a navigation replaces its document: the read fails with Playwright's "Execution context was
 * destroyed" (classifyPlaywrightError `document_gone`), and the answer the agent wants is the new document's.
 */
import { classifyPlaywrightError } from '../util/playwrightErrors.js';
import { documentReplaced, ToolError } from '../errors.js';
import { pollUntil } from '../util/wait.js';
import type { Tab } from './tab.js';

/** How long a read whose document went away waits for the next one to commit, in ms. */
const DOCUMENT_COMMIT_WAIT_MS = 2000;

/**
 * Waits for the document after `instanceId` on `tab` to commit and reach DOMContentLoaded, at most `timeoutMs`.
 * The old document's context goes before the new one commits; until then the frame's load state is still the old
 * document's, which waitForLoadState would take at once, so the commit is awaited first (at most 2 s: a child
 * frame's detaching is the same error without a new top document). Never throws.
 */
export async function waitForNextDocument(tab: Tab, instanceId: string, timeoutMs: number): Promise<void> {
  await pollUntil(() => tab.instanceId !== instanceId || tab.closed, { ms: Math.min(timeoutMs, DOCUMENT_COMMIT_WAIT_MS), intervalMs: 20 });
  await tab.page.waitForLoadState('domcontentloaded', { timeout: timeoutMs }).catch(() => undefined);
}

/** Reads of a document that went away before a read gives up with document_replaced. */
export const DOCUMENT_READS = 3;

/**
 * Runs `read` on `tab`'s document; when that document goes away under it (a navigation), waits for the next one
 * and reads again, DOCUMENT_READS times in all. A ToolError, or any other error, is thrown as it is.
 * @param timeoutMs  bound of each wait for the next document
 * @param what  what the read does, for the error ("read the text")
 * @throws ToolError document_replaced when every read's document went away
 */
export async function readAcrossNavigation<T>(tab: Tab, timeoutMs: number, what: string, read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const instanceId = tab.instanceId;
    try {
      return await read();
    } catch (error) {
      if (error instanceof ToolError || tab.closed || !classifyPlaywrightError(error).has('document_gone')) throw error;
      if (attempt === DOCUMENT_READS) throw documentReplaced(tab.id, what, attempt);
      await waitForNextDocument(tab, instanceId, timeoutMs);
    }
  }
}
