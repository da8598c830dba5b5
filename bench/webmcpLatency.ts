/**
 * WebMCP call latency over stdio (target: a WebMCP `allow` call's median
 * round trip under 10 ms; docs/webmcp.md, "One round trip per call"). Standalone, not part of `npm run bench`:
 *
 *   npm run build && npx tsx bench/webmcpLatency.ts [--calls 200] [--webmcp auto|native|polyfill] [--runs 1] [--think 1000]
 *     [--cli path/to/dist/cli.js]   (another build, to compare before/after)
 *
 * Starts the built server (dist/cli.js mcp --headless --isolated) with the
 * official MCP client over stdio, serves one page on 127.0.0.1 that
 * registers a trivial readOnlyHint tool (`echo`, allowed by the default
 * rules), navigates to it, lists the tools once, waits `--think` ms (an
 * agent reading the list; 0 to call at once), then times the first call
 * alone and `--calls` more calls one after another. Prints, per run, the
 * client-side round trip of each call_webmcp_tool in ms: first call, then
 * median, p90, min and max of the rest; plus the in-page part the server
 * reports (`ms`: the tool's evaluation alone), and the floor of the
 * transport: as many get_bridge_status calls (no browser, no disk). The config and data dirs are
 * temporary, so no rules file of the user's applies.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const PAGE = `<!doctype html><html><head><title>WebMCP latency</title></head><body><h1>echo</h1>
<script>
const mc = document.modelContext || navigator.modelContext;
mc.registerTool({
  name: 'echo',
  description: 'Echo the text back',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  annotations: { readOnlyHint: true },
  execute: async ({ text }) => ({ content: [{ type: 'text', text }] }),
});
</script></body></html>`;

/** The value at quantile `q` (0..1) of sorted `values` (nearest rank). */
function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function fmt(n: number): string {
  return n.toFixed(2);
}

async function run(calls: number, webmcp: string, think: number, cli: string): Promise<void> {
  const site = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>(resolve => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const dirs = mkdtempSync(join(tmpdir(), 'tabwright-lat-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', '--headless', '--isolated', '--webmcp', webmcp, '--browser-arg', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
    stderr: 'pipe',
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), TABWRIGHT_WORKSPACE: join(dirs, 'ws'), TABWRIGHT_CONFIG_DIR: join(dirs, 'config'), TABWRIGHT_DATA_DIR: join(dirs, 'data') },
  });
  const client = new Client({ name: 'webmcp-latency', version: '0.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  try {
    if (process.env.TW_TRACE) transport.stderr?.on('data', (c: Buffer) => process.stderr.write(c));
    await client.connect(transport);
    const ok = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      return result.structuredContent as Record<string, unknown>;
    };
    await ok('navigate', { url: `${origin}/` });
    const listed = await ok('list_webmcp_tools', {});
    const tools = listed.tools as Array<{ name: string; source: string; permission: string }>;
    const echo = tools.find(t => t.name === 'echo');
    if (!echo) throw new Error(`the page listed no echo tool: ${JSON.stringify(listed)}`);
    // An agent reads the list before it calls: give the server that pause (its idle-time work runs then).
    await new Promise(resolve => setTimeout(resolve, Number(think)));
    const once = async (i: number): Promise<{ rtt: number; inPage: number }> => {
      const text = `hello ${i}`;
      const t0 = performance.now();
      const out = await ok('call_webmcp_tool', { name: 'echo', arguments: { text } });
      const rtt = performance.now() - t0;
      if (!JSON.stringify(out.result).includes(text)) throw new Error(`unexpected result ${JSON.stringify(out)}`);
      return { rtt, inPage: Number(out.ms) };
    };
    const first = await once(0);
    const rtts: number[] = [];
    const inPage: number[] = [];
    for (let i = 1; i <= calls; i++) {
      const r = await once(i);
      rtts.push(r.rtt);
      inPage.push(r.inPage);
    }
    // The transport's floor: a tool that touches neither the browser nor the disk.
    const floor: number[] = [];
    for (let i = 0; i < calls; i++) {
      const t0 = performance.now();
      await ok('get_bridge_status', {});
      floor.push(performance.now() - t0);
    }
    rtts.sort((a, b) => a - b);
    inPage.sort((a, b) => a - b);
    floor.sort((a, b) => a - b);
    console.log(`webmcp=${webmcp} source=${echo.source} permission=${echo.permission} calls=${calls}`);
    console.log(`  first call: ${fmt(first.rtt)} ms`);
    console.log(`  round trip: median ${fmt(quantile(rtts, 0.5))} ms, p90 ${fmt(quantile(rtts, 0.9))}, min ${fmt(rtts[0]!)}, max ${fmt(rtts[rtts.length - 1]!)}`);
    console.log(`  floor (get_bridge_status): median ${fmt(quantile(floor, 0.5))} ms, p90 ${fmt(quantile(floor, 0.9))}, min ${fmt(floor[0]!)}`);
    console.log(`  in page (server's ms): median ${quantile(inPage, 0.5)}, p90 ${quantile(inPage, 0.9)}, min ${inPage[0]}, max ${inPage[inPage.length - 1]}`);
  } finally {
    await client.close().catch(() => undefined);
    await new Promise(resolve => site.close(resolve));
    rmSync(dirs, { recursive: true, force: true });
  }
}

const { values } = parseArgs({ options: { calls: { type: 'string', default: '200' }, webmcp: { type: 'string', default: 'auto' }, runs: { type: 'string', default: '1' }, think: { type: 'string', default: '1000' }, cli: { type: 'string', default: join(ROOT, 'dist', 'cli.js') } } });
for (let r = 0; r < Number(values.runs); r++) await run(Number(values.calls), values.webmcp!, Number(values.think), values.cli!);
