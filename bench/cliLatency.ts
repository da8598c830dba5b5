/**
 * "CLI against a warm daemon" (target: median under 30 ms wall time;
 * docs/cli.md, "Speed"):
 * starts a daemon on a free port with temporary config/data dirs, warms it
 * (browser started, one tab open, a few commands), then times `node
 * dist/cli.js tabs` N times (default 50) from spawn to exit and prints the
 * median and p90. Standalone: `npx tsx bench/cliLatency.ts [runs]` after
 * `npm run build`. Also prints node's own start (`node -e ""`) as the floor.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli.js');

/** Wall times of a CLI command against a warm daemon, in ms. */
export interface CliLatency {
  runs: number;
  medianMs: number;
  p90Ms: number;
  /** `node -e ""` on the same machine: what any Node CLI pays before its first line. */
  nodeFloorMedianMs: number;
  samplesMs: number[];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

function time(args: string[], env: NodeJS.ProcessEnv, cwd: string): number {
  const start = performance.now();
  const r = spawnSync(process.execPath, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stdout} ${r.stderr}`);
  return ms;
}

/** Runs the measurement (starts and stops its own daemon). */
export async function measureCliLatency(runs = 50): Promise<CliLatency> {
  const root = mkdtempSync(join(tmpdir(), 'tabwright-clibench-'));
  const env = {
    ...process.env,
    TABWRIGHT_CONFIG_DIR: join(root, 'config'),
    TABWRIGHT_DATA_DIR: join(root, 'data'),
    TABWRIGHT_HTTP_PORT: String(await freePort()),
    TABWRIGHT_WS_PORT: String(await freePort()),
    TABWRIGHT_HEADLESS: '1',
    TABWRIGHT_ISOLATED: '1',
  };
  try {
    time([CLI, 'tab', 'open', 'data:text/html,<title>bench</title><h1>bench</h1>'], env, root);
    for (let i = 0; i < 5; i++) time([CLI, 'tabs'], env, root);
    const floor: number[] = [];
    for (let i = 0; i < 10; i++) floor.push(time(['-e', ''], env, root));
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) samples.push(time([CLI, 'tabs'], env, root));
    const sorted = [...samples].sort((a, b) => a - b);
    floor.sort((a, b) => a - b);
    return { runs, medianMs: quantile(sorted, 0.5), p90Ms: quantile(sorted, 0.9), nodeFloorMedianMs: quantile(floor, 0.5), samplesMs: samples };
  } finally {
    spawnSync(process.execPath, [CLI, 'daemon', 'stop'], { env, cwd: root, stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const runs = Number(process.argv[2] ?? 50);
  const r = await measureCliLatency(Number.isInteger(runs) && runs > 0 ? runs : 50);
  const f = (n: number) => `${n.toFixed(1)} ms`;
  process.stdout.write(`CLI against a warm daemon (\`tabwright tabs\`, ${r.runs} runs): median ${f(r.medianMs)}, p90 ${f(r.p90Ms)} (target < 30 ms); node -e "" median ${f(r.nodeFloorMedianMs)}\n`);
}
