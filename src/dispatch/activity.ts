/**
 * What a LocalDispatcher has run, for the human's dashboard (docs/dashboard.md): the callers seen (client name, front,
 * workspace) and a bounded log of calls (tool, tab, start, duration, outcome). Never a call's arguments: no typed text,
 * no evaluated code, no URL a tool was given; the log holds the tool's name and the tab it acted on only.
 */
import { EventEmitter } from 'node:events';
import type { ClientInfo } from '../tools/context.js';
import type { ToolResult } from '../tools/response.js';

/** How many calls the log keeps (the oldest go first). */
export const ACTIVITY_CALLS = 200;
/** How many callers the list keeps (the least recently active go first). */
export const ACTIVITY_SESSIONS = 100;

/** How a call ended: `ok`, `pending` (still running), or the error type of a failed call (`consent_denied`, ...). */
export type CallOutcome = string;

/** One call in the log. Times are epoch ms. */
export interface ActivityCall {
  /** Increasing number of the call in this process. */
  seq: number;
  tool: string;
  /** The tab the call named or acted on, when known. */
  tabId?: number;
  /** The caller's key in `sessions` (./activity.ts callerKey). */
  caller: string;
  startedAt: number;
  /** Undefined while it runs. */
  durationMs?: number;
  outcome: CallOutcome;
}

/** A caller seen by this dispatcher: one MCP session, the daemon's CLI calls, or a relay follower's session. */
export interface ActivitySession {
  key: string;
  /** The MCP client's name and version from `initialize` (`tabwright-daemon-http` for CLI calls), when known. */
  client?: string;
  clientVersion?: string;
  /** How it reaches this process: `mcp-stdio`, `mcp-http`, `cli`, or `relay follower (pid N) via <front>`. */
  front: string;
  workspace?: string;
  firstSeen: number;
  lastSeen: number;
  calls: number;
}

/** The identity a call carries, as LocalDispatcher knows it (CallHooks). */
export interface CallerOf {
  client: ClientInfo;
  sessionKey?: string;
  workspace?: string;
  /** The follower's pid for a call relayed from a follower. */
  followerId?: string;
}

/** Events: `change` after a call started or ended (listeners debounce). */
export interface ActivityEvents {
  change: [call: ActivityCall];
}

/** The activity of one dispatcher: callers and the bounded call log. */
export class Activity extends EventEmitter<ActivityEvents> {
  private readonly log: ActivityCall[] = [];
  private readonly seen = new Map<string, ActivitySession>();
  private seq = 0;

  /** Records a call's start; returns the function that records its end with the result. */
  start(tool: string, tabId: number | undefined, who: CallerOf): (result: ToolResult | undefined) => void {
    const front = who.followerId ? `relay follower (${who.followerId}) via ${who.client.front ?? 'mcp'}` : who.client.front ?? 'mcp';
    const key = `${who.followerId ?? 'here'}|${front}|${who.sessionKey ?? ''}|${who.client.name ?? ''}`;
    const now = Date.now();
    const session = this.seen.get(key) ?? { key, front, firstSeen: now, lastSeen: now, calls: 0 };
    Object.assign(session, { client: who.client.name, clientVersion: who.client.version, workspace: who.workspace ?? session.workspace, lastSeen: now, calls: session.calls + 1 });
    this.seen.delete(key);
    this.seen.set(key, session); // the Map's order is the order of last calls: the first is the least recent
    if (this.seen.size > ACTIVITY_SESSIONS) this.seen.delete(this.seen.keys().next().value!);
    const call: ActivityCall = { seq: ++this.seq, tool, tabId, caller: key, startedAt: now, outcome: 'pending' };
    this.log.push(call);
    if (this.log.length > ACTIVITY_CALLS) this.log.splice(0, this.log.length - ACTIVITY_CALLS);
    this.emit('change', call);
    return result => {
      call.durationMs = Date.now() - call.startedAt;
      call.outcome = outcomeOf(result);
      const tab = (result?.structuredContent as { tabId?: unknown } | undefined)?.tabId;
      if (call.tabId === undefined && typeof tab === 'number') call.tabId = tab;
      this.emit('change', call);
    };
  }

  /** The calls in the log, newest first (copies). */
  calls(): ActivityCall[] {
    return this.log.map(c => ({ ...c })).reverse();
  }

  /** The callers seen, most recently active first (copies). */
  sessions(): ActivitySession[] {
    return [...this.seen.values()].map(s => ({ ...s })).sort((a, b) => b.lastSeen - a.lastSeen);
  }
}

/** `ok`, or the error type of a failed result (`internal` when it names none). */
function outcomeOf(result: ToolResult | undefined): CallOutcome {
  if (!result) return 'internal';
  if (!result.isError) return 'ok';
  const type = (result.structuredContent as { error?: { type?: unknown } } | undefined)?.error?.type;
  return typeof type === 'string' ? type : 'internal';
}
