// get_console_context end to end: messages from document start, uncaught
// errors and rejections, the level filter, since/lastSeq and limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callError } from '../fixtures/mcp.js';

interface Entry {
  seq: number;
  level: string;
  kind: 'console' | 'exception';
  text: string;
  source?: { url: string; line: number; column: number };
  timestamp: number;
  revision: number;
}
interface ConsoleContext {
  tabId: number;
  entries: Entry[];
  lastSeq: number;
  omitted: number;
}

const LOGGING_PAGE = `<!doctype html>
<html><head><title>Logs</title>
<script>
console.log('early log', document.readyState);
</script>
</head><body>
<script>
console.debug('a debug line');
console.info('an info line');
console.warn('a warning line');
console.error('an error line');
document.addEventListener('DOMContentLoaded', () => console.log('dom ready'));
setTimeout(() => { throw new Error('uncaught boom'); }, 0);
Promise.reject(new Error('rejected boom'));
</script>
<p>logging page</p>
</body></html>`;

let tabId: number;
let startedAt: number;

const tw = useSession({
  context: 'file',
  setup: async tw => {
    tw.site.page('/logs', LOGGING_PAGE);
    tw.site.page('/quiet', '<!doctype html><title>Quiet</title><p>nothing logged</p>');
    // No "Failed to load resource" error for the icon the browser asks for.
    tw.site.route('/favicon.ico', (_req, res) => {
      res.writeHead(204);
      res.end();
    });
    startedAt = Date.now();
    tabId = (await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.site.origin}/logs`, waitUntil: 'load' })).tabId;
  },
});

/** Reads the console until `done` holds (uncaught errors arrive a moment after load). */
async function readUntil(args: Record<string, unknown>, done: (ctx: ConsoleContext) => boolean): Promise<ConsoleContext> {
  let ctx = await call<ConsoleContext>(tw.client, 'get_console_context', args);
  for (let i = 0; i < 50 && !done(ctx); i++) {
    await new Promise(resolve => setTimeout(resolve, 100));
    ctx = await call<ConsoleContext>(tw.client, 'get_console_context', args);
  }
  return ctx;
}

test('captures from document start, with level, text, source and timestamp', async () => {
  const ctx = await readUntil({}, c => c.entries.filter(e => e.kind === 'exception').length >= 2);
  assert.equal(ctx.tabId, tabId);
  assert.equal(ctx.omitted, 0);
  const consoleLines = ctx.entries.filter(e => e.kind === 'console').map(e => [e.level, e.text]);
  assert.deepEqual(consoleLines, [
    ['log', 'early log loading'],
    ['debug', 'a debug line'],
    ['info', 'an info line'],
    ['warning', 'a warning line'],
    ['error', 'an error line'],
    ['log', 'dom ready'],
  ]);
  const early = ctx.entries[0]!;
  assert.equal(early.source?.url, `${tw.origin}/logs`);
  assert.equal(early.source?.line, 4, 'lines count from 1');
  assert.equal(early.source?.column, 9, 'columns count from 1');
  assert.ok(early.timestamp >= startedAt && early.timestamp <= Date.now());
  // seq increases by one per entry.
  assert.deepEqual(ctx.entries.map(e => e.seq), ctx.entries.map((_, i) => i + 1));
  assert.equal(ctx.lastSeq, ctx.entries.length);
});

test('uncaught errors and unhandled rejections are entries of kind exception', async () => {
  const ctx = await readUntil({}, c => c.entries.filter(e => e.kind === 'exception').length >= 2);
  const exceptions = ctx.entries.filter(e => e.kind === 'exception');
  assert.equal(exceptions.length, 2, JSON.stringify(ctx.entries));
  assert.ok(exceptions.every(e => e.level === 'error'));
  const uncaught = exceptions.find(e => e.text.includes('uncaught boom'));
  const rejected = exceptions.find(e => e.text.includes('rejected boom'));
  assert.ok(uncaught && rejected, JSON.stringify(exceptions));
  // Their source is where they were thrown (lines and columns count from 1).
  const lines = LOGGING_PAGE.split('\n');
  const lineOf = (needle: string) => lines.findIndex(l => l.includes(needle)) + 1;
  assert.deepEqual(uncaught.source, { url: `${tw.origin}/logs`, line: lineOf('uncaught boom'), column: lines[lineOf('uncaught boom') - 1]!.indexOf('new Error') + 1 });
  assert.deepEqual(rejected.source, { url: `${tw.origin}/logs`, line: lineOf('rejected boom'), column: lines[lineOf('rejected boom') - 1]!.indexOf('new Error') + 1 });
});

test('level is a minimum severity', async () => {
  const all = (await call<ConsoleContext>(tw.client, 'get_console_context')).entries;
  const warnings = await call<ConsoleContext>(tw.client, 'get_console_context', { level: 'warning' });
  assert.deepEqual(warnings.entries.map(e => e.level).sort(), ['error', 'error', 'error', 'warning']);
  const errors = await call<ConsoleContext>(tw.client, 'get_console_context', { level: 'error' });
  assert.deepEqual(errors.entries.map(e => e.text.split('\n')[0]).filter(t => !t.includes('boom')), ['an error line']);
  assert.equal(errors.entries.length, 3);
  const logs = await call<ConsoleContext>(tw.client, 'get_console_context', { level: 'log' });
  assert.equal(logs.entries.length, all.length - 1, 'everything but the debug line');
  assert.equal((await call<ConsoleContext>(tw.client, 'get_console_context', { level: 'debug' })).entries.length, all.length);
  assert.equal((await callError(tw.client, 'get_console_context', { level: 'verbose' })).type, 'invalid_arguments');
});

test('since returns only what is newer than an earlier lastSeq', async () => {
  const { lastSeq } = await call<ConsoleContext>(tw.client, 'get_console_context');
  const none = await call<ConsoleContext>(tw.client, 'get_console_context', { since: lastSeq });
  assert.deepEqual(none.entries, []);
  assert.equal(none.lastSeq, lastSeq);

  await call(tw.client, 'execute', { code: 'console.log("later one"); console.warn("later two"); return 1' });
  const newer = await call<ConsoleContext>(tw.client, 'get_console_context', { since: lastSeq });
  assert.deepEqual(newer.entries.map(e => [e.seq, e.level, e.text]), [[lastSeq + 1, 'log', 'later one'], [lastSeq + 2, 'warning', 'later two']]);
  assert.equal(newer.lastSeq, lastSeq + 2);
  const filtered = await call<ConsoleContext>(tw.client, 'get_console_context', { since: lastSeq, level: 'warning' });
  assert.deepEqual(filtered.entries.map(e => e.text), ['later two']);
});

test('limit keeps the newest entries and says how many were left out', async () => {
  const all = await call<ConsoleContext>(tw.client, 'get_console_context');
  const two = await call<ConsoleContext>(tw.client, 'get_console_context', { limit: 2 });
  assert.deepEqual(two.entries, all.entries.slice(-2));
  assert.equal(two.omitted, all.entries.length - 2);
  assert.equal(two.lastSeq, all.lastSeq);
  assert.equal((await callError(tw.client, 'get_console_context', { limit: 0 })).type, 'invalid_arguments');
  assert.equal((await callError(tw.client, 'get_console_context', { limit: 1001 })).type, 'invalid_arguments');
  assert.equal((await callError(tw.client, 'get_console_context', { since: -1 })).type, 'invalid_arguments');
});

test('entries carry the revision of their document; each tab has its own buffer', async () => {
  const before = await call<ConsoleContext>(tw.client, 'get_console_context');
  const nav = await call<{ revision: number }>(tw.client, 'navigate', { url: `${tw.origin}/quiet` });
  await call(tw.client, 'execute', { code: 'console.log("on the quiet page"); return 1' });
  const after = await call<ConsoleContext>(tw.client, 'get_console_context', { since: before.lastSeq });
  assert.deepEqual(after.entries.map(e => [e.text, e.revision]), [['on the quiet page', nav.revision]]);
  assert.ok(before.entries.every(e => e.revision < nav.revision));

  const other = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/quiet` });
  const fresh = await call<ConsoleContext>(tw.client, 'get_console_context', { tabId: other.tabId });
  assert.deepEqual(fresh.entries, []);
  assert.equal(fresh.lastSeq, 0);
  assert.equal((await call<ConsoleContext>(tw.client, 'get_console_context', { tabId })).lastSeq, after.lastSeq);
});

test('a page that floods the console keeps the newest 1000', async () => {
  const { tabId: flood } = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}/quiet` });
  await call(tw.client, 'execute', { tabId: flood, code: 'for (let i = 1; i <= 1500; i++) console.log("line " + i); return 1' });
  const ctx = await readUntil({ tabId: flood, limit: 1000 }, c => c.lastSeq >= 1500);
  assert.equal(ctx.lastSeq, 1500);
  assert.equal(ctx.entries.length, 1000);
  assert.equal(ctx.entries[0]!.text, 'line 501');
  assert.equal(ctx.entries.at(-1)!.text, 'line 1500');
});

test('a rejection with a plain value is recorded as that value', async () => {
  const { lastSeq } = await call<ConsoleContext>(tw.client, 'get_console_context');
  await call(tw.client, 'execute', { code: 'Promise.reject("plain reason"); return 1' });
  const ctx = await readUntil({ since: lastSeq }, c => c.entries.length > 0);
  assert.deepEqual(ctx.entries.map(e => [e.kind, e.level, e.text]), [['exception', 'error', 'plain reason']]);
});

test('format specifiers are filled as the browser\'s console shows them; %c styles are dropped', async () => {
  const before = (await call<ConsoleContext>(tw.client, 'get_console_context', {})).lastSeq;
  await call(tw.client, 'execute', {
    code: 'console.log("%s has %d items (%i%%) %o", "cart", 3.7, 42.9, { id: 7 }, "extra"); console.log("%cred %s", "color: red", "text"); console.log("100%", "done"); console.log("%s"); return 1',
  });
  const ctx = await readUntil({ since: before }, c => c.entries.length >= 4);
  assert.deepEqual(ctx.entries.map(e => e.text), ['cart has 3 items (42%) {id: 7} extra', 'red text', '100% done', '%s']);
});
