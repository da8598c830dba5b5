/**
 * The daemon's loopback HTTP server (docs/daemon.md): routes,
 * admission (16 requests, 256 workspaces), the upload limits, status,
 * shutdown and the idle clock. It holds no browser: calls go to the
 * process's Dispatcher through a CallRunner.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { logger } from '../log.js';
import { ToolError } from '../errors.js';
import { VERSION } from '../version.js';
import { discardRest, parseArguments, readBody } from './body.js';
import { CallRunner } from './calls.js';
import { PendingQuestions } from './consentChannel.js';
import { isConsentAnswer } from '../consent/channel.js';
import { checkHostAndOrigin, checkToken } from './guard.js';
import { DaemonError, sendJson, sendNotDispatched } from './httpErrors.js';
import { DAEMON_PROTOCOL, type DaemonLimits } from './limits.js';
import { McpFront } from './mcpFront.js';
import { answerToolCall } from './toolCall.js';
import { sendWebResponse, toWebRequest } from './fetchAdapter.js';
import { requestWorkspace, WorkspaceTracker } from './workspace.js';

const log = logger('daemon');

/** `GET /v1/status` (docs/daemon.md). */
export interface DaemonStatus {
  version: string;
  pid: number;
  port: number;
  protocol: number;
  uptimeMs: number;
  /** Admitted requests in flight: what the 16-request limit counts. */
  activeRequests: number;
  /** Distinct workspaces active in the last 15 minutes. */
  workspaces: number;
  /** Open /mcp sessions (2025 era). */
  sessions: number;
  /** Tool calls handed to the dispatcher since start. */
  dispatched: number;
}

const TOOL_ROUTE = /^\/v1\/tools\/([a-z][a-z0-9_]*)$/;
const CONSENT_ROUTE = /^\/v1\/consent\/([0-9a-f]{32})$/;

export class DaemonServer {
  readonly server: Server;
  readonly runner: CallRunner;
  private readonly pending = new PendingQuestions();
  private readonly workspaces: WorkspaceTracker;
  private readonly mcp: McpFront;
  private readonly started = Date.now();
  private port = 0;
  /** Requests holding an admission slot. */
  private admitted = 0;
  /** Every HTTP request not yet answered (status and consent answers included). */
  private open = 0;
  private lastActivity = Date.now();
  private stopping = false;
  private idleTimer?: NodeJS.Timeout;

  /**
   * @param onStopRequested called once on `POST /v1/shutdown` and at idle exit, with the reason.
   */
  constructor(
    private readonly config: Config,
    readonly dispatcher: Dispatcher,
    private readonly token: string,
    private readonly limits: DaemonLimits,
    private readonly onStopRequested: (reason: string) => void,
  ) {
    this.runner = new CallRunner(dispatcher, limits.requestTimeoutMs, config.sharedContext);
    this.workspaces = new WorkspaceTracker(limits.maxWorkspaces, limits.workspaceWindowMs);
    this.mcp = new McpFront(config, this.runner, limits.maxBodyBytes);
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.maxConnections = limits.maxConnections;
    this.server.headersTimeout = limits.headersTimeoutMs;
    this.server.requestTimeout = 0; // bodies are timed by readBody (408 with our JSON body)
    this.server.keepAliveTimeout = 5_000;
  }

  /**
   * Listens on 127.0.0.1:`port` (0 = any free port) and starts the idle clock.
   * @returns the bound port.
   * @throws the listen error (EADDRINUSE for a busy port).
   */
  async listen(port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      this.server.once('error', onError);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    const every = Math.max(50, Math.min(30_000, Math.floor(this.limits.idleMs / 4)));
    this.idleTimer = setInterval(() => this.checkIdle(), every);
    this.idleTimer.unref();
    return this.port;
  }

  status(): DaemonStatus {
    return {
      version: VERSION,
      pid: process.pid,
      port: this.port,
      protocol: DAEMON_PROTOCOL,
      uptimeMs: Date.now() - this.started,
      activeRequests: this.admitted,
      workspaces: this.workspaces.count(),
      sessions: this.mcp.sessionCount,
      dispatched: this.runner.dispatched,
    };
  }

  private checkIdle(): void {
    if (this.stopping) return;
    if (this.admitted === 0) this.mcp.closeIdle(this.limits.idleMs); // never under a call in flight
    const idle = this.open === 0 && this.admitted === 0 && this.runner.active === 0 && this.mcp.sessionCount === 0;
    if (idle && Date.now() - this.lastActivity >= this.limits.idleMs) {
      this.onStopRequested(`idle for ${Math.round(this.limits.idleMs / 1000)} s`);
    }
  }

  /** Takes an admission slot. @throws DaemonError 429 too_many_requests. */
  private admit(): () => void {
    if (this.admitted >= this.limits.maxConcurrent) {
      throw new DaemonError(429, 'too_many_requests', `${this.limits.maxConcurrent} requests are in flight already.`, 'Retry when one of them has finished; nothing was run.');
    }
    this.admitted++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.admitted--;
      this.lastActivity = Date.now();
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.open++;
    this.lastActivity = Date.now();
    res.once('close', () => {
      this.open--;
      this.lastActivity = Date.now();
    });
    let release: (() => void) | undefined;
    try {
      if (this.stopping) throw new DaemonError(503, 'shutting_down', 'The daemon is stopping.', 'Retry in a moment: the next CLI command starts a new daemon.');
      checkHostAndOrigin(req, this.port);
      const path = (req.url ?? '/').split('?')[0]!;
      const method = req.method ?? 'GET';
      if (path === '/mcp') {
        checkToken(req, this.token, true);
        return await this.handleMcp(req, res);
      }
      checkToken(req, this.token);
      const tool = TOOL_ROUTE.exec(path);
      if (tool) {
        requireMethod(method, 'POST');
        const workspace = requestWorkspace(req, true)!;
        release = this.admit();
        this.workspaces.admit(workspace);
        const args = parseArguments(await readBody(req, this.limits.maxBodyBytes, this.limits.bodyTimeoutMs));
        await answerToolCall({ runner: this.runner, pending: this.pending, maxResponseBytes: this.limits.maxResponseBytes, keepAliveMs: this.limits.keepAliveMs }, req, res, tool[1]!, args, workspace);
        return;
      }
      const consent = CONSENT_ROUTE.exec(path);
      if (consent) {
        requireMethod(method, 'POST');
        const body = parseArguments(await readBody(req, 64 * 1024, this.limits.bodyTimeoutMs));
        if (!isConsentAnswer(body.answer)) throw new DaemonError(400, 'bad_answer', 'answer must be "once", "code", "always", "everywhere", "deny" or "never".', 'Send {"answer": "once"} (or always, deny, never; code and everywhere when the question offers them).');
        if (!this.pending.answer(consent[1]!, body.answer)) throw new DaemonError(404, 'unknown_question', 'No consent question with that id is waiting: it was answered, expired, or its call ended.', 'Nothing to do; the call has its result.');
        return sendJson(res, 200, { answered: true });
      }
      if (path === '/v1/status') {
        requireMethod(method, 'GET');
        return sendJson(res, 200, this.status());
      }
      if (path === '/v1/shutdown') {
        requireMethod(method, 'POST');
        sendJson(res, 202, { stopping: true });
        this.onStopRequested('POST /v1/shutdown');
        return;
      }
      if (path === '/v1/consent' || path.startsWith('/v1/consent/')) {
        throw new DaemonError(404, 'unknown_question', 'No consent question with that id is waiting.', 'Use the questionId of a consent event.');
      }
      throw new DaemonError(404, 'not_found', `No route ${method} ${path.slice(0, 100)}.`, 'See docs/daemon.md for the routes (POST /v1/tools/{name}, GET /v1/status, POST /v1/shutdown, /mcp).');
    } catch (error) {
      if (error instanceof DaemonError) {
        // 408: the rest of the body may never come: close after answering. 413: read and drop the rest, then close.
        sendNotDispatched(res, error, error.status === 408);
        if (error.status === 413) discardRest(req, res);
      } else {
        log.error('request failed:', error);
        if (!res.headersSent) sendJson(res, 500, { outcome: 'not_dispatched', error: { type: 'internal', message: String(error), hint: 'This is a tabwright bug if it repeats; see the daemon log.' } });
        else res.destroy();
      }
    } finally {
      release?.();
    }
  }

  private async handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const workspace = requestWorkspace(req, false);
    let release: (() => void) | undefined;
    let body: Buffer | undefined;
    let parsedBody: unknown;
    if (method === 'POST') {
      release = this.admit();
      res.once('close', release);
      if (workspace) this.workspaces.admit(workspace);
      body = await readBody(req, this.limits.maxBodyBytes, this.limits.bodyTimeoutMs);
      try {
        parsedBody = JSON.parse(body.toString('utf8'));
      } catch {
        parsedBody = undefined; // the SDK answers the parse error
      }
    }
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const request = toWebRequest(req, this.port, body, gone.signal);
    const response = await this.mcp.handle(request, { token: this.token, workspace, parsedBody });
    await sendWebResponse(response, res);
  }

  /**
   * Stops: refuses new requests, cancels calls in flight, ends /mcp sessions,
   * closes the listener and open sockets. Does not close the dispatcher.
   */
  async close(): Promise<void> {
    this.stopping = true;
    clearInterval(this.idleTimer);
    this.runner.cancelAll(new ToolError('cancelled', 'The daemon is stopping.', 'Send the call again: the next CLI command starts a new daemon.'));
    await this.mcp.close();
    await new Promise<void>(resolve => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
      setTimeout(() => this.server.closeAllConnections(), 1000).unref();
    });
  }
}

function requireMethod(method: string, wanted: string): void {
  if (method !== wanted) throw new DaemonError(405, 'method_not_allowed', `This route takes ${wanted}, not ${method}.`, 'See docs/daemon.md.');
}
