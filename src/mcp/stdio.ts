/**
 * MCP over stdio (the MCP specification, "Transports", "stdio"). stdout carries
 * protocol frames only; U+2028/U+2029 are written as `\u2028`/`\u2029`
 * escapes so clients that split lines on them still read whole frames
 * (docs/mcp.md, "Lifecycle"). The SDK's reader frames input on `\n` only; JSON-RPC
 * batches (revision 2025-03-26) are split before it and answered as one
 * array (./batch.ts).
 */
import { Writable } from 'node:stream';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Config } from '../config.js';
import { logger } from '../log.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { PendingCalls } from '../dispatch/pending.js';
import { BatchFraming } from './batch.js';
import { buildServer } from './server.js';

const log = logger('mcp');

/** Escapes the two JavaScript line terminators that JSON.stringify leaves raw. */
export function escapeLineSeparators(text: string): string {
  return text.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** A stdout that escapes U+2028/U+2029 in every frame written to it (and gathers batch replies). */
function escapingStdout(batches: BatchFraming): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      const text = batches.outgoing(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      if (text) process.stdout.write(escapeLineSeparators(text), callback);
      else callback();
    },
  });
}

/**
 * Serves MCP on this process's stdin/stdout until `close()`. `closed`
 * resolves when the connection ends on its own: stdin EOF, or the SDK
 * closing the transport (e.g. a message over its 10 MB read limit).
 */
export function serveMcpStdio(dispatcher: Dispatcher, config: Config): { close(): Promise<void>; closed: Promise<void> } {
  const batches = new BatchFraming(frame => process.stdout.write(escapeLineSeparators(frame)));
  const stdin = process.stdin.pipe(batches.reader());
  process.stdin.on('error', error => stdin.destroy(error));
  const transport = new StdioServerTransport(stdin, escapingStdout(batches));
  const calls = new PendingCalls();
  const handle = serveStdio(ctx => buildServer(dispatcher, config, ctx, calls), {
    transport,
    onerror: error => log.error('protocol error:', error.message),
  });
  // serveStdio has installed its own onclose; chain ours after it.
  const closed = new Promise<void>(resolve => {
    const sdkOnClose = transport.onclose;
    transport.onclose = () => {
      sdkOnClose?.();
      resolve();
    };
  });
  return {
    close: async () => {
      calls.close();
      await handle.close();
    },
    closed,
  };
}
