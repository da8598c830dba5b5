/**
 * Remote `@require` (docs/userscripts.md, "Store and saves"): a script from a userscript site names its libraries by
 * URL (`// @require https://cdn.example/jquery.min.js`). tabwright fetches each once, at save time, and keeps the code
 * in the store with its SHA-256 (`requireCode`): injection never goes to the network, and a later save of the same
 * script keeps the pinned copy unless the save asks to fetch again (`export_script {refetch: true}`).
 */
import { createHash } from 'node:crypto';
import { ToolError } from '../errors.js';
import { BodyError, readResponseBody } from '../util/httpBody.js';

/** The largest library fetched, in bytes. */
export const REQUIRE_MAX_BYTES = 2 * 1024 * 1024;
/** How long one fetch may take, redirects included, in ms. */
export const REQUIRE_TIMEOUT_MS = 15_000;
/** Redirects followed, each checked as the first URL. */
const MAX_REDIRECTS = 5;

/** A fetched library: its code (UTF-8 text) and the SHA-256 of its bytes, hex. */
export interface FetchedRequire {
  code: string;
  sha256: string;
}

/** Whether an `@require` value names the network: `http://`, `https://`, or protocol-relative `//host/…`. */
export function isRemoteRequire(value: string): boolean {
  return /^(https?:)?\/\//i.test(value);
}

/** The URL a remote `@require` value is fetched from (protocol-relative → https). */
export function requireUrl(value: string): string {
  return value.startsWith('//') ? `https:${value}` : value;
}

const unreadable = (reason: string) => new ToolError('invalid_arguments', reason, 'Check the URL in a browser; save the library beside the script and require it by relative path if it cannot be fetched.');

/**
 * Fetches `value` (a remote `@require`): http(s) only, redirects followed, each URL passed to `allowed` first (the
 * caller's host rules: it throws to refuse), at most REQUIRE_MAX_BYTES, within REQUIRE_TIMEOUT_MS, a 2xx answer,
 * UTF-8 text.
 * @throws what `allowed` throws; ToolError invalid_arguments (anything else, with the reason).
 */
export async function fetchRequire(value: string, allowed: (url: string) => void, signal: AbortSignal): Promise<FetchedRequire> {
  let url = requireUrl(value);
  const limit = AbortSignal.any([signal, AbortSignal.timeout(REQUIRE_TIMEOUT_MS)]);
  for (let hop = 0; ; hop++) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw unreadable(`${url} is not a URL.`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw unreadable(`${url} is not http(s).`);
    allowed(url);
    let response: Response;
    try {
      response = await fetch(url, { redirect: 'manual', signal: limit, headers: { accept: 'application/javascript, text/javascript, */*' } });
    } catch (error) {
      throw unreadable(limit.aborted && !signal.aborted ? `no answer from ${url} within ${REQUIRE_TIMEOUT_MS / 1000} s.` : `${url} could not be fetched (${(error as Error).message}).`);
    }
    if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
      void response.body?.cancel().catch(() => undefined);
      if (hop >= MAX_REDIRECTS) throw unreadable(`${value} redirects more than ${MAX_REDIRECTS} times.`);
      url = new URL(response.headers.get('location')!, url).href;
      continue;
    }
    if (response.status < 200 || response.status > 299) {
      void response.body?.cancel().catch(() => undefined);
      throw unreadable(`${url} answered HTTP ${response.status}.`);
    }
    const bytes = await readBounded(response, url);
    let code: string;
    try {
      code = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw unreadable(`${url} is not UTF-8 text.`);
    }
    return { code, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
}

/** The body, at most REQUIRE_MAX_BYTES. @throws ToolError invalid_arguments when larger. */
async function readBounded(response: Response, url: string): Promise<Uint8Array> {
  try {
    return await readResponseBody(response, REQUIRE_MAX_BYTES);
  } catch (error) {
    throw error instanceof BodyError ? unreadable(`${url} is larger than ${REQUIRE_MAX_BYTES / 1024 / 1024} MiB.`) : error;
  }
}
