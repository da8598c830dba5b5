/**
 * The extension link's wire (docs/own-browser.md, "Extension"; EXTENSION-DESIGN.md §4.3-§4.4), shared by the server
 * (src/browser/extension/) and the companion extension (extension/, bundled by esbuild): no Node, no DOM beyond
 * what both have (TextEncoder). JSON text frames, one object each.
 *
 * Handshake, on `ws://127.0.0.1:<relay port>/extension` (the upgrade's Origin must be our extension's):
 *   ext → srv  {t:'hello', v, extId, extVersion, bootId, clientNonce, userAgent, features}
 *   srv → ext  {t:'challenge', serverNonce, serverProof = HMAC(K, transcript('server', clientNonce, serverNonce, extId))}
 *   ext → srv  {t:'auth', proof = HMAC(K, transcript('ext', serverNonce, clientNonce, extId))}
 *   srv → ext  {t:'welcome', protocol, server:{name, version}}
 * K is the 32-byte pairing key; nonces are 32 random bytes in hex, fresh per socket, so a recorded proof is useless
 * on the next socket. A wrong proof, or no `auth` within PAIRING_TIMEOUT_MS of the upgrade: close 4001.
 *
 * After `welcome`: requests `{id, m, p}`, responses `{id, r}` or `{id, e:{code, message}}`, events `{ev, p}`, in both
 * directions (the server asks, the extension answers; the extension also emits events).
 *
 * `cdp.send` is `{tabId, method, params, sessionId?, put?, ref?}`: with the `cache` feature in the hello, the
 * server may leave a large script out of `params` and name its id in `ref`, or send it and name the id to keep it
 * under in `put` (./frameCache.ts); a ref the worker does not hold is answered with code `cache_miss`.
 */

/** The ID Chrome gives our extension: computed from the public `key` of extension/manifest.json (test/extension/id.test.ts). */
export const EXTENSION_ID = 'kdhjlkjocjmfjjgnkeooepallfmfadbm';

/** The link's protocol version (`hello.v` is the [min, max] the extension speaks). */
export const LINK_PROTOCOL = 1;

/** The path the extension dials on the relay port. */
export const LINK_PATH = '/extension';

/** The relay port both sides default to (TABWRIGHT_WS_PORT; the pairing page stores another). */
export const DEFAULT_LINK_PORT = 19680;

/** How long a socket has from its upgrade to a correct `auth`, in ms; then close 4001. */
export const PAIRING_TIMEOUT_MS = 10_000;

/** Close codes of the link. */
export const CLOSE = {
  /** Wrong proof, or not paired within PAIRING_TIMEOUT_MS. */
  unauthorized: 4001,
  /** A protocol version neither side can speak. */
  version: 4002,
  /** A newer link of the same pairing took this one's place. */
  replaced: 4004,
  /** The server is closing. */
  closing: 4005,
} as const;

/** `userAgent`: the browser's navigator.userAgent (the relay answers Browser.getVersion from it). */
/** `features`: what the extension understands beyond the protocol version (`cache`: ./frameCache.ts). */
export interface HelloFrame { t: 'hello'; v: [number, number]; extId: string; extVersion: string; bootId: string; clientNonce: string; userAgent?: string; features?: string[] }
export interface ChallengeFrame { t: 'challenge'; serverNonce: string; serverProof: string }
export interface AuthFrame { t: 'auth'; proof: string }
export interface WelcomeFrame { t: 'welcome'; protocol: number; server: { name: string; version: string } }

/** A request frame (either direction after welcome). */
export interface RequestFrame { id: number; m: string; p?: Record<string, unknown> }
/** A response frame: `r` on success, `e` on failure (`code` is one of DENIAL_CODES or 'failed'). */
export interface ResponseFrame { id: number; r?: unknown; e?: { code: string; message: string } }
/** An event frame. */
export interface EventFrame { ev: string; p: Record<string, unknown> }

/**
 * Why the extension's policy gate (EXTENSION-DESIGN.md §4.6) refused a request: stable codes that reach the agent
 * (the server maps them onto ToolError types; docs/errors.md).
 */
export const DENIAL_CODES = [
  /** The tab is not in the shared set. */
  'not_shared',
  /** The tab shows a page the extension may not drive (chrome:, an extension page, our own pages, file: without opt-in). */
  'not_debuggable',
  /** The CDP method is outside what a shared tab may do (Target.createTarget, Browser.*, the whole cookie jar, ...). */
  'method_denied',
  /** A cookie read or write for an origin that no shared tab shows. */
  'cookie_scope',
  /** A navigation to a scheme other than http(s), about:blank and data:. */
  'scheme_denied',
  /** Input while a consent question for this tab is open. */
  'consent_pending',
  /** DOM.setFileInputFiles (file paths) while the extension has no "Allow access to file URLs". */
  'file_access',
] as const;
export type DenialCode = typeof DENIAL_CODES[number];

/** One shared tab, as `tabs.list` and `share.changed` report it. */
export interface SharedTab { tabId: number; url: string; title: string; windowId: number; openerTabId?: number }

/** The transcript one side's proof signs: binds both nonces, the role and the extension ID. */
export function transcript(role: 'server' | 'ext', firstNonce: string, secondNonce: string, extId: string): string {
  return `tw-pair-v1|${role}|${firstNonce}|${secondNonce}|${extId}`;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The pairing key as its code: 32 bytes in RFC 4648 base32 without padding (52 letters and digits). */
export function encodeKey(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/**
 * The 32 key bytes of a pairing code, tolerant of case, spaces and dashes.
 * @returns undefined when `code` is not a 32-byte base32 code.
 */
export function decodeKey(code: string): Uint8Array | undefined {
  const text = code.replace(/[\s-]/g, '').toUpperCase().replace(/=+$/, '');
  if (text.length !== 52) return undefined;
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text) {
    const index = BASE32.indexOf(char);
    if (index < 0) return undefined;
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return out.length === 32 ? new Uint8Array(out) : undefined;
}
