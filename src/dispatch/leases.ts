/**
 * Mutation leases (docs/relay.md, "Leases"): several agents on one browser (the relay's followers, the daemon's
 * callers) can reserve a tab for their page-changing calls. A lease names its holder (the calling process, and its
 * MCP session when it has one) and ends at `expiresAt` unless renewed. While one holder's lease runs, a
 * page-changing call of anyone else on that tab is `lease_held`; reads stay free. Leases live in the process that
 * dispatches (the leader) and end with it.
 */
import { ToolError } from '../errors.js';
import type { Caller, Lease, LeaseDesk } from '../tools/context.js';

/** The holder's words in messages: its name and id ("claude-code (pid 4242)"). */
export function holderLabel(holder: Caller): string {
  return holder.name ? `${holder.name} (${holder.id})` : holder.id;
}

/** The error for a call on a tab another holder leases. */
export function leaseHeld(lease: Lease, what: string): ToolError {
  const inSec = Math.max(0, Math.ceil((lease.expiresAt - Date.now()) / 1000));
  return new ToolError(
    'lease_held',
    `Tab ${lease.tabId} is leased by ${holderLabel(lease.holder)} until ${new Date(lease.expiresAt).toISOString()} (in ${inSec} s): ${what} was refused; nothing was done.`,
    'Read-only tools still work on it. Use another tab, wait for the lease to end, or ask its holder to release it (release_tab).',
    { tabId: lease.tabId, holder: lease.holder.name ?? null, holderId: lease.holder.id, expiresAt: new Date(lease.expiresAt).toISOString() },
  );
}

/** The leases of one dispatcher's tabs, keyed by its lock keys (a session's scope and the tab id). */
export class TabLeases {
  private readonly leases = new Map<string, Lease>();

  /** The live lease under `key`; an expired one is dropped. */
  get(key: string): Lease | undefined {
    const lease = this.leases.get(key);
    if (lease && lease.expiresAt <= Date.now()) {
      this.leases.delete(key);
      return undefined;
    }
    return lease;
  }

  /** @throws ToolError lease_held when someone else than `caller` leases `key`. */
  check(key: string, caller: Caller, what: string): void {
    const lease = this.get(key);
    if (lease && lease.holder.id !== caller.id) throw leaseHeld(lease, what);
  }

  /** The desk a call of `caller` uses, with `scope` the prefix of its session's lock keys. */
  desk(scope: string, caller: Caller): LeaseDesk {
    return {
      lease: (tabId, ttlSec) => {
        const key = scope + String(tabId);
        this.check(key, caller, 'lease_tab');
        const lease: Lease = { tabId, holder: caller, expiresAt: Date.now() + ttlSec * 1000 };
        this.leases.set(key, lease);
        return lease;
      },
      release: tabId => {
        const key = scope + String(tabId);
        this.check(key, caller, 'release_tab');
        return this.leases.delete(key);
      },
      of: tabId => this.get(scope + String(tabId)),
    };
  }
}
