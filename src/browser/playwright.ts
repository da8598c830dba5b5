/**
 * playwright-core, loaded on first use (cold start). Loading it
 * takes about half a second of CPU and 70 MiB, so the MCP front answers
 * `initialize` and `tools/list` without it: the first tool that needs the
 * browser loads it, right before launching. Modules under src/ import
 * playwright-core for types only (`import type`) and reach its values
 * through `playwright()`.
 *
 * It is loaded with `require`, not `import()`: measured here, the ESM import
 * of this CommonJS package costs about a third more CPU and 14 MiB more RSS.
 */
import { createRequire } from 'node:module';
import type { RaceOrReject } from '../util/wait.js';

type PlaywrightCore = typeof import('playwright-core');

let loaded: PlaywrightCore | undefined;

/** The playwright-core module, loaded (synchronously) on the first call. */
export function playwright(): PlaywrightCore {
  loaded ??= createRequire(import.meta.url)('playwright-core') as PlaywrightCore;
  return loaded;
}

/**
 * A Playwright TimeoutError with `message` (an `Error` named TimeoutError
 * when playwright-core is not loaded yet; `isTimeoutError` in
 * src/util/playwrightErrors.ts knows both), for timeouts tabwright enforces
 * itself around Playwright calls that take no timeout.
 */
export function timeoutError(message: string): Error {
  if (loaded) return new loaded.errors.TimeoutError(message);
  const error = new Error(message);
  error.name = 'TimeoutError';
  return error;
}

/**
 * The options of `raceTimeout` (src/util/wait.ts) for a Playwright call that
 * takes no timeout of its own (keyboard.press, a CDP command): after `ms`
 * it rejects with a TimeoutError worded like Playwright's ("Timeout 500ms
 * exceeded."), which tools report as `timeout`.
 */
export function playwrightTimeout(ms: number): RaceOrReject {
  return { ms, onTimeout: () => timeoutError(`Timeout ${ms}ms exceeded.`) };
}
