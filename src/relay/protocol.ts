/**
 * The leader/follower relay's wire format (docs/relay.md). One WebSocket per follower on 127.0.0.1:TABWRIGHT_WS_PORT,
 * JSON text frames. The first two frames (`hello`, then `welcome`,
 * `refused` or `step_down`) keep their shape across every relay protocol
 * version, so two builds can always tell each other which one is older;
 * every other frame may change, and changing one moves RELAY_PROTOCOL.
 */
import type { BrowserSettings } from './browserSettings.js';
import type { BudgetStatus } from '../dispatch/callBudget.js';
import { isConsentAnswer, type ConsentAnswer, type ConsentQuestion, type PromptChannel } from '../consent/channel.js';
import type { ConsentConfig } from '../config.js';
import type { ClientInfo } from '../tools/context.js';
import type { ToolErrorData } from '../errors.js';
import type { ToolResult } from '../tools/response.js';
import type { WaitingFor } from '../tools/waiting.js';
import { VERSION } from '../version.js';

/** The relay's own protocol version. Package versions may differ freely; only a change to the frames moves this. */
export const RELAY_PROTOCOL = 1;

/** Default relay port (`TABWRIGHT_WS_PORT`), loopback only. */
export const DEFAULT_RELAY_PORT = 19680;

/** Largest frame either side accepts, in bytes (an inline screenshot plus JSON fits with room). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

type Env = Record<string, string | undefined>;

/** `TABWRIGHT_WS_PORT`, else 19680. @throws Error for anything but an integer 1..65535. */
export function relayPort(env: Env = process.env): number {
  const text = env.TABWRIGHT_WS_PORT;
  if (text === undefined || text === '') return DEFAULT_RELAY_PORT;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`TABWRIGHT_WS_PORT="${text}" is not a port number (1..65535).`);
  return port;
}

/**
 * What this process says it is in the handshake: the package version and
 * the relay protocol. Test-only overrides (documented in
 * docs/relay.md): `TABWRIGHT_RELAY_ADVERTISE_VERSION` and
 * `TABWRIGHT_RELAY_ADVERTISE_PROTOCOL`, so one build can play an older or
 * newer one.
 */
export function advertised(env: Env = process.env): { version: string; relayProtocol: number } {
  const protocol = Number(env.TABWRIGHT_RELAY_ADVERTISE_PROTOCOL);
  return {
    version: env.TABWRIGHT_RELAY_ADVERTISE_VERSION || VERSION,
    relayProtocol: Number.isInteger(protocol) && protocol > 0 ? protocol : RELAY_PROTOCOL,
  };
}

/** Compares dotted numeric versions (`0.10.2` > `0.9.9`; a pre-release suffix is ignored): <0, 0 or >0. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[-+]/)[0]!.split('.').map(n => Number.parseInt(n, 10) || 0);
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The consent settings a follower's own flags give its calls (`--auto-allow`, `--auto-deny`, the timeout). */
export type RelayedConsent = Pick<ConsentConfig, 'auto' | 'timeoutMs'>;

/** Follower → leader. */
export type FollowerFrame =
  /** First frame. `profile` is the follower's browser profile dir; a leader on another profile refuses it. */
  | { t: 'hello'; token: string; version: string; relayProtocol: number; pid: number; profile: string }
  | {
    t: 'call'; id: number; tool: string; args: unknown; client: ClientInfo; workspace?: string; consent: RelayedConsent;
    /** The follower's MCP session and whether it gets a browser context of its own (the daemon's `/mcp`). */
    sessionKey?: string;
    isolate?: boolean;
    /** The follower can ask its human: `channel` is its PromptChannel's name. */
    prompt?: PromptChannel['name'];
    /** The follower's own call budget, sent with get_bridge_status calls (it counts its callers' calls itself). */
    budget?: BudgetStatus;
  }
  | { t: 'cancel'; id: number }
  /** The follower's MCP session `sessionKey` ended: its browser context closes. */
  | { t: 'end_session'; sessionKey: string }
  /** The answer to a `prompt`: the human's answer, `pending` (the question went out in the follower's result: 2026-07-28), or an error. */
  | { t: 'answer'; id: number; promptId: number; answer?: ConsentAnswer; pending?: true; error?: ToolErrorData };

/** Leader → follower. */
export type LeaderFrame =
  /** `browser`: how the leader's browser runs (./browserSettings.ts; absent from older leaders). */
  | { t: 'welcome'; version: string; relayProtocol: number; pid: number; browser?: BrowserSettings }
  /** The handshake failed; the socket closes after it. `retry`: worth trying again soon (the leader was busy or closing). */
  | { t: 'refused'; error: ToolErrorData; retry: boolean }
  /** The follower is newer: the leader steps down; the follower should take the port once it is free. */
  | { t: 'step_down'; version: string }
  | { t: 'result'; id: number; result: ToolResult }
  | { t: 'progress'; id: number; done: number; total?: number; message?: string }
  /**
   * What the call waits for now (CallContext.waiting; null: nothing named). The follower's front words its progress
   * and pending results with it. Added within relay protocol 1: a follower that does not know it ignores it, as
   * both sides ignore frames they do not know, and a leader that does not send it leaves the pending text generic.
   */
  | { t: 'waiting'; id: number; waitingFor: WaitingFor | null }
  | { t: 'prompt'; id: number; promptId: number; question: ConsentQuestion }
  /** The leader stopped waiting for this question (the call was cancelled or expired). */
  | { t: 'prompt_cancel'; id: number; promptId: number; error: ToolErrorData };

/** Parses a frame; undefined for anything that is not a JSON object with a string `t`. */
export function parseFrame<T extends { t: string }>(data: unknown): T | undefined {
  try {
    const value = JSON.parse(String(data)) as unknown;
    return value && typeof value === 'object' && typeof (value as { t?: unknown }).t === 'string' ? value as T : undefined;
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optional = (v: unknown, type: 'string' | 'boolean'): boolean => v === undefined || typeof v === type;
const isCallId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isErrorData = (v: unknown): boolean =>
  isObject(v) && typeof v.type === 'string' && typeof v.message === 'string' && optional(v.hint, 'string');

/**
 * A follower's frame with the fields the leader reads of its kind checked
 * (types, not values): undefined for anything else, which the leader
 * ignores (or refuses, for the hello). A frame of a kind this build does
 * not know is returned as it is, and ignored, as the module doc says.
 */
export function parseFollowerFrame(data: unknown): FollowerFrame | undefined {
  const frame = parseFrame<FollowerFrame>(data) as (FollowerFrame & Record<string, unknown>) | undefined;
  if (!frame) return undefined;
  const f = frame as Record<string, unknown>;
  switch (frame.t) {
    case 'hello':
      return typeof f.token === 'string' && typeof f.version === 'string' && typeof f.relayProtocol === 'number' && typeof f.pid === 'number' && typeof f.profile === 'string' ? frame : undefined;
    case 'call':
      return isCallId(f.id) && typeof f.tool === 'string' && isObject(f.consent) && (f.client === undefined || isObject(f.client))
        && optional(f.workspace, 'string') && optional(f.sessionKey, 'string') && optional(f.isolate, 'boolean') && optional(f.prompt, 'string')
        && (f.budget === undefined || isObject(f.budget)) ? frame : undefined;
    case 'cancel':
      return isCallId(f.id) ? frame : undefined;
    case 'end_session':
      return typeof f.sessionKey === 'string' ? frame : undefined;
    case 'answer':
      return isCallId(f.id) && isCallId(f.promptId) && (f.answer === undefined || isConsentAnswer(f.answer)) && (f.pending === undefined || f.pending === true)
        && (f.error === undefined || isErrorData(f.error)) ? frame : undefined;
    default:
      return frame;
  }
}
