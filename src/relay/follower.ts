/**
 * The follower's side of the relay: one WebSocket to the leader;
 * every call goes out as a `call` frame and comes back as a `result`. The
 * caller's signal aborting sends `cancel`; `progress` frames reach the
 * caller's progress hook and `waiting` frames its waiting hook (what the
 * call waits for: src/tools/waiting.ts); a `prompt` frame is asked through the caller's
 * own PromptChannel and answered with `answer` (a channel that hands the
 * question to the MCP client, 2026-07-28, answers `pending` and sets its
 * own `pending` result exactly as it does locally).
 */
import { browserSettings, followerWarning } from './browserSettings.js';
import WebSocket from 'ws';
import { ConsentPending, TerminalChannel, terminalAvailable, type PromptChannel } from '../consent/channel.js';
import { sharedBrowserKey, type Config } from '../config.js';
import type { CallHooks } from '../dispatch/dispatcher.js';
import { logger } from '../log.js';
import { toToolError, ToolError } from '../errors.js';
import { ToolResponse, type ToolResult } from '../tools/response.js';
import { leaderLost } from './errors.js';
import { advertised, MAX_FRAME_BYTES, parseFrame, type FollowerFrame, type LeaderFrame } from './protocol.js';

const log = logger('relay');

/** How long the handshake may take, in ms. */
const HANDSHAKE_TIMEOUT_MS = 5000;

/** The outcome of a handshake attempt. */
export type JoinOutcome =
  | { kind: 'joined'; follower: RelayFollower }
  | { kind: 'refused'; error: ToolError; retry: boolean }
  | { kind: 'step_down' }
  /** No leader answered (nothing listening, not a tabwright relay, or the socket failed). */
  | { kind: 'unreachable'; reason: string };

/** This process's terminal channel for relayed questions when the caller has none (one per process). */
let terminal: TerminalChannel | undefined;

function ownTerminal(config: Config): PromptChannel | undefined {
  if (!config.consent.terminal || !terminalAvailable()) return undefined;
  return (terminal ??= new TerminalChannel());
}

interface Pending {
  hooks: CallHooks;
  resolve(result: ToolResult): void;
  /** The caller's channel, if any (asked when the leader sends `prompt`). */
  prompt?: PromptChannel;
  /** Questions being asked now, by prompt id. */
  asking: Map<number, AbortController>;
}

/** A follower's connection to the leader. */
export class RelayFollower {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closedByUs = false;
  /** Resolves when the socket closed (for any reason). */
  readonly closed: Promise<void>;

  private constructor(private readonly socket: WebSocket, readonly leaderPid: number, readonly leaderVersion: string, private readonly config: Config) {
    this.closed = new Promise(resolve => socket.once('close', () => {
      for (const [id, call] of this.pending) {
        this.pending.delete(id);
        for (const controller of call.asking.values()) controller.abort(leaderLost(this.leaderPid));
        call.resolve(new ToolResponse().fail(leaderLost(this.leaderPid)).build());
      }
      if (!this.closedByUs) log.warn(`lost the leader (pid ${leaderPid})`);
      resolve();
    }));
    socket.on('message', data => this.onFrame(parseFrame<LeaderFrame>(data)));
  }

  /** Connects to the leader on `port` and shakes hands with `token`. Never throws. */
  static join(port: number, token: string, config: Config): Promise<JoinOutcome> {
    return new Promise(resolve => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/`, { maxPayload: MAX_FRAME_BYTES, handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
      let done = false;
      const finish = (outcome: JoinOutcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (outcome.kind !== 'joined') socket.terminate();
        resolve(outcome);
      };
      const timer = setTimeout(() => finish({ kind: 'unreachable', reason: 'handshake timed out' }), HANDSHAKE_TIMEOUT_MS);
      socket.once('error', error => finish({ kind: 'unreachable', reason: error.message }));
      socket.once('close', () => finish({ kind: 'unreachable', reason: 'closed during the handshake' }));
      socket.once('open', () => {
        const { version, relayProtocol } = advertised();
        const hello: FollowerFrame = { t: 'hello', token, version, relayProtocol, pid: process.pid, profile: sharedBrowserKey(config) };
        socket.send(JSON.stringify(hello));
      });
      socket.once('message', data => {
        const frame = parseFrame<LeaderFrame>(data);
        if (frame?.t === 'welcome') {
          socket.removeAllListeners('error');
          socket.removeAllListeners('close');
          socket.on('error', error => log.debug('leader socket error:', error));
          // The leader's browser is the one this process works in: say which of its own flags cannot apply.
          const warning = frame.browser && !config.remote && !config.own ? followerWarning(browserSettings(config), frame.browser, frame.pid) : undefined;
          if (warning) log.warn(warning);
          finish({ kind: 'joined', follower: new RelayFollower(socket, frame.pid, frame.version, config) });
        } else if (frame?.t === 'refused') {
          finish({ kind: 'refused', error: new ToolError(frame.error.type, frame.error.message, frame.error.hint), retry: frame.retry });
        } else if (frame?.t === 'step_down') {
          finish({ kind: 'step_down' });
        } else {
          finish({ kind: 'unreachable', reason: 'not a tabwright relay' });
        }
      });
    });
  }

  /** True while the socket to the leader is open. */
  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  /** Relays one call. Never throws: a lost leader is a `leader_lost` result. */
  call(tool: string, args: unknown, hooks: CallHooks): Promise<ToolResult> {
    if (!this.open) return Promise.resolve(new ToolResponse().fail(leaderLost(this.leaderPid)).build());
    const id = this.nextId++;
    // The caller's channel, else this process's own terminal (never the leader's: that is another session's).
    const prompt = hooks.prompt ?? ownTerminal(this.config);
    return new Promise<ToolResult>(resolve => {
      const onAbort = () => this.send({ t: 'cancel', id });
      const call: Pending = {
        hooks,
        prompt,
        asking: new Map(),
        resolve: result => {
          hooks.signal.removeEventListener('abort', onAbort);
          resolve(result);
        },
      };
      this.pending.set(id, call);
      this.send({
        t: 'call', id, tool, args, client: hooks.client, workspace: hooks.workspace ?? this.config.workspace,
        consent: hooks.consent ?? { auto: this.config.consent.auto, timeoutMs: this.config.consent.timeoutMs },
        prompt: prompt?.name,
        sessionKey: hooks.sessionKey,
        isolate: hooks.isolate,
        budget: hooks.budget,
      });
      if (hooks.signal.aborted) onAbort();
      else hooks.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Tells the leader that this process's MCP session `sessionKey` ended (its isolated context closes there). */
  endSession(sessionKey: string): void {
    this.send({ t: 'end_session', sessionKey });
  }

  private send(frame: FollowerFrame): void {
    if (this.open) this.socket.send(JSON.stringify(frame));
  }

  private onFrame(frame: LeaderFrame | undefined): void {
    if (!frame || !('id' in frame)) return;
    const call = this.pending.get(frame.id);
    if (!call) return;
    if (frame.t === 'result') {
      this.pending.delete(frame.id);
      call.resolve(frame.result);
    } else if (frame.t === 'progress') {
      call.hooks.progress(frame.done, frame.total, frame.message).catch(error => log.debug('progress failed:', error));
    } else if (frame.t === 'waiting') {
      call.hooks.waiting?.(frame.waitingFor ?? undefined);
    } else if (frame.t === 'prompt') {
      void this.ask(frame.id, frame.promptId, call, frame.question);
    } else if (frame.t === 'prompt_cancel') {
      call.asking.get(frame.promptId)?.abort(new ToolError(frame.error.type, frame.error.message, frame.error.hint));
    }
  }

  private async ask(id: number, promptId: number, call: Pending, question: Extract<LeaderFrame, { t: 'prompt' }>['question']): Promise<void> {
    if (!call.prompt) {
      this.send({ t: 'answer', id, promptId, error: new ToolError('consent_unavailable', 'This caller has no way to ask its user.', 'Add a rule or use --auto-allow.').toData() });
      return;
    }
    const controller = new AbortController();
    call.asking.set(promptId, controller);
    try {
      const answer = await call.prompt.ask(question, controller.signal);
      this.send({ t: 'answer', id, promptId, answer });
    } catch (error) {
      if (error instanceof ConsentPending) this.send({ t: 'answer', id, promptId, pending: true });
      else this.send({ t: 'answer', id, promptId, error: toToolError(error).toData() });
    } finally {
      call.asking.delete(promptId);
    }
  }

  /** Closes the socket (calls in flight end with `leader_lost`). */
  close(): Promise<void> {
    this.closedByUs = true;
    this.socket.close(1000, 'follower exiting');
    const timer = setTimeout(() => this.socket.terminate(), 1000);
    return this.closed.finally(() => clearTimeout(timer));
  }
}
