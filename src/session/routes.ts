/**
 * The routes of a session (docs/network.md, "Routes"): requests a tab or the whole browser context answers with a
 * mock (`fulfill`), fails (`abort`), passes on changed (`continue`), or answers from a HAR file, through Playwright's
 * `page.route` / `context.route` / `routeFromHAR`. Each route has an id (`r1`, `r2`, …), counts its hits, and marks
 * the requests it handled, which the tab's network log reads back (`routedBy`, src/session/networkLog.ts).
 *
 * Order is Playwright's: a tab's routes before the context's, newer before older. `continue` hands the request on
 * with Playwright's `route.fallback()`, so an older matching route (and the server's host rules,
 * src/session/requestPolicy.ts, a context route registered first) still sees it before the network does.
 */
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page, Request, Route } from 'playwright-core';
import { logger } from '../log.js';
import { urlPattern } from '../util/urlPattern.js';

const log = logger('routes');

export type RouteAction = 'fulfill' | 'abort' | 'continue';

/** Playwright's `route.abort` error codes (each maps to a `net::ERR_…` the page sees). */
export const ABORT_CODES = ['failed', 'aborted', 'accessdenied', 'addressunreachable', 'blockedbyclient', 'blockedbyresponse',
  'connectionaborted', 'connectionclosed', 'connectionfailed', 'connectionrefused', 'connectionreset', 'internetdisconnected',
  'namenotresolved', 'timedout'] as const;
export type AbortCode = (typeof ABORT_CODES)[number];

/** What a route does with a request it matches. */
export interface RouteSpec {
  /** A Playwright URL glob (`**\/api/*`), an absolute URL, or a regular expression written `/…/flags`. */
  pattern: string;
  action: RouteAction;
  /** fulfill: the HTTP status (default 200). */
  status?: number;
  /** fulfill: the response headers; continue: headers set on the request (over its own). */
  headers?: Record<string, string>;
  /** fulfill: the response body (UTF-8 text). */
  body?: string;
  /** fulfill: the Content-Type (default: from headers, else text/plain for a body). */
  contentType?: string;
  /** continue: the method to send instead. */
  method?: string;
  /** continue: the request body to send instead. */
  postData?: string;
  /** abort: the network error (default `failed`). */
  errorCode?: AbortCode;
  /** Only requests of these Playwright resource types (document, fetch, xhr, script, image, …). */
  resourceTypes?: string[];
  /** Handle at most this many requests, then pass the rest on (the route stays listed, used up). */
  times?: number;
}

/** How a route answered one request, as the network log shows it. */
export interface RouteMark {
  routeId: string;
  /** `from_har`: answered from the route's HAR file; a HAR route's `abort` is a request the HAR lacks (notFound abort). */
  action: RouteAction | 'from_har';
  /** True when a route_from_har route made the mark (an `abort` is then a request its HAR lacks). */
  har?: true;
}

/** One route as list_routes shows it. */
export interface RouteInfo {
  id: string;
  scope: 'tab' | 'context';
  /** The tab of a tab route. */
  tabId?: number;
  pattern: string;
  action: RouteAction | 'from_har';
  /** Requests it handled so far. */
  hits: number;
  times?: number;
  /** Whether it handled its `times` requests and passes the rest on. */
  usedUp?: boolean;
  resourceTypes?: string[];
  /** fulfill: the status it answers with; abort: its error code. */
  status?: number;
  errorCode?: AbortCode;
  /** A HAR route's file and what it does with a request the file lacks. */
  har?: string;
  notFound?: 'abort' | 'fallback';
}

interface Installed {
  info: RouteInfo;
  /** The page of a tab route, the context of a context route. */
  target: Page | BrowserContext;
  remove(): Promise<void>;
}

/** The route that handled each request (the network log reads it). */
const marks = new WeakMap<Request, RouteMark>();

/** The route that handled `request` and how, if one did. */
export function routedBy(request: Request): RouteMark | undefined {
  return marks.get(request);
}

const REGEX = /^\/(.+)\/([dgimsuvy]*)$/s;

/**
 * The matcher Playwright gets for `pattern`: a RegExp for `/…/flags`, else the glob string itself.
 * @throws Error with the reason (the tool turns it into invalid_arguments) for a regex that does not compile, or a
 *   glob that can never match (neither absolute nor starting with `*`: Playwright resolves it against no base URL).
 */
export function routeMatcher(pattern: string): string | RegExp {
  const regex = REGEX.exec(pattern);
  if (regex) {
    try {
      return new RegExp(regex[1]!, regex[2]!.replace(/[gy]/g, ''));
    } catch (error) {
      throw new Error(`pattern is not a valid regular expression: ${(error as Error).message}`);
    }
  }
  if (!pattern.startsWith('*') && !/^[a-z][a-z0-9+.-]*:/i.test(pattern)) {
    throw new Error(`pattern ${JSON.stringify(pattern)} is neither an absolute URL nor a glob starting with *: it would match no request`);
  }
  return pattern;
}

/** The (method, URL) pairs a HAR file answers, upper-cased method first: which requests a HAR route handles. */
function harKeys(path: string): Set<string> {
  const har = JSON.parse(readFileSync(path, 'utf8')) as { log?: { entries?: Array<{ request?: { method?: string; url?: string } }> } };
  const entries = har.log?.entries;
  if (!Array.isArray(entries)) throw new Error('it is not a HAR file (no log.entries)');
  return new Set(entries.map(e => `${(e.request?.method ?? 'GET').toUpperCase()} ${e.request?.url ?? ''}`));
}

/** The routes of one session; one per Session (`routesOf`). */
export class RouteTable {
  private readonly routes = new Map<string, Installed>();
  private seq = 0;

  /** The routes in force, oldest first; tab routes of closed tabs and context routes of a context that is gone are dropped. */
  list(context: BrowserContext | undefined): RouteInfo[] {
    for (const [id, r] of this.routes) {
      if (isPage(r.target) ? r.target.isClosed() : r.target !== context) this.routes.delete(id);
    }
    return [...this.routes.values()].map(r => ({ ...r.info }));
  }

  /**
   * Adds a route on `target` (a tab's page, or the context) and returns what list_routes shows of it.
   * @throws Error from routeMatcher for a bad pattern; Playwright's errors (a closed page).
   */
  async add(target: Page | BrowserContext, tabId: number | undefined, spec: RouteSpec): Promise<RouteInfo> {
    const matcher = routeMatcher(spec.pattern);
    const id = `r${++this.seq}`;
    const info: RouteInfo = {
      id, scope: tabId === undefined ? 'context' : 'tab', ...(tabId !== undefined ? { tabId } : {}), pattern: spec.pattern, action: spec.action, hits: 0,
      ...(spec.times !== undefined ? { times: spec.times } : {}),
      ...(spec.resourceTypes ? { resourceTypes: spec.resourceTypes } : {}),
      ...(spec.action === 'fulfill' ? { status: spec.status ?? 200 } : {}),
      ...(spec.action === 'abort' ? { errorCode: spec.errorCode ?? 'failed' } : {}),
    };
    const types = spec.resourceTypes && new Set(spec.resourceTypes.map(t => t.toLowerCase()));
    const handler = async (route: Route): Promise<void> => {
      const request = route.request();
      if ((types && !types.has(request.resourceType())) || (info.times !== undefined && info.hits >= info.times)) {
        await route.fallback().catch(() => undefined);
        return;
      }
      info.hits++;
      if (info.times !== undefined && info.hits >= info.times) {
        info.usedUp = true;
        // Nothing more to do: stop intercepting (the route stays listed, used up, until unroute).
        setImmediate(() => void this.unhook(target, matcher, handler));
      }
      marks.set(request, { routeId: id, action: spec.action });
      await answer(route, spec).catch(error => log.debug(`route ${id} could not answer ${request.url()}:`, error));
    };
    await target.route(matcher, handler);
    this.routes.set(id, { info, target, remove: () => this.unhook(target, matcher, handler) });
    return { ...info };
  }

  /**
   * Adds a route answering from the HAR file at `path` (Playwright's `routeFromHAR`: by method, URL and, for a
   * POST, its body) the requests `url` matches (list_network_requests' URL forms: part of it, a glob, /regex/;
   * default all); a request the file lacks is aborted, or with `notFound: 'fallback'` passed on.
   * @throws Error when the file is not a HAR (JSON with log.entries) or Playwright refuses it.
   */
  async addHar(target: Page | BrowserContext, tabId: number | undefined, path: string, opts: { url?: string; notFound?: 'abort' | 'fallback' }): Promise<RouteInfo> {
    const keys = harKeys(path);
    const filter = opts.url ? urlPattern(opts.url, 'url') : undefined;
    const notFound = opts.notFound ?? 'abort';
    const id = `r${++this.seq}`;
    const info: RouteInfo = {
      id, scope: tabId === undefined ? 'context' : 'tab', ...(tabId !== undefined ? { tabId } : {}), pattern: opts.url ?? '**/*', action: 'from_har', hits: 0, har: path, notFound,
    };
    // One function for both routes below, whose identity is what unroute removes (Playwright compares matchers
    // that are functions by identity): the HAR router's own route has no handler we could name.
    const matcher = (url: URL): boolean => !filter || filter.test(url.href);
    await target.routeFromHAR(path, { url: matcher as unknown as string, notFound });
    // Registered after the HAR router, so it runs first: counts and marks the request, then hands it on to the router.
    await target.route(matcher, async route => {
      const request = route.request();
      const known = keys.has(`${request.method().toUpperCase()} ${request.url()}`);
      if (known || notFound === 'abort') {
        info.hits++;
        marks.set(request, { routeId: id, action: known ? 'from_har' : 'abort', har: true });
      }
      await route.fallback().catch(() => undefined);
    });
    this.routes.set(id, { info, target, remove: () => target.unroute(matcher) });
    return { ...info };
  }

  /** Removes the route `id`; false when there is none. Playwright's errors of a closed page are swallowed. */
  async remove(id: string): Promise<boolean> {
    const route = this.routes.get(id);
    if (!route) return false;
    this.routes.delete(id);
    await route.remove().catch(error => log.debug(`unroute ${id}:`, error));
    return true;
  }

  /** Removes every route; returns their ids. */
  async removeAll(): Promise<string[]> {
    const ids = [...this.routes.keys()];
    for (const id of ids) await this.remove(id);
    return ids;
  }

  private async unhook(target: Page | BrowserContext, matcher: string | RegExp, handler: (route: Route) => Promise<void>): Promise<void> {
    await target.unroute(matcher, handler).catch(() => undefined);
  }
}

/** Answers `route` as `spec` says. */
async function answer(route: Route, spec: RouteSpec): Promise<void> {
  if (spec.action === 'abort') return await route.abort(spec.errorCode ?? 'failed');
  if (spec.action === 'fulfill') {
    return await route.fulfill({
      status: spec.status ?? 200,
      headers: spec.headers,
      body: spec.body ?? '',
      contentType: spec.contentType ?? (hasHeader(spec.headers, 'content-type') ? undefined : isJson(spec.body) ? 'application/json' : 'text/plain; charset=utf-8'),
    });
  }
  const headers = spec.headers ? { ...route.request().headers(), ...lowerKeys(spec.headers) } : undefined;
  // fallback, not continue: older routes and the host rules (a context route) still see the changed request.
  await route.fallback({ ...(headers ? { headers } : {}), ...(spec.method ? { method: spec.method } : {}), ...(spec.postData !== undefined ? { postData: spec.postData } : {}) });
}

/** Whether `body` is a JSON object or array (a mocked API answer gets application/json then). */
function isJson(body: string | undefined): boolean {
  if (!body || !/^\s*[[{]/.test(body)) return false;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

function hasHeader(headers: Record<string, string> | undefined, name: string): boolean {
  return Object.keys(headers ?? {}).some(k => k.toLowerCase() === name);
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function isPage(target: Page | BrowserContext): target is Page {
  return 'mainFrame' in target;
}

const tables = new WeakMap<object, RouteTable>();

/** The route table of `session` (any object standing for it), made on first use. */
export function routesOf(session: object): RouteTable {
  let table = tables.get(session);
  if (!table) tables.set(session, table = new RouteTable());
  return table;
}
