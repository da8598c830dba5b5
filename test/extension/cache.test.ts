/**
 * The extension link's string cache (src/browser/extension/frameCache.ts; docs/own-browser.md, "Speed"): a large
 * script crosses the link once, then as an id; both ends evict the same entries; a ref the worker does not hold
 * is `cache_miss` and the command goes again in full; a new link (a restarted worker, a redial) starts empty;
 * the gate sees the script put back, and refuses what it refused before. The first part runs the two halves
 * against each other here; the second plays the server with the built ExtensionBridge and the real extension.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CACHE_MAX_CHARS, CACHE_MAX_ENTRIES, CACHE_MIN_CHARS, CacheEncoder, CacheMiss, StringCache, decodeCached,
} from '../../src/browser/extension/frameCache.js';
import { startExtensionBrowser, startLinkServer, TEST_PAIRING_CODE, type ExtensionBrowser, type LinkServer } from '../fixtures/extension.js';
import { until } from '../fixtures/harness.js';
import { startSite, type Site } from '../fixtures/site.js';

/** A script of `chars` UTF-16 units whose value is `tag` (different tags, different texts). */
const script = (tag: string, chars: number) => `${JSON.stringify(tag)} /*${'x'.repeat(Math.max(0, chars - JSON.stringify(tag).length - 5))}*/`;

describe('the two halves', () => {
  test('a large script is sent in full once, then as an id, and the worker puts it back; small strings are left alone', () => {
    const encoder = new CacheEncoder();
    const worker = new StringCache();
    const big = script('a', CACHE_MIN_CHARS);
    const first = encoder.encode({ expression: big, returnByValue: true });
    assert.equal(first.params.expression, big);
    assert.deepEqual(first.put, { expression: 1 });
    assert.equal(first.ref, undefined);
    assert.deepEqual(decodeCached(worker, first.params, first.put, first.ref), { expression: big, returnByValue: true });
    const second = encoder.encode({ expression: big, returnByValue: true });
    assert.deepEqual(second.params, { returnByValue: true });
    assert.deepEqual(second.ref, { expression: 1 });
    assert.deepEqual(decodeCached(worker, second.params, second.put, second.ref), { expression: big, returnByValue: true });
    const small = encoder.encode({ expression: 'x'.repeat(CACHE_MIN_CHARS - 1), functionDeclaration: '() => 1' });
    assert.equal(small.put, undefined);
    assert.equal(small.ref, undefined);
    assert.equal(encoder.encode({ expression: 'x'.repeat(CACHE_MAX_CHARS + 1) }).put, undefined, 'a string over the bound is never cached');
  });

  test('over many frames with evictions, every ref is held by the worker and decodes to what was sent', () => {
    const encoder = new CacheEncoder();
    const worker = new StringCache();
    // 40 distinct scripts, some large enough that a few fill the cache's character bound.
    const texts = Array.from({ length: 40 }, (_, i) => script(`s${i}`, i % 7 === 0 ? Math.floor(CACHE_MAX_CHARS / 3) : CACHE_MIN_CHARS + i * 997));
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % texts.length;
    let refs = 0;
    for (let i = 0; i < 2000; i++) {
      const sent: Record<string, unknown> = { expression: texts[next()], ...(i % 3 ? { functionDeclaration: texts[next()] } : {}), ...(i % 5 ? {} : { source: texts[next()] }) };
      const frame = encoder.encode(sent);
      refs += Object.keys(frame.ref ?? {}).length;
      assert.deepEqual(decodeCached(worker, frame.params, frame.put, frame.ref), sent, `frame ${i}`);
      assert.ok(worker.size <= CACHE_MAX_ENTRIES && worker.chars <= CACHE_MAX_CHARS, 'the worker\'s cache stays in its bounds');
    }
    assert.ok(refs > 500, `ids were sent (${refs})`);
  });

  test('a ref the worker does not hold is a CacheMiss, after the frame\'s puts; the worker empties its cache', () => {
    const worker = new StringCache();
    const kept = script('kept', CACHE_MIN_CHARS);
    assert.throws(() => decodeCached(worker, { source: kept }, { source: 3 }, { expression: 99 }), (error: unknown) => error instanceof CacheMiss && error.code === 'cache_miss');
    assert.equal(worker.size, 0);
    assert.equal(worker.get(3), undefined);
  });
});

interface Link {
  request(m: string, p?: Record<string, unknown>): Promise<unknown>;
  cdpSend(command: { tabId: number; method: string; params: Record<string, unknown> }): Promise<unknown>;
  readonly cacheStats: { puts: number; refs: number; savedChars: number; misses: number };
  readonly peer: { bootId: string; features: readonly string[] };
}

describe('through the extension', () => {
  let browser: ExtensionBrowser;
  let site: Site;
  let server: LinkServer | undefined;
  let tab = 0;
  let secretTab = 0;
  /** 300 KB, as large as Playwright's injected script. */
  const big = script('big', 300_000);
  const live = () => server!.bridge.link as unknown as Link | undefined;

  /** The live link, attached to the shared tab. */
  const attached = async () => {
    const link = await until('the extension link', live, 20_000);
    await link.request('cdp.attach', { tabId: tab });
    return link;
  };
  const evaluate = async (link: Link, expression: string) => ((await link.cdpSend({ tabId: tab, method: 'Runtime.evaluate', params: { expression, returnByValue: true } })) as { result: { value: unknown } }).result.value;

  before(async () => {
    site = await startSite();
    site.page('/shared', '<title>Shared</title><h1>shared</h1>');
    site.page('/secret', '<title>Secret</title><h1>secret</h1>');
    browser = await startExtensionBrowser();
    server = await startLinkServer();
    await browser.pair(TEST_PAIRING_CODE, server.port);
    await (await browser.context.newPage()).goto(`${site.origin}/shared`);
    await (await browser.context.newPage()).goto(`${site.origin}/secret`);
    tab = await browser.tabIdOf(`${site.origin}/shared`);
    secretTab = await browser.tabIdOf(`${site.origin}/secret`);
    await browser.share(tab);
  });
  after(async () => {
    await server?.close();
    await browser?.close();
    await site?.close();
  });

  test('the worker names the cache in its hello; a script sent once goes as an id after, with the same result', async () => {
    const link = await attached();
    assert.ok(link.peer.features.includes('cache'));
    const before = { ...link.cacheStats };
    assert.equal(await evaluate(link, big), 'big');
    assert.equal(await evaluate(link, big), 'big');
    assert.equal(await evaluate(link, big), 'big');
    assert.equal(link.cacheStats.puts - before.puts, 1);
    assert.equal(link.cacheStats.refs - before.refs, 2);
    assert.equal(link.cacheStats.misses, before.misses);
  });

  test('an id the worker does not hold is cache_miss; the link then sends the command again in full', async () => {
    const link = await attached();
    assert.equal(await evaluate(link, big), 'big');
    // A frame with an id the worker never got: refused, and the worker empties its cache.
    const miss = await link.request('cdp.send', { tabId: tab, method: 'Runtime.evaluate', params: { returnByValue: true }, ref: { expression: 987_654 } })
      .then(() => 'answered', (error: { code?: string }) => error.code);
    assert.equal(miss, 'cache_miss');
    // The server still thinks the worker holds `big`: its ref misses, and the full command answers.
    const misses = link.cacheStats.misses;
    assert.equal(await evaluate(link, big), 'big');
    assert.equal(link.cacheStats.misses, misses + 1);
    // In step again: the next time it is put, then sent as an id.
    const refs = link.cacheStats.refs;
    assert.equal(await evaluate(link, big), 'big');
    assert.equal(await evaluate(link, big), 'big');
    assert.ok(link.cacheStats.refs > refs);
    assert.equal(link.cacheStats.misses, misses + 1);
  });

  test('the gate sees the script put back: a cached script for an unshared tab is still not_shared, and the frame\'s put counts', async () => {
    const link = await attached();
    const other = script('other', 50_000);
    const refused = await link.cdpSend({ tabId: secretTab, method: 'Runtime.evaluate', params: { expression: other, returnByValue: true } })
      .then(() => 'answered', (error: { code?: string }) => error.code);
    assert.equal(refused, 'not_shared');
    const misses = link.cacheStats.misses;
    const refs = link.cacheStats.refs;
    assert.equal(await evaluate(link, other), 'other', 'the refused frame\'s put was kept: its id is held');
    assert.equal(link.cacheStats.refs, refs + 1);
    assert.equal(link.cacheStats.misses, misses);
  });

  test('a new link (the worker redials) starts with an empty cache on both ends: the script is sent in full first', async () => {
    const link = await attached();
    assert.equal(await evaluate(link, big), 'big');
    assert.equal(await evaluate(link, big), 'big');
    // The server drops the link (as a restart of either end does); the worker redials.
    (link as unknown as { close(code: number, reason: string): void }).close(1001, 'test: relink');
    const next = await until('the worker to link again', () => (live() && live() !== link ? live() : undefined), 30_000);
    await next.request('cdp.attach', { tabId: tab });
    assert.equal(await evaluate(next, big), 'big');
    assert.equal(await evaluate(next, big), 'big');
    assert.deepEqual({ puts: next.cacheStats.puts, refs: next.cacheStats.refs, misses: next.cacheStats.misses }, { puts: 1, refs: 1, misses: 0 });
  });
});
