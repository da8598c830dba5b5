/**
 * Fuzzes the stdio MCP front's framing in process (src/mcp/frameReader.ts,
 * the real reader stdin goes through): newline-delimited and
 * `Content-Length` frames, split anywhere and merged, with U+2028/U+2029 and
 * invalid UTF-8 inside, oversized lines and bodies, malformed header blocks.
 * Every input is read to its end without a throw, every rejection is a
 * JSON-RPC error (-32700 or -32600), nothing over the request bound is held,
 * and how the bytes were split never changes what is read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FrameReader, leadingId, type FrameError, type Framing } from '../../src/mcp/frameReader.js';
import { INVALID_REQUEST, PARSE_ERROR } from '../../src/mcp/stdioLimits.js';
import { fuzz } from './fuzz.js';

interface Read {
  messages: Array<{ text: string; framing: Framing }>;
  rejects: Array<{ id: string | number | null; error: FrameError }>;
}

/** Feeds `bytes` to a fresh reader in the pieces `cuts` makes (offsets), and returns what it read. */
function read(bytes: Buffer, cuts: number[], limits = { header: 64, request: 256 }): Read {
  const out: Read = { messages: [], rejects: [] };
  const reader = new FrameReader({
    message: (b, framing) => out.messages.push({ text: b.toString('latin1'), framing }),
    reject: (id, error) => out.rejects.push({ id, error }),
    full: () => false,
  }, limits);
  let from = 0;
  for (const cut of [...new Set(cuts.map(c => c % (bytes.length + 1)))].sort((a, b) => a - b).concat(bytes.length)) {
    if (cut <= from) continue;
    let done = false;
    reader.write(bytes.subarray(from, cut), () => (done = true));
    assert.ok(done, 'a chunk was not read to its end with room in the sink');
    from = cut;
  }
  return out;
}

/** Strings with what breaks line framing: U+2028/U+2029, CR/LF escapes, lone surrogates, astral characters. */
const awkwardString = fc.string({ unit: fc.oneof(fc.constantFrom('\u2028', '\u2029', '\r', '\n', '\\', '"', '\u0000', '\ud800', '\u{1f600}', 'é'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 40 });
const message = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 })),
  method: awkwardString,
  params: fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(awkwardString, fc.jsonValue({ maxDepth: 3 })), { maxKeys: 4 }),
});

function frame(json: string, framing: Framing): Buffer {
  const body = Buffer.from(json, 'utf8');
  return framing === 'newline' ? Buffer.concat([body, Buffer.from('\n')]) : Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
}

test('stdio framing: well-formed frames, split and merged anywhere, are read whole and in order', async () => {
  await fuzz('stdio-frames-valid', 'Newline and Content-Length frames (U+2028/U+2029, lone surrogates, escapes inside), concatenated and split at random offsets: each is read whole, in order, nothing rejected',
    fc.property(fc.array(fc.tuple(message, fc.constantFrom<Framing>('newline', 'content-length')), { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), (frames, cuts) => {
      const jsons = frames.map(([m]) => JSON.stringify(m));
      const bytes = Buffer.concat(frames.map(([, f], i) => frame(jsons[i]!, f)));
      const out = read(bytes, cuts, { header: 8192, request: 1 << 20 });
      assert.deepEqual(out.rejects, []);
      assert.deepEqual(out.messages.map(m => Buffer.from(m.text, 'latin1').toString('utf8')), jsons);
    }));
});

/** Bytes biased toward what the reader branches on. */
const wireByte = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...Buffer.from('{}[]"\n\r:\t 0123456789-')) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) },
);
const wireChunk = fc.oneof(
  fc.array(wireByte, { maxLength: 64 }).map(a => Buffer.from(a)),
  fc.constantFrom('Content-Length: ', 'content-length:', 'Content-Length: 5\r\n\r\n', 'Content-Length: 999999999999\r\n\r\n', 'Content-Type: x\r\n', '\r\n\r\n', '{"jsonrpc":"2.0","id":', '{"id":"', '\xff\xfe', '\u2028').map(s => Buffer.from(s, 'latin1')),
  fc.integer({ min: 60, max: 400 }).map(n => Buffer.alloc(n, 0x78)),
);

test('stdio framing: any bytes, split anywhere, get typed rejections and the same reading', async () => {
  const limits = { header: 64, request: 256 };
  await fuzz('stdio-frames-garbage', 'Any bytes (biased to braces, newlines, header text, oversized runs, invalid UTF-8) under 64-byte header and 256-byte request bounds, split two ways: no throw, each rejection -32700/-32600, no message over the bound, the same reading however split',
    fc.property(fc.array(wireChunk, { maxLength: 24 }), fc.array(fc.nat(), { maxLength: 10 }), (chunks, cuts) => {
      const bytes = Buffer.concat(chunks);
      const whole = read(bytes, [], limits);
      const split = read(bytes, cuts, limits);
      assert.deepEqual(split, whole);
      for (const m of whole.messages) assert.ok(m.text.length <= limits.request, `a ${m.text.length}-byte message passed the ${limits.request}-byte bound`);
      for (const r of whole.rejects) {
        assert.ok(r.error.code === PARSE_ERROR || r.error.code === INVALID_REQUEST, `code ${r.error.code}`);
        assert.equal(typeof r.error.message, 'string');
        assert.ok(r.id === null || typeof r.id === 'string' || typeof r.id === 'number');
      }
    }));
});

test('stdio framing: leadingId reads any text without a throw, and only a string or number id', async () => {
  await fuzz('stdio-leading-id', 'The id of an oversized request read from its first 8 KiB (any text, and JSON objects cut anywhere): a string, a number or null, never a throw',
    fc.property(fc.oneof(fc.string({ maxLength: 200 }), fc.tuple(fc.jsonValue({ maxDepth: 4 }), fc.nat()).map(([v, n]) => JSON.stringify({ a: v, id: v, b: v }).slice(0, n + 1))), text => {
      const id = leadingId(text);
      assert.ok(id === null || typeof id === 'string' || (typeof id === 'number' && !Number.isNaN(id)), String(id));
    }));
});
