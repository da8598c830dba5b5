/**
 * Which tabs left tabwright's scope while they stay open in the user's browser, and why (connection.ts
 * `LeftScope`): the upstreams of the user's own browser note it when they detach a tab for that reason, so that a
 * later call on the tab is told the user stopped sharing it rather than that it closed.
 */
import type { LeftScope } from './connection.js';

/** How many tabs are remembered; the oldest are forgotten first. */
const KEEP = 256;

/** Keyed by CDP target id in the upstreams, by tabwright tab id in the session. */
export class LeftScopeLog<K = string> {
  private readonly byKey = new Map<K, LeftScope>();

  /** Records that the tab `key` names left scope for `why`. */
  note(key: K, why: LeftScope): void {
    this.byKey.delete(key);
    this.byKey.set(key, why);
    if (this.byKey.size > KEEP) this.byKey.delete(this.byKey.keys().next().value!);
  }

  /** The tab is in scope again (shared anew) or closed: nothing to tell about it. */
  clear(key: K): void {
    this.byKey.delete(key);
  }

  /** Why the tab `key` names left scope, if it did. */
  get(key: K): LeftScope | undefined {
    return this.byKey.get(key);
  }
}
