/**
 * Saving and loading a storage state in the session's browser context (docs/storage.md): cookies through
 * Playwright's `context.cookies` / `context.addCookies`, localStorage and IndexedDB per origin through a document of
 * that origin: a tab that shows it (read and written in place, its page not reloaded), else a scratch page of the
 * same context whose every request is answered with an empty document (Session.withScratchPage: never a tab,
 * nothing reaches the network). On the user's own browser (own-chrome, extension) only the origins of the tabs in
 * reach are (`checkInReach`, `cookiesInReach`).
 */
import type { BrowserContext, Page } from 'playwright-core';
import { ToolError } from '../errors.js';
import { COLLECT, RESTORE } from './storageScript.js';
import type { OriginState, StateCookie, StorageState } from './storageStateFile.js';
import type { Session } from './session.js';

/** An http(s) origin of `url`, else undefined. */
export function httpOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/** True when cookie domain `domain` (".example.com" or "example.com") applies to `origin`'s host. */
export function cookieDomainMatches(domain: string, origin: string): boolean {
  const bare = domain.replace(/^\./, '').toLowerCase();
  const host = new URL(origin).hostname.toLowerCase();
  return host === bare || host.endsWith(`.${bare}`);
}

/** The http(s) origins the context's tabs show now. */
export function tabOrigins(context: BrowserContext): string[] {
  return [...new Set(context.pages().flatMap(p => httpOrigin(p.url()) ?? []))];
}

/** What one origin's storage held or got: localStorage items and IndexedDB records. */
export interface OriginCounts {
  origin: string;
  localStorage: number;
  indexedDB: number;
  /** Through a tab that shows the origin (`tab`), or a scratch page (`scratch`). */
  via: 'tab' | 'scratch';
}

/**
 * True on the user's own browser (own-chrome, extension), where the agent's reach is the tabs in scope (those the user
 * shared, those tabwright opened; docs/own-browser.md), and its storage tools stay within their origins.
 */
export function scopedToTabs(session: Session): boolean {
  const kind = session.connection.kind;
  return kind === 'own-chrome' || kind === 'extension';
}

/**
 * Refuses what lies outside the tabs in reach on the user's own browser (docs/storage.md, "Connection kinds").
 * @throws ToolError extension_denied (code `cookie_scope`) on the extension kind, origin_not_shared on own-chrome,
 *   naming the first origin or cookie domain out of reach.
 */
export function checkInReach(session: Session, context: BrowserContext, origins: readonly string[], cookieDomains: readonly string[]): void {
  if (!scopedToTabs(session)) return;
  const extension = session.connection.kind === 'extension';
  const shared = tabOrigins(context);
  const now = `(now: ${shared.join(', ') || 'none'})`;
  const hint = extension
    ? `Through the extension only the shared tabs' origins are in reach ${now}: ask the user to share a tab of it from the extension's popup.`
    : `On the user's own Chrome only the origins of the tabs in reach are ${now}: open a tab of it (open_tab) or ask the user to share one (tabwright share).`;
  const refuse = (message: string) => extension
    ? new ToolError('extension_denied', message, hint, { code: 'cookie_scope' })
    : new ToolError('origin_not_shared', message, hint);
  const origin = origins.find(o => !shared.includes(o));
  if (origin !== undefined) throw refuse(`The storage of ${origin} is out of reach: no ${extension ? 'shared ' : ''}tab ${extension ? '' : 'in reach '}shows it.`);
  const domain = cookieDomains.find(d => !shared.some(o => cookieDomainMatches(d, o)));
  if (domain !== undefined) throw refuse(`Cookies of ${domain} are out of reach: no ${extension ? 'shared ' : ''}tab ${extension ? '' : 'in reach '}shows that domain.`);
}

/** `cookies` as far as they are in reach: all of them, but on the user's own browser only those the tabs in reach's origins get. */
export function cookiesInReach<C extends { domain: string }>(session: Session, context: BrowserContext, cookies: readonly C[]): C[] {
  if (!scopedToTabs(session)) return [...cookies];
  const shared = tabOrigins(context);
  return cookies.filter(c => shared.some(o => cookieDomainMatches(c.domain, o)));
}

/** Runs `fn` in a document of `origin`: a tab that shows it, else a scratch page (not on the extension kind). */
async function inOrigin<T>(session: Session, context: BrowserContext, origin: string, fn: (page: Page) => Promise<T>): Promise<{ value: T; via: 'tab' | 'scratch' }> {
  const tab = context.pages().find(p => httpOrigin(p.url()) === origin);
  if (tab) return { value: await fn(tab), via: 'tab' };
  const value = await session.withScratchPage(async page => {
    await page.route('**/*', route => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title></title>' }));
    await page.goto(`${origin}/`, { waitUntil: 'domcontentloaded' });
    return await fn(page);
  });
  return { value, via: 'scratch' };
}

/**
 * The storage state of the context: every cookie (the cookies of `origins` when given), and the localStorage and
 * IndexedDB of `origins` (default: the origins the tabs show).
 * @throws ToolError extension_denied (an origin out of reach); Playwright's errors.
 */
export async function collectState(session: Session, origins?: readonly string[]): Promise<{ state: StorageState; counts: OriginCounts[] }> {
  const context = await session.context();
  const wanted = origins?.length ? [...new Set(origins)] : tabOrigins(context);
  checkInReach(session, context, wanted, []);
  const all = (await context.cookies()) as StateCookie[];
  const cookies = origins?.length || scopedToTabs(session) ? all.filter(c => wanted.some(o => cookieDomainMatches(c.domain, o))) : all;
  const stored: OriginState[] = [];
  const counts: OriginCounts[] = [];
  for (const origin of wanted) {
    const { value, via } = await inOrigin(session, context, origin, page => page.evaluate(`(${COLLECT})()`) as Promise<Omit<OriginState, 'origin'>>);
    const records = (value.indexedDB ?? []).reduce((n, db) => n + db.stores.reduce((m, s) => m + s.records.length, 0), 0);
    counts.push({ origin, localStorage: value.localStorage.length, indexedDB: records, via });
    if (value.localStorage.length || value.indexedDB?.length) stored.push({ origin, ...value });
  }
  return { state: { cookies, origins: stored }, counts };
}

/**
 * Merges `state` into the context: its cookies added (replacing ones of the same name, domain and path), its
 * origins' localStorage items set and IndexedDB records put; nothing else is cleared.
 * @throws ToolError extension_denied (an origin or cookie domain out of reach: nothing is changed); Playwright's errors.
 */
export async function applyState(session: Session, state: StorageState): Promise<OriginCounts[]> {
  const context = await session.context();
  checkInReach(session, context, state.origins.map(o => o.origin), state.cookies.map(c => c.domain));
  if (state.cookies.length) await context.addCookies(state.cookies);
  const counts: OriginCounts[] = [];
  for (const origin of state.origins) {
    const { value, via } = await inOrigin(session, context, origin.origin, page => page.evaluate(`(${RESTORE})(${JSON.stringify(origin)})`) as Promise<{ items: number; records: number }>);
    counts.push({ origin: origin.origin, localStorage: value.items, indexedDB: value.records, via });
  }
  return counts;
}
