/**
 * The run loop of `run_task` and `extract` (docs/tasks.md): the configured model reads the task and calls
 * tabwright's own tools, each dispatched in-process through the dispatcher's step runner (CallContext.steps), so
 * the call budget, the policy (checkCall), the per-tab locks and the consent gate apply to every step as to any
 * call. In act mode a consequential step (src/tasks/toolset.ts `consequence`) passes the consent gate first, with
 * the run's id in the question; the run's own channel (./channel.ts) puts the question on the run for run_respond.
 *
 * A run ends `done` (the model called finish), `failed` (the model or a budget gave out), `aborted` (run_abort),
 * `timed_out` (timeoutSec) or, seen from a later process, `interrupted`. A stop never cuts a step already dispatched:
 * the step finishes and is recorded, then the run ends.
 */
import { randomBytes } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import { consentGate } from '../consent/gate.js';
import { toToolError, ToolError } from '../errors.js';
import { logger } from '../log.js';
import type { CallContext } from '../tools/context.js';
import type { AnyTool } from '../tools/define.js';
import type { ToolResult } from '../tools/response.js';
import { RunChannel } from './channel.js';
import { complete, type ChatMessage, type ModelTool, type ModelToolCall } from './model.js';
import { systemPrompt, taskMessage, untrusted } from './prompts.js';
import { compileOutputSchema, leafPaths, schemaErrors } from './schema.js';
import { runStore, type RunRecord, type RunState, type RunStep, type RunStore } from './store.js';
import { consequence, modelTool, originOf, toolsFor } from './toolset.js';

const log = logger('tasks');

/** Steps (tool calls) a run takes unless it says otherwise, and the most it may ask for. */
export const DEFAULT_MAX_STEPS = 20;
export const MAX_STEPS_CAP = 50;
/** A run's time limit unless it says otherwise, and the most it may ask for, in seconds. */
export const DEFAULT_TIMEOUT_SEC = 300;
export const TIMEOUT_CAP_SEC = 1800;
/** How many times an extraction that fails its schema is sent back to the model before the run fails. */
export const MAX_CORRECTIONS = 2;

/** What starts a run. */
export interface RunRequest {
  kind: 'run' | 'extract';
  task: string;
  mode: 'ask' | 'act';
  tabId?: number;
  maxSteps: number;
  timeoutSec: number;
  /** extract: the caller's JSON Schema. */
  outputSchema?: Record<string, unknown>;
}

/** A run whose loop runs in this process. */
export class LiveRun {
  /** Aborts the model request and any question the run waits on; never a dispatched step. */
  readonly stop = new AbortController();
  stopReason?: 'aborted' | 'timed_out';
  /** Set when this process shuts down: the run is stored `interrupted`, and the loop writes nothing more. */
  closed = false;
  /** Resolves when the loop has ended and its final state is stored. */
  ended!: Promise<void>;
  private readonly listeners = new Set<() => void>();

  constructor(readonly id: string, readonly store: RunStore) {}

  /** Stores `patch` and tells the waiters (run_task's wait, a question's wait). */
  update(patch: Parameters<RunStore['update']>[1]): void {
    this.store.update(this.id, patch);
    this.notify();
  }

  notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Calls `listener` on every change until the returned function is called. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends the run at its next safe point: after the step in flight, or now when it waits on the model or a person. */
  requestStop(reason: 'aborted' | 'timed_out'): void {
    this.stopReason ??= reason;
    this.stop.abort(new ToolError('cancelled', reason === 'aborted' ? 'The run was aborted.' : 'The run ran out of time.', 'Nothing to do.'));
  }
}

const live = new Map<string, LiveRun>();

/** The run `id` if its loop runs in this process. */
export function liveRun(id: string): LiveRun | undefined {
  return live.get(id);
}

/** Marks this process's unfinished runs interrupted (the process is going away); their loops stop with it. */
export function interruptLiveRuns(): void {
  for (const run of live.values()) {
    const record = run.store.get(run.id);
    if (!record || !['running', 'needs_input'].includes(record.state)) continue;
    run.update({ state: 'interrupted', endedAt: Date.now(), question: null, error: { type: 'interrupted', message: `The tabwright process that ran it (pid ${process.pid}) shut down before the run ended.`, hint: 'The steps it took are listed; they are not undone.' } });
    run.closed = true;
    run.requestStop('aborted');
  }
}

/**
 * Starts a run and returns its id at once; the loop goes on after the call that started it has ended.
 * @throws ToolError model_unavailable (no model configured), capability_unavailable (a front that cannot run
 *   steps), tab_not_found (tabId is not an open tab), invalid_arguments (extract: an output schema ajv refuses).
 */
export function startRun(ctx: CallContext, req: RunRequest): string {
  const llm = ctx.config.llm;
  if (!llm) throw noModel();
  const steps = ctx.steps;
  if (!steps) throw new ToolError('capability_unavailable', 'This front cannot run the steps of a task.', 'Call it over MCP, the CLI or the daemon.');
  const validate = req.outputSchema ? compileOutputSchema(req.outputSchema) : undefined;
  const tabs = ctx.session.openTabs();
  if (req.tabId !== undefined && !tabs.some(t => t.id === req.tabId)) throw new ToolError('tab_not_found', `Tab ${req.tabId} is not open.`, 'list_tabs lists the open tabs.');
  const tabId = req.tabId ?? ctx.session.activeTabId;
  const tab = tabs.find(t => t.id === tabId);
  let url: string | undefined;
  try {
    url = tab?.page.url();
  } catch {
    url = undefined;
  }
  const store = runStore(ctx.config.dataDir);
  store.recover(id => live.has(id));
  const now = Date.now();
  const record: RunRecord = {
    id: `run_${randomBytes(9).toString('base64url')}`, kind: req.kind, task: req.task, mode: req.mode, state: 'running',
    tabId: tab?.id, origin: originOf(url), maxSteps: req.maxSteps, timeoutSec: req.timeoutSec,
    createdAt: now, updatedAt: now, ownerPid: process.pid, steps: [],
  };
  store.create(record);
  const run = new LiveRun(record.id, store);
  live.set(run.id, run);
  const timer = setTimeout(() => run.requestStop('timed_out'), req.timeoutSec * 1000);
  timer.unref();
  run.ended = loop(run, record, url, ctx, req, validate)
    .catch(error => log.warn(`run ${run.id} ended on an unexpected error:`, error))
    .finally(() => {
      clearTimeout(timer);
      live.delete(run.id);
      run.notify();
    });
  return run.id;
}

/** The error when no model is configured. */
export function noModel(): ToolError {
  return new ToolError('model_unavailable', 'No model is configured for task runs in the process that owns the browser: TABWRIGHT_LLM_URL and TABWRIGHT_LLM_MODEL are not both set there.', 'Set them where that process starts: the server itself, or, when a daemon runs (`tabwright daemon status`), the daemon, since servers that join it run tasks there: `tabwright daemon stop`, then start it with them (e.g. TABWRIGHT_LLM_URL=http://127.0.0.1:11434/v1 TABWRIGHT_LLM_MODEL=qwen3:8b for Ollama; docs/tasks.md).');
}

/**
 * Waits until the run is no longer `running` (it ended, or it waits on a person), or `ms` passed.
 * @returns the run as stored then.
 */
export async function settle(id: string, dataDir: string, ms: number, signal?: AbortSignal): Promise<RunRecord | undefined> {
  const store = runStore(dataDir);
  const run = live.get(id);
  if (run && ms > 0) {
    await new Promise<void>(resolve => {
      let unlisten: () => void = () => undefined;
      const done = () => {
        clearTimeout(timer);
        unlisten();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      const check = () => {
        if (!live.has(id) || store.get(id)?.state !== 'running') done();
      };
      unlisten = run.listen(check);
      signal?.addEventListener('abort', done, { once: true });
      check();
    });
  }
  return store.get(id);
}

/** The pseudo-tools every run has: finish (the answer) and ask_user (a clarification). */
function ownTools(req: RunRequest): ModelTool[] {
  const finish: ModelTool = req.kind === 'extract'
    ? {
      type: 'function',
      function: {
        name: 'finish',
        description: 'End the extraction: data valid against the schema, and where each field came from.',
        parameters: {
          type: 'object',
          properties: {
            data: req.outputSchema!,
            provenance: {
              type: 'array',
              description: 'One entry per field you filled',
              items: { type: 'object', properties: { path: { type: 'string', description: 'JSON pointer into data, e.g. /items/0/price' }, ref: { type: 'string', description: 'The ref of the element it came from' }, text: { type: 'string', description: 'The exact page text it came from' } }, required: ['path'] },
            },
          },
          required: ['data', 'provenance'],
        },
      },
    }
    : { type: 'function', function: { name: 'finish', description: 'End the run with your answer or a report of what you did.', parameters: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } } };
  const ask: ModelTool = { type: 'function', function: { name: 'ask_user', description: 'Ask the user one short question and wait for the answer.', parameters: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] } } };
  return [finish, ask];
}

/** What the run read: each step's text, for checking extraction provenance. */
interface Observation {
  step: number;
  tabId?: number;
  revision?: number;
  text: string;
}

/** The text blocks of a result, joined. */
function textOf(result: ToolResult): string {
  return result.content.filter(c => c.type === 'text').map(c => (c as { text: string }).text).join('\n');
}

/** One line of a step's outcome (at most 200 characters). */
function outcomeLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

async function loop(run: LiveRun, record: RunRecord, startUrl: string | undefined, ctx: CallContext, req: RunRequest, validate: ValidateFunction | undefined): Promise<void> {
  const runner = ctx.steps!;
  const allowed = toolsFor(req.mode, runner.all());
  const byName = new Map(allowed.map(t => [t.name, t]));
  const modelTools = [...allowed.map(modelTool), ...ownTools(req)];
  const channel = new RunChannel(run);
  // Steps act on the run's tab unless they name another; a stop of the run never reaches a dispatched step.
  const stepOver = { prompt: channel, signal: ctx.session.browserSignal };
  const messages: ChatMessage[] = [
    { role: 'system', content: systemPrompt(req.kind, req.mode) },
    { role: 'user', content: taskMessage(req.task, { tabId: record.tabId, url: startUrl }) },
  ];
  const observations: Observation[] = [];
  const steps: RunStep[] = [];
  let origin = record.origin;
  let corrections = 0;

  const end = (state: RunState, patch: Parameters<RunStore['update']>[1] = {}) => {
    if (!run.closed) run.update({ ...patch, state, endedAt: Date.now(), question: null });
  };
  const stopped = (): boolean => {
    if (run.closed) return true;
    if (!run.stopReason && !run.store.abortRequested(run.id)) return false;
    const reason = run.stopReason ?? 'aborted';
    const taken = steps.filter(s => s.action && s.status === 'done').map(s => `${s.n}. ${s.tool}`);
    end(reason, { error: reason === 'aborted'
      ? { type: 'cancelled', message: `The run was aborted after ${steps.length} step${steps.length === 1 ? '' : 's'}.`, hint: taken.length ? `Actions taken (not undone): ${taken.join(', ')}.` : 'It took no action.' }
      : { type: 'timeout', message: `The run ran out of its ${req.timeoutSec} s after ${steps.length} step${steps.length === 1 ? '' : 's'}.`, hint: 'Start a new run with a larger timeoutSec, or a smaller task.' } });
    return true;
  };
  const record_ = (step: RunStep) => run.store.putStep(run.id, step);

  try {
    for (;;) {
      if (stopped()) return;
      let reply;
      try {
        reply = await complete(ctx.config.llm!, ctx.config.configDir, messages, modelTools, run.stop.signal);
      } catch (error) {
        if (stopped()) return;
        const e = toToolError(error);
        end('failed', { error: { type: e.type, message: e.message, hint: e.hint } });
        return;
      }
      if (!reply.toolCalls.length) {
        // A model that answers in plain text is done (a run), or tries to hand its data over (extract).
        if (req.kind === 'run') {
          end('done', { answer: reply.content ?? '' });
          return;
        }
        messages.push({ role: 'assistant', content: reply.content ?? '' });
        messages.push({ role: 'user', content: 'Call finish with data and provenance; plain text is not taken.' });
        if (++corrections > MAX_CORRECTIONS) return failExtraction(end, 'The model did not call finish.');
        continue;
      }
      messages.push({ role: 'assistant', content: reply.content, tool_calls: reply.toolCalls });
      for (const call of reply.toolCalls) {
        const answer = (content: string) => messages.push({ role: 'tool', tool_call_id: call.id, content });
        const parsed = parseArgs(call);
        const name = call.function.name;
        if (name === 'finish' && parsed.ok) {
          if (req.kind === 'run') {
            end('done', { answer: typeof parsed.args.answer === 'string' ? parsed.args.answer : JSON.stringify(parsed.args) });
            return;
          }
          const data = parsed.args.data;
          if (validate!(data)) {
            end('done', { data, provenance: provenanceOf(data, parsed.args.provenance, observations, ctx) });
            return;
          }
          const problems = schemaErrors(validate!);
          if (++corrections > MAX_CORRECTIONS) return failExtraction(end, `The model's data did not match the schema after ${MAX_CORRECTIONS} corrections: ${problems.join('; ')}.`);
          answer(`finish refused: data does not match the schema: ${problems.join('; ')}. Call finish again with corrected data.`);
          continue;
        }
        if (name === 'ask_user' && parsed.ok) {
          const question = typeof parsed.args.question === 'string' ? parsed.args.question.slice(0, 1000) : 'The run needs your input.';
          let reply_: string;
          try {
            reply_ = await channel.waitReply({ kind: 'clarification', text: question, askedAt: Date.now() }, run.stop.signal);
          } catch {
            if (stopped()) return;
            throw new Error('a clarification ended without an answer or a stop');
          }
          answer(`The user answered (this is the user, not page content): ${reply_}`);
          continue;
        }
        // Every other call is a step, counted against the budget whether it runs or not.
        if (steps.length >= req.maxSteps) {
          end('failed', { error: { type: 'step_budget_exhausted', message: `The run used its ${req.maxSteps} steps without finishing.`, hint: 'Start a new run with a larger maxSteps (at most 50), or a narrower task.' } });
          return;
        }
        const tool = byName.get(name);
        const step: RunStep = { n: steps.length + 1, tool: name.slice(0, 100), args: parsed.ok ? parsed.args : call.function.arguments.slice(0, 1000), status: 'running', action: tool ? tool.effect !== 'observe' : false, startedAt: Date.now() };
        steps.push(step);
        const refuse = (type: string, message: string) => {
          Object.assign(step, { status: 'refused', error: { type, message }, outcome: message, endedAt: Date.now() });
          record_(step);
          answer(`Error [${type}]: ${message}`);
        };
        if (!parsed.ok) {
          refuse('invalid_arguments', `The arguments of ${step.tool} are not a JSON object: ${parsed.error}.`);
          continue;
        }
        if (!tool) {
          const known = runner.tool(name) !== undefined || name === 'finish' || name === 'ask_user';
          refuse('unknown_tool', known ? `${step.tool} is not one of the tools of this ${req.mode}-mode run.` : `There is no tool named "${step.tool}".`);
          continue;
        }
        const args = { ...parsed.args };
        if ('tabId' in tool.input.shape && args.tabId === undefined && args.ref === undefined && record.tabId !== undefined && tool.name !== 'list_tabs') args.tabId = record.tabId;
        if (req.mode === 'act') {
          // A run whose tab showed no site takes its site from its first navigation.
          if (!origin && (tool.name === 'navigate' || tool.name === 'open_tab')) origin = originOf(typeof args.url === 'string' ? args.url : undefined);
          const why = await consequence(tool.name, args, origin ?? record.origin, ctx.session);
          if (why) {
            step.args = args;
            record_(step);
            try {
              await consentGate({ config: ctx.config, signal: run.stop.signal, progress: async () => undefined, client: ctx.client, prompt: channel }, {
                origin: originOf(pageUrl(ctx, typeof args.tabId === 'number' ? args.tabId : record.tabId)) ?? origin ?? 'about:blank',
                name: `run_task:${tool.name}`,
                source: 'task',
                annotations: { consequentialHint: true },
                description: `Run ${run.id}: ${why}.`,
                tabId: typeof args.tabId === 'number' ? args.tabId : record.tabId,
                arguments: args,
              });
            } catch (error) {
              if (stopped()) {
                Object.assign(step, { status: 'refused', error: { type: 'cancelled', message: 'The run stopped while the step waited for approval; it did not run.' }, endedAt: Date.now() });
                record_(step);
                return;
              }
              const e = toToolError(error);
              refuse(e.type, `${e.message} The step did not run.`);
              continue;
            }
          }
        }
        step.args = args;
        record_(step);
        // Dispatched: from here on a stop waits for the step to end and records it.
        const result = await runner.run(tool, args, stepOver);
        const text = textOf(result);
        const fields = (result.structuredContent ?? {}) as Record<string, unknown>;
        step.endedAt = Date.now();
        step.tabId = typeof fields.tabId === 'number' ? fields.tabId : typeof args.tabId === 'number' ? args.tabId : undefined;
        step.revision = typeof fields.revision === 'number' ? fields.revision : undefined;
        if (result.isError) {
          const error = fields.error as { type: string; message: string } | undefined;
          step.status = 'failed';
          step.error = { type: error?.type ?? 'internal', message: error?.message ?? outcomeLine(text) };
        } else {
          step.status = 'done';
        }
        step.outcome = outcomeLine(text);
        record_(step);
        observations.push({ step: step.n, tabId: step.tabId, revision: step.revision, text });
        answer(untrusted(`Result of ${tool.name} (step ${step.n}${step.tabId !== undefined ? `, tab ${step.tabId}` : ''}${step.revision !== undefined ? `, revision ${step.revision}` : ''}${result.isError ? ', failed' : ''}):`, text));
        if (stopped()) return;
      }
    }
  } catch (error) {
    const e = toToolError(error);
    end('failed', { error: { type: e.type, message: e.message, hint: e.hint } });
  }
}

function failExtraction(end: (state: RunState, patch: Parameters<RunStore['update']>[1]) => void, message: string): void {
  end('failed', { error: { type: 'extraction_failed', message, hint: 'Try a more capable model, a simpler schema, or a narrower task.' } });
}

/** The URL of an open tab, if it can be read. */
function pageUrl(ctx: CallContext, tabId: number | undefined): string | undefined {
  try {
    return ctx.session.openTabs().find(t => t.id === tabId)?.page.url();
  } catch {
    return undefined;
  }
}

/** A tool call's arguments as an object, or why not. */
function parseArgs(call: ModelToolCall): { ok: true; args: Record<string, unknown> } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(call.function.arguments || '{}');
  } catch (error) {
    return { ok: false, error: (error as Error).message.slice(0, 200) };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: 'not an object' };
  return { ok: true, args: value as Record<string, unknown> };
}

/** Where one field of extracted data came from (docs/tasks.md, "Extraction"). */
export interface FieldProvenance {
  /** JSON pointer into `data`. */
  path: string;
  tabId?: number;
  /** The tab's document revision that showed it. */
  revision?: number;
  ref?: string;
  text?: string;
  /** The step whose result showed that ref or text. */
  step?: number;
  /** True when the ref or text was in what the run read; false when it was not, or no source was given. */
  verified: boolean;
}

const normalize = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * One provenance entry per leaf of `data`: the model's own entry for that path (or the nearest one above it),
 * checked against what the run read: a `text` found in a step's result, a `ref` that a step's result named.
 */
function provenanceOf(data: unknown, given: unknown, observations: Observation[], ctx: CallContext): FieldProvenance[] {
  const entries = (Array.isArray(given) ? given : []).filter((e): e is { path: string; ref?: unknown; text?: unknown } => !!e && typeof e === 'object' && typeof (e as { path?: unknown }).path === 'string');
  return leafPaths(data).map(path => {
    const entry = entries.find(e => e.path === path) ?? entries.filter(e => path.startsWith(`${e.path}/`)).sort((a, b) => b.path.length - a.path.length)[0];
    if (!entry) return { path, verified: false };
    const ref = typeof entry.ref === 'string' ? entry.ref.slice(0, 32) : undefined;
    const text = typeof entry.text === 'string' ? entry.text.slice(0, 500) : undefined;
    const refPattern = ref ? new RegExp(`\\b${ref.replace(/[^\w-]/g, '')}\\b`) : undefined;
    const seen = [...observations].reverse().find(o => (text && normalize(o.text).includes(normalize(text))) || (refPattern && refPattern.test(o.text)));
    const refTab = ref ? ctx.session.refs.description(ref)?.tabId : undefined;
    const tabId = seen?.tabId ?? refTab;
    return {
      path, ...(tabId !== undefined ? { tabId } : {}), ...(seen?.revision !== undefined ? { revision: seen.revision } : {}),
      ...(ref ? { ref } : {}), ...(text ? { text } : {}), ...(seen ? { step: seen.step } : {}), verified: seen !== undefined,
    };
  });
}
