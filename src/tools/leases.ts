/**
 * lease_tab / release_tab: reserve a tab for this caller's page-changing calls while several agents share one
 * browser (docs/relay.md, "Leases"). The dispatcher keeps the leases (src/dispatch/leases.ts) and refuses another
 * caller's page-changing calls on a leased tab with `lease_held`; reads stay free.
 */
import * as z from 'zod';
import { ToolError } from '../errors.js';
import type { CallContext, LeaseDesk } from './context.js';
import { defineTabTool } from './define.js';
import { tabIdField } from './schemas.js';

/** Default and longest lease, in seconds. */
export const LEASE_DEFAULT_SEC = 60;
export const LEASE_MAX_SEC = 600;

/** The caller's lease desk. @throws ToolError capability_unavailable where the front keeps no leases. */
function deskOf(ctx: CallContext): LeaseDesk {
  if (!ctx.leases) throw new ToolError('capability_unavailable', 'This front keeps no tab leases.', 'Call the tools without a lease.');
  return ctx.leases;
}

export const leaseTab = defineTabTool({
  name: 'lease_tab',
  title: 'Lease a tab',
  description:
    `Reserve a tab for your page-changing calls for ttlSec (default ${LEASE_DEFAULT_SEC}, at most ${LEASE_MAX_SEC}); calling again renews it. ` +
    'While it runs, other agents sharing this browser get lease_held for their page-changing calls on the tab (reads stay free). release_tab ends it.',
  needs: [],
  effect: 'interact',
  // A lease changes no page: no revision guard, no postconditions, no wait for the tab's lock.
  guarded: false,
  tabLock: false,
  launchesBrowser: true,
  target: 'tab',
  dialogOk: true,
  input: z.object({
    tabId: tabIdField,
    ttlSec: z.number().int().min(1).max(LEASE_MAX_SEC).optional().describe(`How long, in seconds (default ${LEASE_DEFAULT_SEC})`),
  }),
  async handle(tab, { ttlSec }, ctx, res) {
    const desk = deskOf(ctx);
    const renewed = desk.of(tab.id) !== undefined;
    const lease = desk.lease(tab.id, ttlSec ?? LEASE_DEFAULT_SEC);
    const expiresAt = new Date(lease.expiresAt).toISOString();
    res.merge({ tabId: tab.id, expiresAt, ttlSec: ttlSec ?? LEASE_DEFAULT_SEC, renewed });
    res.text(`${renewed ? 'Renewed the lease of' : 'Leased'} tab ${tab.id} until ${expiresAt} (${ttlSec ?? LEASE_DEFAULT_SEC} s): other agents' page-changing calls on it get lease_held. Renew with lease_tab, end with release_tab.`);
  },
});

export const releaseTab = defineTabTool({
  name: 'release_tab',
  title: 'Release a tab',
  description: 'End your lease of a tab (lease_tab): other agents can change it again.',
  needs: [],
  effect: 'interact',
  guarded: false,
  tabLock: false,
  launchesBrowser: false,
  target: 'tab',
  dialogOk: true,
  input: z.object({ tabId: tabIdField }),
  async handle(tab, _input, ctx, res) {
    const released = deskOf(ctx).release(tab.id);
    res.merge({ tabId: tab.id, released });
    res.text(released ? `Released the lease of tab ${tab.id}.` : `Tab ${tab.id} had no lease of yours; nothing to release.`);
  },
});

export const leaseTools = [leaseTab, releaseTab];
