/**
 * The last bound on what the stdio server writes (docs/mcp.md, "The
 * stream"): one serialized message of at most maxResponseBytes() bytes
 * (32 MiB). Tools keep their own output far smaller (src/tools/resultSize.ts,
 * `execute`'s maxBytes, paging); this catches anything that still grows past
 * it, tool results or not, so a client never has to read an unbounded line.
 */
import { ToolError } from '../errors.js';
import { ToolResponse } from '../tools/response.js';
import { clientResult } from './clientResult.js';
import { INTERNAL_ERROR } from './stdioLimits.js';

/** Whether `message` is a response (it has an id and a result or an error). */
function isResponse(message: Record<string, unknown>): boolean {
  return message.id !== undefined && ('result' in message || 'error' in message);
}

/**
 * `message` serialized (JSON, no newline), or, when that is over `limit`
 * bytes: for a response, a small one with the same id: a `tools/call`
 * answer becomes an error result of type `result_too_large` (the call did
 * run), any other a JSON-RPC error -32603 with `data.type`
 * `result_too_large`; for anything else (a notification, a request to the
 * client), undefined: it is dropped.
 * @param method the method the response answers, when known.
 */
export function serializeCapped(message: Record<string, unknown>, method: string | undefined, limit: number): { json: string; bytes?: number } | undefined {
  const json = JSON.stringify(message);
  // A UTF-8 byte is at least one UTF-16 unit's worth: a short string needs no count.
  if (json.length * 3 <= limit) return { json };
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes <= limit) return { json };
  if (!isResponse(message)) return undefined;
  const mib = Math.round((limit / 1024 / 1024) * 10) / 10;
  const text = `The response is ${bytes} bytes, over the stdio transport's ${limit}-byte (${mib} MiB) limit; it was not sent.`;
  const hint = 'Ask for less (output: "file" for screenshots and snapshots, a smaller maxBytes or limit, a narrower scope); the call did run.';
  if (method === 'tools/call') {
    const error = new ToolError('result_too_large', text, hint, { bytes, limit });
    const result = clientResult(new ToolResponse().fail(error).build(), false);
    return { json: JSON.stringify({ jsonrpc: '2.0', id: message.id, result }), bytes };
  }
  return { json: JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: INTERNAL_ERROR, message: `${text} ${hint}`, data: { type: 'result_too_large', bytes, limit } } }), bytes };
}
