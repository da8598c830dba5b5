/**
 * The CDP relay's endpoint: a DevTools WebSocket on 127.0.0.1 that playwright-core's `connectOverCDP` attaches
 * to, in front of a CdpUpstream (./upstream.ts; docs/connections.md, "The CDP relay"). It exists because a bare
 * `connectOverCDP` to a browser sends a root `Target.setAutoAttach` and attaches every tab, and because the
 * extension's wire is not a DevTools socket at all.
 *
 * Guard: the path carries a random 128-bit token (`ws://127.0.0.1:<port>/cdp/<token>`, never logged); an
 * upgrade with any `Origin` header (a web page; Playwright sends none) gets 403, a wrong path 404, and a second
 * client 409 while one is connected. Frames are flat CDP JSON: `{id, method, params, sessionId?}` in,
 * `{id, result | error, sessionId?}` and events `{method, params, sessionId?}` out.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { logger } from '../../log.js';
import type { CdpEvent, CdpUpstream } from './upstream.js';

const log = logger('cdp-relay');

/** The largest frame the relay takes from its client, in bytes (a setFileInputFiles of many paths fits easily). */
const MAX_CLIENT_FRAME_BYTES = 64 * 1024 * 1024;

interface ClientCommand {
  id: number;
  method: string;
  params?: Record<string, unknown>;
  sessionId?: string;
}

/** A running relay endpoint: `url` for connectOverCDP, `close()` to stop it. */
export class CdpRelayEndpoint {
  private readonly token = randomBytes(16).toString('hex');
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES });
  private client: WebSocket | undefined;

  private constructor(
    private readonly server: Server,
    private readonly upstream: CdpUpstream,
  ) {
    upstream.setEventSink(event => this.emit(event));
    server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
  }

  /**
   * Starts an endpoint on 127.0.0.1 (an ephemeral port) in front of `upstream`.
   * @throws the listen error (the port cannot be bound).
   */
  static async start(upstream: CdpUpstream): Promise<CdpRelayEndpoint> {
    const server = createServer((_req, res) => void res.writeHead(404, { 'content-type': 'text/plain' }).end('tabwright CDP relay: WebSocket only\n'));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: 0, host: '127.0.0.1' }, () => resolve());
    });
    return new CdpRelayEndpoint(server, upstream);
  }

  /** The `ws://` URL with its secret path: pass it to connectOverCDP, never to a log. */
  get url(): string {
    const address = this.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    return `ws://127.0.0.1:${port}/cdp/${this.token}`;
  }

  /** Closes the client connection and the listener. Safe to call twice. */
  async close(): Promise<void> {
    this.client?.terminate();
    this.client = undefined;
    this.wss.close();
    await new Promise<void>(resolve => this.server.close(() => resolve()));
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refuse = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (req.headers.origin !== undefined) return refuse(403, 'Forbidden');
    if (req.url !== `/cdp/${this.token}`) return refuse(404, 'Not Found');
    if (this.client) return refuse(409, 'Conflict');
    this.wss.handleUpgrade(req, socket, head, ws => this.serve(ws));
  }

  private serve(ws: WebSocket): void {
    this.client = ws;
    ws.on('message', data => this.onFrame(ws, data.toString()));
    ws.on('close', () => {
      if (this.client !== ws) return;
      this.client = undefined;
      this.upstream.clientClosed();
    });
    ws.on('error', error => log.debug(`client socket: ${error.message}`));
  }

  private onFrame(ws: WebSocket, text: string): void {
    let message: ClientCommand;
    try {
      message = JSON.parse(text) as ClientCommand;
    } catch {
      log.warn('the relay client sent a frame that is not JSON; ignored');
      return;
    }
    if (typeof message.id !== 'number' || typeof message.method !== 'string') return;
    const { id, method, sessionId } = message;
    let replied = false;
    this.upstream.command(method, message.params ?? {}, sessionId, outcome => {
      if (replied) return;
      replied = true;
      this.send(ws, { id, ...outcome, ...(sessionId ? { sessionId } : {}) });
    });
  }

  private emit(event: CdpEvent): void {
    if (this.client) this.send(this.client, event.sessionId ? event : { method: event.method, params: event.params });
  }

  private send(ws: WebSocket, frame: object): void {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  }
}
