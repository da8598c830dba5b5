/**
 * The server's way into the engine of one frame: a call of its `__tabwright_us_sync` hook (./gmPage.ts SYNC_HOOK)
 * with the process's token, evaluated over CDP (docs/userscripts.md, "GM API": values across tabs, menu commands,
 * GM_openInTab's `closed`).
 */
import type { Frame } from 'playwright-core';
import { SYNC_HOOK, type ServerMessage } from './gmPage.js';

/**
 * Hands `msg` to the engine of `frame`'s current document.
 * @returns whether the engine took it (false: no engine there, or it had nothing to do with it).
 * @throws Playwright's error when the frame is gone or cannot evaluate.
 */
export async function tellEngine(frame: Frame, token: string, msg: ServerMessage): Promise<boolean> {
  return await frame.evaluate(([hook, t, m]) => {
    const fn = (globalThis as unknown as Record<string, unknown>)[hook as string];
    return typeof fn === 'function' ? (fn as (t: unknown, m: unknown) => boolean)(t, m) : false;
  }, [SYNC_HOOK, token, msg] as const);
}
