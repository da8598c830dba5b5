/**
 * Per-tab cache of the WebMCP tools listed in a tab's frames (docs/webmcp.md,
 * "The tool cache"; the target: a `call_webmcp_tool` round trip under 10 ms). Listing every frame's tools
 * costs one evaluate per frame; a call on a cache hit skips it.
 *
 * An entry is valid while the tab shows the same frames with the same
 * documents: it is keyed by the main document's instanceId, and any frame
 * attached, detached or navigated in the tab drops it. Pages add and remove
 * tools within a document too, so the cache is only a hint:
 *
 * - a name not in the cache refreshes the list once before the call fails
 *   with webmcp_tool_not_found (a tool registered after the cache was filled
 *   is still found);
 * - arguments the cached schema rejects are checked again against a fresh
 *   list before failing (the page may have re-registered the tool);
 * - the call itself looks the tool up in the frame (./webmcpCall.ts), so a
 *   tool removed since is reported, never called blindly.
 */
import type { Frame } from 'playwright-core';
import type { Tab } from '../session/tab.js';

interface Entry<T> {
  instanceId: string;
  generation: number;
  listing: T;
}

/** Bumped per tab on every frame attach/detach/navigation (listeners added once per tab). */
const generations = new WeakMap<Tab, { n: number }>();

function generationOf(tab: Tab): number {
  let gen = generations.get(tab);
  if (!gen) {
    const g = { n: 0 };
    gen = g;
    const bump = (_frame: Frame) => {
      g.n += 1;
    };
    tab.page.on('frameattached', bump);
    tab.page.on('framedetached', bump);
    tab.page.on('framenavigated', bump);
    generations.set(tab, gen);
  }
  return gen.n;
}

/** A tab's listing (its frames' tools), as `list` returns it, cached until the tab's frames change. */
export class WebMcpToolCache<T> {
  private readonly entries = new WeakMap<Tab, Entry<T>>();

  /**
   * The cached list when still valid, else undefined. The first call for a
   * tab starts watching its frames and returns undefined.
   */
  get(tab: Tab): T | undefined {
    const generation = generationOf(tab);
    const entry = this.entries.get(tab);
    if (!entry || entry.instanceId !== tab.instanceId || entry.generation !== generation) return undefined;
    return entry.listing;
  }

  /**
   * Lists the tab's tools with `list` and caches them, unless the frames
   * changed while listing (then the result is returned but not kept).
   */
  async refresh(tab: Tab, list: () => Promise<T>): Promise<T> {
    const generation = generationOf(tab);
    const instanceId = tab.instanceId;
    const listing = await list();
    if (generation === generationOf(tab) && instanceId === tab.instanceId) this.entries.set(tab, { instanceId, generation, listing });
    else this.entries.delete(tab);
    return listing;
  }

  /** Forgets a tab's list (after a call failed in a way a stale list could explain). */
  drop(tab: Tab): void {
    this.entries.delete(tab);
  }
}
