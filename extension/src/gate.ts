/**
 * The policy gate (EXTENSION-DESIGN.md §4.6), enforced here in the extension: the server is driven by an agent that
 * may be prompt-injected, so the boundary that protects the user's profile sits on the user's side. Pure functions
 * of a request and the shared set; the worker calls them before every chrome.debugger call.
 */
import type { DenialCode } from '../../src/browser/extension/protocol.js';

/** A refusal of the gate: a stable code (protocol.ts DENIAL_CODES) and a message that names the method or URL. */
export class Denied extends Error {
  constructor(
    readonly code: DenialCode,
    reason: string,
  ) {
    // The server reads the code back from this prefix (src/errors.ts toToolError): keep its shape.
    super(`tabwright extension [${code}]: ${reason}`);
  }
}

/** Methods a shared tab's session may never send: they reach beyond the tab (new tabs, other targets, the whole jar). */
const DENIED_METHODS = new Set([
  'Target.createTarget', 'Target.closeTarget', 'Target.attachToTarget', 'Target.attachToBrowserTarget',
  'Target.exposeDevToolsProtocol', 'Target.setDiscoverTargets', 'Target.getTargets', 'Target.createBrowserContext',
  'Target.disposeBrowserContext', 'Target.setRemoteLocations',
  'Storage.getCookies', 'Storage.setCookies', 'Storage.clearCookies', 'Network.getAllCookies', 'Network.clearBrowserCookies',
  'Network.clearBrowserCache',
]);

/** Domains whose every method acts on the whole browser. */
const DENIED_DOMAINS = ['Browser.', 'SystemInfo.'];

/**
 * True when the extension may drive a tab showing `url`: http(s), about:blank, data:, and file: only when `fileAccess`.
 * Never chrome:, chrome-extension: (ours or another's), devtools:, chrome-error:, view-source:.
 */
export function debuggableUrl(url: string | undefined, fileAccess: boolean): boolean {
  if (!url) return true; // a tab whose first navigation has not committed yet
  if (url.startsWith('http://') || url.startsWith('https://') || url.startsWith('data:')) return true;
  if (url === 'about:blank' || url.startsWith('about:blank#') || url.startsWith('about:blank?') || url === 'about:srcdoc') return true;
  if (url.startsWith('file:')) return fileAccess;
  return false;
}

/** The origins (scheme://host:port) of the shared tabs' URLs. */
export function originsOf(urls: Array<string | undefined>): Set<string> {
  const origins = new Set<string>();
  for (const url of urls) {
    try {
      const parsed = new URL(url ?? '');
      if (parsed.protocol === 'http:' || parsed.protocol === 'https:') origins.add(parsed.origin);
    } catch {
      // not a URL
    }
  }
  return origins;
}

/** True when cookie `domain` (".example.com" or "example.com") is the host of one of `origins` or a parent domain of it. */
function domainShared(domain: string, origins: Set<string>): boolean {
  const bare = domain.replace(/^\./, '').toLowerCase();
  for (const origin of origins) {
    const host = new URL(origin).hostname.toLowerCase();
    if (host === bare || host.endsWith(`.${bare}`)) return true;
  }
  return false;
}

function urlShared(url: unknown, origins: Set<string>): boolean {
  if (typeof url !== 'string') return false;
  try {
    return origins.has(new URL(url).origin);
  } catch {
    return false;
  }
}

/**
 * Checks one CDP command of a shared tab's session.
 * @param origins  the origins of every shared tab (cookies may be read and written for those only).
 * @param fileAccess  whether "Allow access to file URLs" is on for the extension.
 * @param inputLocked  a consent question about this tab is open: Input.* is refused.
 * @throws Denied naming the method and why.
 */
export function checkCommand(method: string, params: Record<string, unknown>, origins: Set<string>, fileAccess: boolean, inputLocked: boolean): void {
  if (DENIED_METHODS.has(method) || DENIED_DOMAINS.some(d => method.startsWith(d))) {
    throw new Denied('method_denied', `${method} is not allowed on a shared tab (it reaches beyond the tabs you shared).`);
  }
  if (method === 'Network.getCookies' && Array.isArray(params.urls)) {
    const outside = params.urls.find(url => !urlShared(url, origins));
    if (outside !== undefined) throw new Denied('cookie_scope', `Network.getCookies for ${String(outside)}: only the shared tabs' origins may be read.`);
  }
  if (method === 'Network.setCookie' || method === 'Network.deleteCookies' || method === 'Network.setCookies') {
    const cookies = method === 'Network.setCookies' ? (Array.isArray(params.cookies) ? params.cookies as Array<Record<string, unknown>> : []) : [params];
    for (const cookie of cookies) {
      const ok = cookie.url !== undefined ? urlShared(cookie.url, origins) : typeof cookie.domain === 'string' && domainShared(cookie.domain, origins);
      if (!ok) throw new Denied('cookie_scope', `${method} for ${String(cookie.url ?? cookie.domain ?? cookie.name)}: only the shared tabs' origins may be written.`);
    }
  }
  if (method === 'Page.navigate' && !debuggableUrl(String(params.url ?? ''), fileAccess)) {
    throw new Denied('scheme_denied', `Page.navigate to ${String(params.url)}: only http(s), about:blank and data: pages can be driven.`);
  }
  if (method === 'DOM.setFileInputFiles' && !fileAccess) {
    throw new Denied('file_access', 'DOM.setFileInputFiles needs "Allow access to file URLs" for the extension (chrome://extensions → Details).');
  }
  if (inputLocked && method.startsWith('Input.')) {
    throw new Denied('consent_pending', `${method} refused while a consent question about this tab is open.`);
  }
}
