/**
 * `tabwright daemon status|stop|start|run` (docs/daemon.md).
 * `start` and `run` pass their flags to the daemon (the flags of
 * `tabwright mcp`: --headless, --auto-deny, ...).
 */
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { configDir, dataDir } from '../config.js';
import { DAEMON_MAIN, daemonRequest, endpointPath, ensureDaemon, readEndpoint } from './daemonClient.js';
import { processAlive } from '../util/processes.js';
import { respond } from './toolCommand.js';
import { pollUntil } from '../util/wait.js';


async function status(): Promise<unknown> {
  const info = readEndpoint(configDir());
  if (!info) return { running: false, endpointFile: endpointPath(configDir()) };
  const answer = await daemonRequest(info, 'GET', '/v1/status', { timeoutMs: 5_000 });
  return { running: true, endpointFile: endpointPath(configDir()), status: answer.status, ...answer.body };
}

/** Asks the daemon to stop and waits (up to 10 s) until its process is gone. */
async function stop(): Promise<unknown> {
  const info = readEndpoint(configDir());
  if (!info) return { stopped: false, running: false };
  await daemonRequest(info, 'POST', '/v1/shutdown', { timeoutMs: 5_000 });
  await pollUntil(() => !processAlive(info.pid), { ms: 10_000, intervalMs: 50 });
  return { stopped: !processAlive(info.pid), pid: info.pid, port: info.port };
}

/** Adds the `daemon` command group. */
export function addDaemonCommands(program: Command): void {
  const daemon = program.command('daemon').description('the background process that owns the browser for CLI commands');
  daemon.command('status').description('whether the daemon runs, and its GET /v1/status').action(() => respond(status));
  daemon.command('stop').description('stop the daemon (it closes its browser)').action(() => respond(stop));
  daemon.command('start').description('start the daemon in the background now (flags as for `tabwright mcp`)')
    .allowUnknownOption().allowExcessArguments().argument('[flags...]')
    .action((flags: string[]) => respond(async () => {
      const running = readEndpoint(configDir());
      const info = running ?? await ensureDaemon(configDir(), dataDir(), true, flags);
      return { started: !running, pid: info.pid, port: info.port, version: info.version };
    }));
  daemon.command('run').description('run the daemon in the foreground, logs on stderr (debugging; flags as for `tabwright mcp`)')
    .allowUnknownOption().allowExcessArguments().argument('[flags...]')
    .action((flags: string[]) => {
      const child = spawn(process.execPath, [DAEMON_MAIN, ...flags], { stdio: 'inherit' });
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
      child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + 15 : 1)));
    });
}
