/**
 * A run's way to ask its human (docs/tasks.md, "Questions"): the consent gate's prompt channel for the run's steps,
 * and the wait of a clarification (ask_user). The question goes on the run (state `needs_input`, `question`), where
 * run_status shows it from any process; run_respond stores the answer, which this process picks up (at once when it
 * is the one that took run_respond, else within 250 ms from the store).
 */
import type { ConsentAnswer, ConsentQuestion, PromptChannel } from '../consent/channel.js';
import { ToolError } from '../errors.js';
import type { LiveRun } from './runner.js';
import type { RunQuestion } from './store.js';

/** The permission decisions run_respond takes, exactly. Anything else is taken as `deny` (fails closed). */
export const DECISIONS = ['once', 'always', 'deny'] as const;

/** How often a waiting run reads the store for an answer another process wrote, in ms. */
const POLL_MS = 250;

export class RunChannel implements PromptChannel {
  readonly name = 'run' as const;

  constructor(private readonly run: LiveRun) {}

  /** A consent question of one of the run's steps: put on the run, answered by run_respond. */
  async ask(question: ConsentQuestion, signal: AbortSignal): Promise<ConsentAnswer> {
    const reply = await this.waitReply({
      kind: 'permission',
      // The run's own steps carry the run's id in their description; a page tool's question (call_webmcp_tool) gets it here.
      text: `${question.description.startsWith(`Run ${this.run.id}:`) ? '' : `Run ${this.run.id}: `}${question.description} Allow ${question.tool} on ${question.origin}?`.slice(0, 1000),
      decisions: [...DECISIONS],
      tool: question.tool,
      origin: question.origin,
      arguments: question.argumentsPreview,
      askedAt: Date.now(),
    }, AbortSignal.any([signal, this.run.stop.signal]));
    return (DECISIONS as readonly string[]).includes(reply) ? reply as ConsentAnswer : 'deny';
  }

  /**
   * Puts `question` on the run and waits for run_respond's answer.
   * @throws the reason of `signal` (a ToolError: consent_expired, cancelled) when it aborts first; the question is
   *   taken off the run then.
   */
  waitReply(question: RunQuestion, signal: AbortSignal): Promise<string> {
    const { run } = this;
    run.store.takeReply(run.id);
    run.update({ state: 'needs_input', question });
    return new Promise<string>((resolve, reject) => {
      const finish = (fn: () => void) => {
        clearInterval(timer);
        unlisten();
        signal.removeEventListener('abort', onAbort);
        // A run that ended meanwhile (interrupted by shutdown) keeps its final state.
        if (!run.closed && run.store.get(run.id)?.state === 'needs_input') run.update({ state: 'running', question: null });
        fn();
      };
      const check = () => {
        // run_abort from another process: it can only write the store.
        if (run.store.abortRequested(run.id)) run.requestStop('aborted');
        const reply = run.store.takeReply(run.id);
        if (reply !== undefined) finish(() => resolve(reply));
      };
      const onAbort = () => finish(() => reject(signal.reason instanceof Error ? signal.reason : new ToolError('cancelled', 'The question was withdrawn.', 'Nothing to do.')));
      const timer = setInterval(check, POLL_MS);
      timer.unref();
      const unlisten = run.listen(check);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
