/**
 * What a tool handler gets besides its input: the session, the config, the
 * caller's abort signal and a progress reporter. Every front (MCP, CLI,
 * daemon) builds one per call.
 */
import type { Config } from '../config.js';
import type { PromptChannel } from '../consent/channel.js';
import type { Session } from '../session/session.js';
import type { WaitingFor } from './waiting.js';

export interface ClientInfo {
  /** Negotiated MCP protocol revision (`2026-07-28`, `2025-11-25`, ...), if the front is MCP. */
  protocolVersion?: string;
  era?: 'legacy' | 'modern';
  name?: string;
  version?: string;
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
}
