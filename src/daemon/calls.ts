/**
 * Runs the daemon's tool calls through the process's Dispatcher:
 * counts them, gives each the caller's workspace, bounds it to the call
 * deadline (10 minutes), and lets shutdown cancel every call in flight. Both
 * fronts (`POST /v1/tools/*` and `/mcp`) go through here.
 */
import type { CallHooks, Dispatcher } from '../dispatch/dispatcher.js';
import { ToolError } from '../errors.js';
import type { ToolResult } from '../tools/response.js';
import { ToolResponse } from '../tools/response.js';

/** How a call ended, as far as its caller is told. */
export type CallOutcome =
  | { kind: 'result'; result: ToolResult }
  /** The deadline passed: the call was cancelled and is answered now, without waiting for it. */
  | { kind: 'timeout'; error: ToolError };

export class CallRunner {
  /** Tool calls handed to the dispatcher since start. */
  dispatched = 0;
  private readonly inFlight = new Set<AbortController>();

  /** @param sharedContext `--shared-context`: /mcp sessions run in the main context, not one of their own. */
  constructor(private readonly dispatcher: Dispatcher, private readonly deadlineMs: number, private readonly sharedContext = false) {}

  /** Calls in flight, including ones whose caller was already answered (timeout, disconnect) and that have not settled yet. */
  get active(): number {
    return this.inFlight.size;
  }

  /**
   * Dispatches one call. `outcome` resolves with the result, or at the
   * deadline with a timeout; `settled` resolves when the dispatcher's call
   * itself has ended (a tool that ignores cancellation settles later).
   */
  run(name: string, args: unknown, hooks: CallHooks): { outcome: Promise<CallOutcome>; settled: Promise<void> } {
    const controller = new AbortController();
    const onCallerAbort = () => controller.abort(hooks.signal.reason);
    if (hooks.signal.aborted) onCallerAbort();
    else hooks.signal.addEventListener('abort', onCallerAbort, { once: true });
    const timeout = new ToolError('timeout', `The call ran ${Math.round(this.deadlineMs / 1000)} s, the daemon's limit per call, and was cancelled.`, 'Split the work into shorter calls. The call may have had effects: check before retrying a mutating tool.');
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<CallOutcome>(resolve => {
      timer = setTimeout(() => {
        controller.abort(timeout);
        resolve({ kind: 'timeout', error: timeout });
      }, this.deadlineMs);
    });
    this.inFlight.add(controller);
    this.dispatched++;
    const call = this.dispatcher.call(name, args, { ...hooks, signal: controller.signal })
      .catch(error => new ToolResponse().fail(error instanceof ToolError ? error : new ToolError('internal', String(error), 'This is a tabwright bug if it repeats.')).build());
    const settled = call.then(() => {
      clearTimeout(timer);
      hooks.signal.removeEventListener('abort', onCallerAbort);
      this.inFlight.delete(controller);
    });
    const outcome = Promise.race([call.then(result => ({ kind: 'result', result }) as CallOutcome), deadline]);
    return { outcome, settled };
  }

  /**
   * A Dispatcher for the MCP front: same counting and deadline; a deadline becomes a `timeout` tool error result.
   * With `sessionKey` (a 2025-era `/mcp` session id) the calls run in that session's own browser context
   * (docs/daemon.md "Sessions"), unless `--shared-context`; without it (2026-07-28 stateless requests), in the main one.
   */
  asDispatcher(workspace: string | undefined, sessionKey?: string): Dispatcher {
    const own: Partial<CallHooks> = { ...(workspace ? { workspace } : {}), ...(sessionKey !== undefined ? { sessionKey, isolate: !this.sharedContext } : {}) };
    return {
      call: async (name, args, hooks) => {
        const { outcome } = this.run(name, args, { ...hooks, ...own });
        const done = await outcome;
        return done.kind === 'result' ? done.result : new ToolResponse().fail(done.error).build();
      },
      close: async () => undefined, // the daemon closes the real dispatcher
      // MCP resources read through the real dispatcher.
      ...(this.dispatcher.readResource ? { readResource: (uri: string) => this.dispatcher.readResource!(uri) } : {}),
    };
  }

  /**
   * The `/mcp` session `sessionKey` ended: closes its browser context (its tabs, cookies, storage).
   * Never throws; a dispatcher without sessions (a relay follower today) has nothing to close.
   */
  async endSession(sessionKey: string): Promise<void> {
    await this.dispatcher.endSession?.(sessionKey).catch(() => undefined);
  }

  /** Cancels every call in flight (shutdown). */
  cancelAll(reason: ToolError): void {
    for (const controller of this.inFlight) controller.abort(reason);
  }
}
