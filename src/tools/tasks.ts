/**
 * The task tools (tool set `tasks`; docs/tasks.md): hand a whole task to a model the user configured, which runs it
 * over tabwright's own tools (src/tasks/runner.ts). run_task and extract start a run and answer with its result
 * when it ends within the wait (three quarters of --max-wait, at most 40 s), else with its id; run_status,
 * run_respond and run_abort follow it from any session of the same user (the runs are in SQLite, src/tasks/store.ts).
 * Listed over MCP only when a model is configured (src/mcp/server.ts).
 */
import * as z from 'zod';
import type { Config } from '../config.js';
import { ToolError } from '../errors.js';
import { DECISIONS } from '../tasks/channel.js';
import { DEFAULT_MAX_STEPS, DEFAULT_TIMEOUT_SEC, liveRun, MAX_STEPS_CAP, settle, startRun, TIMEOUT_CAP_SEC } from '../tasks/runner.js';
import { FINAL_STATES, runStore, type RunRecord } from '../tasks/store.js';
import { defineTool } from './define.js';
import type { ToolResponse } from './response.js';

/** How long run_task and extract wait for the run to end or ask, in ms: 3/4 of the max-wait, at most 40 s. */
export function settleMs(config: Pick<Config, 'maxWaitMs'>): number {
  return config.maxWaitMs > 0 ? Math.min(40_000, Math.floor(config.maxWaitMs * 0.75)) : 40_000;
}

const runIdField = z.string().min(1).max(64).describe('From run_task or extract');

function notFound(runId: string): ToolError {
  return new ToolError('run_not_found', `No run ${JSON.stringify(runId.slice(0, 64))} is stored.`, 'run_status without runId lists the runs (the newest 200 are kept).');
}

/** The run `runId` as stored, after marking runs of ended processes interrupted. @throws ToolError run_not_found. */
function readRun(config: Config, runId: string): RunRecord {
  const store = runStore(config.dataDir);
  store.recover(id => liveRun(id) !== undefined);
  const run = store.get(runId);
  if (!run) throw notFound(runId);
  return run;
}

/** A value as one line of JSON, at most `max` characters. */
function brief(value: unknown, max = 160): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? '';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The actions a run took (steps that can change a page and were done): they are not undone. */
function actionsTaken(run: RunRecord): string[] {
  return run.steps.filter(s => s.action && s.status === 'done').map(s => `${s.n}. ${s.tool} ${brief(s.args, 100)}`);
}

/** Puts a run on the response: its text complete on its own, the same facts as fields. */
function reportRun(res: ToolResponse, run: RunRecord): void {
  const steps = run.steps.length;
  res.text(`Run ${run.id} (${run.kind === 'extract' ? 'extract' : `${run.mode} mode`}${run.tabId !== undefined ? `, tab ${run.tabId}` : ''}): ${run.state.replace('_', ' ')} after ${steps} step${steps === 1 ? '' : 's'} of ${run.maxSteps}.`);
  for (const s of run.steps) {
    const how = s.status === 'done' ? 'done' : `${s.status}${s.error ? ` [${s.error.type}]` : ''}`;
    res.text(`  ${s.n}. ${s.tool} ${brief(s.args)} — ${how}${s.outcome ? `: ${s.outcome}` : ''}`);
  }
  if (run.answer !== undefined) res.text(`Answer: ${run.answer}`);
  if (run.data !== undefined) {
    res.text(`Data: ${JSON.stringify(run.data)}`);
    res.text(`Provenance: ${JSON.stringify(run.provenance)}`);
  }
  if (run.question) {
    const q = run.question;
    res.text(q.kind === 'permission'
      ? `Needs a permission decision: ${q.text} Arguments: ${q.arguments ?? '{}'}. decisions: ${q.decisions?.join(', ')}. Ask the user, then run_respond {runId: "${run.id}", answer: "once" | "always" | "deny"} (exactly one of these; "always" saves the approval for this site; anything else is taken as deny).`
      : `Needs input: ${q.text} Ask the user, then run_respond {runId: "${run.id}", answer: "<their words>"}.`);
  }
  if (run.error) res.text(`${run.state === 'done' ? 'Note' : 'Why'} [${run.error.type}]: ${run.error.message}${run.error.hint ? ` ${run.error.hint}` : ''}`);
  const taken = actionsTaken(run);
  if (FINAL_STATES.includes(run.state) && run.state !== 'done' && taken.length) res.text(`Actions already taken (not undone): ${taken.join('; ')}.`);
  if (run.state === 'running') res.text(`Still running: call run_status {runId: "${run.id}"} to follow it; do not start it again.`);
  res.merge({
    runId: run.id, kind: run.kind, mode: run.mode, state: run.state, task: run.task, tabId: run.tabId ?? null, maxSteps: run.maxSteps,
    timeoutSec: run.timeoutSec, createdAt: new Date(run.createdAt).toISOString(), endedAt: run.endedAt ? new Date(run.endedAt).toISOString() : null,
    steps: run.steps, answer: run.answer ?? null, question: run.question ?? null, error: run.error ?? null,
    ...(run.kind === 'extract' ? { data: run.data ?? null, provenance: run.provenance ?? null } : {}),
  });
}

const budgetFields = {
  tabId: z.number().int().positive().optional().describe('The tab the run starts on (default: the active tab)'),
};

export const runTask = defineTool({
  name: 'run_task',
  title: 'Run a task',
  description:
    'Hand a whole task to the configured model, which runs it with tabwright\'s tools. mode "ask" only reads pages; "act" may click, type and navigate, and every consequential step (submit, upload, purchase-like page tool, leaving the site) asks the user first. ' +
    'Returns the result if the run ends soon, else its runId: follow with run_status; answer its questions with run_respond.',
  needs: [],
  effect: 'interact',
  destructive: true,
  launchesBrowser: true,
  tabLock: false,
  toolset: 'tasks',
  input: z.object({
    task: z.string().min(1).max(4000).describe('What to do, in plain words'),
    mode: z.enum(['ask', 'act']).describe('"ask": read-only; "act": may act on pages, asking the user before consequential steps'),
    ...budgetFields,
    maxSteps: z.number().int().min(1).max(MAX_STEPS_CAP).optional().describe(`Most tool calls the run makes (default ${DEFAULT_MAX_STEPS})`),
    timeoutSec: z.number().int().min(1).max(TIMEOUT_CAP_SEC).optional().describe(`Time limit in seconds (default ${DEFAULT_TIMEOUT_SEC})`),
  }),
  async handle({ task, mode, tabId, maxSteps, timeoutSec }, ctx, res) {
    const runId = startRun(ctx, { kind: 'run', task, mode, tabId, maxSteps: maxSteps ?? DEFAULT_MAX_STEPS, timeoutSec: timeoutSec ?? DEFAULT_TIMEOUT_SEC });
    reportRun(res, (await settle(runId, ctx.config.dataDir, settleMs(ctx.config), ctx.signal))!);
  },
});

export const extract = defineTool({
  name: 'extract',
  title: 'Extract data',
  description:
    'Have the configured model read the page (read-only) and return JSON valid against your JSON Schema, each field with its provenance (tab, revision, the ref or text it came from). ' +
    'Returns the data if it ends soon, else its runId for run_status.',
  needs: [],
  effect: 'observe',
  launchesBrowser: true,
  tabLock: false,
  toolset: 'tasks',
  input: z.object({
    task: z.string().min(1).max(4000).describe('What to extract'),
    outputSchema: z.record(z.string(), z.unknown()).describe('JSON Schema the data must match'),
    ...budgetFields,
  }),
  async handle({ task, outputSchema, tabId }, ctx, res) {
    const runId = startRun(ctx, { kind: 'extract', task, mode: 'ask', tabId, maxSteps: DEFAULT_MAX_STEPS, timeoutSec: DEFAULT_TIMEOUT_SEC, outputSchema });
    const run = (await settle(runId, ctx.config.dataDir, settleMs(ctx.config), ctx.signal))!;
    reportRun(res, run);
    if (run.state === 'failed' && run.error) res.fail(new ToolError(run.error.type === 'extraction_failed' || run.error.type === 'model_unavailable' ? run.error.type : 'extraction_failed', run.error.message, run.error.hint ?? 'See the steps.'), { keep: true });
  },
});

export const runStatus = defineTool({
  name: 'run_status',
  title: 'Run status',
  description: 'One run (runId): its state, each step with its tool call and outcome, the answer or data, and the question when it needs input. Without runId: every stored run, newest first.',
  needs: [],
  effect: 'observe',
  launchesBrowser: false,
  tabLock: false,
  toolset: 'tasks',
  input: z.object({
    runId: z.string().min(1).max(64).optional().describe('One run (from run_task or extract); omit for every run'),
  }),
  async handle({ runId }, { config }, res) {
    if (runId !== undefined) return reportRun(res, readRun(config, runId));
    const store = runStore(config.dataDir);
    store.recover(id => liveRun(id) !== undefined);
    const runs = store.list();
    res.text(runs.length ? `${runs.length} run${runs.length === 1 ? '' : 's'}, newest first:` : 'No runs are stored.');
    for (const r of runs) res.text(`  ${r.id} · ${r.kind}${r.kind === 'run' ? ` ${r.mode}` : ''} · ${r.state} · ${r.steps.length} step${r.steps.length === 1 ? '' : 's'} · ${new Date(r.createdAt).toISOString()} · ${brief(r.task, 80)}${r.question ? ' · waits on a question' : ''}`);
    res.set('runs', runs.map(r => ({ runId: r.id, kind: r.kind, mode: r.mode, state: r.state, task: r.task, steps: r.steps.length, createdAt: new Date(r.createdAt).toISOString(), needsInput: r.question !== undefined })));
  },
});

export const runRespond = defineTool({
  name: 'run_respond',
  title: 'Answer a run',
  description: 'Answer the question of a run that needs input: free text for a clarification; for a permission, exactly "once", "always" or "deny" as the user decided (anything else is taken as deny).',
  needs: [],
  effect: 'interact',
  launchesBrowser: false,
  tabLock: false,
  toolset: 'tasks',
  input: z.object({
    runId: runIdField,
    answer: z.string().min(1).max(4000).describe('The user\'s answer; for a permission: once, always or deny'),
  }),
  async handle({ runId, answer }, { config }, res) {
    const run = readRun(config, runId);
    if (run.state !== 'needs_input' || !run.question) {
      throw new ToolError('invalid_arguments', `Run ${run.id} waits on no question (it is ${run.state.replace('_', ' ')}).`, `run_status {runId: "${run.id}"} shows what it does now.`);
    }
    const permission = run.question.kind === 'permission';
    const exact = !permission || (DECISIONS as readonly string[]).includes(answer);
    const store = runStore(config.dataDir);
    if (!store.setReply(run.id, exact ? answer : 'deny')) throw new ToolError('invalid_arguments', `Run ${run.id} no longer waits on that question (answered or withdrawn meanwhile).`, `run_status {runId: "${run.id}"}.`);
    liveRun(run.id)?.notify();
    const after = (await settle(run.id, config.dataDir, 2000)) ?? run;
    if (!exact) {
      reportRun(res, after);
      res.fail(new ToolError('invalid_arguments', `"${answer.slice(0, 40)}" is not a permission decision: it was taken as deny, and the step did not run.`, 'Send exactly once, always or deny, as the user decided.'), { keep: true });
      return;
    }
    res.text(`Answered run ${run.id}${permission ? ` with ${answer}` : ''}.`);
    reportRun(res, after);
  },
});

export const runAbort = defineTool({
  name: 'run_abort',
  title: 'Abort a run',
  description: 'Stop a run. A step already dispatched finishes first; actions already taken are not undone, and the result lists them.',
  needs: [],
  effect: 'interact',
  launchesBrowser: false,
  tabLock: false,
  toolset: 'tasks',
  input: z.object({ runId: runIdField }),
  async handle({ runId }, { config }, res) {
    const run = readRun(config, runId);
    if (FINAL_STATES.includes(run.state)) {
      res.text(`Run ${run.id} had already ended; nothing was stopped.`);
      reportRun(res, run);
      return;
    }
    const store = runStore(config.dataDir);
    store.requestAbort(run.id);
    const here = liveRun(run.id);
    here?.requestStop('aborted');
    // The step in flight finishes first: wait for it a while (10 s), then report.
    const deadline = Date.now() + 10_000;
    if (here) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([here.ended, new Promise(resolve => (timer = setTimeout(resolve, 10_000)))]);
      clearTimeout(timer);
    }
    let after = store.get(run.id) ?? run;
    while (!here && !FINAL_STATES.includes(after.state) && Date.now() < deadline) {
      await new Promise(resolve => setTimeout(resolve, 250));
      after = store.get(run.id) ?? run;
    }
    if (!FINAL_STATES.includes(after.state)) res.text(`Run ${run.id} stops after the step it is running now (a dispatched step is not cut); run_status shows when it has.`);
    const taken = actionsTaken(after);
    if (!taken.length) res.text('The run took no action on any page.');
    else if (!FINAL_STATES.includes(after.state)) res.text(`Actions already taken (not undone): ${taken.join('; ')}.`);
    reportRun(res, after);
    res.set('actionsTaken', after.steps.filter(s => s.action && s.status === 'done').map(s => s.n));
  },
});

export const taskTools = [runTask, runStatus, runRespond, runAbort, extract];
