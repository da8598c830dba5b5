/**
 * The userscript broker (docs/userscript-connection.md): the endpoint that opted-in tabs of any browser reach
 * through the companion userscript, served by the leading process on the relay port under /userscript
 * (src/relay/leader.ts routes it here), and the registry of those tabs.
 *
 * Seed 001's semantics over ./protocol.ts's long-poll channels: no tab is known before a valid hello; a hello
 * answers `welcome` with the tab's revision (1 for a new tab, +1 when another document of the same tab says hello,
 * kept when the same document reconnects); a channel without a hello in 15 s closes with 1008, a malformed frame
 * closes it with 1002; a disconnected tab's identity is kept 30 s (longer while a navigation waits); replies to
 * calls that were cancelled or timed out are ignored; `quit` (the user's "Disconnect") forgets the tab at once.
 *
 * Every request must name a loopback Host; one that carries a token must not come from a web page (an Origin of
 * http(s), file or null is refused: GM_xmlhttpRequest runs in the manager's extension, whose Origin, when it sends
 * one, is an extension's) and must present the token (compared in constant time). Neither the token nor a URL that
 * holds it is ever logged.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { ToolError } from '../../errors.js';
import type { RemoteCallLimits, RemoteNavigation } from '../connection.js';
import { logger } from '../../log.js';
import { BodyError, readBody } from '../../util/httpBody.js';
import { isLoopbackHost, sameSecret } from '../../util/loopback.js';
import {
  CHANNEL_SILENCE_MS, CLOSE, COMPANION_PATH, HELLO_DEADLINE_MS, IDENTITY_KEEP_MS, MAX_SEND_BYTES, OVERSIZED, parseCompanionFrame,
  parseHello, POLL_MS, USERSCRIPT_PREFIX, type AddElementParams, type BrokerFrame, type CompanionFrame, type PageMeta,
} from './protocol.js';

const log = logger('userscript');

/** How long the companion's `send` body may take to arrive, ms. */
const SEND_TIMEOUT_MS = 30_000;

/** Where the build puts the companion (scripts/build.mjs), beside dist/browser/userscript/. */
const COMPANION_FILE = fileURLToPath(new URL('../../userscript/tabwright.user.js', import.meta.url));
/** The placeholder the companion's header has where its own URL goes (@updateURL, @downloadURL). */
const SELF_URL = '__TABWRIGHT_COMPANION_URL__';

/** A connected, opted-in tab as list_tabs shows it. */
export interface RemoteTab {
  /** The companion's opaque id of the browser tab (stable while the tab keeps its grant). */
  target: string;
  /** The loaded document's id (a new one for every document). */
  instanceId: string;
  /** 1 for the tab's first document, +1 for every other document since. */
  revision: number;
  /** What the companion reports: not verified, display information only. */
  url: string;
  title: string;
}

/** One long-poll channel: what a WebSocket is in seed 001. */
class Channel {
  readonly id = randomBytes(16).toString('base64url');
  entry: TabEntry | undefined;
  closed: { code: number; reason: string } | undefined;
  private readonly out: BrokerFrame[] = [];
  private poller: { res: ServerResponse; timer: NodeJS.Timeout } | undefined;
  private helloTimer: NodeJS.Timeout | undefined;
  private silenceTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly target: string,
    private readonly ended: (channel: Channel) => void,
  ) {
    this.helloTimer = setTimeout(() => this.close(CLOSE.helloDeadline, 'no hello'), HELLO_DEADLINE_MS);
    this.armSilence();
  }

  /** Queues `frame` for the next poll. */
  send(frame: BrokerFrame): void {
    if (this.closed) return;
    this.out.push(frame);
    this.flush();
  }

  helloed(): void {
    clearTimeout(this.helloTimer);
    this.helloTimer = undefined;
  }

  /** Holds `res` until there are frames, the channel closes, or POLL_MS passed. A newer poll answers the older. */
  poll(res: ServerResponse): void {
    this.answerPoll();
    clearTimeout(this.silenceTimer);
    const timer = setTimeout(() => this.answerPoll(), POLL_MS);
    this.poller = { res, timer };
    res.on('close', () => {
      if (this.poller?.res !== res) return;
      clearTimeout(this.poller.timer);
      this.poller = undefined;
      this.armSilence();
    });
    this.flush();
  }

  /** Ends the channel with `code`: the waiting poll (or the next one) gets `{close}`. */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = { code, reason };
    clearTimeout(this.helloTimer);
    clearTimeout(this.silenceTimer);
    this.answerPoll();
    this.ended(this);
  }

  private flush(): void {
    if (this.poller && (this.out.length || this.closed)) this.answerPoll();
  }

  private answerPoll(): void {
    const poller = this.poller;
    if (!poller) return;
    this.poller = undefined;
    clearTimeout(poller.timer);
    const frames = this.out.splice(0);
    json(poller.res, 200, this.closed ? { frames, close: this.closed } : { frames });
    if (!this.closed) this.armSilence();
  }

  /** A channel nobody polls for CHANNEL_SILENCE_MS is gone (the tab closed; its document left). */
  private armSilence(): void {
    clearTimeout(this.silenceTimer);
    this.silenceTimer = setTimeout(() => this.close(CLOSE.normal, 'silent'), CHANNEL_SILENCE_MS);
  }
}

interface PendingCall {
  maxBytes: number;
  resolve(value: unknown): void;
  reject(error: ToolError): void;
}

interface PendingNavigation {
  id: number;
  proceeded: boolean;
  value?: unknown;
  finish(outcome: RemoteNavigation): void;
  fail(error: ToolError): void;
}

/** One opted-in tab, from its first hello until `quit` or IDENTITY_KEEP_MS after its last channel ended. */
interface TabEntry {
  target: string;
  instanceId: string;
  revision: number;
  meta: PageMeta;
  channel: Channel | undefined;
  calls: Map<number, PendingCall>;
  navigation: PendingNavigation | undefined;
  expiry: NodeJS.Timeout | undefined;
}

export class UserscriptBroker {
  private readonly entries = new Map<string, TabEntry>();
  private readonly channels = new Map<string, Channel>();
  private nextId = 1;
  private token: string | undefined;
  private closed = false;

  /** @param readToken  the broker token (./token.ts), read on the first request that needs it. */
  constructor(private readonly readToken: () => string) {}

  /** The connected tabs, in the order they first said hello. */
  tabs(): RemoteTab[] {
    return [...this.entries.values()].filter(e => e.channel).map(e => ({ target: e.target, instanceId: e.instanceId, revision: e.revision, ...e.meta }));
  }

  /**
   * Runs `method` in tab `target` and resolves with its value.
   * @throws ToolError tab_not_found (no such connected tab), revision_mismatch (a guard names another document),
   *   timeout / cancelled (a best-effort `cancel` is sent; a late reply is ignored), browser_disconnected (the tab's
   *   channel ended first), evaluation_failed (the page threw), result_too_large (over `maxBytes`).
   */
  call(target: string, method: 'execute' | 'add_element', params: { code: string } | AddElementParams, limits: RemoteCallLimits): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      const entry = this.live(target, limits);
      const id = this.nextId++;
      const frame: BrokerFrame = method === 'execute'
        ? ['call', id, 'execute', { code: (params as { code: string }).code, max_bytes: limits.maxBytes }]
        : ['call', id, 'add_element', params as AddElementParams];
      const done = bounded(limits, () => {
        entry.calls.delete(id);
        entry.channel?.send(['cancel', id]);
      }, reject);
      entry.calls.set(id, {
        maxBytes: limits.maxBytes,
        resolve: value => done(() => resolve(value)),
        reject: error => done(() => reject(error)),
      });
      entry.channel!.send(frame);
    });
  }

  /**
   * Navigate mode: sends `code`, waits for `ready`, sends `proceed`, then waits for a new document of the tab or a
   * same-document navigation the page reports; after `limits.timeoutMs`, resolves with `navigation: "timeout"` and
   * what is known. One at a time per tab. The request outlives a disconnect of the tab (its next document
   * completes it).
   * @throws ToolError tab_not_found, revision_mismatch, conflict (a navigation already waits on the tab),
   *   evaluation_failed (the code threw before anything navigated), cancelled.
   */
  navigate(target: string, code: string, limits: RemoteCallLimits): Promise<RemoteNavigation> {
    return new Promise<RemoteNavigation>((resolve, reject) => {
      const entry = this.live(target, limits);
      if (entry.navigation) throw new ToolError('conflict', 'A navigation already waits on this tab.', 'Wait for it to finish (its execute call answers), then try again.');
      const id = this.nextId++;
      const end = () => {
        clearTimeout(timer);
        limits.signal?.removeEventListener('abort', abort);
        if (entry.navigation === nav) entry.navigation = undefined;
        if (!entry.channel && this.entries.get(entry.target) === entry) this.expireLater(entry);
      };
      const nav: PendingNavigation = {
        id,
        proceeded: false,
        finish: outcome => {
          end();
          resolve(nav.value !== undefined && outcome.navigation !== 'timeout' ? { ...outcome, value: nav.value } : outcome);
        },
        fail: error => {
          end();
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        entry.channel?.send(['cancel', id]);
        nav.finish({
          ...outcome(entry, 'timeout'),
          reason: nav.proceeded
            ? `no new document or same-document navigation was observed within ${limits.timeoutMs / 1000} s`
            : `the page did not answer ready within ${limits.timeoutMs / 1000} s: the code did not run`,
        });
      }, limits.timeoutMs);
      const abort = () => {
        entry.channel?.send(['cancel', id]);
        nav.fail(new ToolError('cancelled', 'The call was cancelled.', 'The code may have run already: check the page before running it again.'));
      };
      limits.signal?.addEventListener('abort', abort, { once: true });
      entry.navigation = nav;
      entry.channel!.send(['call', id, 'navigate', { code, max_bytes: limits.maxBytes }]);
    });
  }

  /**
   * Answers a request under /userscript. @returns false when `req` is not for the broker (the caller answers it).
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const path = (req.url ?? '').split('?')[0]!;
    if (path !== USERSCRIPT_PREFIX && !path.startsWith(`${USERSCRIPT_PREFIX}/`)) return false;
    const port = req.socket.localPort ?? 0;
    if (!isLoopbackHost(req.headers.host ?? '', port)) {
      json(res, 403, { error: 'Host is not loopback' });
      return true;
    }
    if (path === COMPANION_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      this.serveCompanion(res, `http://127.0.0.1:${port}${COMPANION_PATH}`, req.method === 'HEAD');
      return true;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !/^(chrome|moz|safari-web)-extension:\/\//.test(origin)) {
      json(res, 403, { error: 'Forbidden' });
      return true;
    }
    const [token, encodedTarget, ...rest] = path.slice(USERSCRIPT_PREFIX.length + 1).split('/');
    if (!sameSecret(token, this.token ??= this.readToken()) || this.closed) {
      json(res, 403, { error: 'Forbidden' });
      return true;
    }
    if (req.method !== 'POST') {
      json(res, 405, { error: 'POST only' });
      return true;
    }
    const target = decodeSegment(encodedTarget);
    if (!target || target.length > 128 || rest.length < 1 || rest.length > 2) {
      json(res, 404, { error: 'Not found' });
      return true;
    }
    if (rest.length === 1 && rest[0] === 'open') {
      const channel = new Channel(target, c => this.channelEnded(c));
      this.channels.set(channel.id, channel);
      json(res, 200, { conn: channel.id });
      return true;
    }
    const [conn, verb] = rest as [string, string];
    const channel = this.channels.get(conn);
    if (!channel || channel.target !== target) {
      json(res, 200, verb === 'poll' ? { frames: [], close: { code: CLOSE.unknown, reason: 'unknown channel' } } : { close: { code: CLOSE.unknown, reason: 'unknown channel' } });
      return true;
    }
    if (verb === 'poll') {
      channel.poll(res);
      return true;
    }
    if (verb !== 'send') {
      json(res, 404, { error: 'Not found' });
      return true;
    }
    readBody(req, MAX_SEND_BYTES, SEND_TIMEOUT_MS).then(bytes => {
      const body = bytes.toString('utf8');
      let frames: unknown;
      try {
        frames = JSON.parse(body);
      } catch {
        frames = undefined;
      }
      if (!Array.isArray(frames)) channel.close(CLOSE.protocolError, 'the body is not a JSON array of frames');
      else for (const frame of frames) if (!channel.closed) this.receive(channel, frame, bytes.length);
      json(res, 200, channel.closed ? { close: channel.closed } : { ok: true });
    }, (error: unknown) => {
      const reason = error instanceof BodyError ? error.reason : 'aborted';
      json(res, reason === 'too_large' ? 413 : reason === 'timeout' ? 408 : 400, { error: reason === 'too_large' ? 'Too large' : reason === 'timeout' ? 'Too slow' : 'Bad request' });
      if (reason !== 'aborted') req.socket.destroy(); // the rest of a refused body is not read
    });
    return true;
  }

  /** Closes every channel (normal closure) and fails what waits. */
  close(): void {
    this.closed = true;
    for (const channel of [...this.channels.values()]) channel.close(CLOSE.normal, 'the broker stops');
    for (const entry of [...this.entries.values()]) this.forget(entry, 'the broker stopped');
  }

  private receive(channel: Channel, raw: unknown, bodyBytes: number): void {
    if (!channel.entry) {
      const hello = parseHello(raw);
      if (!hello) return channel.close(CLOSE.protocolError, 'the first frame must be a hello');
      return this.hello(channel, hello[3], hello[4]);
    }
    const frame = parseCompanionFrame(raw);
    if (!frame) return channel.close(CLOSE.protocolError, 'malformed frame');
    const entry = channel.entry;
    if (entry.channel !== channel) return;
    this.dispatch(entry, frame, bodyBytes);
  }

  private dispatch(entry: TabEntry, frame: CompanionFrame, bodyBytes: number): void {
    switch (frame[0]) {
      case 'reply': {
        const [, id, ok, value] = frame;
        const nav = entry.navigation;
        if (nav?.id === id) {
          if (ok) nav.value = value;
          else nav.fail(new ToolError('evaluation_failed', `The code threw: ${String(value)}`, 'Fix the code; the page may have changed before it threw.'));
          return;
        }
        const call = entry.calls.get(id);
        if (!call) return; // cancelled, timed out, or unknown: late replies are ignored
        entry.calls.delete(id);
        if (!ok) {
          const message = String(value);
          call.reject(message.startsWith(OVERSIZED) ? tooLarge(call.maxBytes) : new ToolError('evaluation_failed', `The code threw: ${message}`, 'Fix the code; the page may have changed before it threw.'));
          return;
        }
        // The companion checks the size first; a reply that still exceeds it is refused here too, never cut.
        const size = bodyBytes <= call.maxBytes ? bodyBytes : Buffer.byteLength(JSON.stringify(frame));
        if (size > call.maxBytes) call.reject(tooLarge(call.maxBytes));
        else call.resolve(value);
        return;
      }
      case 'ready': {
        const nav = entry.navigation;
        if (nav?.id !== frame[1] || nav.proceeded) return;
        nav.proceeded = true;
        entry.channel?.send(['proceed', nav.id]);
        return;
      }
      case 'navigated': {
        entry.meta = frame[2];
        if (entry.navigation?.id === frame[1] && entry.navigation.proceeded) entry.navigation.finish(outcome(entry, 'same-document'));
        return;
      }
      case 'state':
        entry.meta = frame[1];
        return;
      case 'quit':
        log.info(`tab ${entry.target} quit`);
        entry.channel?.close(CLOSE.normal, 'quit');
        this.forget(entry, 'the user disconnected the tab');
        return;
    }
  }

  private hello(channel: Channel, instanceId: string, meta: PageMeta): void {
    channel.helloed();
    let entry = this.entries.get(channel.target);
    if (!entry) {
      entry = { target: channel.target, instanceId, revision: 1, meta, channel: undefined, calls: new Map(), navigation: undefined, expiry: undefined };
      this.entries.set(entry.target, entry);
      log.info(`tab session ${entry.target} started`);
    }
    clearTimeout(entry.expiry);
    entry.expiry = undefined;
    const previous = entry.channel;
    entry.channel = channel;
    channel.entry = entry;
    if (previous && previous !== channel) {
      // What the old channel had not delivered is lost with it: its calls fail, as on a disconnect.
      this.failCalls(entry, 'The tab reconnected before the call answered.');
      previous.close(CLOSE.replaced, 'replaced by a newer channel of the tab');
    }
    entry.meta = meta;
    if (entry.instanceId !== instanceId) {
      entry.instanceId = instanceId;
      entry.revision += 1;
      this.failCalls(entry, 'The tab loaded another document before the call answered.');
      entry.navigation?.finish(outcome(entry, 'document'));
    }
    channel.send(['welcome', entry.target, entry.instanceId, entry.revision]);
  }

  private channelEnded(channel: Channel): void {
    this.channels.delete(channel.id);
    const entry = channel.entry;
    if (!entry || entry.channel !== channel) return;
    entry.channel = undefined;
    this.failCalls(entry, 'The tab disconnected before the call answered.');
    if (!entry.navigation) this.expireLater(entry);
  }

  private expireLater(entry: TabEntry): void {
    clearTimeout(entry.expiry);
    entry.expiry = setTimeout(() => this.forget(entry, 'gone for 30 s'), IDENTITY_KEEP_MS);
  }

  private forget(entry: TabEntry, why: string): void {
    if (this.entries.get(entry.target) !== entry) return;
    clearTimeout(entry.expiry);
    this.entries.delete(entry.target);
    this.failCalls(entry, 'The tab left before the call answered.');
    entry.navigation?.fail(new ToolError('tab_not_found', 'The tab left before its navigation was observed.', 'Call list_tabs: the user disconnected it, or it closed.'));
    log.info(`tab session ${entry.target} finished (${why})`);
  }

  private failCalls(entry: TabEntry, message: string): void {
    const calls = [...entry.calls.values()];
    entry.calls.clear();
    for (const call of calls) call.reject(new ToolError('browser_disconnected', message, 'The code may have run already: check the page before running it again.'));
  }

  /** The connected tab `target`, its guards checked. */
  private live(target: string, guard: Pick<RemoteCallLimits, 'instanceId' | 'revision'>): TabEntry {
    const entry = this.entries.get(target);
    if (!entry?.channel) throw new ToolError('tab_not_found', `No connected userscript tab "${target}".`, 'Call list_tabs: the tab may have been disconnected by the user, or closed.');
    if ((guard.instanceId !== undefined && guard.instanceId !== entry.instanceId) || (guard.revision !== undefined && guard.revision !== entry.revision)) {
      throw new ToolError('revision_mismatch', `The tab holds another document now (revision ${entry.revision}).`, 'Call list_tabs for its current instanceId and revision, and check the page before running the code again.');
    }
    return entry;
  }

  private serveCompanion(res: ServerResponse, selfUrl: string, head: boolean): void {
    let text: string;
    try {
      text = readFileSync(COMPANION_FILE, 'utf8').replaceAll(SELF_URL, selfUrl);
    } catch {
      json(res, 500, { error: 'the companion is not built (npm run build)' });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
    res.end(head ? undefined : text);
  }
}

function outcome(entry: TabEntry, navigation: RemoteNavigation['navigation']): RemoteNavigation {
  return { navigation, revision: entry.revision, instanceId: entry.instanceId, ...entry.meta };
}

function tooLarge(maxBytes: number): ToolError {
  return new ToolError('result_too_large', `The result is larger than maxBytes (${maxBytes} bytes of JSON); nothing was cut.`, 'The code ran: return less (select fields, slice), or raise maxBytes (up to 2 MiB).');
}

/**
 * Settles a call once: its timeout and abort signal cancel it (`cancel` runs, `reject` gets timeout / cancelled).
 * @returns `done(settle)`, which clears both and runs `settle` unless the call already ended.
 */
function bounded(limits: RemoteCallLimits, cancel: () => void, reject: (error: ToolError) => void): (settle: () => void) => void {
  let over = false;
  const finish = (settle: () => void) => {
    if (over) return;
    over = true;
    clearTimeout(timer);
    limits.signal?.removeEventListener('abort', abort);
    settle();
  };
  const timer = setTimeout(() => finish(() => {
    cancel();
    reject(new ToolError('timeout', `The page did not answer within ${limits.timeoutMs / 1000} s.`, 'The code may still be running or may have run: check the page, or raise timeout (up to 300 s).'));
  }), limits.timeoutMs);
  const abort = () => finish(() => {
    cancel();
    reject(new ToolError('cancelled', 'The call was cancelled.', 'The code may have run already: check the page before running it again.'));
  });
  if (limits.signal?.aborted) queueMicrotask(abort);
  else limits.signal?.addEventListener('abort', abort, { once: true });
  return finish;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

/** A path segment percent-decoded; undefined when it is not valid percent-encoding (a URIError). */
function decodeSegment(segment: string | undefined): string | undefined {
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
