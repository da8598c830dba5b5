/**
 * The request side of the host rules (docs/policy.md, "Host rules"): every request a page of the session's browser
 * context makes (documents, subresources, fetch/XHR, iframes, redirect targets, downloads) to a host the policy denies
 * fails as the browser's own blocking does, `net::ERR_BLOCKED_BY_CLIENT` (Playwright's `route.abort('blockedbyclient')`,
 * CDP `Fetch.failRequest`). Each one is logged, and the tab's network log names the rule (src/session/networkLog.ts).
 * Playwright routes on every kind it connects to (a launched browser, CDP, a Playwright server, own-chrome); the
 * extension connection cannot have host rules (src/config.ts refuses them).
 *
 * What routing does not reach (REQUEST_GAPS, shown by get_bridge_status): the target of a redirect (Playwright
 * continues redirected requests without asking the route: such a request is logged as a policy breach, not stopped)
 * and WebSocket handshakes (not Fetch-interceptable).
 */
import type { BrowserContext, Request } from 'playwright-core';
import { hasHostRules, hostDenial, type HostDenial, type Policy } from '../consent/policy.js';
import { logger } from '../log.js';
import { redactQuery } from '../util/urlPattern.js';

const log = logger('policy');

/** What the request side of the host rules does not stop (docs/policy.md, "What host rules do not stop"). */
export const REQUEST_GAPS: readonly string[] = ['redirect targets (logged, not stopped)', 'WebSocket connections'];

/** The denial of each request the rules blocked (the network log reads it back). */
const blocked = new WeakMap<Request, HostDenial>();

/** The rule that blocked `request` and its host, if the host rules did. */
export function blockedBy(request: Request): HostDenial | undefined {
  return blocked.get(request);
}

/**
 * Routes the requests of `ctx` through the host rules of `policy`; does nothing without host rules (no request is
 * intercepted then).
 */
export async function routeRequests(ctx: BrowserContext, policy: Policy): Promise<void> {
  if (!hasHostRules(policy)) return;
  await ctx.route(url => hostDenial(policy, url.href) !== undefined, async route => {
    const request = route.request();
    const denial = hostDenial(policy, request.url());
    if (!denial) {
      await route.fallback().catch(() => undefined);
      return;
    }
    blocked.set(request, denial);
    log.warn(`blocked ${request.method()} ${redactQuery(request.url())} (${request.resourceType()}): ${denial.rule} denies ${denial.host}`);
    await route.abort('blockedbyclient').catch(error => log.debug('aborting a blocked request failed:', error));
  });
  // A redirect's target never reaches the route (Playwright continues it): say so loudly where it happens.
  ctx.on('request', request => {
    if (!request.redirectedFrom()) return;
    const denial = hostDenial(policy, request.url());
    if (denial) log.error(`policy breach: a redirect led ${request.method()} ${redactQuery(request.url())} to ${denial.host}, which ${denial.rule} denies; redirect targets cannot be routed`);
  });
}
