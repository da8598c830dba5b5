/**
 * The cost of a storage state save and load (docs/storage.md), over stdio. Part of `npm run bench` (the server
 * table's save_storage_state and load_storage_state rows, `measureStorage` in ./measure.ts) and standalone:
 *
 *   npm run build && npx tsx bench/storageLatency.ts [--calls 10]
 *
 * Starts the built server (dist/cli.js mcp --headless --isolated --toolsets core,storage --structured-content: its own server, so the
 * bench's tools/list count stays that of the default set) with the official MCP client, serves a page on 127.0.0.1
 * that signs in the way a web app does (a cookie, 20 localStorage items, an IndexedDB store of 50 records), then times
 * `--calls` save_storage_state calls of that origin (read in place from the tab), as many load_storage_state calls
 * (written in place), and, with the tab on about:blank, as many loads through a scratch page. Each sample is
 * verified: the save counted 20 items and 50 records, the load wrote as many, the way it says it took.
 * Config and data dirs are temporary.
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

const PAGE = `<!doctype html><title>Signed in</title><p id=s>storing</p><script>
document.cookie = 'sid=' + 'x'.repeat(40) + '; path=/';
for (let i = 0; i < 20; i++) localStorage.setItem('k' + i, 'v'.repeat(200) + i);
const open = indexedDB.open('app', 1);
open.onupgradeneeded = () => open.result.createObjectStore('rows', { keyPath: 'id' });
open.onsuccess = () => {
  const tx = open.result.transaction('rows', 'readwrite');
  for (let i = 0; i < 50; i++) tx.objectStore('rows').put({ id: i, text: 'row ' + i, at: new Date(i) });
  tx.oncomplete = () => { document.getElementById('s').textContent = 'stored'; };
};
</script>`;

/** One sample: ms, and whether the result counted what the page stored. */
export interface StorageSample {
  ms: number;
  verified: boolean;
}

/** Samples of `calls` saves and `calls` loads, each on its own. */
export interface StorageLatency {
  save: StorageSample[];
  load: StorageSample[];
  /** Loads with no tab on the origin: written through a scratch page. */
  loadScratch: StorageSample[];
}

type Counts = { origins?: Array<{ localStorage: number; indexedDB: number; via: string }> };

/**
 * Times `calls` saves and `calls` loads against a server of its own.
 * @param chromium  the browser to launch (`--browser`), else the server's own choice.
 */
export async function measureStorageLatency(calls: number, chromium?: string, cli = join(ROOT, 'dist', 'cli.js')): Promise<StorageLatency> {
  const site = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>(resolve => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const dirs = mkdtempSync(join(tmpdir(), 'tabwright-bench-storage-'));
  const env: Record<string, string> = { ...(process.env as Record<string, string>), TABWRIGHT_CONFIG_DIR: join(dirs, 'config'), TABWRIGHT_DATA_DIR: join(dirs, 'data'), TABWRIGHT_WORKSPACE: dirs, TABWRIGHT_DASHBOARD_PORT: 'off' };
  delete env.TABWRIGHT_STRUCTURED_CONTENT;
  const args = [cli, 'mcp', '--headless', '--isolated', '--toolsets', 'core,storage', '--structured-content', '--browser-arg', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', ...(chromium ? ['--browser', chromium] : [])];
  const client = new Client({ name: 'bench-storage', version: '0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, env, stderr: 'ignore' }));
  const call = async (name: string, a: Record<string, unknown>) => {
    const t = performance.now();
    const result = await client.callTool({ name, arguments: a });
    const ms = performance.now() - t;
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    return { ms, structured: (result.structuredContent ?? {}) as Counts };
  };
  try {
    await call('navigate', { url: `${origin}/` });
    for (let i = 0; i < 100; i++) {
      const r = await client.callTool({ name: 'execute', arguments: { code: 'document.getElementById("s").textContent' } });
      if (JSON.stringify(r.content).includes('stored')) break;
      await new Promise(resolve => setTimeout(resolve, 50));
    }
    const full = (s: Counts) => s.origins?.[0]?.localStorage === 20 && s.origins[0].indexedDB === 50;
    const out: StorageLatency = { save: [], load: [], loadScratch: [] };
    for (let i = 0; i < calls; i++) {
      const saved = await call('save_storage_state', { name: 'bench', origins: [origin] });
      out.save.push({ ms: saved.ms, verified: full(saved.structured) });
      const loaded = await call('load_storage_state', { name: 'bench' });
      out.load.push({ ms: loaded.ms, verified: full(loaded.structured) && loaded.structured.origins![0]!.via === 'tab' });
    }
    await call('navigate', { url: 'about:blank' });
    for (let i = 0; i < calls; i++) {
      const loaded = await call('load_storage_state', { name: 'bench' });
      out.loadScratch.push({ ms: loaded.ms, verified: full(loaded.structured) && loaded.structured.origins![0]!.via === 'scratch' });
    }
    return out;
  } finally {
    await client.close().catch(() => undefined);
    site.close();
    rmSync(dirs, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { calls: { type: 'string', default: '10' } } });
  const r = await measureStorageLatency(Number(values.calls));
  const median = (s: StorageSample[]) => [...s.map(x => x.ms)].sort((a, b) => a - b)[Math.floor(s.length / 2)]!;
  for (const [what, s] of [['save', r.save], ['load (in the tab)', r.load], ['load (scratch page)', r.loadScratch]] as const) {
    process.stdout.write(`${what}: median ${median(s).toFixed(1)} ms over ${s.length} (min ${Math.min(...s.map(x => x.ms)).toFixed(1)}, max ${Math.max(...s.map(x => x.ms)).toFixed(1)}); verified ${s.filter(x => x.verified).length}/${s.length}\n`);
  }
}
