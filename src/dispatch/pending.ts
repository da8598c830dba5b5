/**
 * Pending calls (docs/pending.md). MCP clients give
 * up on a call after a while (Claude Desktop at about 60 s; Cline and Gemini
 * CLI do not reset their timers on progress), but a call may wait much
 * longer: a consent prompt (5 minutes), a page's tool, a declarative form
 * that waits for the person to submit it, a long `execute`. So an MCP front
 * runs every call through PendingCalls: a call still running after the
 * max-wait answers with a *pending* result (text that says what it waits
 * for, its `callId` and the next call; fields `pending`, `callId`,
 * `waitingFor`) and goes on; `wait_for_call {callId}` returns its outcome,
 * exactly as the call would have returned it, once.
 *
 * The registry lives in the front's process, in front of its Dispatcher:
 * a relay follower's call runs in the leader, but the follower answered
 * pending, and the same MCP session's `wait_for_call` reaches the follower.
 * So `wait_for_call` is answered here and never dispatched.
 *
 * Once a call answered pending, its own request is over: its client's
 * cancellation no longer reaches it (the client holds an answer), its
 * progress goes to the wait_for_call requests waiting on it, and a consent
 * question it asks from then on goes through a waiting wait_for_call's
 * elicitation (else its own, which on stdio still reaches the client).
 * `wait_for_call {cancel: true}` aborts it.
 *
 * Bounds: at most PENDING_MAX_CALLS calls per registry, running and ended
 * together (a full registry with no ended call to drop lets the next call
 * block as it would without a max-wait); an outcome nobody claims is
 * dropped PENDING_KEEP_MS after its call ended. A running call is bounded
 * by its own limits (consent expiry, timeoutSec, the daemon's 10 minutes).
 */
import { randomBytes } from 'node:crypto';
import { ConsentPending, type ConsentAnswer, type ConsentQuestion, type PromptChannel } from '../consent/channel.js';
import { DEFAULT_MAX_WAIT_MS } from '../config.js';
import { logger } from '../log.js';
import { raceTimeout } from '../util/wait.js';
import { toToolError, ToolError } from '../errors.js';
import { describeIssues } from '../tools/invoke.js';
import { ToolResponse, type ToolResult } from '../tools/response.js';
import { callNotFound, PENDING_KEEP_MS, PENDING_MAX_CALLS, WAIT_FOR_CALL, waitForCall } from '../tools/waitForCall.js';
import { waitingAdvice, waitingField, waitingPhrase } from '../tools/waiting.js';
import { CallWatch, heartbeatMs } from './callWatch.js';
import type { CallHooks, Dispatcher } from './dispatcher.js';

const log = logger('pending');

/** A call that answered pending. */
interface Entry {
  id: string;
  watch: CallWatch;
  /** Aborts the call (`wait_for_call {cancel: true}`, shutdown). */
  controller: AbortController;
  /** The dispatcher's result, whenever it comes. */
  settled: Promise<ToolResult>;
  outcome?: ToolResult;
  /** Drops an unclaimed outcome after PENDING_KEEP_MS. */
  expiry?: NodeJS.Timeout;
  endedAt?: number;
  /** The wait_for_call requests waiting on it now: their consent channels, for questions the call asks later. */
  waiters: Set<{ prompt?: PromptChannel }>;
  cancelRequested?: boolean;
}

/** Bounds of one registry (tests shorten them). */
export interface PendingLimits {
  /** How long an unclaimed outcome is kept after its call ended, in ms. */
  keepMs: number;
  /** The most calls kept at once, running and ended. */
  maxCalls: number;
}

function failed(error: unknown): ToolResult {
  return new ToolResponse().fail(toToolError(error)).build();
}

/** The pending calls of one front process (stdio server, daemon). */
export class PendingCalls {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  constructor(private readonly limits: PendingLimits = { keepMs: PENDING_KEEP_MS, maxCalls: PENDING_MAX_CALLS }) {}

  /** Calls kept now (running and ended, unclaimed). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Runs `name` on `dispatcher`, or answers `wait_for_call` from this registry.
   * Resolves with the call's result when it ends within `maxWaitMs`, else
   * with a pending result (the call goes on); never throws.
   * @param maxWaitMs  Config.maxWaitMs; 0: wait for every outcome.
   */
  async call(dispatcher: Dispatcher, name: string, args: unknown, hooks: CallHooks, maxWaitMs: number): Promise<ToolResult> {
    if (name === WAIT_FOR_CALL) return this.waitFor(args, hooks, maxWaitMs);
    const watch = new CallWatch(name);
    const own = watch.listen(hooks.progress, heartbeatMs(maxWaitMs));
    const controller = new AbortController();
    const onAbort = () => controller.abort(hooks.signal.reason);
    if (hooks.signal.aborted) onAbort();
    else hooks.signal.addEventListener('abort', onAbort, { once: true });
    let entry: Entry | undefined;
    let handedOut = false;
    const prompt = hooks.prompt ? this.relayPrompt(hooks.prompt, name, () => entry, () => (handedOut = true)) : undefined;
    const run = dispatcher.call(name, args, {
      ...hooks,
      signal: controller.signal,
      prompt,
      progress: async (done, total, message) => watch.progress(done, total, message),
      waiting: what => watch.setWaiting(what),
    }).catch(failed);
    try {
      if (!(maxWaitMs > 0) || this.closed) return await run;
      const first = await raceTimeout(run, { ms: maxWaitMs, onTimeout: 'undefined' });
      if (first !== undefined) return first;
      // A 2026-07-28 consent question just went out in the call's result: that result is on its way.
      if (handedOut) return await run;
      if (!this.makeRoom()) {
        log.warn(`${this.entries.size} calls pending already: ${name} keeps its caller waiting`);
        return await run;
      }
      entry = { id: randomBytes(12).toString('base64url'), watch, controller, settled: run, waiters: new Set() };
      const kept = entry;
      this.entries.set(kept.id, kept);
      hooks.signal.removeEventListener('abort', onAbort);
      watch.unlisten(own);
      void run.then(result => this.ended(kept, result));
      log.debug(`${name} answered pending as ${kept.id}`);
      return this.pendingResult(kept, maxWaitMs);
    } finally {
      if (!entry) {
        hooks.signal.removeEventListener('abort', onAbort);
        watch.close();
      }
    }
  }

  /** Aborts every running call and forgets every outcome (the front shuts down). */
  close(): void {
    this.closed = true;
    for (const entry of this.entries.values()) {
      clearTimeout(entry.expiry);
      if (!entry.outcome) entry.controller.abort(new ToolError('cancelled', 'The server shut down.', 'Start it again and send the call again if it is still wanted.'));
    }
    this.entries.clear();
  }

  private ended(entry: Entry, result: ToolResult): void {
    entry.outcome = result;
    entry.endedAt = Date.now();
    entry.watch.close();
    if (this.entries.get(entry.id) !== entry) return;
    entry.expiry = setTimeout(() => {
      if (this.entries.get(entry.id) === entry) this.entries.delete(entry.id);
    }, this.limits.keepMs);
    entry.expiry.unref();
  }

  /** Room for one more call: true when below the bound, else after dropping the oldest ended call; false when all run. */
  private makeRoom(): boolean {
    if (this.entries.size < this.limits.maxCalls) return true;
    let oldest: Entry | undefined;
    for (const entry of this.entries.values()) {
      if (entry.endedAt !== undefined && (!oldest || entry.endedAt < oldest.endedAt!)) oldest = entry;
    }
    if (!oldest) return false;
    clearTimeout(oldest.expiry);
    this.entries.delete(oldest.id);
    log.info(`dropped the unclaimed outcome of ${oldest.watch.tool} (${oldest.id}) to keep at most ${this.limits.maxCalls} pending calls`);
    return true;
  }

  /**
   * The consent channel a call gets: its caller's until the call answers
   * pending; after that, a waiting wait_for_call's (its request is open),
   * else the caller's own again (an elicitation request on stdio still
   * reaches the client); a 2026-07-28 channel, which can only ask in the
   * call's own result, then refuses.
   */
  private relayPrompt(inner: PromptChannel, tool: string, entry: () => Entry | undefined, onHandedOut: () => void): PromptChannel {
    return {
      name: inner.name,
      inResult: inner.inResult,
      async ask(question: ConsentQuestion, signal: AbortSignal): Promise<ConsentAnswer> {
        const pending = entry();
        if (!pending) {
          try {
            return await inner.ask(question, signal);
          } catch (error) {
            if (error instanceof ConsentPending) onHandedOut();
            throw error;
          }
        }
        const waiting = [...pending.waiters].map(w => w.prompt).find(p => p && !p.inResult);
        if (waiting) return await waiting.ask(question, signal);
        if (!inner.inResult) return await inner.ask(question, signal);
        throw new ToolError(
          'consent_unavailable',
          `The consent question for WebMCP tool "${question.tool}" of ${question.origin} came after the call had answered pending, and this MCP client is asked only in a call's own result (2026-07-28).`,
          `Call ${tool} again: the question is then asked at once.`,
        );
      },
    };
  }

  /** `wait_for_call {callId, timeoutSec?, cancel?}`. */
  private async waitFor(args: unknown, hooks: CallHooks, maxWaitMs: number): Promise<ToolResult> {
    const parsed = waitForCall.input.safeParse(args ?? {});
    if (!parsed.success) {
      return failed(new ToolError('invalid_arguments', `Invalid arguments for ${WAIT_FOR_CALL}: ${describeIssues(parsed.error)}.`, `See the ${WAIT_FOR_CALL} input schema (tools/list or \`tabwright schema\`).`));
    }
    const { callId, timeoutSec, cancel } = parsed.data;
    const entry = this.entries.get(callId);
    if (!entry) return failed(callNotFound(callId));
    if (cancel && !entry.outcome) {
      entry.cancelRequested = true;
      entry.controller.abort(new ToolError('cancelled', `The call was abandoned (wait_for_call with cancel: true) after ${Math.round((Date.now() - entry.watch.startedAt) / 1000)} s.`, 'Nothing to do; call the tool again if it is still wanted (it may have had effects before it was stopped).'));
    }
    if (entry.outcome) return this.deliver(entry);
    const cap = maxWaitMs > 0 ? maxWaitMs : DEFAULT_MAX_WAIT_MS;
    const waitMs = Math.min(cap, timeoutSec === undefined ? cap : Math.round(timeoutSec * 1000));
    const waiter = { prompt: hooks.prompt };
    const sink = entry.watch.listen(hooks.progress, heartbeatMs(maxWaitMs));
    entry.waiters.add(waiter);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const how = await Promise.race([
        entry.settled.then(() => 'ended' as const),
        new Promise<'late'>(resolve => (timer = setTimeout(() => resolve('late'), waitMs))),
        new Promise<'cancelled'>(resolve => {
          onAbort = () => resolve('cancelled');
          if (hooks.signal.aborted) onAbort();
          else hooks.signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      if (how === 'ended') return this.deliver(entry);
      if (how === 'cancelled') return failed(new ToolError('cancelled', 'wait_for_call was cancelled; the call it waited for goes on.', `wait_for_call {"callId":"${entry.id}"} still returns its outcome.`));
      return this.pendingResult(entry, maxWaitMs);
    } finally {
      clearTimeout(timer);
      if (onAbort) hooks.signal.removeEventListener('abort', onAbort);
      entry.waiters.delete(waiter);
      entry.watch.unlisten(sink);
    }
  }

  /** The outcome, once: the entry is gone afterwards. */
  private deliver(entry: Entry): ToolResult {
    if (this.entries.get(entry.id) !== entry || !entry.outcome) return failed(callNotFound(entry.id, 'was already returned to another wait_for_call'));
    this.entries.delete(entry.id);
    clearTimeout(entry.expiry);
    return entry.outcome;
  }

  /** The pending result: what the call waits for, its callId and the next call, in the text (the model's) and as fields. */
  private pendingResult(entry: Entry, maxWaitMs: number): ToolResult {
    const now = Date.now();
    const { tool, waiting } = entry.watch;
    const elapsedSec = Math.round((now - entry.watch.startedAt) / 1000);
    const waitSec = Math.round((maxWaitMs > 0 ? maxWaitMs : DEFAULT_MAX_WAIT_MS) / 1000);
    const res = new ToolResponse();
    res.text(`Pending: ${tool} is still running after ${elapsedSec} s, waiting for ${waitingPhrase(tool, waiting, now)}.`);
    res.text(entry.cancelRequested
      ? 'Cancelling it was asked for; it has not ended yet.'
      : `It goes on in the background and its outcome is kept: do not call ${tool} again for this (it would run twice).`);
    const advice = waitingAdvice(waiting);
    if (advice) res.text(advice);
    res.text(`callId: ${entry.id}`);
    res.text(`Next call: wait_for_call {"callId":"${entry.id}"} returns its result or error once it ends (each wait_for_call waits up to ${waitSec} s, then answers pending again). To abandon it: wait_for_call {"callId":"${entry.id}","cancel":true}.`);
    res.merge({ pending: true, callId: entry.id, tool, waitingFor: waitingField(tool, waiting, now), elapsedSec });
    return res.build();
  }
}
