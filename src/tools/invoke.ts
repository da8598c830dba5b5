/**
 * invokeTool: the one place that validates input, checks capabilities and
 * runs a tool, for every front (docs/architecture.md, "One tool, from each
 * front"). The consent gate runs inside call_webmcp_tool, which
 * knows the page tool's origin and annotations (src/consent/gate.ts).
 */
import * as z from 'zod';
import { requireCapabilities } from '../browser/capabilities.js';
import { logger } from '../log.js';
import type { CallContext } from './context.js';
import type { AnyTool } from './define.js';
import { toToolError, ToolError } from '../errors.js';
import { ToolResponse } from './response.js';
import { fitResult } from './resultSize.js';
import { sleep } from '../util/wait.js';

const log = logger('invoke');

/** Turns zod issues into one readable line; values the caller sent are never echoed. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map(issue => `${issue.path.length ? issue.path.join('.') : '(arguments)'}: ${issue.message}`)
    .join('; ');
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
      throw new ToolError('invalid_arguments', `Invalid arguments for ${tool.name}: ${describeIssues(parsed.error)}.`, `See the ${tool.name} input schema (tools/list or \`tabwright schema\`).`);
    }
    requireCapabilities(tool.needs, call.session.connection.kind, call.session.connection.capabilities);
    if (call.signal.aborted) throw new ToolError('cancelled', 'The call was cancelled before it started.', 'Send the call again if it is still wanted.');
    // Connecting to the user's own browser may wait for them to approve it: that is what the call waits for then.
    const offApproval = call.session.connection.onApproval?.(pending => call.waiting?.(pending ? { kind: 'browser_approval', expiresAt: pending.expiresAt } : undefined));
    try {
      await tool.handle(parsed.data, call, res);
    } finally {
      offApproval?.();
    }
    fitResult(res, tool.name, call.config.workspace);
  } catch (error) {
    let toolError = call.signal.aborted && !(error instanceof ToolError)
      ? new ToolError('cancelled', 'The call was cancelled.', 'Send the call again if it is still wanted.')
      : toToolError(error);
    // A remote browser that dropped during the call is why it failed.
    const connection = call.session.connection;
    // Playwright may reject the call a moment before it reports the drop: give a "closed" failure half a second to be explained.
    if (toolError.type === 'tab_not_found' && connection.disconnectedSince && !connection.disconnectedSince(started)) await sleep(500);
    if (!['invalid_arguments', 'cancelled', 'browser_unavailable'].includes(toolError.type) && connection.disconnectedSince?.(started)) {
      toolError = new ToolError('browser_disconnected', `The connection to the browser${connection.endpoint ? ` at ${connection.endpoint}` : ''} dropped during the call.`, 'Call again: the next call attaches again (tabs get new tabIds; list_tabs shows them).');
    }
    if (toolError.type === 'internal') log.error(`${tool.name} failed:`, error);
    res.fail(toolError);
  }
  log.debug(`${tool.name} ${res.failed ? `failed (${res.failed.type})` : 'ok'} in ${Date.now() - started} ms`);
  return res;
}
