/**
 * The link's string cache (docs/own-browser.md, "Speed"): the large strings a CDP client sends again and again
 * (Playwright's injected script, ~340 KB, evaluated in the main and the utility world of every new document; its
 * ~13 KB utility script) cross the link once. After that the server sends a small id in their place, and the
 * extension's worker puts the text back before the command goes through its gate to chrome.debugger.
 *
 * Both ends hold the same bounded cache, kept in step by the link's order alone: for each large string of a
 * `cdp.send` the server decides `put` (the text, to be kept under a new id) or `ref` (an id the worker holds), and
 * the worker applies the puts and refs in the order the frames arrive, the order the server sent them, so the same
 * entries are evicted on both sides. Nothing outlives the socket: a new link (a restarted worker, a reconnect)
 * starts both caches empty. An id the worker does not hold (it never should) is answered with the error code
 * CACHE_MISS; the worker empties its cache then, the server empties its own and sends the command again in full.
 *
 * Shared by the server (./link.ts) and the extension (bundled by esbuild): no Node.
 */

/** The feature the extension names in its hello (`features`) when it understands `put` and `ref`. */
export const CACHE_FEATURE = 'cache';

/** The error code of a `ref` the worker does not hold. */
export const CACHE_MISS = 'cache_miss';

/** Strings shorter than this (UTF-16 units) are always sent as they are. */
export const CACHE_MIN_CHARS = 4096;

/** The most UTF-16 units the cache holds (a string longer than this is never cached). */
export const CACHE_MAX_CHARS = 4 * 1024 * 1024;

/** The most strings the cache holds. */
export const CACHE_MAX_ENTRIES = 16;

/** The params of a CDP command whose strings are cached: what carries scripts. */
export const CACHED_PARAMS = ['expression', 'functionDeclaration', 'source'] as const;
export type CachedParam = typeof CACHED_PARAMS[number];

/** Ids by param name: the strings of a `cdp.send` to keep (`put`, the text is in `params`) or to put back (`ref`). */
export type CacheIds = Partial<Record<CachedParam, number>>;

/** A `ref` the worker does not hold. */
export class CacheMiss extends Error {
  readonly code = CACHE_MISS;
  constructor(id: number) {
    super(`the extension does not hold cached string ${id}; the server sends it again`);
    this.name = 'CacheMiss';
  }
}

/** True for a string worth caching: at least CACHE_MIN_CHARS, at most CACHE_MAX_CHARS. */
export function cacheable(value: unknown): value is string {
  return typeof value === 'string' && value.length >= CACHE_MIN_CHARS && value.length <= CACHE_MAX_CHARS;
}

/**
 * Strings by id, least recently used first; bounded by CACHE_MAX_ENTRIES and CACHE_MAX_CHARS. Both ends run this
 * same class on the same sequence of puts and gets, so they evict the same entries.
 */
export class StringCache {
  private readonly entries = new Map<number, string>();
  private held = 0;

  /** How many strings it holds. */
  get size(): number {
    return this.entries.size;
  }

  /** How many UTF-16 units it holds. */
  get chars(): number {
    return this.held;
  }

  /**
   * Keeps `text` under `id` as the most recently used, then evicts the least recently used past the bounds.
   * @returns the evicted entries' texts.
   */
  put(id: number, text: string): string[] {
    const old = this.entries.get(id);
    if (old !== undefined) this.held -= old.length;
    this.entries.delete(id);
    this.entries.set(id, text);
    this.held += text.length;
    const evicted: string[] = [];
    for (const [oldest, value] of this.entries) {
      if (this.entries.size <= CACHE_MAX_ENTRIES && this.held <= CACHE_MAX_CHARS) break;
      this.entries.delete(oldest);
      this.held -= value.length;
      evicted.push(value);
    }
    return evicted;
  }

  /** The text under `id`, made the most recently used; undefined when it is not held. */
  get(id: number): string | undefined {
    const text = this.entries.get(id);
    if (text === undefined) return undefined;
    this.entries.delete(id);
    this.entries.set(id, text);
    return text;
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }
}

/** The server's half: which strings the worker holds, by text, mirrored from the same StringCache. */
export class CacheEncoder {
  private readonly cache = new StringCache();
  private readonly ids = new Map<string, number>();
  private nextId = 1;

  /**
   * The command's params as they cross the link: each cacheable string the worker holds is left out and named in
   * `ref`; each other one stays and is named in `put` under a new id. Updates the mirror as if the frame was sent:
   * call it once per frame, in the order the frames are sent.
   */
  encode(params: Record<string, unknown>): { params: Record<string, unknown>; put?: CacheIds; ref?: CacheIds } {
    let out = params;
    let put: CacheIds | undefined;
    let ref: CacheIds | undefined;
    for (const name of CACHED_PARAMS) {
      const text = params[name];
      if (!cacheable(text)) continue;
      const known = this.ids.get(text);
      if (known !== undefined) {
        this.cache.get(known);
        if (out === params) out = { ...params };
        delete out[name];
        (ref ??= {})[name] = known;
      } else {
        const id = this.nextId++;
        this.ids.set(text, id);
        for (const gone of this.cache.put(id, text)) this.ids.delete(gone);
        (put ??= {})[name] = id;
      }
    }
    return { params: out, ...(put ? { put } : {}), ...(ref ? { ref } : {}) };
  }

  /** Forgets everything (the worker missed a ref: its cache is not this one any more). */
  reset(): void {
    this.cache.clear();
    this.ids.clear();
  }
}

/**
 * The worker's half: the command's params with every `ref` put back and every `put` kept. All puts and refs of the
 * frame are applied before a miss is reported, so the cache stays in step with the server's for the frames after.
 * @throws CacheMiss when a `ref` names an id the cache does not hold (the cache is emptied then).
 */
export function decodeCached(cache: StringCache, params: Record<string, unknown>, put: unknown, ref: unknown): Record<string, unknown> {
  const puts = (put && typeof put === 'object' ? put : {}) as Record<string, unknown>;
  const refs = (ref && typeof ref === 'object' ? ref : {}) as Record<string, unknown>;
  let out = params;
  let missing: number | undefined;
  // In CACHED_PARAMS order, as the server's encode: the same puts and gets in the same order evict the same entries.
  for (const name of CACHED_PARAMS) {
    const putId = puts[name];
    if (typeof putId === 'number' && typeof params[name] === 'string') {
      cache.put(putId, params[name]);
      continue;
    }
    if (refs[name] === undefined) continue;
    const text = typeof refs[name] === 'number' ? cache.get(refs[name]) : undefined;
    if (text === undefined) {
      missing ??= Number(refs[name]);
      continue;
    }
    if (out === params) out = { ...params };
    out[name] = text;
  }
  if (missing !== undefined) {
    cache.clear();
    throw new CacheMiss(missing);
  }
  return out;
}
