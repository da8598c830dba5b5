/**
 * Cookies and web storage of the `storage` tool set (docs/storage.md): get_cookies, set_cookies, clear_cookies
 * through Playwright's context.cookies / addCookies / clearCookies; get_storage and set_storage on a tab's
 * localStorage or sessionStorage (its top frame's origin). Cookie values are redacted unless `reveal: true`.
 */
import type { BrowserContext } from 'playwright-core';
import * as z from 'zod';
import { ToolError } from '../errors.js';
import { checkInReach, cookiesInReach, httpOrigin, scopedToTabs } from '../session/storageState.js';
import type { StateCookie } from '../session/storageStateFile.js';
import { plural } from '../util/plural.js';
import type { CallContext } from './context.js';
import { defineTabTool, defineTool } from './define.js';
import { tabIdField } from './schemas.js';

/** What get_cookies shows of a cookie: all but the value, which only `reveal` adds. */
interface ShownCookie extends Omit<StateCookie, 'value'> {
  value: string;
  valueLength: number;
}

/** A redacted value: bullets and the length (`••• (24 chars)`). */
export function redact(value: string): string {
  return `••• (${plural(value.length, 'char')})`;
}

function cookieLine(c: ShownCookie): string {
  const flags = [c.httpOnly && 'httpOnly', c.secure && 'secure', `sameSite=${c.sameSite}`, c.expires === -1 ? 'session' : `expires ${new Date(c.expires * 1000).toISOString()}`].filter(Boolean).join(', ');
  return `- ${c.name} = ${c.value} (domain ${c.domain}, path ${c.path}; ${flags})`;
}

export const getCookies = defineTool({
  name: 'get_cookies',
  title: 'Get cookies',
  description: 'List the browser\'s cookies (all, or those sent to the given URLs): name, domain, path, flags, expiry; values redacted to their length unless reveal is true.',
  needs: ['storage'],
  effect: 'observe',
  launchesBrowser: true,
  toolset: 'storage',
  input: z.object({
    urls: z.array(z.string().max(2048)).max(50).optional().describe('Only the cookies these URLs would get (default: every cookie)'),
    reveal: z.boolean().optional().describe('Show the values (secrets: session tokens); default false, values redacted'),
  }),
  async handle({ urls, reveal }, ctx, res) {
    const context = await ctx.session.context();
    if (urls?.length) {
      const origins = urls.map(u => httpOrigin(u) ?? invalidUrl(u));
      checkInReach(ctx.session, context, origins, []);
    }
    const cookies = cookiesInReach(ctx.session, context, (await context.cookies(urls?.length ? urls : undefined)) as StateCookie[]);
    const shown: ShownCookie[] = cookies.map(c => ({ ...c, value: reveal ? c.value : redact(c.value), valueLength: c.value.length }));
    res.merge({ cookies: shown, count: shown.length, revealed: Boolean(reveal) });
    const where = urls?.length ? ` for ${urls.join(', ')}` : '';
    const scope = ctx.session.connection.kind === 'extension' ? ' (through the extension: the shared tabs\' origins only)'
      : scopedToTabs(ctx.session) ? ' (the user\'s own Chrome: the origins of the tabs in reach only)' : '';
    res.text(`${plural(shown.length, 'cookie')}${where}${scope}${shown.length ? ':' : '.'}`);
    for (const c of shown) res.text(cookieLine(c));
    if (shown.length && !reveal) res.text('Values are redacted; pass reveal: true to see them.');
  },
});

function invalidUrl(url: string): never {
  throw new ToolError('invalid_arguments', `"${url.slice(0, 200)}" is not an http(s) URL.`, 'Pass absolute http(s) URLs.');
}

const cookieInput = z.object({
  name: z.string().min(1).max(4096).describe('Cookie name'),
  value: z.string().max(4096).describe('Cookie value'),
  url: z.string().max(2048).optional().describe('A URL the cookie is for (sets domain, path and secure); else give domain and path'),
  domain: z.string().max(253).optional().describe('Domain: "example.com" for that host, ".example.com" to include its subdomains'),
  path: z.string().max(2048).optional().describe('Path, e.g. "/"'),
  expires: z.number().optional().describe('Unix time in seconds; omit (or -1) for a session cookie'),
  httpOnly: z.boolean().optional(),
  secure: z.boolean().optional(),
  sameSite: z.enum(['Strict', 'Lax', 'None']).optional(),
}).refine(c => c.url !== undefined || (c.domain !== undefined && c.path !== undefined), { message: 'give url, or domain and path' });

export const setCookies = defineTool({
  name: 'set_cookies',
  title: 'Set cookies',
  description: 'Add cookies to the browser (Playwright\'s cookie shape: name, value, and url or domain+path; expires, httpOnly, secure, sameSite). A cookie with the same name, domain and path is replaced.',
  needs: ['storage'],
  effect: 'sensitive',
  launchesBrowser: true,
  toolset: 'storage',
  input: z.object({ cookies: z.array(cookieInput).min(1).max(200).describe('The cookies to set') }),
  async handle({ cookies }, ctx, res) {
    const context = await ctx.session.context();
    const domains = cookies.map(c => c.domain ?? new URL(httpOrigin(c.url!) ?? invalidUrl(c.url!)).hostname);
    checkInReach(ctx.session, context, [], domains);
    await context.addCookies(cookies);
    const names = cookies.map(c => `${c.name} (${c.domain ?? httpOrigin(c.url!)})`);
    res.merge({ set: cookies.length, cookies: cookies.map(c => ({ name: c.name, domain: c.domain, url: c.url, path: c.path })) });
    res.text(`Set ${plural(cookies.length, 'cookie')}: ${names.join(', ')}.`);
  },
});

/** A cookie matches a clear_cookies filter field: unset, or equal. */
const fits = (want: string | undefined, have: string) => want === undefined || want === have;

export const clearCookies = defineTool({
  name: 'clear_cookies',
  title: 'Clear cookies',
  description: 'Delete cookies: those matching every filter given (exact name, domain, path), or every cookie when none is given. On the user\'s own browser (own-chrome, extension) only cookies of the tabs in reach, and a filter is needed.',
  needs: ['storage'],
  effect: 'interact',
  destructive: true,
  launchesBrowser: true,
  toolset: 'storage',
  input: z.object({
    name: z.string().max(4096).optional().describe('Only cookies of this name'),
    domain: z.string().max(253).optional().describe('Only cookies of this domain, as get_cookies shows it (".example.com" and "example.com" differ)'),
    path: z.string().max(2048).optional().describe('Only cookies of this path'),
  }),
  async handle({ name, domain, path }, ctx, res) {
    const filtered = name !== undefined || domain !== undefined || path !== undefined;
    if (!filtered && scopedToTabs(ctx.session)) {
      throw new ToolError('invalid_arguments', `clear_cookies without a filter would delete every cookie of the user's own browser (${ctx.session.connection.kind} connection), signing them out everywhere.`,
        'Give name, domain and/or path (get_cookies lists them).');
    }
    const context: BrowserContext = await ctx.session.context();
    if (domain !== undefined) checkInReach(ctx.session, context, [], [domain]);
    const before = cookiesInReach(ctx.session, context, await context.cookies()).filter(c => fits(name, c.name) && fits(domain, c.domain) && fits(path, c.path));
    if (!scopedToTabs(ctx.session)) await context.clearCookies(filtered ? { name, domain, path } : undefined);
    // On the user's own browser each cookie in reach is cleared by itself (a name alone would reach every site's);
    // through the extension Storage.clearCookies is refused (the whole jar), and a filter makes Playwright expire them.
    else for (const c of before) await context.clearCookies({ name: c.name, domain: c.domain, path: c.path });
    res.merge({ cleared: before.length, cookies: before.map(c => ({ name: c.name, domain: c.domain, path: c.path })) });
    const filter = [name !== undefined && `name ${name}`, domain !== undefined && `domain ${domain}`, path !== undefined && `path ${path}`].filter(Boolean).join(', ');
    res.text(`Cleared ${plural(before.length, 'cookie')}${filter ? ` matching ${filter}` : ''}${before.length ? `: ${before.map(c => `${c.name} (${c.domain})`).join(', ')}` : ''}.`);
  },
});

const kindField = z.enum(['local', 'session']).describe('localStorage or sessionStorage');

/** The storage of a tab's top frame, read or written with `expression`; a page without web storage fails clearly. */
async function inTabStorage<T>(page: import('playwright-core').Page, tabId: number, expression: string): Promise<T> {
  const origin = httpOrigin(page.url());
  if (!origin) throw new ToolError('invalid_arguments', `Tab ${tabId} shows ${page.url().slice(0, 200)}, which has no web storage of an http(s) origin.`, 'navigate the tab to the site first.');
  return await page.evaluate(expression) as T;
}

/** At most this many characters of values in get_storage's text and structured result; the rest is cut with a note. */
const STORAGE_TEXT_CAP = 32 * 1024;

export const getStorage = defineTabTool({
  name: 'get_storage',
  title: 'Get web storage',
  description: 'Read a tab\'s localStorage or sessionStorage (its top frame\'s origin): every item, or the keys given.',
  needs: ['storage'],
  effect: 'observe',
  launchesBrowser: true,
  toolset: 'storage',
  target: 'tab',
  input: z.object({
    tabId: tabIdField,
    kind: kindField,
    keys: z.array(z.string().max(4096)).max(200).optional().describe('Only these keys (a missing key shows as null)'),
  }),
  async handle(tab, { kind, keys }, _ctx, res) {
    const store = kind === 'local' ? 'localStorage' : 'sessionStorage';
    const items = await inTabStorage<Array<[string, string | null]>>(tab.page, tab.id,
      `(() => { const s = window.${store}; const keys = ${JSON.stringify(keys ?? null)} ?? Object.keys(s); return keys.map(k => [k, s.getItem(k)]); })()`);
    const origin = httpOrigin(tab.page.url())!;
    let budget = STORAGE_TEXT_CAP;
    let cut = 0;
    const shown: Record<string, string | null> = {};
    for (const [k, v] of items) {
      if (v !== null && v.length > budget) {
        shown[k] = `${v.slice(0, Math.max(0, budget))}…`;
        cut++;
        budget = 0;
      } else {
        shown[k] = v;
        budget -= v?.length ?? 0;
      }
    }
    res.merge({ tabId: tab.id, origin, kind, items: shown, count: items.length, ...(cut ? { truncated: cut } : {}) });
    res.text(`${store} of ${origin} (tab ${tab.id}): ${plural(items.length, 'item')}${items.length ? ':' : '.'}`);
    for (const [k, v] of Object.entries(shown)) res.text(`- ${JSON.stringify(k)}: ${v === null ? 'null (not set)' : JSON.stringify(v)}`);
    if (cut) res.text(`Values past ${STORAGE_TEXT_CAP} characters in all are cut (…); ask for fewer keys to read the rest.`);
  },
});

export const setStorage = defineTabTool({
  name: 'set_storage',
  title: 'Set web storage',
  description: 'Set or remove items of a tab\'s localStorage or sessionStorage (its top frame\'s origin): {key: value} sets, {key: null} removes. The page is not reloaded.',
  needs: ['storage'],
  effect: 'interact',
  launchesBrowser: true,
  toolset: 'storage',
  target: 'tab',
  verifiable: false,
  input: z.object({
    tabId: tabIdField,
    kind: kindField,
    items: z.record(z.string().max(4096), z.string().max(5_000_000).nullable()).describe('Items to set; null removes the key'),
  }),
  async handle(tab, { kind, items }, _ctx, res) {
    const store = kind === 'local' ? 'localStorage' : 'sessionStorage';
    await inTabStorage(tab.page, tab.id,
      `(() => { const s = window.${store}; for (const [k, v] of Object.entries(${JSON.stringify(items)})) { if (v === null) s.removeItem(k); else s.setItem(k, v); } })()`);
    const set = Object.keys(items).filter(k => items[k] !== null);
    const removed = Object.keys(items).filter(k => items[k] === null);
    const origin = httpOrigin(tab.page.url())!;
    res.merge({ tabId: tab.id, origin, kind, set, removed });
    res.text(`${store} of ${origin} (tab ${tab.id}): ${set.length ? `set ${set.map(k => JSON.stringify(k)).join(', ')}` : ''}${set.length && removed.length ? '; ' : ''}${removed.length ? `removed ${removed.map(k => JSON.stringify(k)).join(', ')}` : ''}${!set.length && !removed.length ? 'nothing to change' : ''}.`);
  },
});

export const cookieTools = [getCookies, setCookies, clearCookies, getStorage, setStorage];
