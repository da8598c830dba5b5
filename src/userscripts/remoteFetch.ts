/**
 * Remote `@require` and `@resource` (docs/userscripts.md, "Store and saves"): a script from a userscript site names its
 * libraries and resources by URL (`// @require https://cdn.example/jquery.min.js`, `// @resource css
 * https://cdn.example/style.css`). tabwright fetches each once, at save time, and keeps the bytes in the store with
 * their SHA-256 (`requireCode`; the `script_resources` table): injection never goes to the network, and a later save
 * of the same script keeps the pinned copy unless the save asks to fetch again (`export_script {refetch: true}`).
 * One fetcher serves both; a library is then read as UTF-8 text (requireText), a resource is kept as bytes.
 */
import { createHash } from 'node:crypto';
import { ToolError } from '../errors.js';
import { BodyError, readResponseBody } from '../util/httpBody.js';

/** The largest library or resource fetched, in bytes. */
export const REMOTE_MAX_BYTES = 2 * 1024 * 1024;
/** How long one fetch may take, redirects included, in ms. */
export const REMOTE_TIMEOUT_MS = 15_000;
/** Redirects followed, each checked as the first URL. */
const MAX_REDIRECTS = 5;

/** A fetched body: its bytes and the answer's Content-Type header (absent when the server sent none). */
export interface RemoteBody {
  bytes: Uint8Array;
  contentType?: string;
}

/** Whether a `@require` or `@resource` value names the network: `http://`, `https://`, or protocol-relative `//host/…`. */
export function isRemoteUrl(value: string): boolean {
  return /^(https?:)?\/\//i.test(value);
}

/** The URL a remote value is fetched from (protocol-relative → https). */
export function remoteUrl(value: string): string {
  return value.startsWith('//') ? `https:${value}` : value;
}

const unreadable = (reason: string) => new ToolError('invalid_arguments', reason, 'Check the URL in a browser; save the file beside the script and name it by relative path if it cannot be fetched.');

/** SHA-256 of bytes, hex. */
export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Fetches `value` (a remote `@require` or `@resource`): http(s) only, redirects followed, each URL passed to
 * `allowed` first (the caller's host rules: it throws to refuse), at most `maxBytes` (REMOTE_MAX_BYTES), within
 * REMOTE_TIMEOUT_MS, a 2xx answer; any bytes.
 * @throws what `allowed` throws; ToolError invalid_arguments (anything else, with the reason).
 */
export async function fetchRemote(value: string, allowed: (url: string) => void, signal: AbortSignal, maxBytes = REMOTE_MAX_BYTES): Promise<RemoteBody> {
  let url = remoteUrl(value);
  const limit = AbortSignal.any([signal, AbortSignal.timeout(REMOTE_TIMEOUT_MS)]);
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
      response = await fetch(url, { redirect: 'manual', signal: limit, headers: { accept: '*/*' } });
    } catch (error) {
      throw unreadable(limit.aborted && !signal.aborted ? `no answer from ${url} within ${REMOTE_TIMEOUT_MS / 1000} s.` : `${url} could not be fetched (${(error as Error).message}).`);
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
    let bytes: Uint8Array;
    try {
      bytes = await readResponseBody(response, maxBytes);
    } catch (error) {
      throw error instanceof BodyError ? unreadable(`${url} is larger than ${formatBytes(maxBytes)}.`) : error;
    }
    const contentType = response.headers.get('content-type') ?? undefined;
    return contentType ? { bytes, contentType } : { bytes };
  }
}

/** `2 MiB`, `512 KiB`, `100 bytes`. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / 1024 / 1024} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/** A fetched library as code: UTF-8 text. @throws ToolError invalid_arguments when it is not UTF-8. */
export function requireText(bytes: Uint8Array, url: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw unreadable(`${url} is not UTF-8 text.`);
  }
}
