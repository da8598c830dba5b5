/**
 * Runs the built CLI (`node dist/cli.js ...`) as a subprocess with its own
 * temporary config and data dirs, a free daemon port and a temporary cwd.
 * The daemon a test's commands start runs headless with an isolated
 * profile and host rules that keep page traffic on 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, TEST_BROWSER_ARGS } from '../fixtures/mcp.js';
import { freePort } from '../fixtures/ports.js';

export { freePort } from '../fixtures/ports.js';

export interface CliHome {
  root: string;
  configDir: string;
  dataDir: string;
  /** The cwd commands run in (a temporary folder). */
  cwd: string;
  port: number;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** What one CLI run gave. `json` is stdout parsed (undefined when it is not one JSON document). */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json: { ok: boolean; result?: any; error?: { type: string; message: string; hint: string; [k: string]: unknown }; [k: string]: unknown } | undefined;
}

/** New temporary dirs, a free port and the environment for them. */
export async function cliHome(extraEnv: Record<string, string> = {}): Promise<CliHome> {
  const root = mkdtempSync(join(tmpdir(), 'tabwright-cli-'));
  const configDir = join(root, 'config');
  const dataDir = join(root, 'data');
  const cwd = join(root, 'work');
  mkdirSync(cwd, { recursive: true });
  const port = await freePort();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    TABWRIGHT_CONFIG_DIR: configDir,
    TABWRIGHT_DATA_DIR: dataDir,
    TABWRIGHT_HTTP_PORT: String(port),
    // Our own bridge port too, so a test daemon never joins another tabwright process on this machine.
    TABWRIGHT_WS_PORT: String(await freePort()),
    TABWRIGHT_HEADLESS: '1',
    TABWRIGHT_ISOLATED: '1',
    TABWRIGHT_BROWSER_ARGS: TEST_BROWSER_ARGS.map(a => `"${a}"`).join(' '),
    TABWRIGHT_CONSENT_TTY: '0',
    ...extraEnv,
  };
  delete env.TABWRIGHT_CLI_SCOPE;
  delete env.TABWRIGHT_BROWSER;
  if (extraEnv.TABWRIGHT_BROWSER) env.TABWRIGHT_BROWSER = extraEnv.TABWRIGHT_BROWSER;
  if (extraEnv.TABWRIGHT_CLI_SCOPE) env.TABWRIGHT_CLI_SCOPE = extraEnv.TABWRIGHT_CLI_SCOPE;
  const home: CliHome = {
    root, configDir, dataDir, cwd, port, env,
    cleanup: async () => {
      await stopDaemon(home);
      rmSync(root, { recursive: true, force: true });
    },
  };
  return home;
}

/** Runs `tabwright ...args` and collects its output. */
export function cli(home: CliHome, args: string[], opts: { cwd?: string; env?: Record<string, string>; input?: string } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd ?? home.cwd, env: { ...home.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.stdin.end(opts.input ?? '');
    child.on('close', code => {
      let json: CliRun['json'];
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

/** Runs a command that must succeed and returns its `result`. */
export async function ok(home: CliHome, args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<any> {
  const run = await cli(home, args, opts);
  if (run.code !== 0 || !run.json?.ok) throw new Error(`tabwright ${args.join(' ')} exited ${run.code}: ${run.stdout} ${run.stderr}`);
  return run.json.result;
}

/** The daemon's pid from daemon.json, if the file is there. */
export function daemonPid(home: CliHome): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(home.configDir, 'daemon.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Stops the home's daemon: `daemon stop`, then SIGKILL by pid if it is still there after 10 s. */
export async function stopDaemon(home: CliHome): Promise<void> {
  const pid = daemonPid(home);
  await cli(home, ['daemon', 'stop']).catch(() => undefined);
  if (pid === undefined) return;
  const deadline = Date.now() + 10_000;
  while (alive(pid) && Date.now() < deadline) await new Promise(r => setTimeout(r, 100));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}
