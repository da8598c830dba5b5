/**
 * The selector engines of this process on a context that was made without them. playwright-core 1.65 passes the
 * registered engines to the contexts it creates (`newContext`) and registers a new engine on every context it
 * knows, but the default context of a `connectOverCDP` browser (an attached browser's tabs, the user's own Chrome,
 * the extension's shared tabs) is made without the engines registered before the connection, so a selector of
 * theirs fails with "Unknown engine". This adds them through the context's channel, the call `selectors.register`
 * itself makes (Playwright client internals: `_selectorEngines`, `_channel.registerSelectorEngine`).
 */
import type { BrowserContext } from 'playwright-core';
import { classifyPlaywrightError } from '../util/playwrightErrors.js';
import { playwright } from './playwright.js';

/**
 * Registers every selector engine of this process on `ctx`; one it has already is left alone.
 * @throws the channel's error for anything but "already registered".
 */
export async function adoptSelectorEngines(ctx: BrowserContext): Promise<void> {
  const engines = (playwright().selectors as unknown as { _selectorEngines?: unknown[] })._selectorEngines ?? [];
  const channel = (ctx as unknown as { _channel?: { registerSelectorEngine?(params: { selectorEngine: unknown }, timeout?: number): Promise<void> } })._channel;
  if (!channel?.registerSelectorEngine) return;
  for (const selectorEngine of engines) {
    await channel.registerSelectorEngine({ selectorEngine }, 0).catch((error: unknown) => {
      if (!classifyPlaywrightError(error).has('already_registered')) throw error;
    });
  }
}
