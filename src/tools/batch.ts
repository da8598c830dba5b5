/**
 * batch: up to 16 calls of the other tools, in order, stopping at the first failure (docs/actions.md,
 * "Batches"). Each step runs as a call of its own through the dispatcher (CallContext.steps): its own
 * validation, tab lock and consent decision; the batch holds no lock between steps and asks no consent of its
 * own. Revision guards (docs/actions.md, "Revision guards") tie the steps together:
 * - `fixed`: every step whose tool can change a page carries its own `expectRevision`;
 * - `chain`: a guarded step without one is guarded by the revision its tab was left at by the last successful
 *   step on that tab (the tab's revision when the batch began, before any step touched it).
 */
import * as z from 'zod';
import { ToolError, type ErrorType } from '../errors.js';
import type { Session } from '../session/session.js';
import type { CallContext } from './context.js';
import { defineTool, type AnyTool } from './define.js';
import { describeIssues } from './invoke.js';
import type { ToolResult } from './response.js';

/** The most steps one batch runs. */
export const MAX_BATCH_STEPS = 16;

/** Tools a batch cannot run: itself, and the human's commands. */
const NOT_IN_BATCH = new Set(['batch']);

/** What became of one step. */
export interface StepOutcome {
  /** 1-based. */
  step: number;
  tool: string;
  status: 'done' | 'failed' | 'not_run';
  /** The tab the step acted on (from its result, else the tab it named), when known. */
  tabId?: number;
  /** The revision the step was guarded by. */
  expectRevision?: number;
  /** Its tab's revision after the step. */
  revision?: number;
  /** The step's structured result (done) or error (failed). */
  result?: Record<string, unknown>;
  error?: { type: string; message: string; hint: string };
}

const stepSchema = z.object({
  tool: z.string().describe('A tool name, e.g. "click"'),
  args: z.record(z.string(), z.unknown()).optional().describe('Its arguments, as the tool takes them'),
});

/** Whether calls of `tool` take `expectRevision` (defineTabTool adds it to tools that can change a page). */
function isGuardedTool(tool: AnyTool): boolean {
  return 'expectRevision' in tool.input.shape;
}

/** The revisions of the open tabs now, by tab id. */
function revisions(session: Session): Map<number, number> {
  return new Map(session.openTabs().map(t => [t.id, t.revision]));
}

/** The first text block of a result. */
function textOf(result: ToolResult): string {
  return result.content.filter(c => c.type === 'text').map(c => (c as { text: string }).text).join('\n');
}

/**
 * Checks every step before any runs: a known tool that may run in a batch, arguments its schema takes, and in
 * `fixed` mode an `expectRevision` on each guarded step.
 * @returns the steps' tools, in order.
 * @throws ToolError invalid_arguments naming the step.
 */
function checkSteps(steps: z.output<typeof stepSchema>[], mode: 'fixed' | 'chain', ctx: CallContext): AnyTool[] {
  const runner = ctx.steps;
  if (!runner) throw new ToolError('capability_unavailable', 'This front cannot run batch steps.', 'Call the tools one by one.');
  return steps.map((step, i) => {
    const n = i + 1;
    const tool = runner.tool(step.tool);
    if (!tool) throw new ToolError('invalid_arguments', `Step ${n}: there is no tool named "${step.tool.slice(0, 60)}"; no step ran.`, 'List the tools with tools/list; a step is {tool, args}.');
    if (NOT_IN_BATCH.has(tool.name) || tool.humanOnly) {
      throw new ToolError('invalid_arguments', `Step ${n}: ${tool.name} cannot run inside a batch; no step ran.`, 'Call it on its own.');
    }
    const parsed = tool.input.safeParse(step.args ?? {});
    if (!parsed.success) {
      throw new ToolError('invalid_arguments', `Step ${n} (${tool.name}): ${describeIssues(parsed.error)}; no step ran.`, `See the ${tool.name} input schema (tools/list or \`tabwright schema ${tool.name}\`).`);
    }
    if (mode === 'fixed' && isGuardedTool(tool) && step.args?.expectRevision === undefined) {
      throw new ToolError('invalid_arguments', `Step ${n} (${tool.name}) changes the page and has no expectRevision; a fixed batch guards every such step. No step ran.`, 'Add expectRevision (the revision from get_page_context) to each such step, or use mode "chain" to carry it from step to step.');
    }
    return tool;
  });
}

export const batch = defineTool({
  name: 'batch',
  title: 'Run tools in a batch',
  description:
    `Run up to ${MAX_BATCH_STEPS} tool calls in order ({tool, args} each), stopping at the first failure; the result gives each step's outcome (done, failed, not run) and its text. ` +
    'mode "fixed": every step that can change a page carries its own expectRevision. mode "chain": such a step without one is guarded by the revision the previous successful step left its tab at, so the batch stops with revision_mismatch when a page changed under it. ' +
    'Each step is its own call: its own tab lock and consent decision.',
  needs: [],
  effect: 'interact',
  // Its steps may close tabs or run code; each step's own tool says which.
  destructive: true,
  launchesBrowser: true,
  tabLock: false,
  input: z.object({
    mode: z.enum(['fixed', 'chain']).describe('"fixed": each page-changing step carries expectRevision; "chain": the revision carries over from step to step'),
    steps: z.array(stepSchema).min(1).max(MAX_BATCH_STEPS).describe(`The calls, in order (1–${MAX_BATCH_STEPS})`),
  }),
  async handle({ mode, steps }, ctx, res) {
    const tools = checkSteps(steps, mode, ctx);
    const runner = ctx.steps!;
    const carried = mode === 'chain' ? revisions(ctx.session) : new Map<number, number>();
    const outcomes: StepOutcome[] = steps.map((s, i) => ({ step: i + 1, tool: tools[i].name, status: 'not_run' }));
    let failed: { outcome: StepOutcome; error: ToolError } | undefined;
    for (const [i, step] of steps.entries()) {
      const tool = tools[i];
      const outcome = outcomes[i];
      if (ctx.signal.aborted) {
        failed = { outcome, error: new ToolError('cancelled', `The batch was cancelled before step ${outcome.step}.`, 'Send the remaining steps again if they are still wanted.') };
        break;
      }
      await ctx.progress(i, steps.length, `step ${outcome.step}: ${tool.name}`);
      const args: Record<string, unknown> = { ...step.args };
      const tabId = tool.tabOf?.(args, ctx.session) ?? (typeof args.tabId === 'number' ? args.tabId : ctx.session.activeTabId);
      if (mode === 'chain' && isGuardedTool(tool) && args.expectRevision === undefined && tabId !== undefined && carried.has(tabId)) {
        args.expectRevision = carried.get(tabId);
      }
      if (typeof args.expectRevision === 'number') outcome.expectRevision = args.expectRevision;
      const result = await runner.run(tool, args);
      const fields = result.structuredContent ?? {};
      outcome.tabId = typeof fields.tabId === 'number' ? fields.tabId : tabId;
      const tab = ctx.session.openTabs().find(t => t.id === outcome.tabId);
      outcome.revision = typeof fields.revision === 'number' ? fields.revision : tab?.revision;
      res.text(`── Step ${outcome.step}: ${tool.name}${outcome.expectRevision ? ` (expectRevision ${outcome.expectRevision})` : ''} — ${result.isError ? 'failed' : 'done'}`);
      res.text(textOf(result));
      for (const block of result.content) if (block.type === 'image') res.image(block.data, block.mimeType);
      if (result.isError) {
        const data = fields.error as { type: ErrorType; message: string; hint: string };
        outcome.status = 'failed';
        outcome.error = data;
        const { error: _error, ...details } = fields;
        if (Object.keys(details).length) outcome.result = details;
        failed = { outcome, error: new ToolError(data.type, data.message, data.hint) };
        break;
      }
      outcome.status = 'done';
      outcome.result = fields;
      // What a page-changing step left its tab at is what the next one expects; a read changes nothing it vouches for.
      if (outcome.tabId !== undefined && outcome.revision !== undefined && (isGuardedTool(tool) || !carried.has(outcome.tabId))) {
        carried.set(outcome.tabId, outcome.revision);
      }
    }
    const done = outcomes.filter(o => o.status === 'done').length;
    const notRun = outcomes.filter(o => o.status === 'not_run').length;
    res.merge({ mode, done, failedStep: failed?.outcome.step ?? null, notRun, steps: outcomes });
    if (!failed) {
      res.text(`Batch (${mode}): all ${done} step${done === 1 ? '' : 's'} done.`);
      return;
    }
    const { outcome, error } = failed;
    const summary = `Batch (${mode}) stopped at step ${outcome.step} (${outcome.tool}): ${done} done, ${outcome.status === 'failed' ? '1 failed, ' : ''}${notRun} not run.`;
    res.text(summary);
    res.fail(new ToolError(error.type, `Step ${outcome.step} (${outcome.tool}) of the batch: ${error.message}`, error.hint, { failedStep: outcome.step }), { keep: true });
  },
});
