/**
 * Which tabs left tabwright's scope while they stay open in the user's browser, and why (connection.ts
 * `LeftScope`): the upstreams of the user's own browser note it when they detach a tab for that reason, so that a
 * later call on the tab is told the user stopped sharing it rather than that it closed.
 */
import type { LeftScope } from './connection.js';

/** How many tabs are remembered; the oldest are forgotten first. */
const KEEP = 256;

export class LeftScopeLog {
  private readonly byTarget = new Map<string, LeftScope>();

  /** Records that the tab of target `targetId` left scope for `why`. */
  note(targetId: string, why: LeftScope): void {
    this.byTarget.delete(targetId);
    this.byTarget.set(targetId, why);
    if (this.byTarget.size > KEEP) this.byTarget.delete(this.byTarget.keys().next().value!);
  }

  /** The tab is in scope again (shared anew) or closed: nothing to tell about it. */
  clear(targetId: string): void {
    this.byTarget.delete(targetId);
  }

  /** Why the tab of `targetId` left scope, if it did. */
  get(targetId: string): LeftScope | undefined {
    return this.byTarget.get(targetId);
  }
}
