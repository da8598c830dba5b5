/**
 * The dashboard's HTTP server (docs/dashboard.md): node:http on 127.0.0.1, behind ./guard.ts. It serves
 *
 * - `GET /` and the page's files (`/app.js`, `/style.css`): static, no secret in them, no token needed;
 * - `GET /api/state`: the state (./state.ts) as JSON;
 * - `GET /api/events`: the same state as Server-Sent Events (`event: state`), sent again whenever it changes
 *   (debounced), and every few seconds while the thumbnails refresh; the page reads it with fetch (EventSource cannot
 *   send the Authorization header);
 * - `GET /api/tabs/<tabId>/thumbnail`: the tab's latest JPEG;
 * - `GET /api/prompts`: the pending consent prompts;
 * - `POST /api/prompts/<id>` `{answer: once|always|deny|never, via?: "cli"}`: answers one through the consent hub
 *   (surface `dashboard`, or `consent_cli` for `tabwright consent answer`);
 * - `POST /api/permissions/reset` `{origin?, tool?, scriptId?}`: removes saved "always" answers (all with `{}`).
 *
 * Every `/api/` request needs the token; answers are `{error: {type, message, hint}}` on failure.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.js';
import { CONSENT_ANSWERS, isConsentAnswer, offeredAnswers } from '../consent/channel.js';
import type { ConsentHub } from '../consent/hub.js';
import { resetOverrides } from '../consent/overrides.js';
import type { LocalDispatcher } from '../dispatch/dispatcher.js';
import { SseStream } from '../daemon/sse.js';
import { logger } from '../log.js';
import { BodyError, readBody } from '../util/httpBody.js';
import { checkHostAndOrigin, checkToken, DashboardError, SAFE_HEADERS, sendError, sendJson } from './guard.js';
import { buildState, promptsOf } from './state.js';
import { Thumbnails } from './thumbnails.js';

const log = logger('dashboard');

/** The page's files, served from dist/dashboard/static (scripts/build.mjs copies them there). */
const STATIC_DIR = join(dirname(fileURLToPath(import.meta.url)), 'static');
const STATIC: Record<string, string> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/app.js': 'app.js',
  '/style.css': 'style.css',
};
const TYPES: Record<string, string> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

/** Largest request body, bytes. */
const MAX_BODY = 16 * 1024;
/** How long a request body may take to arrive, ms. */
const BODY_TIMEOUT_MS = 10_000;
/** How long a burst of changes is gathered before the state goes out, ms. */
const PUSH_DEBOUNCE_MS = 150;
/** While a page listens: how often thumbnails are refreshed and the state sent again, ms. */
const TICK_MS = 3000;
/** An event stream's byte cap (a page that reads it for days reconnects), and its keep-alive, ms. */
const STREAM_BYTES = 512 * 1024 * 1024;
const KEEPALIVE_MS = 15_000;

/** What the server shows: this process's LocalDispatcher while it leads (read at every use: a takeover replaces it). */
export type LocalSource = () => LocalDispatcher | undefined;

/** One dashboard server. */
export class DashboardServer {
  private readonly server: Server;
  private readonly streams = new Set<SseStream>();
  private readonly thumbs = new Thumbnails();
  private port = 0;
  private pushTimer?: NodeJS.Timeout;
  private tick?: NodeJS.Timeout;
  private watched?: LocalDispatcher;
  private readonly unwatch: Array<() => void> = [];

  constructor(private readonly config: Config, private readonly token: string, private readonly hub: ConsentHub, private readonly source: LocalSource) {
    this.server = createServer((req, res) => void this.handle(req, res).catch(error => {
      if (error instanceof DashboardError) return sendError(res, error);
      log.warn('dashboard request failed:', error);
      sendJson(res, 500, { error: { type: 'internal', message: 'The dashboard failed to answer.', hint: 'Check the server\'s log (stderr, or --log-file).' } });
    }));
    const onHub = () => this.schedulePush();
    hub.on('change', onHub);
    this.unwatch.push(() => hub.off('change', onHub));
  }

  /** The address without the token: `http://127.0.0.1:<port>/`. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/`;
  }

  /**
   * Listens on 127.0.0.1:`port` (0: any free port).
   * @returns the bound port. @throws the listen error (EADDRINUSE, ...).
   */
  async listen(port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  /** Stops listening, ends the event streams and drops the listeners. */
  async close(): Promise<void> {
    clearTimeout(this.pushTimer);
    clearInterval(this.tick);
    for (const stop of this.unwatch.splice(0)) stop();
    for (const stream of this.streams) stream.close();
    this.streams.clear();
    this.server.closeAllConnections();
    await new Promise<void>(resolve => this.server.close(() => resolve()));
  }

  /** Follows the activity of the current LocalDispatcher (a new one after a takeover). */
  private watch(): LocalDispatcher | undefined {
    const local = this.source();
    if (local === this.watched) return local;
    this.watched = local;
    if (local) {
      const onActivity = (call: { durationMs?: number }) => {
        // The call log at once; a call that ended may have changed a page: refresh the thumbnails (a listening page
        // only) and push again only when a picture changed.
        this.schedulePush();
        if (call.durationMs !== undefined && this.streams.size) void this.thumbs.refresh(local).then(changed => changed && this.schedulePush());
      };
      local.activity.on('change', onActivity);
      this.unwatch.push(() => local.activity.off('change', onActivity));
    }
    return local;
  }

  private schedulePush(): void {
    if (!this.streams.size || this.pushTimer) return;
    this.pushTimer = setTimeout(() => {
      this.pushTimer = undefined;
      void this.push();
    }, PUSH_DEBOUNCE_MS);
  }

  private async push(): Promise<void> {
    if (!this.streams.size) return;
    const state = await buildState(this.config, this.url, this.hub, this.watch(), this.thumbs);
    for (const stream of this.streams) void stream.send('state', state);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    checkHostAndOrigin(req, this.port);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = STATIC[path];
    if (file) {
      if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(req);
      const body = readFileSync(join(STATIC_DIR, file));
      res.writeHead(200, { ...SAFE_HEADERS, 'content-type': TYPES[file.split('.').pop()!]!, 'content-length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    if (!path.startsWith('/api/')) throw new DashboardError(404, 'not_found', `Nothing is served at ${path.slice(0, 100)}.`, 'Open / for the dashboard page.');
    checkToken(req, this.token);
    const local = this.watch();
    if (req.method === 'GET' && path === '/api/state') return sendJson(res, 200, await buildState(this.config, this.url, this.hub, local, this.thumbs));
    if (req.method === 'GET' && path === '/api/events') return this.stream(res);
    if (req.method === 'GET' && path === '/api/prompts') return sendJson(res, 200, { prompts: promptsOf(this.hub) });
    const thumb = /^\/api\/tabs\/(\d+)\/thumbnail$/.exec(path);
    if (req.method === 'GET' && thumb) return this.thumbnail(res, Number(thumb[1]));
    const prompt = /^\/api\/prompts\/([0-9a-f]{32})$/.exec(path);
    if (req.method === 'POST' && prompt) return this.answer(res, prompt[1]!, await jsonBody(req));
    if (req.method === 'POST' && path === '/api/permissions/reset') {
      const filter = await jsonBody(req);
      const pick = (key: string) => (typeof filter[key] === 'string' ? filter[key] as string : undefined);
      const removed = resetOverrides(this.config.configDir, { origin: pick('origin'), tool: pick('tool'), scriptId: pick('scriptId'), codeHash: pick('codeHash') });
      this.schedulePush();
      return sendJson(res, 200, { removed });
    }
    if (['/api/state', '/api/events', '/api/prompts', '/api/permissions/reset'].includes(path) || thumb || prompt) throw methodNotAllowed(req);
    throw new DashboardError(404, 'not_found', `No API route ${path.slice(0, 100)}.`, 'See docs/dashboard.md for the routes.');
  }

  private answer(res: ServerResponse, id: string, body: Record<string, unknown>): void {
    const answer = body.answer;
    if (!isConsentAnswer(answer)) {
      throw new DashboardError(400, 'bad_request', `"answer" must be one of ${CONSENT_ANSWERS.join(', ')}.`, 'once = allow once, always = always allow, deny = deny once, never = always deny; a code prompt also takes code (this exact code here) and everywhere (any code on every site).');
    }
    const offers = this.hub.list().find(p => p.id === id)?.question;
    if (offers && !offeredAnswers(offers).includes(answer)) {
      throw new DashboardError(400, 'bad_request', `Prompt ${id} does not offer "${answer}": it takes ${offeredAnswers(offers).join(', ')}.`, 'code and everywhere are answers to prompts about execute and add_element only.');
    }
    if (!this.hub.answer(id, answer, body.via === 'cli' ? 'consent_cli' : 'dashboard')) {
      throw new DashboardError(404, 'prompt_not_found', `No consent prompt ${id} waits: it was answered elsewhere, expired, or its call ended.`, 'List the prompts waiting now (`tabwright consent list`).');
    }
    sendJson(res, 200, { answered: id, answer });
  }

  private thumbnail(res: ServerResponse, tabId: number): void {
    const image = this.thumbs.image(tabId);
    if (!image) throw new DashboardError(404, 'not_found', `No thumbnail of tab ${tabId} yet.`, 'Thumbnails are taken while the dashboard page is open.');
    res.writeHead(200, { ...SAFE_HEADERS, 'content-type': 'image/jpeg', 'content-length': image.length });
    res.end(image);
  }

  private async stream(res: ServerResponse): Promise<void> {
    const stream = new SseStream(res, STREAM_BYTES, KEEPALIVE_MS);
    this.streams.add(stream);
    res.on('close', () => {
      this.streams.delete(stream);
      stream.close();
      if (!this.streams.size) {
        clearInterval(this.tick);
        this.tick = undefined;
      }
    });
    this.tick ??= setInterval(() => {
      const local = this.watch();
      if (local) void this.thumbs.refresh(local).finally(() => this.schedulePush());
      else this.schedulePush();
    }, TICK_MS);
    this.tick.unref();
    const local = this.watch();
    if (local) await this.thumbs.refresh(local);
    await stream.send('state', await buildState(this.config, this.url, this.hub, local, this.thumbs));
  }
}

function methodNotAllowed(req: IncomingMessage): DashboardError {
  return new DashboardError(405, 'method_not_allowed', `${req.method} is not allowed here.`, 'The API reads with GET and changes with POST and a JSON body.');
}

/**
 * The request's JSON object body.
 * @throws DashboardError 400 bad_request (not JSON, not an object, not `application/json`), 413 payload_too_large.
 */
async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    throw new DashboardError(400, 'bad_request', 'The body must be JSON (Content-Type: application/json).', 'Send a JSON object.');
  }
  let body: Buffer;
  try {
    body = await readBody(req, MAX_BODY, BODY_TIMEOUT_MS);
  } catch (error) {
    if (!(error instanceof BodyError)) throw error;
    if (error.reason === 'too_large') throw new DashboardError(413, 'payload_too_large', `The body is over ${MAX_BODY} bytes.`, 'Send a small JSON object.');
    if (error.reason === 'timeout') throw new DashboardError(408, 'request_timeout', `The request body did not arrive within ${BODY_TIMEOUT_MS / 1000} s.`, 'Send the whole body at once; nothing was changed.');
    throw new DashboardError(400, 'bad_request', error.reason === 'aborted' ? 'The client aborted the upload.' : 'Content-Length is not a byte count.', 'Send the request again, with a valid Content-Length or none.');
  }
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8') || '{}');
  } catch {
    throw new DashboardError(400, 'bad_request', 'The body is not valid JSON.', 'Send a JSON object.');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new DashboardError(400, 'bad_request', 'The body must be a JSON object.', 'Send a JSON object.');
  return value as Record<string, unknown>;
}
