/**
 * invokeTool: the one place that validates input, checks capabilities and
 * runs a tool, for every front (docs/architecture.md, "One tool, from each
 * front"). The consent gate runs inside call_webmcp_tool, which
 * knows the page tool's origin and annotations (src/consent/gate.ts), and
 * inside execute and add_element, which know their code (./codeConsent.ts).
 */
import * as z from 'zod';
import { requireCapabilities } from '../browser/capabilities.js';
import { logger } from '../log.js';
import type { CallContext } from './context.js';
import type { AnyTool } from './define.js';
import { toToolError, ToolError } from '../errors.js';
import type { Expectations } from './expectSchema.js';
import { verifyExpectations } from './expectations.js';
import { withRecovery } from './recovery.js';
import { ToolResponse } from './response.js';
import { fitResult } from './resultSize.js';
import { withCandidates } from './candidates.js';
import { sleep } from '../util/wait.js';

const log = logger('invoke');

/** Turns zod issues into one readable line; values the caller sent are never echoed. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map(issue => `${issue.path.length ? issue.path.join('.') : '(arguments)'}: ${issue.message}`)
    .join('; ');
}

/** Edit distance of two short strings (for "did you mean"). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const here = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = here;
    }
  }
  return row[b.length]!;
}

/**
 * Says which top-level arguments the tool does not take (zod drops them): a line of text, with the argument it
 * probably meant, and `ignoredArguments`. A misnamed option (timeoutMs for timeoutSec) then does not pass unseen.
 */
function noteUnknownArguments(tool: AnyTool, args: unknown, res: ToolResponse): void {
  const unknown = unknownArguments(tool, args);
  if (!unknown.length) return;
  res.set('ignoredArguments', unknown.map(k => k.slice(0, 40)));
  res.text(`${tool.name} does not take ${namedArguments(tool, unknown)}: ${unknown.length === 1 ? 'it was' : 'they were'} ignored.`);
}

/** The top-level argument names `tool` does not take (at most 8). */
function unknownArguments(tool: AnyTool, args: unknown): string[] {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return [];
  const known = Object.keys(tool.input.shape);
  return Object.keys(args).filter(k => !known.includes(k)).slice(0, 8);
}

/**
 * The unknown names quoted, each with the argument it probably meant: the same name in another case, one within two
 * edits, one sharing its first five letters, or one it begins (`tab` for tabId).
 */
function namedArguments(tool: AnyTool, unknown: string[]): string {
  const known = Object.keys(tool.input.shape);
  return unknown.map(k => {
    const key = k.toLowerCase();
    const near = known.find(n => n.toLowerCase() === key || (k.length > 3 && distance(n.toLowerCase(), key) <= 2)) ??
      known.find(n => n.length > 5 && k.length > 5 && n.slice(0, 5).toLowerCase() === key.slice(0, 5)) ??
      known.find(n => k.length >= 3 && n.toLowerCase().startsWith(key));
    return `${JSON.stringify(k.slice(0, 40))}${near ? ` (did you mean ${near}?)` : ''}`;
  }).join(', ');
}

/**
 * The hint of an invalid_arguments error: the schema, plus what a missing `ref` comes from, plus the arguments the
 * tool does not take (often the misnamed one: `element` for ref).
 */
function invalidHint(tool: AnyTool, args: unknown, error: z.ZodError): string {
  const missingRef = error.issues.some(i => i.path.length === 1 && i.path[0] === 'ref' && i.code === 'invalid_type');
  const unknown = unknownArguments(tool, args);
  return [
    missingRef ? 'A ref comes from get_page_context or find (find {query: "Save button"}).' : undefined,
    unknown.length ? `${tool.name} does not take ${namedArguments(tool, unknown)}.` : undefined,
    `See the ${tool.name} input schema (tools/list or \`tabwright schema\`).`,
  ].filter(Boolean).join(' ');
}

/**
 * Runs `tool` with raw `args`. Never throws: failures come back as a
 * response with an error (`invalid_arguments`, `capability_unavailable`,
 * `cancelled`, or what the handler raised).
 */
export async function invokeTool(tool: AnyTool, args: unknown, call: CallContext): Promise<ToolResponse> {
  const res = new ToolResponse();
  const started = Date.now();
  try {
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) {
      throw new ToolError('invalid_arguments', `Invalid arguments for ${tool.name}: ${describeIssues(parsed.error)}.`, invalidHint(tool, args, parsed.error));
    }
    if (!(tool.servesRemoteTabs && call.session.connection.remoteTabs)) requireCapabilities(tool.needs, call.session.connection.kind, call.session.connection.capabilities);
    if (call.signal.aborted) throw new ToolError('cancelled', 'The call was cancelled before it started.', 'Send the call again if it is still wanted.');
    // Connecting to the user's own browser may wait for them to approve it: that is what the call waits for then.
    const offApproval = call.session.connection.onApproval?.(pending => call.waiting?.(pending ? { kind: 'browser_approval', expiresAt: pending.expiresAt } : undefined));
    try {
      await tool.handle(parsed.data, call, res);
    } finally {
      offApproval?.();
    }
    // The postconditions of a verifiable tool, on the tab it acted on (src/tools/expectations.ts).
    const expect = (parsed.data as { expect?: Expectations }).expect;
    if (expect && res.actedOn && !res.failed) await verifyExpectations(res.actedOn, expect, call, res);
    noteUnknownArguments(tool, args, res);
    fitResult(res, tool.name, call.config.workspace);
  } catch (error) {
    let toolError = call.signal.aborted && !(error instanceof ToolError)
      ? new ToolError('cancelled', 'The call was cancelled.', 'Send the call again if it is still wanted.')
      : toToolError(error);
    // A remote browser that dropped during the call is why it failed.
    const connection = call.session.connection;
    // Playwright may reject the call a moment before it reports the drop: give a "closed" failure of the browser's
    // (not a tabId that was never open, a ToolError of ours) half a second to be explained.
    if (!(error instanceof ToolError) && toolError.type === 'tab_not_found' && connection.disconnectedSince && !connection.disconnectedSince(started)) await sleep(500);
    // A call the drop itself ended (Session.browserSignal aborts on it) reads as cancelled until here.
    if (!['invalid_arguments', 'browser_unavailable'].includes(toolError.type) && connection.disconnectedSince?.(started)) {
      toolError = connection.kind === 'launch'
        ? new ToolError('browser_disconnected', 'The browser tabwright launched went away during the call (its process ended: killed, crashed, or closed).', 'Call again: the next call starts a fresh browser (tabs get new tabIds; list_tabs shows them).')
        : new ToolError('browser_disconnected', `The connection to the browser${connection.endpoint ? ` at ${connection.endpoint}` : ''} dropped during the call.`, 'Call again: the next call attaches again (tabs get new tabIds; list_tabs shows them).');
    }
    // close_browser (of this session) closed or left the browser while this call ran on it (and aborted its signal).
    if (tool.name !== 'close_browser' && toolError.type !== 'invalid_arguments' && call.session.closedBrowserSince(started)) {
      toolError = new ToolError('browser_disconnected', `close_browser closed the browser (or detached from it) while ${tool.name} ran; the call did not finish.`, 'Call again if it is still wanted: the next call starts or attaches to the browser again (tabs get new tabIds; list_tabs shows them).');
    }
    if (toolError.type === 'internal') log.error(`${tool.name} failed:`, error);
    // A ref that went stale: what is on the page now with its role and name (src/tools/candidates.ts).
    if (toolError.type === 'stale_ref' && !call.signal.aborted) toolError = await withCandidates(toolError, args, call.session);
    // A page-changing call that got to its tab says what is known of its action (src/tools/recovery.ts).
    if (res.actedOn && 'expectRevision' in tool.input.shape) toolError = await withRecovery(toolError, res.actedOn, res.revisionBefore);
    res.fail(toolError);
  }
  log.debug(`${tool.name} ${res.failed ? `failed (${res.failed.type})` : 'ok'} in ${Date.now() - started} ms`);
  return res;
}
