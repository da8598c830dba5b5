/**
 * Relay test helpers (issue #7): several `tabwright-mcp` servers on ONE
 * persistent profile (shared temp config and data dirs) and one bridge port
 * per test file, each with its own MCP client, workspace and pid; and a
 * look at the Chromium processes that run on that profile.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectClient, ROOT, TEST_BROWSER_ARGS, type ElicitHandler } from '../fixtures/mcp.js';
import { freePort } from '../fixtures/ports.js';

export const MCP_MAIN = join(ROOT, 'dist', 'mcpMain.js');

export { freePort } from '../fixtures/ports.js';

/** What the servers of one test file share: config dir, data dir (the profile is `<data>/profile`), bridge port. */
export interface Machine {
  configDir: string;
  dataDir: string;
  profile: string;
  port: number;
  remove(): void;
}

export async function machine(): Promise<Machine> {
  const root = mkdtempSync(join(tmpdir(), 'tw-relay-'));
  return {
    configDir: join(root, 'config'),
    dataDir: join(root, 'data'),
    profile: join(root, 'data', 'profile'),
    port: await freePort(),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface Server {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  workspace: string;
  stderr(): string;
  close(): Promise<void>;
}

/** Starts `node dist/mcpMain.js --headless` on the machine's profile and port, and connects a client. */
export async function startServer(m: Machine, opts: { env?: Record<string, string>; elicit?: ElicitHandler; mode?: 'legacy' | 'auto' } = {}): Promise<Server> {
  const workspace = mkdtempSync(join(tmpdir(), 'tw-relay-ws-'));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('TABWRIGHT_')) env[k] = v;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_MAIN, '--headless', '--structured-content', ...TEST_BROWSER_ARGS.flatMap(a => ['--browser-arg', a])],
    stderr: 'pipe',
    cwd: ROOT,
    env: {
      ...env,
      TABWRIGHT_CONFIG_DIR: m.configDir,
      TABWRIGHT_DATA_DIR: m.dataDir,
      TABWRIGHT_WS_PORT: String(m.port),
      TABWRIGHT_WORKSPACE: workspace,
      TABWRIGHT_CONSENT_TTY: '0',
      ...opts.env,
    },
  });
  const { client, stderr } = await connectClient(transport, 'tabwright-relay-test', opts);
  return {
    client,
    transport,
    pid: transport.pid!,
    workspace,
    stderr,
    close: async () => {
      await client.close().catch(() => undefined);
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** Processes whose command line contains `text`: pid and args. */
export function processesWith(text: string): Array<{ pid: number; args: string }> {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').map(line => /^\s*(\d+)\s+(.*)$/.exec(line)).filter((m): m is RegExpExecArray => m !== null)
    .map(m => ({ pid: Number(m[1]), args: m[2]! })).filter(p => p.args.includes(text) && p.pid !== process.pid && !p.args.startsWith('ps '));
}

/** Main browser processes (not renderers, GPU or utility children) running on `profile`. */
export function browsersOn(profile: string): number[] {
  return processesWith(`--user-data-dir=${profile}`).filter(p => !p.args.includes('--type=')).map(p => p.pid);
}

/** Polls `check` every 100 ms until true or `ms` passed; returns the last answer. */
export async function waitUntil(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(100);
  }
}

/** Kills what is left on `profile` (cleanup after a failed assertion only). */
export function killLeftovers(profile: string): void {
  for (const { pid } of processesWith(profile)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}
