/**
 * The data of `@resource` (docs/userscripts.md, "Store and saves"): what a save keeps for each resource (bytes, MIME
 * type, SHA-256; src/userscripts/store.ts `script_resources`), how a `data:` value is decoded, what MIME type a
 * resource gets, and the bounds. The page reads them through GM_getResourceText / GM_getResourceURL (./gmPage.ts).
 */
import { ToolError } from '../errors.js';
import { REMOTE_MAX_BYTES } from './remoteFetch.js';

/** The largest resource, in bytes (a remote one, a local file, a decoded `data:` URL). */
export const RESOURCE_MAX_BYTES = REMOTE_MAX_BYTES;
/**
 * All the resources of one script together, in bytes. They travel, base64, in the init script of every document the
 * script's grants reach (./injectionScript.ts), so the bound is that of a page's script, not of a download.
 */
export const RESOURCES_TOTAL_MAX_BYTES = 4 * 1024 * 1024;

/** The MIME type of bytes nobody named. */
export const DEFAULT_MIME = 'application/octet-stream';

/** By file extension, lower case: the types userscripts load as resources (styles, images, fonts, text, data). */
const BY_EXTENSION: Record<string, string> = {
  css: 'text/css', js: 'text/javascript', mjs: 'text/javascript', json: 'application/json', txt: 'text/plain',
  html: 'text/html', htm: 'text/html', xml: 'application/xml', svg: 'image/svg+xml', png: 'image/png', jpg: 'image/jpeg',
  jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif', ico: 'image/x-icon', bmp: 'image/bmp',
  woff: 'font/woff', woff2: 'font/woff2', ttf: 'font/ttf', otf: 'font/otf', mp3: 'audio/mpeg', wav: 'audio/wav',
  ogg: 'audio/ogg', mp4: 'video/mp4', webm: 'video/webm', wasm: 'application/wasm', csv: 'text/csv', md: 'text/markdown',
};

/** A type/subtype of RFC 9110 tokens: what may stand before `;base64,` in a data: URL. */
const ESSENCE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/**
 * The MIME type a resource is kept with: the essence (`type/subtype`, lower case, parameters dropped) of
 * `contentType` (a response's Content-Type, a data: URL's type) when it is one, else guessed from the extension of
 * the URL's path, else DEFAULT_MIME.
 */
export function resourceMime(contentType: string | undefined, url: string): string {
  const essence = contentType?.split(';')[0]!.trim().toLowerCase();
  if (essence && ESSENCE.test(essence)) return essence;
  const path = url.split(/[?#]/)[0]!;
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return (ext && BY_EXTENSION[ext]) || DEFAULT_MIME;
}

const badData = (reason: string) => new ToolError('invalid_arguments', reason, 'A data: URL is data:[<type>][;base64],<data> (RFC 2397), its base64 well-formed.');

/**
 * Decodes a `data:` URL (RFC 2397 as the Fetch standard reads it): `data:[<type>][;base64],<data>`, the data
 * percent-decoded to bytes, then base64-decoded when marked so (whitespace ignored, `=` padding optional); the type
 * defaults to text/plain.
 * @throws ToolError invalid_arguments for a URL without a comma or with base64 that is not.
 */
export function decodeDataUrl(url: string): { bytes: Uint8Array; contentType: string } {
  const m = /^data:([^,]*),(.*)$/is.exec(url);
  if (!m) throw badData(`${url.slice(0, 60)} is not a data: URL (no comma).`);
  let type = m[1]!.trim();
  const base64 = /;\s*base64$/i.test(type);
  if (base64) type = type.replace(/;\s*base64$/i, '');
  // RFC 2397: without a type, text/plain (the charset parameter alone does not name one).
  const contentType = type.split(';')[0]!.trim() ? type : 'text/plain';
  const raw = percentDecode(m[2]!);
  if (!base64) return { bytes: raw, contentType };
  const text = Buffer.from(raw).toString('latin1').replace(/[\t\n\f\r ]/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.replace(/=+$/, '').length % 4 === 1) {
    throw badData(`the base64 of ${url.slice(0, 60)}… is not base64.`);
  }
  return { bytes: Buffer.from(text, 'base64'), contentType };
}

/** Percent-decoding to bytes (URL standard): `%XX` is a byte, anything else its UTF-8; a `%` without two hex digits stays. */
function percentDecode(text: string): Uint8Array {
  const input = Buffer.from(text, 'utf8');
  const out = Buffer.alloc(input.length);
  let n = 0;
  const hex = (b: number) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
  for (let i = 0; i < input.length; i++) {
    const b = input[i]!;
    if (b === 0x25 && i + 2 < input.length && hex(input[i + 1]!) && hex(input[i + 2]!)) {
      out[n++] = parseInt(String.fromCharCode(input[i + 1]!, input[i + 2]!), 16);
      i += 2;
    } else out[n++] = b;
  }
  return out.subarray(0, n);
}
