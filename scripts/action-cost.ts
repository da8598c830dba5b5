/**
 * Round-trip cost of click and type over stdio (the built server, headless
 * Chromium), on the bench's small login page and its medium app page
 * (200-row table). Prints the median and quartiles of N rounds per action:
 * type then click on a page that has a whole-page snapshot (the usual case),
 * then a click on a freshly loaded page whose refs come from a scoped
 * snapshot only (no baseline: the action takes one first).
 * Run after `npm run build`: `npx tsx scripts/action-cost.ts [rounds]`.
 * Used to measure what the action report (element, diff) adds to a click
 * (docs/snapshot.md, "After an action").
 */
import { appPage, loginPage } from '../bench/pages.js';
import { call, connect } from '../test/fixtures/mcp.js';
import { startSite } from '../test/fixtures/site.js';

const rounds = Number(process.argv[2] ?? 20);
const site = await startSite();
site.page('/login', loginPage());
site.page('/app', appPage());
// Fields through structuredContent, as in the test suite (scripts/test.mjs).
const server = await connect({ env: { TABWRIGHT_STRUCTURED_CONTENT: '1' } });

function refOf(snapshot: string, role: string, name: string): string {
  const m = new RegExp(`- ${role} "${name}"[^\\n]*?\\[ref=(e\\d+)\\]`).exec(snapshot);
  if (!m) throw new Error(`no ${role} "${name}"`);
  return m[1]!;
}

function stats(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(1);
  return `median ${q(0.5)} ms (p25 ${q(0.25)}, p75 ${q(0.75)}, n=${s.length})`;
}

async function timed(name: string, args: Record<string, unknown>): Promise<number> {
  const t = performance.now();
  await call(server.client, name, args);
  return performance.now() - t;
}

for (const [path, field, button] of [['/login', 'Username', 'Sign in'], ['/app', 'Search orders', 'Open order 5003']] as const) {
  await call(server.client, 'navigate', { url: `${site.origin}${path}` });
  const { snapshot } = await call<{ snapshot: string }>(server.client, 'get_page_context', { output: 'inline' });
  const fieldRef = refOf(snapshot, '(?:textbox|searchbox)', field);
  const buttonRef = refOf(snapshot, 'button', button);
  const clicks: number[] = [];
  const types: number[] = [];
  for (let i = 0; i < rounds + 2; i++) {
    const t = await timed('type', { ref: fieldRef, text: `user-${i}` });
    const c = await timed('click', { ref: buttonRef });
    if (i >= 2) {
      types.push(t);
      clicks.push(c);
    }
  }
  console.log(`${path}: click ${stats(clicks)}; type ${stats(types)}`);
  const cold: number[] = [];
  for (let i = 0; i < Math.max(5, Math.floor(rounds / 2)); i++) {
    await call(server.client, 'navigate', { url: `${site.origin}${path}` });
    const scoped = await call<{ snapshot: string }>(server.client, 'get_page_context', { output: 'inline', selector: 'main' });
    cold.push(await timed('click', { ref: refOf(scoped.snapshot, 'button', button) }));
  }
  console.log(`${path}: click with no whole-page snapshot yet ${stats(cold)}`);
}
await server.close();
await site.close();
