/**
 * The dispatch seam of issue #7: every front (MCP over stdio, the daemon's
 * HTTP API and its `/mcp`) hands a tool call to a Dispatcher. The leader
 * process runs calls on its own Session (LocalDispatcher); a follower relays
 * them to the leader over the bridge port (src/relay). Fronts never touch a
 * Session directly, so a follower serves the same tools as a leader.
 */
import type { Config } from '../config.js';
import type { PromptChannel } from '../consent/channel.js';
import type { Session } from '../session/session.js';
import type { CallContext, ClientInfo } from '../tools/context.js';
import { ToolError } from '../tools/errors.js';
import { invokeTool } from '../tools/invoke.js';
import { TOOLS_BY_NAME } from '../tools/registry.js';
import type { ToolResult } from '../tools/response.js';
import { ToolResponse } from '../tools/response.js';
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
  /** Absolute folder that receives files this call writes (issue #7: per caller). Default: the config's workspace. */
  workspace?: string;
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
  /**
   * Reads an MCP resource (issue #6: `tabwright://scripts`, ...; src/userscripts/resources.ts).
   * Undefined when the URI names nothing. Optional: a dispatcher without it serves no resources.
   */
  readResource?(uri: string): Promise<ResourceText[] | undefined>;
}

/** Runs calls on this process's Session: what a leader (or a lone process) does. */
export class LocalDispatcher implements Dispatcher {
  constructor(readonly session: Session, readonly config: Config) {}

  async call(name: string, args: unknown, hooks: CallHooks): Promise<ToolResult> {
    const tool = TOOLS_BY_NAME.get(name);
    if (!tool) {
      return new ToolResponse().fail(new ToolError('unknown_tool', `There is no tool named "${name}".`, 'List the tools with tools/list or `tabwright schema`.')).build();
    }
    const config = hooks.workspace && hooks.workspace !== this.config.workspace ? { ...this.config, workspace: hooks.workspace } : this.config;
    const call: CallContext = { session: this.session, config, signal: hooks.signal, client: hooks.client, prompt: hooks.prompt, progress: hooks.progress };
    return (await invokeTool(tool, args, call)).build();
  }

  async readResource(uri: string): Promise<ResourceText[] | undefined> {
    return readScriptResource(uri, this.config);
  }

  async close(): Promise<void> {
    await closeScriptServices().catch(() => undefined);
    await this.session.close();
  }
}
