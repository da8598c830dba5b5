/**
 * MCP over Streamable HTTP at `/mcp` (the MCP specification, "Transports",
 * "Streamable HTTP"; docs/daemon.md, "MCP at `/mcp`"). 2026-07-28 requests go to the SDK's
 * stateless `createMcpHandler` (legacy: 'reject'); 2025-era clients get a
 * session (`WebStandardStreamableHTTPServerTransport` with a session id),
 * so elicitation, progress and cancellation work on both eras. Every
 * server is `buildServer` over the daemon's CallRunner, so calls are
 * counted, bounded and written into the caller's workspace.
 */
import { randomUUID } from 'node:crypto';
import {
  createMcpHandler, isInitializeRequest, isLegacyRequest, WebStandardStreamableHTTPServerTransport,
  type AuthInfo, type McpHttpHandler, type McpServer,
} from '@modelcontextprotocol/server';
import type { Config } from '../config.js';
import { logger } from '../log.js';
import { PendingCalls } from '../dispatch/pending.js';
import { buildServer } from '../mcp/server.js';
import type { CallRunner } from './calls.js';

const log = logger('daemon-mcp');

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  lastUsed: number;
}

/** What the daemon knows about one /mcp request besides the web Request. */
export interface McpRequestInfo {
  token: string;
  /** Validated workspace from `x-tabwright-workspace`, if the request named one. */
  workspace?: string;
  /** The JSON body, parsed (undefined for GET/DELETE or a body that is not JSON). */
  parsedBody?: unknown;
}

export class McpFront {
  private readonly sessions = new Map<string, Session>();
  /** Sessions whose browser context is being closed. */
  private readonly ending = new Map<string, Promise<void>>();
  private readonly modern: McpHttpHandler;
  /** Calls that answered pending, for every session and stateless request of this daemon (src/dispatch/pending.ts). */
  private readonly calls = new PendingCalls();

  constructor(private readonly config: Config, private readonly runner: CallRunner, maxBodyBytes: number) {
    this.modern = createMcpHandler(ctx => buildServer(this.runner.asDispatcher(workspaceOf(ctx.authInfo)), config, ctx, this.calls, 'mcp-http'), {
      legacy: 'reject',
      maxRequestBodySize: maxBodyBytes,
      onerror: error => log.debug('mcp:', error.message),
    });
  }

  /** Open 2025-era sessions. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Answers one /mcp request. */
  async handle(request: Request, info: McpRequestInfo): Promise<Response> {
    const authInfo: AuthInfo = { token: info.token, clientId: 'tabwright-daemon', scopes: [], extra: info.workspace ? { workspace: info.workspace } : undefined };
    const options = info.parsedBody === undefined ? { authInfo } : { authInfo, parsedBody: info.parsedBody };
    if (!(await isLegacyRequest(request, info.parsedBody))) return this.modern.fetch(request, options);
    const sid = request.headers.get('mcp-session-id');
    if (sid) {
      const session = this.sessions.get(sid);
      if (!session) return jsonRpcError(404, -32001, 'Session not found: it ended or the daemon restarted. Initialize a new session.');
      session.lastUsed = Date.now();
      return session.transport.handleRequest(request, options);
    }
    if (request.method === 'POST' && isInitializeRequest(info.parsedBody)) {
      // The id is chosen before the server exists so its calls can name their browser context.
      const id = randomUUID();
      const server = buildServer(this.runner.asDispatcher(info.workspace, id), this.config, { era: 'legacy' }, this.calls, 'mcp-http');
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        onsessioninitialized: () => void this.sessions.set(id, { transport, server, lastUsed: Date.now() }),
        onsessionclosed: () => this.ended(id),
      });
      // Transport closed (DELETE, server.close() at idle or shutdown, or an initialize that failed): the context goes too.
      transport.onclose = () => this.ended(id);
      await server.connect(transport);
      return transport.handleRequest(request, options);
    }
    return jsonRpcError(400, -32000, 'Bad Request: no valid mcp-session-id (2025-era requests other than initialize need one).');
  }

  /** Closes sessions with no request for `idleMs` (a client that went away without DELETE). */
  closeIdle(idleMs: number, now = Date.now()): void {
    for (const [id, session] of this.sessions) {
      if (now - session.lastUsed >= idleMs) {
        log.info(`closing MCP session ${id}: idle`);
        this.ended(id);
        void session.server.close().catch(() => undefined);
      }
    }
  }

  /**
   * A 2025-era session ended (DELETE, transport closed, idle): forgets it and closes its browser context
   * (`Dispatcher.endSession`; its tabs, cookies and storage go). Safe to call more than once.
   */
  private ended(id: string): Promise<void> {
    this.sessions.delete(id);
    let ending = this.ending.get(id);
    if (!ending) {
      ending = this.runner.endSession(id).finally(() => this.ending.delete(id));
      this.ending.set(id, ending);
    }
    return ending;
  }

  /** Ends every session (closing their contexts) and the modern leg. */
  async close(): Promise<void> {
    this.calls.close();
    const sessions = [...this.sessions.entries()];
    this.sessions.clear();
    await Promise.allSettled(sessions.map(([id, s]) => Promise.all([s.server.close(), this.ended(id)])));
    await Promise.allSettled([...this.ending.values()]);
    await this.modern.close().catch(() => undefined);
  }
}

function workspaceOf(authInfo: AuthInfo | undefined): string | undefined {
  const ws = authInfo?.extra?.workspace;
  return typeof ws === 'string' ? ws : undefined;
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { status, headers: { 'content-type': 'application/json' } });
}
