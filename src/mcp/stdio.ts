/**
 * MCP over stdio (the MCP specification, "Transports", "stdio"). stdout carries
 * protocol frames only; U+2028/U+2029 are written as `\u2028`/`\u2029`
 * escapes so clients that split lines on them still read whole frames
 * (docs/mcp.md, "Lifecycle"). Input is framed here, not by the SDK's reader
 * (./frameReader.ts: newline-delimited JSON or `Content-Length` frames, every
 * bound of ./stdioLimits.ts checked as bytes arrive), parsed and validated,
 * JSON-RPC batches (revision 2025-03-26) split (./batch.ts), requests
 * admitted by ./requestGate.ts, and only then handed to the SDK. Output goes
 * through the size cap of ./responseCap.ts and a bounded queue: at
 * MAX_QUEUED_RESPONSES frames the stdout pipe has not taken, stdin is not
 * read until the client reads (docs/mcp.md, "The stream").
 */
import { PassThrough, Writable } from 'node:stream';
import { parseJSONRPCMessage, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Config } from '../config.js';
import { logger } from '../log.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { PendingCalls } from '../dispatch/pending.js';
import { BatchFraming } from './batch.js';
import { FrameReader, type FrameError } from './frameReader.js';
import { RequestGate, type Message } from './requestGate.js';
import { serializeCapped } from './responseCap.js';
import { buildServer } from './server.js';
import { INVALID_REQUEST, MAX_QUEUED_RESPONSES, PARSE_ERROR, maxResponseBytes } from './stdioLimits.js';

const log = logger('mcp');

/** Escapes the two JavaScript line terminators that JSON.stringify leaves raw. */
export function escapeLineSeparators(text: string): string {
  return text.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** An error response, as one JSON text. */
function errorFrame(id: string | number | null, error: FrameError): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}

/**
 * The SDK's stdio transport with our input and output: it never reads its
 * own stdin (a stream that only ends when ours does), and `send` hands each
 * message to `sendMessage` instead of writing it.
 */
class BoundedStdioTransport extends StdioServerTransport {
  private isClosed = false;
  constructor(ends: PassThrough, private readonly sendMessage: (message: JSONRPCMessage) => void) {
    super(ends, new Writable({ write: (_chunk, _encoding, callback) => callback() }));
  }
  override async close(): Promise<void> {
    this.isClosed = true;
    await super.close();
  }
  override async send(message: JSONRPCMessage): Promise<void> {
    if (this.isClosed) throw new Error('StdioServerTransport is closed');
    this.sendMessage(message);
  }
}

/**
 * Serves MCP on this process's stdin/stdout until `close()`. `closed`
 * resolves when the connection ends on its own: stdin EOF, or the SDK
 * closing the transport.
 */
export function serveMcpStdio(dispatcher: Dispatcher, config: Config): { close(): Promise<void>; closed: Promise<void> } {
  const limit = maxResponseBytes();
  let queued = 0;
  let dropped = 0;
  const full = () => queued >= MAX_QUEUED_RESPONSES;
  /** Writes one frame (JSON text; a trailing "\n" is the batch layer's and is dropped) in the client's framing. */
  const writeFrame = (frame: string) => {
    const json = escapeLineSeparators(frame.endsWith('\n') ? frame.slice(0, -1) : frame);
    const data = reader.framing === 'content-length' ? `Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}` : `${json}\n`;
    queued++;
    process.stdout.write(data, () => {
      queued--;
      if (reader.isPaused && !full()) {
        log.debug(`stdout drained to ${queued} queued frames: reading stdin again`);
        reader.resume();
      }
    });
  };
  const batches = new BatchFraming(writeFrame);
  const reject = (id: string | number | null, error: FrameError) => {
    const frame = batches.outgoing(`${errorFrame(id, error)}\n`);
    if (frame) writeFrame(frame);
  };

  const ends = new PassThrough();
  const transport = new BoundedStdioTransport(ends, message => {
    const msg = message as Record<string, unknown>;
    const isResponse = msg.id !== undefined && ('result' in msg || 'error' in msg);
    const method = isResponse ? gate.answered(msg.id) : undefined;
    // Progress and other notifications are advisory: with the queue full (the client is not reading), drop them.
    if (!isResponse && msg.id === undefined && full()) {
      if (dropped++ === 0) log.warn(`dropping notifications while ${queued} frames wait for the client to read stdout`);
      return;
    }
    const capped = serializeCapped(msg, method, limit);
    if (!capped) return log.warn(`dropped an outgoing ${String(msg.method)} over the ${limit}-byte message limit`);
    if (capped.bytes !== undefined) log.warn(`replaced the ${capped.bytes}-byte response to ${JSON.stringify(msg.id)} (${method ?? 'unknown method'}) with result_too_large`);
    const frame = batches.outgoing(`${capped.json}\n`);
    if (frame) writeFrame(frame);
  });
  const gate = new RequestGate(message => transport.onmessage?.(message as JSONRPCMessage), reject);

  const reader = new FrameReader({
    full,
    reject,
    message(bytes) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(bytes.toString('utf8'));
      } catch (error) {
        return reject(null, { code: PARSE_ERROR, message: `Parse error: ${(error as Error).message}` });
      }
      for (const value of batches.incoming(parsed)) {
        let message: Message;
        try {
          message = parseJSONRPCMessage(value) as Message;
        } catch {
          const id = (value as { id?: unknown } | null)?.id;
          reject(typeof id === 'string' || typeof id === 'number' ? id : null, { code: INVALID_REQUEST, message: 'Invalid Request: not a JSON-RPC 2.0 request, notification or response.' });
          continue;
        }
        gate.admit(message);
      }
    },
  });
  const input = new Writable({
    write: (chunk: Buffer, _encoding, callback) => {
      const wasPaused = reader.isPaused;
      reader.write(chunk, () => callback());
      if (!wasPaused && reader.isPaused) log.debug(`${queued} frames wait for the client to read stdout: not reading stdin`);
    },
    final: callback => {
      ends.end();
      callback();
    },
  });
  process.stdin.pipe(input);
  process.stdin.on('error', error => input.destroy(error));
  process.stdin.on('close', () => ends.end());

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
