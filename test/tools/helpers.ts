/**
 * Small helpers shared by the tool tests (test/tools/*.test.ts): raw tool
 * results, refs out of a snapshot, page evaluation through `execute`, and
 * PNG/JPEG/WebP header parsing for screenshots.
 */
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import type { Client } from '@modelcontextprotocol/client';
import { call } from '../fixtures/mcp.js';

export interface RawResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  structuredContent?: Record<string, unknown>;
}

/** The whole CallToolResult of a call (error or not). */
export async function callRaw(client: Client, name: string, args: Record<string, unknown> = {}): Promise<RawResult> {
  return await client.callTool({ name, arguments: args }) as RawResult;
}

/** The value `code` evaluates to in a tab (through the execute tool). */
export async function evaluate<T = unknown>(client: Client, code: string, tabId?: number): Promise<T> {
  const res = await call<{ value: T }>(client, 'execute', tabId === undefined ? { code } : { code, tabId });
  return res.value;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The ref of the snapshot line for `role` with accessible name `name`
 * (`- button "Save" [ref=e4]`); fails the test when there is none.
 */
export function refOf(snapshot: string, role: string, name: string): string {
  const pattern = new RegExp(`- ${escapeRegExp(role)} "${escapeRegExp(name)}"[^\\n]*?\\[ref=(e\\d+)\\]`);
  const ref = pattern.exec(snapshot)?.[1];
  assert.ok(ref, `no ${role} "${name}" with a ref in:\n${snapshot}`);
  return ref;
}

/** A fresh snapshot of a tab and the refs it holds. */
export async function snapshot(client: Client, args: Record<string, unknown> = {}): Promise<{ snapshot: string; revision: number; tabId: number; instanceId: string }> {
  return await call(client, 'get_page_context', { output: 'inline', ...args });
}

export const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
export const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);

/**
 * Width and height from a baseline or progressive JPEG: the frame header of
 * the first SOFn marker (ITU T.81 B.2.2). Asserts the magic bytes.
 */
export function jpegSize(jpeg: Buffer): { width: number; height: number } {
  assert.deepEqual(jpeg.subarray(0, 3), JPEG_MAGIC, 'not a JPEG');
  for (let pos = 2; pos + 9 <= jpeg.length;) {
    assert.equal(jpeg[pos], 0xff, `no JPEG marker at byte ${pos}`);
    const marker = jpeg[pos + 1]!;
    if ([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf].includes(marker)) {
      return { width: jpeg.readUInt16BE(pos + 7), height: jpeg.readUInt16BE(pos + 5) };
    }
    pos += 2 + jpeg.readUInt16BE(pos + 2);
  }
  assert.fail('no SOF marker in the JPEG');
}

/**
 * Width and height from a WebP (RFC 9649): the RIFF/WEBP header, then a
 * `VP8 ` (lossy: the key frame's 14-bit sizes after the start code
 * 9d 01 2a), `VP8L` (lossless: signature 0x2f, then 14-bit width-1 and
 * height-1) or `VP8X` (extended: 24-bit canvas width-1 and height-1) chunk.
 */
export function webpSize(webp: Buffer): { width: number; height: number; chunk: string } {
  assert.equal(webp.toString('latin1', 0, 4), 'RIFF', 'not a RIFF file');
  assert.equal(webp.readUInt32LE(4) + 8, webp.length, 'RIFF size is the file size');
  assert.equal(webp.toString('latin1', 8, 12), 'WEBP', 'not a WebP');
  const chunk = webp.toString('latin1', 12, 16);
  const data = 20;
  if (chunk === 'VP8 ') {
    assert.deepEqual([...webp.subarray(data + 3, data + 6)], [0x9d, 0x01, 0x2a], 'VP8 start code');
    return { width: webp.readUInt16LE(data + 6) & 0x3fff, height: webp.readUInt16LE(data + 8) & 0x3fff, chunk };
  }
  if (chunk === 'VP8L') {
    assert.equal(webp[data], 0x2f, 'VP8L signature');
    const bits = webp.readUInt32LE(data + 1);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, chunk };
  }
  assert.equal(chunk, 'VP8X', `unknown WebP chunk ${chunk}`);
  return { width: webp.readUIntLE(data + 4, 3) + 1, height: webp.readUIntLE(data + 7, 3) + 1, chunk };
}

/** Width and height of a PNG, JPEG or WebP, by its magic bytes (fails the test for anything else). */
export function imageSize(image: Buffer, mimeType: string): { width: number; height: number } {
  if (mimeType === 'image/png') return pngSize(image);
  if (mimeType === 'image/jpeg') return jpegSize(image);
  assert.equal(mimeType, 'image/webp', `unexpected image type ${mimeType}`);
  const { width, height } = webpSize(image);
  return { width, height };
}

/** Width and height from a PNG's IHDR chunk (asserts the magic bytes and chunk order). */
export function pngSize(png: Buffer): { width: number; height: number } {
  assert.deepEqual(png.subarray(0, 8), PNG_MAGIC, 'not a PNG');
  assert.equal(png.toString('latin1', 12, 16), 'IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/**
 * The RGB colour of pixel (x, y) of an 8-bit, non-interlaced RGB or RGBA
 * PNG (what Chromium writes). Enough decoding to check what a screenshot shows.
 */
export function pngPixel(png: Buffer, x: number, y: number): [number, number, number] {
  const { width, height } = pngSize(png);
  const bitDepth = png[24];
  const colorType = png[25];
  assert.equal(bitDepth, 8, 'only 8-bit PNGs are decoded');
  const channels = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  assert.ok(channels, `colour type ${colorType} is not decoded`);
  const idat: Buffer[] = [];
  for (let pos = 8; pos < png.length;) {
    const length = png.readUInt32BE(pos);
    const type = png.toString('latin1', pos + 4, pos + 8);
    if (type === 'IDAT') idat.push(png.subarray(pos + 8, pos + 8 + length));
    pos += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  let prev = Buffer.alloc(stride);
  let row = Buffer.alloc(stride);
  for (let r = 0; r <= Math.min(y, height - 1); r++) {
    const filter = raw[r * (stride + 1)]!;
    const line = raw.subarray(r * (stride + 1) + 1, (r + 1) * (stride + 1));
    row = Buffer.alloc(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? row[i - channels]! : 0;
      const b = prev[i]!;
      const c = i >= channels ? prev[i - channels]! : 0;
      let v = line[i]!;
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += Math.floor((a + b) / 2);
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      row[i] = v & 0xff;
    }
    prev = row;
  }
  const i = x * channels;
  return [row[i]!, row[i + 1]!, row[i + 2]!];
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>(resolve => server.close(() => resolve()));
  return port;
}
