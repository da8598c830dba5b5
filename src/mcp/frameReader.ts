/**
 * Frames stdin for the MCP stdio server (docs/mcp.md, "The stream"): each
 * message is either one line of newline-delimited JSON (the MCP
 * specification, "Transports", "stdio") or a `Content-Length` header block
 * and body (the Language Server Protocol's "Base Protocol" framing, which
 * some clients speak). A message starting with `{` or `[` is a line; any
 * other start is read as a header block. Every bound of ./stdioLimits.ts is
 * checked while the bytes arrive: an oversized line or body is counted and
 * skipped, never held whole (only its first ID_PREFIX_BYTES, to answer its
 * `id`), and a malformed header line is answered and skipped; reading then
 * goes on with the next message.
 */
import { ID_PREFIX_BYTES, INVALID_REQUEST, MAX_HEADER_BYTES, MAX_REQUEST_BYTES, PARSE_ERROR } from './stdioLimits.js';

/** How a message was framed. */
export type Framing = 'newline' | 'content-length';

/** A JSON-RPC error object ("5.1 Error object"). */
export interface FrameError {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** Where a FrameReader sends what it read. */
export interface FrameSink {
  /** One whole message: its JSON text (at most MAX_REQUEST_BYTES, not parsed yet). */
  message(bytes: Buffer, framing: Framing): void;
  /** Input that was rejected: answer `error` to `id` (null when it could not be read). */
  reject(id: string | number | null, error: FrameError): void;
  /** Asked before each step: true stops reading (the pending chunk is kept) until resume(). */
  full(): boolean;
}

/** Bounds of one reader (tests lower them). */
export interface FrameLimits {
  header: number;
  request: number;
}

type State =
  | { kind: 'between' }
  | { kind: 'line'; parts: Buffer[]; size: number }
  | { kind: 'header'; line: Buffer[]; blockSize: number; length?: number }
  | { kind: 'body'; parts: Buffer[]; size: number; length: number }
  /** The rest of a line being skipped; `tooLarge` answers it at its end (an oversized request line). */
  | { kind: 'skipLine'; size: number; prefix: Prefix; tooLarge: boolean }
  /** A declared body over the bound: `remaining` bytes are counted off, never stored. */
  | { kind: 'skipBody'; length: number; remaining: number; prefix: Prefix; answered: boolean };

/** The first ID_PREFIX_BYTES of a skipped message (copied, so the chunks it came from are not kept). */
class Prefix {
  private readonly parts: Buffer[] = [];
  size = 0;
  add(bytes: Buffer): void {
    if (this.size >= ID_PREFIX_BYTES || !bytes.length) return;
    const part = Buffer.from(bytes.subarray(0, ID_PREFIX_BYTES - this.size));
    this.parts.push(part);
    this.size += part.length;
  }
  get full(): boolean {
    return this.size >= ID_PREFIX_BYTES;
  }
  id(): string | number | null {
    return leadingId(Buffer.concat(this.parts).toString('utf8'));
  }
}

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a;
/** A header line: a field name (RFC 9110 "token"), a colon, a value. */
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;

/** The error for a request over `limit` bytes (`size` of them, or declared). */
function tooLarge(size: number, limit: number, declared: boolean): FrameError {
  return {
    code: INVALID_REQUEST,
    message: `Invalid Request: the request is ${size} bytes${declared ? ' (declared Content-Length)' : ''}, over the ${limit}-byte limit; it was skipped.`,
    data: { type: 'request_too_large', bytes: size, limit },
  };
}

export class FrameReader {
  private state: State = { kind: 'between' };
  private paused?: { chunk: Buffer; pos: number; done: () => void };
  /** The framing of the first message read; replies use it (undefined until a message arrives). */
  framing?: Framing;

  constructor(
    private readonly sink: FrameSink,
    private readonly limits: FrameLimits = { header: MAX_HEADER_BYTES, request: MAX_REQUEST_BYTES },
  ) {}

  /** Reads `chunk`; `done` is called once all of it is read (later, if reading stops while the sink is full). */
  write(chunk: Buffer, done: () => void): void {
    this.run(chunk, 0, done);
  }

  /** Whether reading stopped (the sink was full). */
  get isPaused(): boolean {
    return this.paused !== undefined;
  }

  /** Goes on reading after a stop, if the sink has room. */
  resume(): void {
    const paused = this.paused;
    if (!paused || this.sink.full()) return;
    this.paused = undefined;
    this.run(paused.chunk, paused.pos, paused.done);
  }

  private run(chunk: Buffer, pos: number, done: () => void): void {
    while (pos < chunk.length) {
      if (this.sink.full()) {
        this.paused = { chunk, pos, done };
        return;
      }
      pos = this.step(chunk, pos);
    }
    done();
  }

  /** Reads from `pos` as far as the current state goes; returns where it stopped. */
  private step(chunk: Buffer, pos: number): number {
    const st = this.state;
    switch (st.kind) {
      case 'between': {
        while (pos < chunk.length && isSpace(chunk[pos]!)) pos++;
        if (pos === chunk.length) return pos;
        const first = chunk[pos];
        this.state = first === 0x7b /* { */ || first === 0x5b /* [ */ ? { kind: 'line', parts: [], size: 0 } : { kind: 'header', line: [], blockSize: 0 };
        return pos;
      }
      case 'line': {
        const nl = chunk.indexOf(0x0a, pos);
        const seg = chunk.subarray(pos, nl < 0 ? chunk.length : nl);
        if (st.size + seg.length > this.limits.request) {
          const prefix = new Prefix();
          for (const part of st.parts) prefix.add(part);
          this.state = { kind: 'skipLine', size: st.size, prefix, tooLarge: true };
          return pos;
        }
        st.parts.push(seg);
        st.size += seg.length;
        if (nl < 0) return chunk.length;
        this.state = { kind: 'between' };
        this.emit(Buffer.concat(st.parts, st.size), 'newline');
        return nl + 1;
      }
      case 'skipLine': {
        const nl = chunk.indexOf(0x0a, pos);
        const seg = chunk.subarray(pos, nl < 0 ? chunk.length : nl);
        st.prefix.add(seg);
        st.size += seg.length;
        if (nl < 0) return chunk.length;
        this.state = { kind: 'between' };
        if (st.tooLarge) this.sink.reject(st.prefix.id(), tooLarge(st.size, this.limits.request, false));
        return nl + 1;
      }
      case 'header':
        return this.header(st, chunk, pos);
      case 'body': {
        const take = Math.min(st.length - st.size, chunk.length - pos);
        st.parts.push(chunk.subarray(pos, pos + take));
        st.size += take;
        if (st.size === st.length) {
          this.state = { kind: 'between' };
          this.emit(Buffer.concat(st.parts, st.size), 'content-length');
        }
        return pos + take;
      }
      case 'skipBody': {
        const take = Math.min(st.remaining, chunk.length - pos);
        st.prefix.add(chunk.subarray(pos, pos + take));
        st.remaining -= take;
        if (!st.answered && (st.prefix.full || st.remaining === 0)) {
          st.answered = true;
          this.sink.reject(st.prefix.id(), tooLarge(st.length, this.limits.request, true));
        }
        if (st.remaining === 0) this.state = { kind: 'between' };
        return pos + take;
      }
    }
  }

  /** One step of a `Content-Length` header block: header lines up to the empty line. */
  private header(st: Extract<State, { kind: 'header' }>, chunk: Buffer, pos: number): number {
    const nl = chunk.indexOf(0x0a, pos);
    const seg = chunk.subarray(pos, nl < 0 ? chunk.length : nl);
    st.blockSize += seg.length + (nl < 0 ? 0 : 1);
    if (st.blockSize > this.limits.header) {
      this.fail(PARSE_ERROR, `Parse error: a header block (or a line that is not JSON) over ${this.limits.header} bytes; it was skipped to the end of its line.`, { type: 'header_too_large', limit: this.limits.header });
      this.state = { kind: 'skipLine', size: 0, prefix: new Prefix(), tooLarge: false };
      return pos;
    }
    st.line.push(seg);
    if (nl < 0) return chunk.length;
    const text = Buffer.concat(st.line).toString('latin1').replace(/\r$/, '');
    st.line = [];
    const next = nl + 1;
    if (text === '') {
      this.state = { kind: 'between' };
      if (st.length === undefined) this.fail(INVALID_REQUEST, 'Invalid Request: a header block without a Content-Length header.');
      else if (st.length === 0) this.fail(INVALID_REQUEST, 'Invalid Request: Content-Length is 0.');
      else if (st.length > this.limits.request) this.state = { kind: 'skipBody', length: st.length, remaining: st.length, prefix: new Prefix(), answered: false };
      else this.state = { kind: 'body', parts: [], size: 0, length: st.length };
      return next;
    }
    const header = HEADER_LINE.exec(text);
    if (!header) {
      this.state = { kind: 'between' };
      this.fail(PARSE_ERROR, 'Parse error: a line that is neither a JSON-RPC message nor a header ("Content-Length: <bytes>"); it was skipped.');
      return next;
    }
    if (header[1]!.toLowerCase() === 'content-length') {
      const value = header[2]!;
      if (!/^\d{1,15}$/.test(value) || (st.length !== undefined && st.length !== Number(value))) {
        this.state = { kind: 'between' };
        this.fail(INVALID_REQUEST, 'Invalid Request: Content-Length must be one decimal byte count.');
        return next;
      }
      st.length = Number(value);
    }
    return next;
  }

  private fail(code: number, message: string, data?: Record<string, unknown>): void {
    this.sink.reject(null, { code, message, ...(data ? { data } : {}) });
  }

  private emit(bytes: Buffer, framing: Framing): void {
    this.framing ??= framing;
    this.sink.message(bytes, framing);
  }
}

/**
 * The top-level `id` of the JSON object `text` starts with, read without
 * parsing the rest: a string or a number that ends within `text`, else null
 * (also when `text` is not an object, or the id comes after the cut).
 */
export function leadingId(text: string): string | number | null {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  /** Skips a string starting at i (a quote); returns its end (after the closing quote) or -1. */
  const stringEnd = (from: number): number => {
    for (let j = from + 1; j < text.length; j++) {
      if (text[j] === '\\') j++;
      else if (text[j] === '"') return j + 1;
    }
    return -1;
  };
  /** Skips one value starting at i; returns false when it does not end within text. */
  const skipValue = (): boolean => {
    let depth = 0;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') {
        const end = stringEnd(i);
        if (end < 0) return false;
        i = end;
        if (depth === 0) return true;
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (depth === 0) return true;
        depth--;
        if (depth === 0) {
          i++;
          return true;
        }
      } else if (c === ',' && depth === 0) return true;
      i++;
    }
    return false;
  };
  ws();
  if (text[i] !== '{') return null;
  i++;
  for (;;) {
    ws();
    if (text[i] !== '"') return null;
    const keyEnd = stringEnd(i);
    if (keyEnd < 0) return null;
    let key: unknown;
    try {
      key = JSON.parse(text.slice(i, keyEnd));
    } catch {
      return null;
    }
    i = keyEnd;
    ws();
    if (text[i] !== ':') return null;
    i++;
    ws();
    if (key === 'id') {
      if (text[i] === '"') {
        const end = stringEnd(i);
        if (end < 0) return null;
        try {
          return JSON.parse(text.slice(i, end)) as string;
        } catch {
          return null;
        }
      }
      const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?(?=[\s,}])/.exec(text.slice(i, i + 40));
      return number ? Number(number[0]) : null;
    }
    if (!skipValue()) return null;
    ws();
    if (text[i] !== ',') return null;
    i++;
  }
}
