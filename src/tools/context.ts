/**
 * What a tool handler gets besides its input: the session, the config, the
 * caller's abort signal and a progress reporter. Every front (MCP, CLI,
 * daemon) builds one per call.
 */
import type { Config } from '../config.js';
import type { PromptChannel } from '../consent/channel.js';
import type { Session } from '../session/session.js';
import type { AnyTool } from './define.js';
import type { ToolResult } from './response.js';
import type { WaitingFor } from './waiting.js';

export interface ClientInfo {
  /** Negotiated MCP protocol revision (`2026-07-28`, `2025-11-25`, ...), if the front is MCP. */
  protocolVersion?: string;
  era?: 'legacy' | 'modern';
  name?: string;
  version?: string;
  /** The front the call came through (`mcp-stdio`, `mcp-http`, `cli`), for the dashboard's list of sessions. */
  front?: 'mcp-stdio' | 'mcp-http' | 'cli';
}

/**
 * This process's place in the relay (src/relay), per call: what
 * get_bridge_status reports. The dispatcher that runs the call sets it (a
 * call relayed from a follower carries the follower's role).
 */
export interface RelayStatus {
  /**
   * `leader`: owns the browser and serves followers; `follower`: relays its calls to the leader;
   * `standalone`: owns a browser no other process shares (`--isolated`, an attached browser, or the
   * relay port held by a process on another profile or by something else).
   */
  role: 'leader' | 'follower' | 'standalone';
  /** Pid of the process that owns the browser (the caller's own pid unless it follows). */
  leaderPid: number;
  /** The relay's protocol version (RELAY_PROTOCOL, src/relay/protocol.ts). */
  relayProtocol: number;
}

/** A call budget as it stands (`--max-calls`; src/dispatch/callBudget.ts): used and limit per scope. */
export interface BudgetStatus {
  session?: { used: number; limit: number };
  /** `resetsAt`: the next local midnight, ISO 8601. `used` is -1 when the count file cannot be read. */
  day?: { used: number; limit: number; resetsAt: string };
}

/** Who calls: a stable id (process and session) and a name to show (the MCP client's name). */
export interface Caller {
  id: string;
  name?: string;
}

/** A tab's lease. */
export interface Lease {
  tabId: number;
  holder: Caller;
  /** Epoch ms. */
  expiresAt: number;
}

/** What a lease tool can do (CallContext.leases, given by the dispatcher; src/dispatch/leases.ts). */
export interface LeaseDesk {
  /** Leases or renews `tabId` for the caller for `ttlSec`. @throws ToolError lease_held (another holder's). */
  lease(tabId: number, ttlSec: number): Lease;
  /** Ends the caller's lease of `tabId`; false when there was none. @throws ToolError lease_held (another holder's). */
  release(tabId: number): boolean;
  /** The live lease of `tabId`, if any. */
  of(tabId: number): Lease | undefined;
}

export interface CallContext {
  session: Session;
  config: Config;
  /** Aborted when the caller cancels or disconnects. */
  signal: AbortSignal;
  /** Reports progress; `done` must increase within a call. A no-op when the caller did not ask. */
  progress(done: number, total?: number, message?: string): Promise<void>;
  client: ClientInfo;
  /** The caller's place in the relay. */
  relay: RelayStatus;
  /**
   * How this caller can put a consent question to its human (the MCP front:
   * elicitation, when the client declared it); undefined when it cannot.
   * The gate then falls back to the server's terminal (src/consent/gate.ts).
   */
  prompt?: PromptChannel;
  /**
   * Says what the call waits for now (a consent answer, a page tool, a form
   * submit, execute code; undefined: nothing in particular). The fronts word
   * their progress messages and pending results with it (./waiting.ts).
   * Optional: a caller that does not listen leaves it out.
   */
  waiting?(what: WaitingFor | undefined): void;
  /**
   * The caller's call budget as it stands (`--max-calls`; src/dispatch/callBudget.ts), given to get_bridge_status
   * calls only: the budget of the process the client talks to (a relayed call carries its follower's). Undefined:
   * no caps, or not asked.
   */
  budget?: BudgetStatus;
  /**
   * Runs other tools as steps of this call (the batch tool; src/tools/batch.ts), each as the dispatcher runs a
   * call: its own validation, tab lock and consent. Set by the dispatcher; undefined where steps cannot run.
   */
  steps?: StepRunner;
  /** The tab leases of the dispatcher, as this caller sees them (lease_tab, release_tab). Undefined where none are kept. */
  leases?: LeaseDesk;
  /** Who calls (the lease holder it would be). Set by the dispatcher. */
  caller?: Caller;
  /** True when the browser started during this call (it was not running when the call came). Set by the dispatcher. */
  browserStartedByCall?(): boolean;
}

/** How a call runs other tools as its steps (CallContext.steps). */
export interface StepRunner {
  /** The tool named `name`, if there is one. */
  tool(name: string): AnyTool | undefined;
  /** Every tool (the registry), for a caller that picks its own subset (src/tasks/toolset.ts). */
  all(): readonly AnyTool[];
  /**
   * Runs `tool` with raw `args` as the dispatcher would. Never throws: a failure is an `isError` result.
   * @param over  what the step gets instead of the caller's: its own consent channel (a task run's questions go to
   *   the run, src/tasks/channel.ts) and signal.
   */
  run(tool: AnyTool, args: unknown, over?: Pick<CallContext, 'prompt' | 'signal'>): Promise<ToolResult>;
}
