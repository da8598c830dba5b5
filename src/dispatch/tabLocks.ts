/**
 * Per-tab serialization: two agents acting on the same tab at once are
 * serialized per tab, never interleaved mid-action (docs/relay.md). A FIFO
 * lock per key (a tab id); waiting can be cancelled.
 */
import { ToolError } from '../errors.js';
import { raceTimeout } from '../util/wait.js';
import type { AnyTool } from '../tools/define.js';

/**
 * Whether a call of `tool` takes its tab's lock: its declaration's
 * `tabLock`, else every tool that can change a page and acts on one tab:
 * a tab tool (`defineTabTool`, whose `ToolDef.tabOf` names the tab: the
 * `tabId`, else the ref's own tab, else the active one) or a tool with a
 * `tabId` input. So `click {ref}` on tab 2 waits for an `execute {tabId: 2}`
 * that is running, and never for a call on another tab. `observe` tools
 * (list_tabs, get_page_context, take_screenshot, get_bridge_status,
 * list_downloads, ...) run concurrently with anything; open_tab acts on no
 * existing tab; `call_webmcp_tool` opts out in its declaration.
 */
export function locksTab(tool: AnyTool): boolean {
  return tool.tabLock ?? (tool.effect !== 'observe' && (tool.tabOf !== undefined || 'tabId' in tool.input.shape));
}

/** FIFO locks keyed by tab. */
export class TabLocks {
  private readonly tails = new Map<string, Promise<void>>();

  /** True while some call holds (or waits for) `key`: a call that acquires it now waits. */
  held(key: string): boolean {
    return this.tails.has(key);
  }

  /**
   * Waits for every earlier holder of `key`, then holds it until the
   * returned release function is called.
   * @throws ToolError cancelled when `signal` aborts while waiting (the place in the queue is given up).
   */
  async acquire(key: string, signal: AbortSignal): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>(resolve => (release = resolve));
    // The next caller waits for us, and for what we waited for if we give up early.
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    if (signal.aborted) {
      release();
      throw cancelledWaiting();
    }
    try {
      await raceTimeout(previous, { signal, onAbort: cancelledWaiting });
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }
}

function cancelledWaiting(): ToolError {
  return new ToolError('cancelled', 'The call was cancelled while it waited for another call on the same tab.', 'Send the call again if it is still wanted.');
}
