/**
 * The dispatch seam: every front (MCP over stdio, the daemon's
 * HTTP API and its `/mcp`) hands a tool call to a Dispatcher. The leader
 * process runs calls on its own Session (LocalDispatcher); a follower relays
 * them to the leader over the relay port (src/relay). Fronts never touch a
 * Session directly, so a follower serves the same tools as a leader.
 */
import type { Config, ConsentConfig } from '../config.js';
import type { PromptChannel } from '../consent/channel.js';
import { SessionContextConnection } from '../browser/sessionContext.js';
import { Session } from '../session/session.js';
import { RELAY_PROTOCOL } from '../relay/protocol.js';
import type { CallContext, Caller, ClientInfo, RelayStatus } from '../tools/context.js';
import { ToolError } from '../errors.js';
import { invokeTool } from '../tools/invoke.js';
import { TOOLS, TOOLS_BY_NAME } from '../tools/registry.js';
import type { AnyTool } from '../tools/define.js';
import type { ToolResult } from '../tools/response.js';
import type { WaitingFor } from '../tools/waiting.js';
import { ToolResponse } from '../tools/response.js';
import { locksTab, TabLocks } from './tabLocks.js';
import { Activity } from './activity.js';
import { TabLeases } from './leases.js';
import { callBudgetOf, withinBudget, type BudgetStatus, type CallBudget } from './callBudget.js';
import { checkCall } from '../consent/policy.js';
import { readScriptResource, type ResourceText } from '../userscripts/resources.js';
import { closeScriptServices } from '../userscripts/service.js';
import { interruptLiveRuns } from '../tasks/runner.js';

/** What the caller's front supplies besides the tool name and arguments. */
export interface CallHooks {
  /** Aborted when the caller cancels (MCP notifications/cancelled) or disconnects. */
  signal: AbortSignal;
  /** Reports progress to the caller; a no-op when the caller did not ask. */
  progress(done: number, total?: number, message?: string): Promise<void>;
  client: ClientInfo;
  /** How the caller's human is asked for consent; undefined when the caller has no way. */
  prompt?: PromptChannel;
  /** Hears what the call waits for as it moves on (CallContext.waiting; src/tools/waiting.ts). Optional. */
  waiting?(what: WaitingFor | undefined): void;
  /** Absolute folder that receives files this call writes (per caller). Default: the config's workspace. */
  workspace?: string;
  /**
   * The caller's MCP session: with `--isolate-sessions` each key
   * gets its own Session in its own browser context. Undefined: the main session.
   */
  sessionKey?: string;
  /**
   * The caller's own consent settings (a relayed follower call: its
   * `--auto-allow`/`--auto-deny` and timeout). Default: this
   * process's. A call that carries them never asks on this process's terminal.
   */
  consent?: Pick<ConsentConfig, 'auto' | 'timeoutMs'>;
  /**
   * Give `sessionKey` its own browser context even without `--isolate-sessions`
   * (the daemon's HTTP `/mcp` isolates every 2025-era session). Ignored without a sessionKey.
   */
  isolate?: boolean;
  /**
   * The caller's place in the relay (get_bridge_status reports it), set by the relay's dispatcher
   * (src/relay/relayDispatcher.ts) and, for a relayed call, by the leader. Default: standalone, this process.
   */
  relay?: RelayStatus;
  /**
   * The caller's call budget (a relayed call: its follower's, which counted it), for get_bridge_status. A call
   * relayed from a follower (relay role `follower`) is not counted again here.
   */
  budget?: BudgetStatus;
  /**
   * Who calls, for tab leases (./leases.ts): the leader sets a relayed call's follower. Default: this process, and the
   * caller's MCP session when it has one.
   */
  caller?: Caller;
}

/** Runs tool calls somewhere: here (leader) or through the leader (follower). */
export interface Dispatcher {
  /**
   * Runs `tool` with raw `args`. Never throws for a tool failure: the
   * result carries `isError` and `structuredContent.error {type, message, hint}`.
   */
  call(tool: string, args: unknown, hooks: CallHooks): Promise<ToolResult>;
  /** Ends what this dispatcher owns (the browser, for a leader; the relay socket, for a follower). */
  close(): Promise<void>;
  /** The MCP session `sessionKey` ended: closes its browser context (`--isolate-sessions`). */
  endSession?(sessionKey: string): Promise<void>;
  /**
   * Reads an MCP resource (`tabwright://scripts`, ...; src/userscripts/resources.ts).
   * Undefined when the URI names nothing. Optional: a dispatcher without it serves no resources.
   */
  readResource?(uri: string): Promise<ResourceText[] | undefined>;
  /**
   * The LocalDispatcher this process runs calls on while it owns the browser (a leader, a lone process); undefined
   * while it follows or joins. Optional: the dashboard (src/dashboard/) serves only where this answers.
   */
  local?(): LocalDispatcher | undefined;
}

/** Runs calls on this process's Session: what a leader (or a lone process) does. */
export class LocalDispatcher implements Dispatcher {
  /** With `--isolate-sessions`: one Session per sessionKey, each in its own context of the main session's browser. */
  private readonly keyed = new Map<string, Session>();
  /** Per-tab FIFO locks: calls that act on the same tab run one at a time (src/dispatch/tabLocks.ts). */
  private readonly tabLocks = new TabLocks();
  /** Tab leases of the callers sharing this dispatcher (./leases.ts), keyed as the locks are. */
  private readonly leases = new TabLeases();

  /** This process's call budget (`--max-calls`); shared with the LocalDispatcher a relay takeover builds next. */
  readonly budget: CallBudget;
  /** The callers seen and the calls run, without arguments (./activity.ts; the dashboard shows them). */
  readonly activity = new Activity();

  constructor(readonly session: Session, readonly config: Config) {
    this.budget = callBudgetOf(config);
    // The keyed sessions' contexts live in the main session's browser: close_browser there must not close them.
    session.otherSessions = () => [...this.keyed.values()].filter(s => s.running).length;
  }

  /** The Session calls with `sessionKey` run on: their own with `--isolate-sessions` or `isolate`, else the main one. */
  sessionFor(sessionKey: string | undefined, isolate = false): Session {
    if (sessionKey === undefined || !(isolate || this.config.isolateSessions)) return this.session;
    let session = this.keyed.get(sessionKey);
    if (!session) {
      session = new Session(new SessionContextConnection(this.session.connection, this.config), this.config);
      this.keyed.set(sessionKey, session);
    }
    return session;
  }

  local(): LocalDispatcher {
    return this;
  }

  /** The main Session and the keyed ones (`--isolate-sessions`, the daemon's `/mcp`), main first. */
  sessions(): Session[] {
    return [this.session, ...this.keyed.values()];
  }

  /** True while a call holds (or waits for) the lock of main-session tab `tabId`: the dashboard takes no thumbnail then. */
  tabBusy(tabId: number): boolean {
    return this.tabLocks.held(String(tabId));
  }

  async endSession(sessionKey: string): Promise<void> {
    this.budget.endSession(sessionKey);
    const session = this.keyed.get(sessionKey);
    this.keyed.delete(sessionKey);
    await session?.close();
  }

  /**
   * Runs a call: refused before dispatch when the policy denies it (src/consent/policy.ts checkCall) or the call
   * budget is spent (./callBudget.ts; a call a follower relayed was counted there), else on its Session.
   */
  async call(name: string, args: unknown, hooks: CallHooks): Promise<ToolResult> {
    const follower = hooks.relay?.role === 'follower' ? hooks.caller?.id : undefined;
    const end = this.activity.start(name, rawTabId(args), { client: hooks.client, sessionKey: hooks.sessionKey, workspace: hooks.workspace ?? this.config.workspace, followerId: follower });
    let result: ToolResult | undefined;
    try {
      return result = await this.checkedCall(name, args, hooks);
    } finally {
      end(result);
    }
  }

  /** `call` without the activity log. */
  private async checkedCall(name: string, args: unknown, hooks: CallHooks): Promise<ToolResult> {
    const tool = TOOLS_BY_NAME.get(name);
    if (!tool) {
      return new ToolResponse().fail(new ToolError('unknown_tool', `There is no tool named "${name}".`, 'List the tools with tools/list or `tabwright schema`.')).build();
    }
    try {
      checkCall(this.config.policy, name, args);
    } catch (error) {
      return refused(error as ToolError);
    }
    // A relayed call was counted by its follower; a batch is not counted itself, its steps are (below).
    if (hooks.relay?.role === 'follower' || name === 'batch') return this.onSession(tool, args, hooks);
    const budget = name === 'get_bridge_status' ? this.budget.status(hooks.sessionKey) : undefined;
    return withinBudget(this.budget, name, hooks.sessionKey, () => this.onSession(tool, args, budget ? { ...hooks, budget } : hooks), refused);
  }

  /**
   * Runs a call on its Session. close_browser on that session ends the calls in flight on its browser
   * (Session.browserSignal): the call's signal aborts on either. Joined by hand, its listener removed when the call
   * ends (the session's signal lives long).
   */
  private async onSession(tool: AnyTool, args: unknown, hooks: CallHooks): Promise<ToolResult> {
    const session = this.sessionFor(hooks.sessionKey, hooks.isolate);
    const joined = new AbortController();
    const stop = () => joined.abort(hooks.signal.aborted ? hooks.signal.reason : session.browserSignal.reason);
    const browserSignal = session.browserSignal;
    if (hooks.signal.aborted || browserSignal.aborted) stop();
    hooks.signal.addEventListener('abort', stop, { once: true });
    browserSignal.addEventListener('abort', stop, { once: true });
    try {
      return await this.dispatch(tool, args, hooks, session, joined.signal);
    } finally {
      hooks.signal.removeEventListener('abort', stop);
      browserSignal.removeEventListener('abort', stop);
    }
  }

  /** Runs one call of `tool` on `session` with `signal` (the caller's joined with the session's browserSignal). */
  private async dispatch(tool: AnyTool, args: unknown, hooks: CallHooks, session: Session, signal: AbortSignal): Promise<ToolResult> {
    let config = hooks.workspace && hooks.workspace !== this.config.workspace ? { ...this.config, workspace: hooks.workspace } : this.config;
    if (hooks.consent) config = { ...config, consent: { ...hooks.consent, terminal: false } };
    const relay = hooks.relay ?? { role: 'standalone', leaderPid: process.pid, relayProtocol: RELAY_PROTOCOL };
    const wasRunning = session.running;
    const call: CallContext = {
      session, config, signal, client: hooks.client, relay, prompt: hooks.prompt, progress: hooks.progress, waiting: hooks.waiting, budget: hooks.budget,
      browserStartedByCall: () => !wasRunning && session.running,
    };
    // Tab ids are per Session: an isolated session's tab 1 is not the main session's tab 1.
    const scope = session === this.session ? '' : `${hooks.sessionKey}:`;
    const caller = hooks.caller ?? { id: `pid ${process.pid}${hooks.sessionKey !== undefined ? ` session ${hooks.sessionKey}` : ''}`, name: hooks.client.name };
    call.leases = this.leases.desk(scope, caller);
    call.caller = caller;
    // A batch's steps run as calls of their own (src/tools/batch.ts): validated, locked and gated one by one.
    call.steps = {
      tool: stepName => TOOLS_BY_NAME.get(stepName),
      all: () => TOOLS,
      // Each step passes the policy and, unless a follower relayed the batch (it counted the batch as one call),
      // the budget as a call of its own (docs/policy.md).
      run: (stepTool, stepArgs, over) => {
        try {
          checkCall(this.config.policy, stepTool.name, stepArgs);
        } catch (error) {
          return Promise.resolve(refused(error as ToolError));
        }
        // A task run's steps (src/tasks/) have no waiting hook: the call that started the run has ended.
        const step = () => this.run(stepTool, stepArgs, over ? { ...call, ...over, waiting: undefined, steps: undefined, progress: async () => undefined } : { ...call, steps: undefined, progress: async () => undefined }, scope);
        return hooks.relay?.role === 'follower' ? step() : withinBudget(this.budget, stepTool.name, hooks.sessionKey, step, refused);
      },
    };
    return this.run(tool, args, call, scope);
  }

  /** Runs one call of `tool`, holding its tab's lock when it takes one (src/dispatch/tabLocks.ts). */
  private async run(tool: AnyTool, args: unknown, call: CallContext, scope: string): Promise<ToolResult> {
    const { session } = call;
    // The tab the call will act on, resolved as its handler resolves it (a ref names its own tab); else the active tab.
    const tabId = tool.tabOf ? tool.tabOf(args, session) : rawTabId(args);
    const key = scope + String(tabId ?? session.activeTabId ?? 'active');
    // A page-changing call on a tab someone else leases is refused before anything runs; reads stay free.
    if (changesTab(tool) && call.caller) {
      try {
        this.leases.check(key, call.caller, tool.name);
      } catch (error) {
        return refused(error as ToolError);
      }
    }
    if (!locksTab(tool)) return (await invokeTool(tool, args, call)).build();
    let release: () => void;
    const queued = this.tabLocks.held(key);
    if (queued) call.waiting?.({ kind: 'tab_lock', tabId: tabId ?? session.activeTabId });
    try {
      release = await this.tabLocks.acquire(key, call.signal);
    } catch (error) {
      return refused(error as ToolError);
    }
    if (queued) call.waiting?.(undefined);
    try {
      return (await invokeTool(tool, args, call)).build();
    } finally {
      release();
    }
  }

  async readResource(uri: string): Promise<ResourceText[] | undefined> {
    return readScriptResource(uri, this.config);
  }

  async close(): Promise<void> {
    // Task runs end with this process: they show as interrupted, with the steps they took (docs/tasks.md).
    interruptLiveRuns();
    const keyed = [...this.keyed.values()];
    this.keyed.clear();
    await Promise.all(keyed.map(session => session.close()));
    await closeScriptServices().catch(() => undefined);
    this.budget.close();
    await this.session.close();
  }
}

/** The result of a call refused before it ran (the policy, the call budget, a lease). */
function refused(error: ToolError): ToolResult {
  return new ToolResponse().fail(error).build();
}

/**
 * Whether calls of `tool` change the tab they name (what a lease reserves): the page-changing tab tools, those that
 * take expectRevision (src/tools/define.ts isGuarded). Reads and the lease tools themselves do not.
 */
function changesTab(tool: AnyTool): boolean {
  return 'expectRevision' in tool.input.shape;
}

/** The `tabId` argument of a call, if it is a number (a tool without `tabOf`). */
function rawTabId(args: unknown): number | undefined {
  const tabId = (args as { tabId?: unknown } | undefined)?.tabId;
  return typeof tabId === 'number' ? tabId : undefined;
}
