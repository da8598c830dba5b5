/**
 * The leader's side of the relay: listens on
 * 127.0.0.1:TABWRIGHT_WS_PORT, authenticates followers by the token in
 * bridge.json, checks versions, and runs their calls on this process's
 * LocalDispatcher: cancellation (`cancel` → the call's signal aborts),
 * progress (`progress` frames), what the call waits for (`waiting` frames), consent questions (asked through the
 * follower's own channel: `prompt` → `answer`) and the follower's workspace.
 */
import { browserSettings } from './browserSettings.js';
import { randomBytes } from 'node:crypto';
import { sameSecret } from '../util/loopback.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { ConsentPending, type ConsentAnswer, type ConsentQuestion, type PromptChannel } from '../consent/channel.js';
import type { LocalDispatcher } from '../dispatch/dispatcher.js';
import { logger } from '../log.js';
import { ToolError, type ToolErrorData } from '../errors.js';
import { removeLeaderFile, writeLeaderFile } from './leaderFile.js';
import { advertised, compareVersions, MAX_FRAME_BYTES, parseFollowerFrame, RELAY_PROTOCOL, type FollowerFrame, type LeaderFrame } from './protocol.js';
import { versionMismatch } from './errors.js';
import { extensionBridgeOf } from '../browser/extension/extensionConnection.js';
import { LINK_PATH } from '../browser/extension/protocol.js';
import { userscriptBrokerOf } from '../browser/userscript/userscriptConnection.js';

const log = logger('relay');

/** How long a follower has to send `hello` after connecting, in ms. */
const HELLO_TIMEOUT_MS = 5000;

/**
 * Binds the relay port. Resolves with the listening server, or undefined
 * when another process holds the port (EADDRINUSE).
 * @throws the listen error for anything else (e.g. EACCES).
 */
export function bindRelayPort(port: number): Promise<Server | undefined> {
  const server = createServer(webSocketOnly);
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(undefined);
      else reject(error);
    });
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server));
  });
}

/** The answer to a plain HTTP request the port does not serve. */
function webSocketOnly(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(426, { 'content-type': 'text/plain' }).end('tabwright relay: WebSocket only\n');
}

interface Peer {
  socket: WebSocket;
  pid: number;
  /** Calls in flight, by the follower's call id. */
  calls: Map<number, AbortController>;
  /** Consent questions waiting for the follower's answer, by prompt id. */
  prompts: Map<number, { resolve(answer: ConsentAnswer): void; reject(error: unknown): void }>;
}

/** What the leader tells its owner (src/relay/relayDispatcher.ts). */
export interface LeaderEvents {
  /** A follower of a newer package arrived: step down so that it leads. */
  stepDown(newerVersion: string, followerPid: number): void;
}

/** The relay server of a leader process. */
export class RelayLeader {
  readonly token = randomBytes(32).toString('hex');
  private readonly wss: WebSocketServer;
  private readonly peers = new Set<Peer>();
  private nextPromptId = 1;
  private closing = false;

  /**
   * Starts serving followers on `server` (already bound) and writes bridge.json.
   * @param profile  the browser profile dir this leader's browser uses (followers on another profile run alone).
   */
  constructor(
    private readonly server: Server,
    private readonly local: LocalDispatcher,
    private readonly configDir: string,
    readonly port: number,
    private readonly profile: string,
    private readonly events: LeaderEvents,
  ) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
    // The companion userscript reaches the broker over HTTP under /userscript (docs/userscript-connection.md).
    server.removeAllListeners('request');
    server.on('request', (req, res) => {
      const broker = userscriptBrokerOf(local.session.connection);
      if (!broker?.handle(req, res)) webSocketOnly(req, res);
    });
    server.on('upgrade', (req, socket, head) => {
      // The companion extension dials the same port at /extension (docs/own-browser.md); its connection takes it.
      if (req.url === LINK_PATH || req.url?.startsWith(`${LINK_PATH}?`)) {
        const bridge = extensionBridgeOf(local.session.connection);
        if (bridge) bridge.handleUpgrade(req, socket, head);
        else socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, ws => this.wss.emit('connection', ws, req));
    });
    this.wss.on('connection', (socket, req) => {
      // A browser page always sends Origin; tabwright processes never do.
      if (req.headers.origin !== undefined) {
        socket.close(4003, 'origin not allowed');
        return;
      }
      this.accept(socket);
    });
    const { version, relayProtocol } = advertised();
    writeLeaderFile(configDir, { pid: process.pid, port, token: this.token, version, relayProtocol, profile });
  }

  /** Number of followers connected now. */
  get followerCount(): number {
    return this.peers.size;
  }

  private accept(socket: WebSocket): void {
    const timer = setTimeout(() => socket.terminate(), HELLO_TIMEOUT_MS);
    socket.once('message', data => {
      clearTimeout(timer);
      const hello = parseFollowerFrame(data);
      const send = (frame: LeaderFrame) => socket.send(JSON.stringify(frame));
      const refuse = (error: ToolErrorData, retry: boolean) => {
        send({ t: 'refused', error, retry });
        socket.close(4000 + (retry ? 1 : 2), error.type);
      };
      if (!hello || hello.t !== 'hello' || typeof hello.token !== 'string' || !sameSecret(hello.token, this.token)) {
        refuse({ type: 'browser_unavailable', message: 'The relay handshake failed: no well-formed hello with the right token.', hint: 'Only tabwright processes of the same user with the same config dir can join.' }, true);
        return;
      }
      if (this.closing) {
        refuse({ type: 'browser_unavailable', message: 'The leading tabwright process is shutting down.', hint: 'Retry in a moment.' }, true);
        return;
      }
      if (hello.profile !== this.profile) {
        refuse({ type: 'browser_unavailable', message: `The leader's browser uses profile ${this.profile}, not ${hello.profile}.`, hint: 'Processes on different profiles run their own browsers.' }, false);
        return;
      }
      const mine = advertised();
      const newer = compareVersions(hello.version, mine.version) > 0;
      if (newer && hello.relayProtocol >= mine.relayProtocol) {
        log.info(`follower pid ${hello.pid} runs tabwright ${hello.version}, newer than ${mine.version}: stepping down`);
        send({ t: 'step_down', version: mine.version });
        socket.close(4010, 'step down');
        this.events.stepDown(hello.version, hello.pid);
        return;
      }
      if (hello.relayProtocol !== mine.relayProtocol) {
        refuse(versionMismatch({ version: hello.version, relayProtocol: hello.relayProtocol, pid: hello.pid, role: 'follower' }, { ...mine, pid: process.pid, role: 'leader' }).toData(), false);
        return;
      }
      const peer: Peer = { socket, pid: hello.pid, calls: new Map(), prompts: new Map() };
      this.peers.add(peer);
      log.info(`follower pid ${hello.pid} (tabwright ${hello.version}) joined; ${this.peers.size} follower(s)`);
      send({ t: 'welcome', version: mine.version, relayProtocol: mine.relayProtocol, pid: process.pid, browser: browserSettings(this.local.config) });
      socket.on('message', raw => this.onFrame(peer, parseFollowerFrame(raw)));
      socket.on('close', () => {
        this.peers.delete(peer);
        for (const controller of peer.calls.values()) controller.abort(new ToolError('cancelled', 'The follower process went away.', 'Nothing to do.'));
        for (const waiter of peer.prompts.values()) waiter.reject(new ToolError('cancelled', 'The follower process went away while its user was asked.', 'Nothing to do.'));
        peer.prompts.clear();
        log.info(`follower pid ${peer.pid} left; ${this.peers.size} follower(s)`);
      });
      socket.on('error', error => log.debug('follower socket error:', error));
    });
  }

  private onFrame(peer: Peer, frame: FollowerFrame | undefined): void {
    if (!frame) return;
    if (frame.t === 'call') void this.runCall(peer, frame);
    else if (frame.t === 'end_session') void this.local.endSession(frame.sessionKey).catch(error => log.warn('closing a session context failed:', error));
    else if (frame.t === 'cancel') peer.calls.get(frame.id)?.abort(new ToolError('cancelled', 'The call was cancelled.', 'Send the call again if it is still wanted.'));
    else if (frame.t === 'answer') {
      const waiter = peer.prompts.get(frame.promptId);
      if (!waiter) return;
      peer.prompts.delete(frame.promptId);
      if (frame.pending) waiter.reject(new ConsentPending());
      else if (frame.answer) waiter.resolve(frame.answer);
      else waiter.reject(frame.error ? new ToolError(frame.error.type, frame.error.message, frame.error.hint) : new ToolError('consent_unavailable', 'The follower could not ask its user.', 'Retry the call.'));
    }
  }

  private async runCall(peer: Peer, frame: Extract<FollowerFrame, { t: 'call' }>): Promise<void> {
    const controller = new AbortController();
    peer.calls.set(frame.id, controller);
    const send = (f: LeaderFrame) => {
      if (peer.socket.readyState === peer.socket.OPEN) peer.socket.send(JSON.stringify(f));
    };
    const prompt: PromptChannel | undefined = frame.prompt ? {
      name: frame.prompt,
      ask: (question: ConsentQuestion, signal: AbortSignal) => new Promise<ConsentAnswer>((resolve, reject) => {
        const promptId = this.nextPromptId++;
        const onAbort = () => {
          if (!peer.prompts.delete(promptId)) return;
          const reason = signal.reason instanceof ToolError ? signal.reason : new ToolError('cancelled', 'The consent question was withdrawn.', 'Send the call again if it is still wanted.');
          send({ t: 'prompt_cancel', id: frame.id, promptId, error: reason.toData() });
          reject(reason);
        };
        peer.prompts.set(promptId, {
          resolve: answer => { signal.removeEventListener('abort', onAbort); resolve(answer); },
          reject: error => { signal.removeEventListener('abort', onAbort); reject(error); },
        });
        signal.addEventListener('abort', onAbort, { once: true });
        send({ t: 'prompt', id: frame.id, promptId, question });
      }),
    } : undefined;
    try {
      const result = await this.local.call(frame.tool, frame.args, {
        signal: controller.signal,
        client: frame.client ?? {},
        workspace: frame.workspace,
        consent: frame.consent,
        sessionKey: frame.sessionKey,
        isolate: frame.isolate,
        budget: frame.budget,
        // The caller is a follower of this process (get_bridge_status says so).
        relay: { role: 'follower', leaderPid: process.pid, relayProtocol: RELAY_PROTOCOL },
        // Leases are held per follower process (and its MCP session, if it has one).
        caller: { id: `pid ${peer.pid}${frame.sessionKey !== undefined ? ` session ${frame.sessionKey}` : ''}`, name: frame.client?.name },
        prompt,
        async progress(done, total, message) {
          send({ t: 'progress', id: frame.id, done, total, message });
        },
        waiting(what) {
          send({ t: 'waiting', id: frame.id, waitingFor: what ?? null });
        },
      });
      send({ t: 'result', id: frame.id, result });
    } finally {
      peer.calls.delete(frame.id);
    }
  }

  /**
   * Stops serving: refuses new followers, closes every follower socket (their
   * calls in flight fail there with `leader_lost` and they race for the port),
   * but keeps the port until release().
   */
  disconnectFollowers(): void {
    this.closing = true;
    for (const peer of this.peers) peer.socket.close(4011, 'leader exiting');
  }

  /** Lets go of the port and removes bridge.json (if still ours). */
  async release(): Promise<void> {
    this.disconnectFollowers();
    removeLeaderFile(this.configDir, this.token);
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>(resolve => this.wss.close(() => resolve()));
    await new Promise<void>(resolve => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

