/**
 * URL patterns as `wait_for {url, request}` take them (docs/actions.md,
 * "Waiting for a condition"): a regular expression written between slashes
 * (`/\/orders\/\d+/i`); a glob, where `**` matches any characters and `*`
 * any characters but `/` (Playwright's URL globs, without `?` and `{}`
 * alternatives); or plain text, which matches anywhere in the URL.
 */
import { ToolError } from '../errors.js';

/** A compiled URL pattern: `test(url)`, and the pattern in words for messages. */
export interface UrlPattern {
  test(url: string): boolean;
  /** `URL glob "**\/done"`, `URL regex /x/`, `URL containing "x"`. */
  label: string;
}

const REGEX = /^\/(.+)\/([dgimsuvy]*)$/s;

/**
 * Compiles `pattern` (at most 2,000 characters).
 * @throws ToolError invalid_arguments for an empty pattern or a regular expression that does not compile.
 */
export function urlPattern(pattern: string, field = 'url'): UrlPattern {
  if (!pattern.trim()) throw new ToolError('invalid_arguments', `${field} is empty.`, 'Pass part of the URL ("/checkout"), a glob ("**/orders/*") or a regular expression in slashes ("/orders\\/\\d+/").');
  const regex = REGEX.exec(pattern);
  if (regex) {
    let re: RegExp;
    try {
      re = new RegExp(regex[1]!, regex[2]!.replace(/[gy]/g, ''));
    } catch (error) {
      throw new ToolError('invalid_arguments', `${field} is not a valid regular expression: ${(error as Error).message}`, 'Write it as JavaScript would between slashes, e.g. "/orders\\/\\d+/i", or pass plain text to match anywhere in the URL.');
    }
    return { test: url => re.test(url), label: `URL matching ${pattern}` };
  }
  if (pattern.includes('*')) {
    let source = '';
    for (let i = 0; i < pattern.length; i++) {
      const ch = pattern[i]!;
      if (ch === '*' && pattern[i + 1] === '*') {
        source += '.*';
        i++;
      } else if (ch === '*') {
        source += '[^/]*';
      } else {
        source += ch.replace(/[.+?^${}()|[\]\\/]/g, '\\$&');
      }
    }
    const re = new RegExp(`^${source}$`);
    return { test: url => re.test(url), label: `URL glob ${JSON.stringify(pattern)}` };
  }
  return { test: url => url.includes(pattern), label: `URL containing ${JSON.stringify(pattern)}` };
}

/**
 * `url` with the values of its query parameters replaced by `…` (names kept),
 * credentials (`user:pass@`) replaced by `…@`, and no fragment: what a result
 * shows of a request's URL, which may carry tokens. A string that is not a URL
 * comes back as it is.
 */
export function redactQuery(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const names = [...u.searchParams.keys()];
  const credentials = u.username !== '' || u.password !== '';
  u.hash = '';
  u.username = '';
  u.password = '';
  if (names.length) u.search = '';
  const href = credentials ? u.href.replace('//', '//…@') : u.href;
  return names.length ? `${href}?${names.map(n => `${encodeURIComponent(n)}=…`).join('&')}` : href;
}
