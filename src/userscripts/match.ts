/**
 * Which URLs a script runs on (docs/userscripts.md, "Match patterns").
 *
 * - `@match` / `@exclude-match`: Chrome extension match patterns,
 *   `<scheme>://<host><path>` or `<all_urls>`. Scheme `*` is http or https
 *   only. Host `*` is any host; `*.example.com` is example.com and every
 *   subdomain (label boundary enforced: not notexample.com, not
 *   example.com.attacker.test). No port in the pattern means any port (as
 *   Chrome does since 2018: `http://127.0.0.1/*` matches
 *   `http://127.0.0.1:5173/`); `:8080` only that port; `:*` any. Hosts
 *   compare case-insensitively and IDNA-encoded (a Unicode host in a
 *   pattern is converted to punycode with a warning); the path (with the
 *   query string, without the fragment) compares case-sensitively with `*`
 *   as the only wildcard. Compat (warned, never silent): `http*` as a
 *   scheme is read as `*`; a TLD wildcard (`example.*`) never matches and
 *   the warning points at `@include https://example.tld/*`.
 * - `@include` / `@exclude`: Tampermonkey globs, or `/regex/flags`. A glob
 *   matches the whole URL (fragment removed); `*` is any run of characters
 *   (including `/` and `:`, so it may stand for a port), every other
 *   character is literal, and `.tld` before `/`, `:` or the end is a whole
 *   public suffix of the Public Suffix List (./publicSuffix.ts: `.co.uk`,
 *   `.com.au`, `.github.io`; not `.evil.co.uk`). A regex is tested against the same URL
 *   string, unanchored unless it anchors itself, and always case-insensitively
 *   (the `i` flag is added, as every manager does).
 * - A `@match` with `#` is accepted but never matches (the URL it is tested
 *   against has no fragment): `match_fragment` warning.
 * - A script runs on a URL when no `@exclude` / `@exclude-match` matches
 *   and some `@match` / `@include` does: exclude wins, and a script with
 *   neither `@match` nor `@include` runs nowhere.
 */
import type { ScriptMetadata } from './types.js';
import { compileGlob, TLD_IN_GLOB } from './glob.js';
import { isPublicSuffix } from './publicSuffix.js';

/** A compiled pattern: `test(url)` for a parsed URL. */
export interface CompiledPattern {
  test(url: URL): boolean;
}

/** The verdict on one `@match` pattern: `reason` when invalid (never matches), `warning` for accepted compat forms. */
export interface MatchPatternCheck {
  valid: boolean;
  reason?: string;
  warning?: string;
  /**
   * Stable code of the warning: `match_pattern_compat` (accepted with a
   * rewrite), `tld_wildcard` or `match_fragment` (both accepted, never match).
   */
  warningCode?: 'match_pattern_compat' | 'tld_wildcard' | 'match_fragment';
}

/** The verdict on one `@include` / `@exclude` glob or regex. */
export interface IncludePatternCheck {
  valid: boolean;
  reason?: string;
  /** e.g. an unanchored host glob that also matches query strings. */
  warning?: string;
  warningCode?: 'unanchored_glob';
}

/** Schemes a match pattern may name; `*` stands for http and https. */
const MATCH_SCHEMES = new Set(['http', 'https', 'ws', 'wss', 'ftp', 'file', 'urn']);
/** Schemes `<all_urls>` covers. */
const ALL_URLS_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:', 'urn:']);
const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443', 'ftp:': '21' };


/** Whether an @include / @exclude pattern uses `.tld` (so matching it needs the Public Suffix List). */
export function usesPublicSuffix(pattern: string): boolean {
  const p = pattern.trim();
  return !/^\/(.+)\/([a-z]*)$/s.test(p) && TLD_IN_GLOB.test(p);
}

/** The URL string patterns and globs see: href without the fragment. */
function urlForMatching(url: URL): string {
  return url.hash ? url.href.slice(0, url.href.length - url.hash.length) : url.href.replace(/#$/, '');
}

/** The host of a pattern in the form URL gives hosts (lowercase, punycode); undefined if the URL parser refuses it. */
function asciiHost(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}

interface ParsedMatch {
  check: MatchPatternCheck;
  compiled?: CompiledPattern;
}

const NEVER: CompiledPattern = { test: () => false };

function parseMatch(pattern: string): ParsedMatch {
  const p = pattern.trim();
  if (p === '<all_urls>') return { check: { valid: true }, compiled: { test: url => ALL_URLS_SCHEMES.has(url.protocol) } };
  const parsed = parseMatchBody(p);
  // The URL a pattern is tested against never has a fragment (Chrome's match patterns ignore it), so a
  // pattern with `#` can never match; the managers accept it silently, we accept it with a warning.
  if (parsed.check.valid && p.includes('#')) {
    const hash = p.indexOf('#');
    return {
      check: {
        valid: true,
        warning: `"${p}": the part from \`#\` on is a URL fragment, which match patterns never see, so this pattern never matches; write \`${p.slice(0, hash)}*\` (or drop the \`#…\`).`,
        warningCode: 'match_fragment',
      },
      compiled: NEVER,
    };
  }
  return parsed;
}

function parseMatchBody(p: string): ParsedMatch {
  const m = /^([^:/]+):\/\/(.*)$/.exec(p);
  if (!m) return { check: { valid: false, reason: `"${p}" is not <scheme>://<host><path> (e.g. https://example.com/*) or <all_urls>.` } };
  let scheme = m[1]!.toLowerCase();
  const rest = m[2]!;
  let warning: string | undefined;
  let warningCode: MatchPatternCheck['warningCode'];
  if (scheme === 'http*') {
    scheme = '*';
    warning = `"${p}": \`http*\` is not a valid @match scheme, treated as \`*\` (http and https); write \`*://${rest}\`.`;
    warningCode = 'match_pattern_compat';
  } else if (scheme !== '*' && !MATCH_SCHEMES.has(scheme)) {
    return { check: { valid: false, reason: `"${p}": scheme "${scheme}" is not one of *, http, https, ws, wss, ftp, file, urn.` } };
  }
  const slash = rest.indexOf('/');
  if (slash < 0) return { check: { valid: false, reason: `"${p}" has no path; add one, e.g. "${p}/*".` } };
  const authority = rest.slice(0, slash);
  const path = rest.slice(slash);
  if (scheme === 'file') {
    if (authority) return { check: { valid: false, reason: `"${p}": file patterns have no host (file:///path).` } };
    const glob = compileGlob(path);
    return { check: { valid: true }, compiled: { test: url => url.protocol === 'file:' && glob.test(url.pathname + url.search) } };
  }
  let host = authority;
  let port: string | undefined; // undefined: any port
  const pm = /^(.*?)(?::(\*|\d{1,5}))?$/.exec(authority)!;
  if (authority.startsWith('[')) {
    const v6 = /^(\[[0-9A-Fa-f:.]+\])(?::(\*|\d{1,5}))?$/.exec(authority);
    if (!v6) return { check: { valid: false, reason: `"${p}": malformed IPv6 host.` } };
    host = v6[1]!;
    port = v6[2] === '*' ? undefined : v6[2];
  } else {
    host = pm[1]!;
    port = pm[2] === '*' ? undefined : pm[2];
    if (/:/.test(host)) return { check: { valid: false, reason: `"${p}": the port must be digits or *.` } };
  }
  if (port !== undefined && Number(port) > 65535) return { check: { valid: false, reason: `"${p}": port ${port} is out of range.` } };
  if (!host) return { check: { valid: false, reason: `"${p}" has no host; use * for any host.` } };
  let sub = false;
  if (host === '*') {
    host = '';
  } else {
    if (host.startsWith('*.')) { sub = true; host = host.slice(2); }
    if (host.includes('*')) {
      if (/^[^*]+\.\*$/.test(host) || /\.\*$/.test(host)) {
        const base = host.replace(/\.\*$/, '');
        return {
          check: {
            valid: true,
            warning: `"${p}": a TLD wildcard is not allowed in @match and never matches; use \`@include ${scheme === '*' ? '*' : scheme}://${sub ? '*.' : ''}${base}.tld${path}\` instead.`,
            warningCode: 'tld_wildcard',
          },
          compiled: NEVER,
        };
      }
      return { check: { valid: false, reason: `"${p}": * in a host may only be the whole host or a leading "*." (e.g. *.example.com).` } };
    }
    const ascii = asciiHost(host);
    if (!ascii) return { check: { valid: false, reason: `"${p}": "${host}" is not a valid host name.` } };
    if (/[^\x00-\x7f]/.test(host) && !warning) {
      warning = `"${p}": Unicode host normalized to "${ascii}" (pages see punycode hosts); write it that way to silence this.`;
      warningCode = 'match_pattern_compat';
    }
    host = ascii;
  }
  const pathGlob = compileGlob(path);
  const schemeOk = scheme === '*' ? (s: string) => s === 'http:' || s === 'https:' : (s: string) => s === `${scheme}:`;
  const compiled: CompiledPattern = {
    test(url) {
      if (!schemeOk(url.protocol)) return false;
      const h = url.hostname;
      if (host && h !== host && !(sub && h.endsWith(`.${host}`))) return false;
      if (port !== undefined && (url.port || DEFAULT_PORTS[url.protocol] || '') !== String(Number(port))) return false;
      return pathGlob.test(url.pathname + url.search);
    },
  };
  const check: MatchPatternCheck = { valid: true };
  if (warning) { check.warning = warning; check.warningCode = warningCode; }
  return { check, compiled };
}

interface ParsedInclude {
  check: IncludePatternCheck;
  compiled?: CompiledPattern;
}

function parseInclude(pattern: string): ParsedInclude {
  const p = pattern.trim();
  const rx = /^\/(.+)\/([a-z]*)$/s.exec(p);
  if (rx) {
    try {
      // Tampermonkey, Violentmonkey and ScriptCat all compile `/…/` case-insensitively; `i` is added once.
      const flags = rx[2]!.replace(/[gyi]/g, '') + 'i';
      const re = new RegExp(rx[1]!, flags);
      return { check: { valid: true }, compiled: { test: url => re.test(urlForMatching(url)) } };
    } catch (error) {
      return { check: { valid: false, reason: `"${p}" is not a valid regular expression: ${(error as Error).message}` } };
    }
  }
  // Glob: `.tld` before `/`, `:` or the end is a whole public suffix (Violentmonkey's rule); `*` is anything; the
  // rest is literal, compared case-insensitively. Matched in bounded time (./glob.ts), never as a RegExp.
  const glob = compileGlob(p, { ignoreCase: true, publicSuffix: isPublicSuffix });
  const check: IncludePatternCheck = { valid: true };
  // `*example.com*`: the host is not anchored, so the glob also matches it in paths and query strings.
  if (/^\*[^*/:]/.test(p) && !/^\*:\/\//.test(p)) {
    const host = p.replace(/^\*+\.?/, '').replace(/[/*:].*$/, '');
    check.warning = `"${p}" is not anchored to the host: it also matches URLs that merely mention ${host} (e.g. https://attacker.test/?next=${host}); use \`@match *://*.${host}/*\`.`;
    check.warningCode = 'unanchored_glob';
  }
  return { check, compiled: { test: url => glob.test(urlForMatching(url)) } };
}

const matchCache = new Map<string, ParsedMatch>();
const includeCache = new Map<string, ParsedInclude>();

function cached<T>(cache: Map<string, T>, key: string, make: (k: string) => T): T {
  let v = cache.get(key);
  if (!v) {
    if (cache.size > 4096) cache.clear();
    v = make(key);
    cache.set(key, v);
  }
  return v;
}

/** Checks a Chrome match pattern (`@match`, `@exclude-match`). Invalid patterns never match. */
export function isValidMatchPattern(pattern: string): MatchPatternCheck {
  return cached(matchCache, pattern, parseMatch).check;
}

/** Checks an `@include` / `@exclude` glob or `/regex/`. Invalid ones never match. */
export function isValidIncludePattern(pattern: string): IncludePatternCheck {
  return cached(includeCache, pattern, parseInclude).check;
}

function toUrl(url: string | URL): URL | undefined {
  if (url instanceof URL) return url;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** Whether a Chrome match pattern matches `url`; false for an invalid pattern or URL. */
export function matchPatternMatches(pattern: string, url: string | URL): boolean {
  const u = toUrl(url);
  const c = cached(matchCache, pattern, parseMatch).compiled;
  return !!u && !!c && c.test(u);
}

/** Whether an `@include`/`@exclude` glob or `/regex/` matches `url`; false for an invalid pattern or URL. */
export function includePatternMatches(pattern: string, url: string | URL): boolean {
  const u = toUrl(url);
  const c = cached(includeCache, pattern, parseInclude).compiled;
  return !!u && !!c && c.test(u);
}

/**
 * Whether a script runs on `url` (an absolute URL string or URL): no
 * `@exclude`/`@exclude-match` matches, and some `@match`/`@include` does.
 * An unparsable URL matches nothing.
 */
export function scriptMatchesUrl(meta: Pick<ScriptMetadata, 'match' | 'include' | 'exclude' | 'excludeMatch'>, url: string | URL): boolean {
  const u = toUrl(url);
  if (!u) return false;
  if (meta.exclude.some(p => includePatternMatches(p, u)) || meta.excludeMatch.some(p => matchPatternMatches(p, u))) return false;
  return meta.match.some(p => matchPatternMatches(p, u)) || meta.include.some(p => includePatternMatches(p, u));
}
