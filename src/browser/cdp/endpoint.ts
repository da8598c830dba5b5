/**
 * Remote endpoints and their secrets: parsing
 * `--cdp-endpoint` / `--ws-endpoint` URLs and `--cdp-header` lines, and
 * redacting every secret (header values, URL userinfo, query values) from
 * what tabwright logs, reports or puts in an error.
 */
import { ToolError } from '../../errors.js';

/** What replaces a secret in logs, errors and `get_bridge_status`. */
export const REDACTED = '***';

/**
 * The URL with its userinfo and every query value replaced by `***`
 * (`wss://u:tok@host/p?token=abc` → `wss://***@host/p?token=***`).
 * Text that is not a URL comes back as `***` whole.
 */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return REDACTED;
  }
  const userinfo = url.username || url.password ? `${REDACTED}@` : '';
  const query = [...url.searchParams.keys()].map(key => `${encodeURIComponent(key)}=${REDACTED}`).join('&');
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${query ? `?${query}` : ''}`;
}

/** The secret pieces of an endpoint URL: its userinfo and query values (decoded and as written). */
function urlSecrets(raw: string): string[] {
  try {
    const url = new URL(raw);
    const out = [url.username, url.password, decodeURIComponent(url.username), decodeURIComponent(url.password)];
    for (const [, value] of url.searchParams) out.push(value, encodeURIComponent(value));
    for (const part of url.search.slice(1).split('&')) out.push(part.slice(part.indexOf('=') + 1));
    return out;
  } catch {
    return [raw];
  }
}

/**
 * Removes secrets from text on its way to a log line, an error or a
 * status field: the endpoint URL as written becomes its redacted form, and
 * each header value and URL secret becomes `***`.
 */
export class Redactor {
  private readonly secrets: string[];

  constructor(
    private readonly endpoint: string,
    headers: Record<string, string>,
  ) {
    // Longest first, so a secret that contains another is replaced whole; short values (< 3 chars) would mangle text.
    this.secrets = [...new Set([...Object.values(headers), ...urlSecrets(endpoint)])].filter(s => s.length >= 3).sort((a, b) => b.length - a.length);
  }

  /** `text` without the endpoint's or the headers' secrets. */
  text(text: string): string {
    let out = text.split(this.endpoint).join(redactUrl(this.endpoint));
    for (const secret of this.secrets) out = out.split(secret).join(REDACTED);
    return out;
  }
}

/**
 * Parses one `--cdp-header "Name: value"` into `[name, value]`.
 * @throws ToolError invalid_arguments (the message names the header, never its value).
 */
export function parseHeader(line: string): [string, string] {
  const colon = line.indexOf(':');
  const name = colon > 0 ? line.slice(0, colon).trim() : '';
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    throw new ToolError('invalid_arguments', 'A --cdp-header is not "Name: value".', 'Pass each header as --cdp-header "Authorization: Bearer <token>" (repeatable).');
  }
  return [name, line.slice(colon + 1).trim()];
}

/** The headers of repeated `--cdp-header` lines (later lines of one name win). */
export function parseHeaders(lines: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines) {
    const [name, value] = parseHeader(line);
    out[name] = value;
  }
  return out;
}

/**
 * Checks an endpoint URL's scheme: `http(s)://` or `ws(s)://` for
 * `--cdp-endpoint`, `ws(s)://` (or http(s), which Playwright upgrades) for `--ws-endpoint`.
 * @throws ToolError invalid_arguments naming the flag and the redacted URL.
 */
export function checkEndpoint(flag: string, raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol)) {
    throw new ToolError(
      'invalid_arguments',
      `${flag} ${redactUrl(raw)} is not an http(s):// or ws(s):// URL.`,
      flag === '--cdp-endpoint'
        ? 'Pass the DevTools endpoint of a browser started with --remote-debugging-port, e.g. --cdp-endpoint http://127.0.0.1:9222.'
        : 'Pass a Playwright server URL, e.g. --ws-endpoint ws://127.0.0.1:3000/.',
    );
  }
  return raw;
}
