/**
 * Fuzzes the stdio MCP server as a client meets it: the built
 * `tabwright mcp` process, over its real stdin and stdout, with no browser
 * (no input here launches one). Each input is one whole frame (newline or
 * `Content-Length`): malformed JSON, invalid UTF-8, U+2028/U+2029, deep
 * nesting, batches, unknown methods, requests without the fields JSON-RPC
 * asks, header blocks without a length. A request with an id gets a
 * response to that id (a result or a JSON-RPC error with an integer code),
 * stdout carries nothing but JSON-RPC, and a ping sent after each input is
 * answered within 10 s. At the end the server lists its tools and its RSS
 * is within STDIO_RSS_BOUND_MB of where it started.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { serverArgs } from '../fixtures/mcp.js';
import { RawSession } from '../fixtures/raw.js';
import { LIVE_RUNS, fuzz, rssMb } from './fuzz.js';

/** How far the server's RSS may grow over the whole run, in MB. */
const STDIO_RSS_BOUND_MB = 150;

let raw: RawSession;
before(async () => {
  raw = new RawSession(serverArgs());
  await raw.initialize('2025-06-18');
});
after(async () => {
  await raw?.close();
});

const awkward = fc.string({ unit: fc.oneof(fc.constantFrom('\u2028', '\u2029', '\\', '"', '\u0000', '\ud800', '\u{1f600}', '\r'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 30 });
/** Methods that answer without a browser (tools/call only of tools that do not exist). */
const method = fc.oneof(fc.constantFrom('ping', 'tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'initialize', 'logging/setLevel', 'completion/complete', 'tools/call', 'notifications/cancelled', 'notifications/progress', 'nope'), awkward);
/** JSON-RPC-ish messages: the right fields with wrong types, missing ones, extra ones. */
const message = fc.record({
  jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 0 }) }),
  method,
  params: fc.oneof(fc.dictionary(fc.constantFrom('name', 'arguments', 'cursor', 'level', 'requestId', '_meta', 'protocolVersion', 'x'), fc.oneof(awkward, fc.jsonValue({ maxDepth: 3 })), { maxKeys: 4 }), fc.jsonValue({ maxDepth: 1 })),
  hasId: fc.boolean(),
  /** An id JSON-RPC does not allow (only strings, numbers and null are ids). */
  badId: fc.option(fc.constantFrom<unknown>({}, [], true, false, [1], { id: 1 }, null), { freq: 6 }),
}, { requiredKeys: ['hasId'] });

type Frame = { bytes: Buffer; ids: string[] };
let serial = 0;
/** One message as JSON, its id (if any) made unique so its response can be awaited. */
function build(m: { hasId: boolean; badId?: unknown } & Record<string, unknown>): { json: unknown; id?: string } {
  const { hasId, badId, ...rest } = m;
  if (rest.method === 'tools/call' && typeof rest.params === 'object' && rest.params) (rest.params as Record<string, unknown>).name = 'no_such_tool';
  if (!hasId) return { json: rest };
  if (badId !== undefined) return { json: { ...rest, id: badId } };
  const id = `f${++serial}`;
  // Answered: a request of JSON-RPC 2.0 with a string method (anything else is answered with id null, or not at all).
  return { json: { ...rest, id }, ...(rest.jsonrpc === '2.0' && typeof rest.method === 'string' ? { id } : {}) };
}
function framed(body: Buffer, contentLength: boolean): Buffer {
  return contentLength ? Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]) : Buffer.concat([body, Buffer.from('\n')]);
}
/** Bytes that split no frame: newlines only end one, a Content-Length body holds exactly its length. */
const frame: fc.Arbitrary<() => Frame> = fc.oneof(
  fc.tuple(message, fc.boolean()).map(([m, cl]) => () => {
    const { json, id } = build(m);
    const text = JSON.stringify(json);
    return { bytes: framed(Buffer.from(cl ? text : text.replace(/\n/g, '\\n'), 'utf8'), cl), ids: id ? [id] : [] };
  }),
  fc.tuple(fc.array(message, { minLength: 0, maxLength: 4 }), fc.boolean()).map(([ms, cl]) => () => {
    const built = ms.map(build);
    // Every request of the batch is answered (in the batch's one reply), whatever its other members are.
    return { bytes: framed(Buffer.from(JSON.stringify(built.map(b => b.json))), cl), ids: built.flatMap(b => (b.id ? [b.id] : [])) };
  }),
  fc.tuple(fc.integer({ min: 1000, max: 200_000 }), fc.constantFrom('[', '{"a":'), fc.boolean()).map(([depth, open, cl]) => () => {
    const close = open === '[' ? ']' : '}';
    const { json, id } = build({ hasId: true, jsonrpc: '2.0', method: 'ping' });
    const text = JSON.stringify(json).replace(/}$/, `,"params":{"deep":${open.repeat(depth)}0${close.repeat(depth)}}}`);
    return { bytes: framed(Buffer.from(text), cl), ids: [id!] };
  }),
  fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.boolean()).map(([bytes, cl]) => () => ({ bytes: framed(Buffer.from(`{"x":"${Buffer.from(bytes).toString('latin1').replace(/[\n"\\]/g, '')}"`, 'latin1'), cl), ids: [] })),
  fc.constantFrom('garbage line', 'Content-Type: text/plain\r\n', 'Content-Length: abc\r\n', 'Content-Length: 0\r\n', 'X: 1\r\nContent-Length: 1\r\nContent-Length: 2\r\n', ' \t ').map(t => () => ({ bytes: Buffer.from(`${t}\r\n\r\n`), ids: [] })),
  fc.integer({ min: 4 * 1024 * 1024 + 1, max: 4 * 1024 * 1024 + 4096 }).map(n => () => {
    const { json, id } = build({ hasId: true, jsonrpc: '2.0', method: 'ping' });
    const text = JSON.stringify(json).replace(/}$/, `,"params":{"pad":"${'x'.repeat(n)}"}}`);
    return { bytes: Buffer.from(`${text}\n`), ids: [id!] };
  }),
);

/** Integer JSON-RPC error codes, or a result: what a response must carry. */
function typed(msg: { result?: unknown; error?: { code: unknown; message: unknown } }): boolean {
  if (msg.error) return Number.isInteger(msg.error.code) && typeof msg.error.message === 'string';
  return typeof msg.result === 'object' && msg.result !== null;
}

test('stdio server: any whole frame is answered (typed), stdout stays JSON-RPC, a ping after it answers, RSS bounded', async () => {
  const rssBefore = rssMb(raw.pid);
  let rssAfter = rssBefore;
  // RSS halfway too: growth that goes on in the second half is a leak, growth that stops there is warm-up.
  let rssMid = rssBefore;
  let tried = 0;
  await fuzz('stdio-server-live', 'Whole frames to a real `tabwright mcp` over stdin (messages with wrong field types, ids JSON-RPC does not allow and awkward strings, batches, nesting to 200,000 levels, invalid UTF-8, header blocks without a length, lines just over 4 MiB): each request with an id gets a typed response, stdout stays JSON-RPC, a ping after each answers within 10 s',
    fc.asyncProperty(frame, async make => {
      if (++tried === Math.ceil(LIVE_RUNS / 2)) rssMid = rssMb(raw.pid);
      const { bytes, ids } = make();
      await new Promise<void>((resolve, reject) => raw.child.stdin.write(bytes, e => (e ? reject(e) : resolve())));
      const probe = await raw.request('ping', undefined, 10_000);
      assert.ok(typed(probe as never), JSON.stringify(probe));
      for (const id of ids) assert.ok(typed(await raw.response(id, 10_000) as never), id);
      assert.deepEqual(raw.junk, []);
      assert.equal(raw.child.exitCode, null, 'the server exited');
    }), {
      kind: 'live',
      notes: () => {
        rssAfter = rssMb(raw.pid);
        return { rssBeforeMb: Math.round(rssBefore), rssMidMb: Math.round(rssMid), rssAfterMb: Math.round(rssAfter), rssBoundMb: STDIO_RSS_BOUND_MB };
      },
    });
  const tools = await raw.request('tools/list', undefined, 30_000);
  assert.ok(Array.isArray((tools.result as { tools?: unknown[] }).tools));
  assert.ok(rssAfter - rssBefore < STDIO_RSS_BOUND_MB, `RSS grew from ${rssBefore.toFixed(0)} to ${rssAfter.toFixed(0)} MB`);
});

test('a batch member whose id is not a string or number is answered in the batch, and its other requests too (the batch waited forever)', async () => {
  await raw.write('[{"jsonrpc":"2.0","id":{},"method":"ping"},{"jsonrpc":"2.0","id":"batch-ok","method":"ping"},{"jsonrpc":"2.0","id":true,"method":"ping"}]\n');
  assert.deepEqual((await raw.response('batch-ok', 10_000)).result, {});
  const batch = raw.batches.find(b => b.some(m => m.id === 'batch-ok'))!;
  assert.deepEqual(batch.map(m => [m.id, m.error?.code ?? 'result']), [[null, -32600], ['batch-ok', 'result'], [null, -32600]]);
});
