/**
 * The server's end of the extension link (docs/own-browser.md, "Extension"; EXTENSION-DESIGN.md §4.3): takes the
 * WebSocket upgrades that the relay leader (src/relay/leader.ts) routes to it at `/extension`, admits only our
 * extension's Origin, runs the mutual HMAC handshake and holds the one live link (a newer link of the pairing
 * replaces the older one).
 *
 * Guard, in order:
 * - Origin must be `chrome-extension://<EXTENSION_ID>` or one of `TABWRIGHT_EXTRA_EXTENSION_IDS` (comma-separated,
 *   for dev builds); anything else (a web page, no Origin) gets HTTP 403. `TABWRIGHT_ALLOW_INSECURE=1` admits any
 *   Origin, for tests only, with a warning on every start. The Host must be loopback (DNS rebinding): else 403.
 * - The handshake must complete within PAIRING_TIMEOUT_MS (10 s) of the upgrade; a wrong proof, a hello that
 *   names another extension than its Origin, or silence: close 4001. Nonces are fresh per socket, so a proof
 *   recorded on one socket fails on the next. After each failure the next challenge waits a little longer
 *   (up to 2 s), so guessing is slow.
 * The key is never logged.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { logger } from '../../log.js';
import { VERSION } from '../../version.js';
import { ExtensionLink } from './link.js';
import { pairingKey } from './pairingKey.js';
import {
  CLOSE, EXTENSION_ID, LINK_PROTOCOL, PAIRING_TIMEOUT_MS, transcript,
  type ChallengeFrame, type HelloFrame, type WelcomeFrame,
} from './protocol.js';

const log = logger('extension');

/** The server's keepalive period, in ms: below the worker's 30 s idle limit. */
export const DEFAULT_PING_MS = 20_000;

/** The largest frame the extension may send, in bytes (a full-page screenshot in base64 fits). */
const MAX_LINK_FRAME_BYTES = 256 * 1024 * 1024;

/** What the bridge reads from the environment (tests pass their own). */
export interface BridgeOptions {
  configDir: string;
  env?: Record<string, string | undefined>;
}

/** `TABWRIGHT_EXTENSION_PING_MS` (at least 100), else 20 s. */
export function pingInterval(env: Record<string, string | undefined>): number {
  const ms = Number(env.TABWRIGHT_EXTENSION_PING_MS);
  return Number.isFinite(ms) && ms >= 100 ? Math.min(ms, DEFAULT_PING_MS) : DEFAULT_PING_MS;
}

export class ExtensionBridge {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_LINK_FRAME_BYTES });
  private readonly env: Record<string, string | undefined>;
  private readonly allowed: Set<string>;
  private readonly insecure: boolean;
  private current: ExtensionLink | undefined;
  private readonly linkListeners = new Set<(link: ExtensionLink) => void>();
  private failures = 0;
  private closed = false;

  constructor(private readonly opts: BridgeOptions) {
    this.env = opts.env ?? process.env;
    this.allowed = new Set([EXTENSION_ID, ...(this.env.TABWRIGHT_EXTRA_EXTENSION_IDS ?? '').split(',').map(id => id.trim()).filter(Boolean)]);
    this.insecure = this.env.TABWRIGHT_ALLOW_INSECURE === '1';
    if (this.insecure) log.warn('TABWRIGHT_ALLOW_INSECURE=1: the extension link admits any Origin. For tests only: never set it for real use.');
  }

  /** The live link, if the extension is connected and paired now. */
  get link(): ExtensionLink | undefined {
    return this.current?.open ? this.current : undefined;
  }

  /** Calls `listener` with every link that completes its handshake. @returns a function that removes it. */
  onLink(listener: (link: ExtensionLink) => void): () => void {
    this.linkListeners.add(listener);
    return () => void this.linkListeners.delete(listener);
  }

  /**
   * Takes one HTTP upgrade at the link path (the caller routed it here): refuses it with 403 or serves it.
   */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refuse = (status: number, text: string, why: string) => {
      log.warn(`refused an extension link upgrade: ${why}`);
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (this.closed) return refuse(503, 'Service Unavailable', 'the server is closing');
    const origin = req.headers.origin;
    const originId = /^chrome-extension:\/\/([a-p]{32})$/.exec(origin ?? '')?.[1];
    if (!this.insecure && (!originId || !this.allowed.has(originId))) return refuse(403, 'Forbidden', `Origin ${origin ?? '(none)'} is not the tabwright extension`);
    if (!isLoopbackHost(req.headers.host)) return refuse(403, 'Forbidden', `Host ${req.headers.host ?? '(none)'} is not loopback`);
    this.wss.handleUpgrade(req, socket, head, ws => this.handshake(ws, originId));
  }

  /** Closes the live link and refuses new ones. */
  close(): void {
    this.closed = true;
    this.current?.close(CLOSE.closing, 'server closing');
    this.current = undefined;
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }

  private handshake(ws: WebSocket, originId: string | undefined): void {
    const deny = (why: string) => {
      this.failures++;
      log.warn(`extension link refused: ${why}`);
      ws.close(CLOSE.unauthorized, 'unauthorized');
    };
    const timer = setTimeout(() => deny(`not paired within ${PAIRING_TIMEOUT_MS / 1000} s`), PAIRING_TIMEOUT_MS);
    ws.on('close', () => clearTimeout(timer));
    ws.on('error', error => log.debug(`link socket: ${error.message}`));
    let hello: HelloFrame | undefined;
    let serverNonce: string | undefined;
    const onMessage = (data: unknown) => {
      let frame: { t?: string; v?: unknown; extId?: unknown; extVersion?: unknown; bootId?: unknown; clientNonce?: unknown; userAgent?: unknown; proof?: unknown };
      try {
        frame = JSON.parse(String(data)) as typeof frame;
      } catch {
        return deny('a frame that is not JSON');
      }
      if (typeof frame !== 'object' || frame === null) return deny('a frame that is not a JSON object');
      if (!hello) {
        if (frame.t !== 'hello' || typeof frame.clientNonce !== 'string' || !/^[0-9a-f]{64}$/.test(frame.clientNonce) || typeof frame.extId !== 'string') return deny('no valid hello');
        if (originId && frame.extId !== originId) return deny(`hello names extension ${frame.extId}, its Origin ${originId}`);
        const [min, max] = Array.isArray(frame.v) ? frame.v as number[] : [0, 0];
        if (!(min <= LINK_PROTOCOL && LINK_PROTOCOL <= max)) {
          log.warn(`extension link refused: the extension speaks link protocol ${min}..${max}, this server ${LINK_PROTOCOL}`);
          ws.close(CLOSE.version, 'protocol version');
          return;
        }
        hello = frame as unknown as HelloFrame;
        let key;
        try {
          key = pairingKey(this.opts.configDir, this.env).bytes;
        } catch (error) {
          log.error(`extension link: ${(error as Error).message}`);
          return deny('no usable pairing key on the server');
        }
        serverNonce = randomBytes(32).toString('hex');
        const challenge: ChallengeFrame = { t: 'challenge', serverNonce, serverProof: hmac(key, transcript('server', hello.clientNonce, serverNonce, hello.extId)) };
        const delay = Math.min(this.failures, 10) * 200;
        setTimeout(() => ws.readyState === ws.OPEN && ws.send(JSON.stringify(challenge)), delay);
        return;
      }
      if (frame.t !== 'auth' || typeof frame.proof !== 'string' || !serverNonce) return deny('no valid auth');
      const key = pairingKey(this.opts.configDir, this.env).bytes;
      const expected = Buffer.from(hmac(key, transcript('ext', serverNonce, hello.clientNonce, hello.extId)), 'hex');
      const given = Buffer.from(frame.proof, 'hex');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return deny('wrong proof');
      clearTimeout(timer);
      ws.off('message', onMessage);
      this.failures = 0;
      const welcome: WelcomeFrame = { t: 'welcome', protocol: LINK_PROTOCOL, server: { name: 'tabwright', version: VERSION } };
      ws.send(JSON.stringify(welcome));
      this.admit(new ExtensionLink(ws, { extId: hello.extId, extVersion: String(hello.extVersion), bootId: String(hello.bootId), userAgent: String(hello.userAgent ?? ''), features: Array.isArray(hello.features) ? hello.features.filter(f => typeof f === 'string') : [] }, pingInterval(this.env)));
    };
    ws.on('message', onMessage);
  }

  private admit(link: ExtensionLink): void {
    const previous = this.current;
    this.current = link;
    if (previous?.open) previous.close(CLOSE.replaced, 'replaced by a newer link');
    log.info(`the extension ${link.peer.extId} ${link.peer.extVersion} is connected`);
    link.onClose(() => {
      if (this.current === link) log.info('the extension link closed');
    });
    for (const listener of [...this.linkListeners]) listener(link);
  }
}

function hmac(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}

/** True for `127.0.0.1:<port>`, `localhost:<port>`, `[::1]:<port>` (and the same without a port). */
function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return name === '127.0.0.1' || name === 'localhost' || name === '[::1]';
}
