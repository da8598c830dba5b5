/**
 * The network tool set's routes (docs/network.md, "Routes"): route, unroute, list_routes and route_from_har, over
 * the session's route table (src/session/routes.ts).
 */
import { existsSync, statSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import * as z from 'zod';
import { ToolError } from '../errors.js';
import { ABORT_CODES, routeMatcher, routesOf, type RouteInfo, type RouteSpec } from '../session/routes.js';
import { resolveUploadPaths } from './files.js';
import { defineTool } from './define.js';
import type { CallContext } from './context.js';
import { tabIdField } from './schemas.js';

const scopeField = z.enum(['tab', 'context']).optional()
  .describe('tab (default): the tab\'s requests, until it closes; context: every tab\'s, new ones too');

/** The page of a tab route or the browser context of a context route, and the tab id a tab route names. */
async function targetOf(ctx: CallContext, scope: 'tab' | 'context' | undefined, tabId: number | undefined): Promise<{ target: Page | BrowserContext; tabId?: number }> {
  if (scope === 'context') {
    if (tabId !== undefined) throw new ToolError('invalid_arguments', 'tabId names a tab, but scope is context.', 'Drop tabId for a route on every tab, or drop scope for one on that tab.');
    return { target: await ctx.session.context() };
  }
  const tab = await ctx.session.tab(tabId);
  return { target: tab.page, tabId: tab.id };
}

/** `r1 tab 3 "**\/api/*" fulfill 200: 2 hits` */
function routeLine(r: RouteInfo): string {
  const where = r.scope === 'tab' ? `tab ${r.tabId}` : 'every tab';
  const what = r.action === 'fulfill' ? `fulfill ${r.status}` : r.action === 'abort' ? `abort (${r.errorCode})` : r.action === 'from_har' ? `from HAR ${r.har} (not found: ${r.notFound})` : 'continue';
  const types = r.resourceTypes ? ` [${r.resourceTypes.join(', ')}]` : '';
  const hits = `${r.hits} hit${r.hits === 1 ? '' : 's'}${r.times !== undefined ? ` of ${r.times}${r.usedUp ? ', used up: passes requests on' : ''}` : ''}`;
  return `${r.id} ${where} "${r.pattern}"${types} → ${what}: ${hits}`;
}

const headersField = z.record(z.string().min(1).max(200), z.string().max(8000)).optional();

export const route = defineTool({
  name: 'route',
  title: 'Route requests',
  description:
    'Mock, block or change requests matching a URL pattern (Playwright glob like "**/api/items*", or "/regex/flags"): ' +
    'action fulfill answers with status/headers/body without the server; abort fails them (errorCode); continue sends them on with changed headers/method/postData. ' +
    'For a tab (default) or every tab (scope context); from the next request on. Returns a route id; list_network_requests marks what it handled.',
  needs: ['routing'],
  effect: 'interact',
  launchesBrowser: true,
  toolset: 'network',
  input: z.object({
    pattern: z.string().min(1).max(2000).describe('URL glob (** any characters, * any but /) or /regex/flags'),
    action: z.enum(['fulfill', 'abort', 'continue']).describe('fulfill: answer it; abort: fail it; continue: send it on, changed'),
    scope: scopeField,
    tabId: tabIdField,
    status: z.number().int().min(100).max(599).optional().describe('fulfill: HTTP status (default 200)'),
    headers: headersField.describe('fulfill: response headers; continue: request headers to set'),
    body: z.union([z.string().max(5_000_000), z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional()
      .describe('fulfill: response body: text, or a JSON object or array (served as JSON, application/json)'),
    contentType: z.string().min(1).max(200).optional().describe('fulfill: Content-Type'),
    method: z.string().min(1).max(20).optional().describe('continue: send with this method'),
    postData: z.string().max(5_000_000).optional().describe('continue: send this request body'),
    errorCode: z.enum(ABORT_CODES).optional().describe('abort: the network error (default failed)'),
    resourceTypes: z.array(z.string().min(1).max(40)).min(1).max(20).optional().describe('Only these types: document, fetch, xhr, script, image, …'),
    times: z.number().int().min(1).max(1_000_000).optional().describe('Handle only the first N matching requests'),
  }),
  async handle(args, ctx, res) {
    const applies: Record<string, readonly string[]> = { status: ['fulfill'], body: ['fulfill'], contentType: ['fulfill'], method: ['continue'], postData: ['continue'], errorCode: ['abort'], headers: ['fulfill', 'continue'] };
    const misplaced = Object.keys(applies).filter(k => args[k as keyof typeof args] !== undefined && !applies[k]!.includes(args.action));
    if (misplaced.length) {
      throw new ToolError('invalid_arguments', `${misplaced.join(', ')} do${misplaced.length === 1 ? 'es' : ''} not apply to action ${args.action}.`,
        'fulfill takes status, headers, body, contentType; continue takes headers, method, postData; abort takes errorCode.');
    }
    try {
      routeMatcher(args.pattern);
    } catch (error) {
      throw new ToolError('invalid_arguments', `${(error as Error).message}.`, 'Write a glob such as "**/api/items*" (** matches across slashes), an absolute URL, or a regular expression in slashes such as "/\\/api\\/items\\?page=\\d+/".');
    }
    const { target, tabId } = await targetOf(ctx, args.scope, args.tabId);
    // A JSON object or array is served as its JSON text (isJson then gives it application/json).
    const body = args.body === undefined || typeof args.body === 'string' ? args.body : JSON.stringify(args.body);
    if (body !== undefined && body.length > 5_000_000) throw new ToolError('invalid_arguments', `body is ${body.length} characters of JSON, over 5,000,000.`, 'Serve a smaller answer, or route_from_har for recorded large ones.');
    const spec: RouteSpec = { ...args, body };
    const info = await routesOf(ctx.session).add(target, tabId, spec);
    res.merge({ routeId: info.id, route: info });
    res.text(`Added route ${routeLine(info)}.`);
    res.text(`It handles requests from now on (reload_tab for a page that has loaded already); list_routes counts its hits, list_network_requests marks what it handled; unroute {routeId: "${info.id}"} removes it.${info.scope === 'tab' ? ' It ends when the tab closes.' : ''}`);
  },
});

export const unroute = defineTool({
  name: 'unroute',
  title: 'Remove routes',
  description: 'Remove a route (route, route_from_har) by routeId, or every route with all: true; its requests go to the server again.',
  needs: ['routing'],
  effect: 'interact',
  launchesBrowser: false,
  toolset: 'network',
  input: z.object({
    routeId: z.string().min(1).max(40).optional().describe('The route id, e.g. "r1"'),
    all: z.boolean().optional().describe('Remove every route'),
  }),
  async handle(args, ctx, res) {
    if ((args.routeId === undefined) === !args.all) throw new ToolError('invalid_arguments', 'Pass routeId or all: true (one of them).', 'list_routes gives the ids.');
    const table = routesOf(ctx.session);
    if (args.all) {
      const ids = await table.removeAll();
      res.merge({ removed: ids });
      res.text(ids.length ? `Removed ${ids.length} route${ids.length === 1 ? '' : 's'}: ${ids.join(', ')}.` : 'There were no routes.');
      return;
    }
    const known = table.list(await currentContext(ctx));
    if (!known.some(r => r.id === args.routeId) || !(await table.remove(args.routeId!))) {
      throw new ToolError('route_not_found', `No route ${args.routeId}${known.length ? `; the routes are ${known.map(r => r.id).join(', ')}` : '; there are no routes'}.`,
        'Call list_routes: a tab route ends with its tab.', { routeIds: known.map(r => r.id) });
    }
    res.merge({ removed: [args.routeId] });
    res.text(`Removed route ${args.routeId}.`);
  },
});

/** The session's context when the browser runs (undefined otherwise: context routes are gone then). */
async function currentContext(ctx: CallContext): Promise<BrowserContext | undefined> {
  return ctx.session.running ? await ctx.session.context() : undefined;
}

export const listRoutes = defineTool({
  name: 'list_routes',
  title: 'List routes',
  description: 'The routes in force (route, route_from_har), oldest first: id, tab or every tab, pattern, action, and how many requests each handled.',
  needs: ['routing'],
  effect: 'observe',
  launchesBrowser: false,
  toolset: 'network',
  input: z.object({}),
  async handle(_args, ctx, res) {
    const routes = routesOf(ctx.session).list(await currentContext(ctx));
    res.merge({ routes });
    res.text(routes.length ? `${routes.length} route${routes.length === 1 ? '' : 's'} (a tab's routes run before every tab's, newer before older):` : 'No routes.');
    for (const r of routes) res.text(routeLine(r));
  },
});

export const routeFromHar = defineTool({
  name: 'route_from_har',
  title: 'Route requests from a HAR',
  description:
    'Answer requests from a HAR file (e.g. one stop_har wrote): a request the file has (same method and URL) gets its recorded response, ' +
    'without the server; others are aborted, or sent on with notFound: "fallback". Listed by list_routes, removed by unroute.',
  needs: ['routing'],
  effect: 'interact',
  launchesBrowser: true,
  toolset: 'network',
  input: z.object({
    path: z.string().min(1).max(1000).describe('The .har file, relative to the workspace'),
    tabId: tabIdField,
    scope: scopeField,
    url: z.string().min(1).max(2000).optional().describe('Only requests whose URL matches: part of it, a glob or /regex/ (default all)'),
    notFound: z.enum(['abort', 'fallback']).optional().describe('A request the HAR lacks: abort (default) or fallback (to the server)'),
  }),
  async handle(args, ctx, res) {
    const [file] = resolveUploadPaths([args.path], ctx.config);
    if (!existsSync(file!) || statSync(file!).size === 0) throw new ToolError('file_not_found', `${args.path} is empty.`, 'Record one with start_har / stop_har.');
    const { target, tabId } = await targetOf(ctx, args.scope, args.tabId);
    let info: RouteInfo;
    try {
      info = await routesOf(ctx.session).addHar(target, tabId, file!, { url: args.url, notFound: args.notFound });
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw new ToolError('invalid_arguments', `${args.path} cannot be replayed: ${(error as Error).message.split('\n')[0]}`, 'Pass a HAR 1.2 file (JSON with log.entries), such as stop_har writes.');
    }
    res.merge({ routeId: info.id, route: info });
    res.text(`Added route ${routeLine(info)}.`);
    res.text(`Requests the HAR has are answered from it from now on (reload_tab for a page that has loaded already); unroute {routeId: "${info.id}"} removes it.`);
  },
});

export const routingTools = [route, unroute, listRoutes, routeFromHar];
