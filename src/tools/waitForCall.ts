/**
 * `wait_for_call`: the outcome of a call that answered pending because it
 * ran longer than `--max-wait` (docs/pending.md).
 *
 * The declaration lives here like every tool's (schema, description, docs,
 * tools/list), but the MCP fronts answer it themselves: the pending calls
 * live in the front process that answered pending (src/dispatch/pending.ts),
 * which for a relay follower is not the process that runs the call. The
 * handler below runs only where no front keeps pending calls (the CLI and
 * the daemon's HTTP API, which wait for every outcome).
 */
import * as z from 'zod';
import { defineTool } from './define.js';
import { ToolError } from '../errors.js';

/** How long an outcome nobody claimed is kept after its call ended, in ms. */
export const PENDING_KEEP_MS = 10 * 60_000;

/** The most pending calls one front process keeps (running and ended together). */
export const PENDING_MAX_CALLS = 64;

export const WAIT_FOR_CALL = 'wait_for_call';

/** The error for a callId that names no pending call (unknown, already delivered, or expired). */
export function callNotFound(callId: string, why = 'is not a pending call of this server'): ToolError {
  return new ToolError(
    'call_not_found',
    `Call ${JSON.stringify(callId.slice(0, 64))} ${why}.`,
    `A pending call's outcome is returned once, by the first wait_for_call after it ended, and kept ${PENDING_KEEP_MS / 60_000} minutes; a restarted server forgets its calls. The call may have had its effect: check (list_tabs, get_page_context) before calling the tool again.`,
  );
}

export const waitForCall = defineTool({
  name: WAIT_FOR_CALL,
  title: 'Wait for call',
  description:
    'Outcome of a call that answered pending (its callId): waits, then returns its result or error as the call would have, once. ' +
    'Still running after timeoutSec (default and cap: the max-wait): pending again. cancel: true aborts it.',
  needs: [],
  effect: 'interact',
  launchesBrowser: false,
  tabLock: false,
  input: z.object({
    callId: z.string().max(64).describe('From the pending result'),
    timeoutSec: z.number().min(0).optional().describe('Longest wait in seconds'),
    cancel: z.boolean().optional().describe('Abort the call, then return how it ended'),
  }),
  async handle({ callId }) {
    // Reached only on fronts that keep no pending calls: they wait for every outcome instead.
    throw callNotFound(callId, 'is not known here: only MCP clients get pending results (the CLI and the daemon\'s HTTP API wait for every call\'s outcome)');
  },
});
