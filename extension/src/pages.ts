/** What the extension's pages (popup, pairing page) use to talk to the worker (./worker.ts `onPageMessage`). */
import type { Status } from './worker.js';

/**
 * Sends `message` to the worker.
 * @throws Error with the worker's message when it refused.
 */
export async function ask(message: Record<string, unknown>): Promise<Status> {
  const reply = await chrome.runtime.sendMessage(message) as { ok: boolean; result?: Status; error?: string };
  if (!reply?.ok) throw new Error(reply?.error ?? 'the extension did not answer');
  return reply.result!;
}

/** The element with `id`. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}
