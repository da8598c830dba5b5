/**
 * Characters per o200k token of snapshot text as an action's diff shows it
 * (lines re-indented under a hunk heading), on the first 5,600 characters of
 * each corpus page's snapshot: the ratio behind DIFF_BUDGET
 * (src/session/pageReport.ts; docs/snapshot.md, "After an action").
 * Run after `npm run build`, with ../shared beside the clone:
 * `npx tsx scripts/diff-budget.ts`.
 */
import { readdirSync } from 'node:fs';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { call, connect } from '../test/fixtures/mcp.js';
import { CORPUS, startSite } from '../test/fixtures/site.js';

const site = await startSite();
// Fields through structuredContent, as in the test suite (scripts/test.mjs).
const server = await connect({ env: { TABWRIGHT_STRUCTURED_CONTENT: '1' } });
const ratios: number[] = [];
for (const file of readdirSync(CORPUS).filter(f => f.endsWith('.html')).sort()) {
  await call(server.client, 'navigate', { url: `${site.origin}/corpus/${file}` });
  const { snapshot = '' } = await call<{ snapshot?: string }>(server.client, 'get_page_context', { output: 'inline' });
  const chunk = snapshot.slice(0, 5_600).split('\n').map(line => `  ${line}`).join('\n');
  const tokens = encode(chunk).length;
  ratios.push(chunk.length / tokens);
  console.log(`${file.padEnd(28)} ${String(chunk.length).padStart(5)} chars ${String(tokens).padStart(5)} tokens ${(chunk.length / tokens).toFixed(2)} chars/token`);
}
ratios.sort((a, b) => a - b);
console.log(`median ${ratios[ratios.length >> 1]!.toFixed(2)}, min ${ratios[0]!.toFixed(2)}, max ${ratios[ratios.length - 1]!.toFixed(2)} chars/token`);
await server.close();
await site.close();
