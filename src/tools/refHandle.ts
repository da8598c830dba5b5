/**
 * The element of a ref as one ElementHandle for a whole action. Every Locator operation resolves its selector
 * again: the ref engine's query, the element's preview for Playwright's call log, a release, about five CDP round
 * trips before the operation itself; an ElementHandle's operation is the operation alone. A ref names one node
 * (the page runtime's `byRef`), so the handle is the element the locator would find each time; what the locator
 * would do on a node that left the page (wait until the timeout) becomes Playwright's "not attached" error, which
 * actionError reports as a stale ref. Through a relay or the companion extension each round trip crosses several
 * processes, which is why this matters (docs/bench.md, "Transports").
 */
import type { ElementHandle } from 'playwright-core';
import { elementOf, type ResolvedRef } from '../session/refs.js';

/**
 * Runs `fn` with the element of `el` as an ElementHandle, released afterwards (without waiting for the release).
 * @param ref  the ref, for the error.
 * @throws ToolError stale_ref when the element is no longer on the page; what `fn` throws.
 */
export async function withRefHandle<T>(el: ResolvedRef, ref: string, fn: (handle: ElementHandle<Element>) => Promise<T>): Promise<T> {
  const handle = await elementOf(el, ref);
  try {
    return await fn(handle);
  } finally {
    void handle.dispose().catch(() => undefined);
  }
}
