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
import type { CallContext, ClientInfo, RelayStatus } from '../tools/context.js';
import { ToolError } from '../errors.js';
import { invokeTool } from '../tools/invoke.js';
import { TOOLS_BY_NAME } from '../tools/registry.js';
import type { ToolResult } from '../tools/response.js';
import type { WaitingFor } from '../tools/waiting.js';
import { ToolResponse } from '../tools/response.js';
import { locksTab, TabLocks } from './tabLocks.js';
import { readScriptResource, type ResourceText } from '../userscripts/resources.js';
import { closeScriptServices } from '../userscripts/service.js';

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
}

/** Runs calls on this process's Session: what a leader (or a lone process) does. */
export class LocalDispatcher implements Dispatcher {
  /** With `--isolate-sessions`: one Session per sessionKey, each in its own context of the main session's browser. */
  private readonly keyed = new Map<string, Session>();
  /** Per-tab FIFO locks: calls that act on the same tab run one at a time (src/dispatch/tabLocks.ts). */
  private readonly tabLocks = new TabLocks();

  constructor(readonly session: Session, readonly config: Config) {}

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

  async endSession(sessionKey: string): Promise<void> {
    const session = this.keyed.get(sessionKey);
    this.keyed.delete(sessionKey);
    await session?.close();
  }

  async call(name: string, args: unknown, hooks: CallHooks): Promise<ToolResult> {
    const tool = TOOLS_BY_NAME.get(name);
    if (!tool) {
      return new ToolResponse().fail(new ToolError('unknown_tool', `There is no tool named "${name}".`, 'List the tools with tools/list or `tabwright schema`.')).build();
    }
    let config = hooks.workspace && hooks.workspace !== this.config.workspace ? { ...this.config, workspace: hooks.workspace } : this.config;
    if (hooks.consent) config = { ...config, consent: { ...hooks.consent, terminal: false } };
    const session = this.sessionFor(hooks.sessionKey, hooks.isolate);
    const relay = hooks.relay ?? { role: 'standalone', leaderPid: process.pid, relayProtocol: RELAY_PROTOCOL };
    const call: CallContext = { session, config, signal: hooks.signal, client: hooks.client, relay, prompt: hooks.prompt, progress: hooks.progress, waiting: hooks.waiting };
    if (!locksTab(tool)) return (await invokeTool(tool, args, call)).build();
    // The tab the call will act on, resolved as its handler resolves it (a ref names its own tab); else the active tab.
    const tabId = tool.tabOf ? tool.tabOf(args, session) : rawTabId(args);
    // Tab ids are per Session: an isolated session's tab 1 is not the main session's tab 1.
    const scope = session === this.session ? '' : `${hooks.sessionKey}:`;
    const key = scope + String(tabId ?? session.activeTabId ?? 'active');
    let release: () => void;
    const queued = this.tabLocks.held(key);
    if (queued) hooks.waiting?.({ kind: 'tab_lock', tabId: tabId ?? session.activeTabId });
    try {
      release = await this.tabLocks.acquire(key, hooks.signal);
    } catch (error) {
      return new ToolResponse().fail(error as ToolError).build();
    }
    if (queued) hooks.waiting?.(undefined);
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
    const keyed = [...this.keyed.values()];
    this.keyed.clear();
    await Promise.all(keyed.map(session => session.close()));
    await closeScriptServices().catch(() => undefined);
    await this.session.close();
  }
}

/** The `tabId` argument of a call, if it is a number (a tool without `tabOf`). */
function rawTabId(args: unknown): number | undefined {
  const tabId = (args as { tabId?: unknown } | undefined)?.tabId;
  return typeof tabId === 'number' ? tabId : undefined;
}
