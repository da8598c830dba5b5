// Measures get_page_context on every corpus page (and the generated large page): bytes, o200k tokens, ref count,
// time (median of 3). Usage: npm run build && npx tsx scripts/snapshot-sizes.ts [extra get_page_context args as JSON]
import { readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { call, connect } from '../test/fixtures/mcp.js';
import { CORPUS, startSite } from '../test/fixtures/site.js';
import { largePage } from '../test/fixtures/largePage.js';

const extra = process.argv[2] ? JSON.parse(process.argv[2]) as Record<string, unknown> : {};
const site = await startSite();
for (const dir of ['/', '/corpus/', '/shared/']) site.page(dir, '<title>Directory</title><h1>Not a page</h1>');
site.page('/large', largePage());
// Fields through structuredContent, as in the test suite (scripts/test.mjs).
const server = await connect({ env: { TABWRIGHT_STRUCTURED_CONTENT: '1' } });
const rows: Array<Record<string, string | number>> = [];
const pages = [...readdirSync(CORPUS).filter(f => f.endsWith('.html')).sort().map(f => `/corpus/${f}`), '/large'];
try {
  for (const path of pages) {
    await call(server.client, 'navigate', { url: `${site.origin}${path}`, waitUntil: 'load' });
    const times: number[] = [];
    let snap = '';
    let refs = 0;
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const ctx = await call<{ snapshot: string; refCount: number }>(server.client, 'get_page_context', { output: 'inline', ...extra });
      times.push(performance.now() - t);
      snap = ctx.snapshot;
      refs = ctx.refCount;
    }
    const first = Math.round(times[0]!);
    times.sort((a, b) => a - b);
    rows.push({ page: path.replace('/corpus/', ''), bytes: Buffer.byteLength(snap), tokens: encode(snap).length, refs, firstMs: first, ms: Math.round(times[1]!) });
    console.error(JSON.stringify(rows.at(-1)));
  }
} finally {
  await server.close();
  await site.close();
}
const med = (k: string) => { const v = rows.slice(0, -1).map(r => r[k] as number).sort((a, b) => a - b); return v[Math.floor(v.length / 2)]; };
console.log('| page | bytes | o200k tokens | refs | first call ms | median of 3 ms |\n| --- | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) console.log(`| ${r.page} | ${r.bytes} | ${r.tokens} | ${r.refs} | ${r.firstMs} | ${r.ms} |`);
console.log(`| median (corpus) | ${med('bytes')} | ${med('tokens')} | ${med('refs')} | ${med('firstMs')} | ${med('ms')} |`);
