/**
 * The wire between the broker (./broker.ts) and the companion userscript (userscript/src/companion.ts), shared by
 * both sides: it imports nothing. The frames are seed 001's browser protocol with tabwright's names
 * (docs/userscript-connection.md, "The protocol"); the transport is HTTP long-poll over GM_xmlhttpRequest, the one
 * way out of the content world that Tampermonkey, Violentmonkey and ScriptCat all offer (OWN-BROWSER.md §5): a
 * "connection" is a channel the companion opens, then feeds with `send` and drains with `poll`.
 *
 * Routes, under the broker URL `http://127.0.0.1:<relay port>/userscript/<token>` (POST, JSON bodies):
 *   `<broker>/<target>/open`        → `{conn}`: a new channel for tab `target` (the hello deadline starts)
 *   `<broker>/<target>/<conn>/send` ← `[frame, …]` → `{ok: true}` or `{close}`
 *   `<broker>/<target>/<conn>/poll` → `{frames: [frame, …]}` within POLL_MS, with `close` once the channel ended
 * and, without the token, `GET /userscript/tabwright.user.js` (the companion itself, for installing and updating).
 */

/** The protocol's name and major version, the first two items of the hello. */
export const USERSCRIPT_PROTOCOL = 'tabwright-userscript';
export const USERSCRIPT_PROTOCOL_MAJOR = 1;
export const USERSCRIPT_PROTOCOL_MINOR = 0;

/** Where the companion is served, and the path prefix of everything the broker serves. */
export const USERSCRIPT_PREFIX = '/userscript';
export const COMPANION_PATH = `${USERSCRIPT_PREFIX}/tabwright.user.js`;

/** A channel that sent no valid hello within this many ms is closed (HELLO_DEADLINE close code). */
export const HELLO_DEADLINE_MS = 15_000;
/** A disconnected tab's identity (target, instance id, revision) is kept this many ms for it to come back. */
export const IDENTITY_KEEP_MS = 30_000;
/** A poll is answered with no frames after this many ms (the companion polls again at once). */
export const POLL_MS = 20_000;
/** A channel with no poll waiting for this many ms is gone: the tab closed or its document left. */
export const CHANNEL_SILENCE_MS = 8_000;
/** The largest body the companion may send, in bytes: the largest max_bytes and room for the envelope. */
export const MAX_SEND_BYTES = 2 * 1024 * 1024 + 64 * 1024;

/** execute's limits (seed 001): max_bytes 1 KiB..2 MiB, 16 KiB by default; timeout 1..300 s, 30 s by default. */
export const MIN_MAX_BYTES = 1024;
export const MAX_MAX_BYTES = 2 * 1024 * 1024;
export const DEFAULT_MAX_BYTES = 16 * 1024;

/** Close codes of a channel, as WebSocket's: what `close.code` says. */
export const CLOSE = {
  /** `quit`, or the broker stopping. */
  normal: 1000,
  /** A malformed frame or body. */
  protocolError: 1002,
  /** No valid hello within HELLO_DEADLINE_MS. */
  helloDeadline: 1008,
  /** A newer channel of the same tab took over. */
  replaced: 4000,
  /** The broker does not know this channel (it restarted, or the channel ended long ago). */
  unknown: 4004,
} as const;

/** What the companion reports of its document: URL and title (the title without the indicator prefix). */
export interface PageMeta {
  url: string;
  title: string;
}

/** The first frame of a channel: `[protocol, major, minor, instanceId, meta]`. */
export type HelloFrame = [typeof USERSCRIPT_PROTOCOL, number, number, string, PageMeta];

/** What the companion can be asked to do. */
export type CallMethod = 'execute' | 'navigate' | 'add_element';

/** Broker → companion. */
export type BrokerFrame =
  | ['welcome', string, string, number]
  | ['call', number, 'execute' | 'navigate', { code: string; max_bytes: number }]
  | ['call', number, 'add_element', AddElementParams]
  | ['proceed', number]
  | ['cancel', number];

/** The params of an add_element call (GM_addElement in the content world). */
export interface AddElementParams {
  tag: string;
  /** A document CSS selector; undefined: the document element. */
  parent?: string;
  /** HTML attributes (strings). */
  attributes?: Record<string, string>;
  /** DOM properties given at creation (textContent, innerHTML, …). */
  properties?: Record<string, unknown>;
}

/** Companion → broker, after the hello. */
export type CompanionFrame =
  | ['reply', number, true, unknown]
  | ['reply', number, false, string]
  | ['ready', number]
  | ['navigated', number, PageMeta]
  | ['state', PageMeta]
  | ['quit'];

/** The prefix of a failed reply's error string when the result was larger than the call's max_bytes. */
export const OVERSIZED = 'result_too_large:';

const isMeta = (v: unknown): v is PageMeta =>
  typeof v === 'object' && v !== null && typeof (v as PageMeta).url === 'string' && typeof (v as PageMeta).title === 'string';
const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** `frame` as a hello, or undefined when it is not one (wrong protocol name, types or arity). */
export function parseHello(frame: unknown): HelloFrame | undefined {
  if (!Array.isArray(frame) || frame.length !== 5) return undefined;
  const [name, major, minor, instanceId, meta] = frame as unknown[];
  if (name !== USERSCRIPT_PROTOCOL || typeof major !== 'number' || typeof minor !== 'number') return undefined;
  if (typeof instanceId !== 'string' || instanceId.length < 1 || instanceId.length > 128 || !isMeta(meta)) return undefined;
  return frame as HelloFrame;
}

/** `frame` as a companion frame, or undefined when it is malformed (the channel then closes with 1002). */
export function parseCompanionFrame(frame: unknown): CompanionFrame | undefined {
  if (!Array.isArray(frame) || typeof frame[0] !== 'string') return undefined;
  const [kind, a, b] = frame as unknown[];
  switch (kind) {
    case 'reply':
      return frame.length === 4 && isId(a) && (b === true || (b === false && typeof frame[3] === 'string')) ? frame as CompanionFrame : undefined;
    case 'ready':
      return frame.length === 2 && isId(a) ? frame as CompanionFrame : undefined;
    case 'navigated':
      return frame.length === 3 && isId(a) && isMeta(b) ? frame as CompanionFrame : undefined;
    case 'state':
      return frame.length === 2 && isMeta(a) ? frame as CompanionFrame : undefined;
    case 'quit':
      return frame.length === 1 ? frame as CompanionFrame : undefined;
    default:
      return undefined;
  }
}
