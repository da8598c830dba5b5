/**
 * Progress while a call runs, as the front that answers it sees it
 * (docs/pending.md, "Progress"): a CallWatch follows one call
 * (what it waits for, `CallContext.waiting`) and feeds the ProgressSinks of
 * the callers that listen (the call's own request; later the wait_for_call
 * requests waiting on it). Each sink forwards what the tools report and
 * sends a heartbeat of its own when nothing went out for a while, so a
 * client that resets its timeout on progress hears from the call at least
 * every 10 s (MCP 2025-11-25 "Progress"; Claude Code's idle watchdog), and a
 * tool that reports progress itself (the consent gate when its prompt opens,
 * a script save's stages) is never doubled by the heartbeat.
 */
import { logger } from '../log.js';
import { waitingProgress, type WaitingFor } from '../tools/waiting.js';

const log = logger('progress');

/**
 * The longest gap between two progress notifications of a running call, in
 * ms: 8 s, so that one arrives at least every 10 s even on a loaded machine.
 */
export const HEARTBEAT_MAX_MS = 8_000;

/**
 * The heartbeat interval of a front whose calls answer pending after
 * `maxWaitMs` (0: never): 8 s, or half the max-wait when that is shorter
 * (at least 250 ms), so a caller always sees progress before its call
 * answers pending.
 */
export function heartbeatMs(maxWaitMs: number): number {
  if (!(maxWaitMs > 0)) return HEARTBEAT_MAX_MS;
  return Math.min(HEARTBEAT_MAX_MS, Math.max(250, Math.floor(maxWaitMs / 2)));
}

/** Sends one progress notification to a caller (`notifications/progress` on its token, an SSE event, ...). */
export type ProgressSend = (done: number, total?: number, message?: string) => Promise<void>;

/** One caller's progress: values that only increase (MCP: "progress MUST increase"), plus a heartbeat. */
export class ProgressSink {
  private last: number | undefined;
  private lastAt = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  /** @param baseMs  the heartbeat interval (heartbeatMs); a consent wait with a shortened expiry ticks faster. */
  constructor(private readonly watch: CallWatch, private readonly send: ProgressSend, private readonly baseMs: number) {
    this.arm();
  }

  /**
   * Forwards one report; `done` at or below the last value sent is raised to
   * one above it. Resolves when it was sent (a slow SSE reader slows the
   * reporter instead of growing a buffer); never rejects.
   */
  report(done: number, total?: number, message?: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const value = this.last === undefined || done > this.last ? done : this.last + 1;
    this.last = value;
    this.lastAt = Date.now();
    this.arm();
    return this.send(value, total, message).catch(error => log.debug('progress failed:', error));
  }

  /** Sets the next heartbeat: one interval after the last notification. */
  arm(): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const delay = Math.max(0, this.lastAt + this.watch.everyMs(this.baseMs) - Date.now());
    this.timer = setTimeout(() => void this.report((this.last ?? 0) + 1, undefined, this.watch.progressMessage()), delay);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}

/** One running call: its tool, when it started, what it waits for, and who hears its progress. */
export class CallWatch {
  readonly startedAt = Date.now();
  private waitingFor: WaitingFor | undefined;
  private readonly sinks = new Set<ProgressSink>();

  constructor(readonly tool: string) {}

  /** What the call waits for now (undefined: nothing the tool named). */
  get waiting(): WaitingFor | undefined {
    return this.waitingFor;
  }

  /** The heartbeat interval: `baseMs`, or a consent wait's own shorter one. */
  everyMs(baseMs: number): number {
    const w = this.waitingFor;
    return w?.kind === 'consent' && w.everyMs ? Math.min(baseMs, w.everyMs) : baseMs;
  }

  /** The heartbeat's message. */
  progressMessage(): string {
    return waitingProgress(this.tool, this.waitingFor, this.startedAt);
  }

  /** CallContext.waiting for this call. */
  setWaiting(what: WaitingFor | undefined): void {
    this.waitingFor = what ?? undefined;
    for (const sink of this.sinks) sink.arm();
  }

  /** CallContext.progress for this call: reaches every sink; resolves when all have sent it. */
  async progress(done: number, total?: number, message?: string): Promise<void> {
    await Promise.all([...this.sinks].map(sink => sink.report(done, total, message)));
  }

  /** Adds a caller that hears the call's progress from now on. */
  listen(send: ProgressSend, baseMs: number): ProgressSink {
    const sink = new ProgressSink(this, send, baseMs);
    this.sinks.add(sink);
    return sink;
  }

  /** That caller stops hearing it (its request was answered). */
  unlisten(sink: ProgressSink): void {
    sink.stop();
    this.sinks.delete(sink);
  }

  /** Stops every heartbeat (the call ended, or nobody is left to tell). */
  close(): void {
    for (const sink of this.sinks) sink.stop();
    this.sinks.clear();
  }
}
