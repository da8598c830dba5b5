/**
 * MCP over stdio (MCP-SDK-V2.md, "Serve over stdio"). stdout carries
 * protocol frames only; U+2028/U+2029 are written as `\u2028`/`\u2029`
 * escapes so clients that split lines on them still read whole frames
 * (shared case 013). The SDK's reader frames input on `\n` only.
 */
import { Writable } from 'node:stream';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Config } from '../config.js';
import { logger } from '../log.js';
import type { Session } from '../session/session.js';
import { buildServer } from './server.js';

const log = logger('mcp');

/** Escapes the two JavaScript line terminators that JSON.stringify leaves raw. */
export function escapeLineSeparators(text: string): string {
  return text.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** A stdout that escapes U+2028/U+2029 in every frame written to it. */
function escapingStdout(): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      process.stdout.write(escapeLineSeparators(text), callback);
    },
  });
}

/** Serves MCP on this process's stdin/stdout until `close()`. */
export function serveMcpStdio(session: Session, config: Config): { close(): Promise<void> } {
  const transport = new StdioServerTransport(process.stdin, escapingStdout());
  return serveStdio(ctx => buildServer(session, config, ctx), {
    transport,
    onerror: error => log.error('protocol error:', error.message),
  });
}
