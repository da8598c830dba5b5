/**
 * The bounds of the MCP stdio transport (docs/mcp.md, "The stream"), in one
 * place. Input over a bound is answered with a JSON-RPC error and skipped,
 * never buffered whole; the connection stays open. The SDK's own reader
 * (whose 10 MB limit closes the transport) never sees raw input: ./stdio.ts
 * frames and parses it and hands the SDK whole messages.
 */

/** Most bytes of a `Content-Length` header block (every header line and the empty line ending it). */
export const MAX_HEADER_BYTES = 8 * 1024;
/** Most bytes of one request: a newline-delimited line (without its "\n") or a `Content-Length` body. */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
/**
 * Most bytes of one serialized outgoing message. A response over it is
 * replaced by a small error with the same id (`result_too_large`); a
 * notification over it is dropped. `TABWRIGHT_STDIO_MAX_RESPONSE_BYTES`
 * lowers it (for tests); it never raises it.
 */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** Requests being handled at once; later ones wait (MAX_WAITING_REQUESTS) in arrival order. */
export const MAX_ACTIVE_REQUESTS = 8;
/** Requests waiting for an active slot; past this a request is answered -32000 "server busy". */
export const MAX_WAITING_REQUESTS = 8;
/** Outgoing frames not yet taken by the stdout pipe; at this many, stdin is not read until the client reads. */
export const MAX_QUEUED_RESPONSES = 16;
/** Bytes of an oversized request kept to read its top-level `id` from (the rest is only counted). */
export const ID_PREFIX_BYTES = 8 * 1024;

/** JSON-RPC 2.0 error codes used by the transport ("5.1 Error object"; -32000 is in the server-defined range). */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const SERVER_BUSY = -32000;
export const INTERNAL_ERROR = -32603;

/** The response size bound in effect: MAX_RESPONSE_BYTES, or lower when TABWRIGHT_STDIO_MAX_RESPONSE_BYTES says so. */
export function maxResponseBytes(env: NodeJS.ProcessEnv = process.env): number {
  const lowered = Number(env.TABWRIGHT_STDIO_MAX_RESPONSE_BYTES);
  return Number.isInteger(lowered) && lowered > 0 && lowered < MAX_RESPONSE_BYTES ? lowered : MAX_RESPONSE_BYTES;
}
