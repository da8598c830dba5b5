/**
 * The daemon's process lifecycle (docs/daemon.md "Running it"):
 * config, the dispatcher, the loopback server, daemon.json, and a clean
 * exit (daemon.json removed, browser closed) on SIGTERM, SIGINT, SIGHUP,
 * idle, `POST /v1/shutdown` or an uncaught error.
 */
import { resolveConfig, type Config, type ConfigFlags } from '../config.js';
import { createDispatcher } from '../dispatch/create.js';
import { installDebugStats } from '../dispatch/debugStats.js';
import { startDashboard } from '../dashboard/host.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { logger, setLogFile } from '../log.js';
import { protectStdout } from '../serve.js';
import { ToolError } from '../errors.js';
import { VERSION } from '../version.js';
import { endpointPath, readEndpoint, removeEndpoint, writeEndpoint, type DaemonEndpoint } from './endpointFile.js';
import { processAlive } from '../util/processes.js';
import { DAEMON_PROTOCOL, daemonLimits, daemonPort } from './limits.js';
import { DaemonServer } from './server.js';
import { daemonToken } from './token.js';

const log = logger('daemon');

/** Exit codes of the daemon process: the CLI's table where they overlap. */
export const DAEMON_EXIT = { ok: 0, error: 1, usage: 2, unreachable: 3 } as const;

/** How long closing may take before the process exits anyway, ms. */
const FORCE_EXIT_MS = 10_000;

function fail(code: number, message: string, hint?: string): never {
  process.stderr.write(`tabwright daemon: ${message}\n${hint ? `${hint}\n` : ''}`);
  process.exit(code);
}

/** True when the daemon named by `endpoint` answers its status route with its own pid. */
async function answers(endpoint: DaemonEndpoint): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${endpoint.port}/v1/status`, { headers: { 'x-tabwright-token': endpoint.token }, signal: AbortSignal.timeout(2000) });
    const body = await res.json() as { pid?: number };
    return res.ok && body.pid === endpoint.pid;
  } catch {
    return false;
  }
}

/** Runs the daemon in the foreground until it stops; the process exits then. */
export async function runDaemon(flags: ConfigFlags & { logFile?: string }): Promise<void> {
  protectStdout();
  if (flags.logFile) setLogFile(flags.logFile);
  let config: Config;
  let port: number;
  try {
    config = resolveConfig(flags);
    port = daemonPort();
  } catch (error) {
    if (error instanceof ToolError) fail(DAEMON_EXIT.usage, error.message, error.hint);
    fail(DAEMON_EXIT.usage, error instanceof Error ? error.message : String(error));
  }
  // No terminal: consent questions go to the HTTP caller (docs/daemon.md "Consent").
  config = { ...config, consent: { ...config.consent, terminal: false } };
  const limits = daemonLimits();

  const previous = readEndpoint(config.configDir);
  if (previous && previous.pid !== process.pid && processAlive(previous.pid) && (await answers(previous))) {
    fail(DAEMON_EXIT.unreachable, `another daemon is running (pid ${previous.pid}, port ${previous.port}; ${endpointPath(config.configDir)}).`, 'Stop it first: tabwright daemon stop.');
  }

  const dispatcher: Dispatcher = await createDispatcher(config);
  installDebugStats(dispatcher);
  const token = daemonToken(config.configDir);
  let stop: (reason: string, code?: number) => Promise<void> = async () => undefined;
  const server = new DaemonServer(config, dispatcher, token, limits, reason => void stop(reason));
  let bound: number;
  try {
    bound = await server.listen(port);
  } catch (error) {
    await dispatcher.close().catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') fail(DAEMON_EXIT.unreachable, `port ${port} on 127.0.0.1 is busy.`, 'Another program (or another tabwright daemon) uses it: stop it, or set TABWRIGHT_HTTP_PORT to a free port.');
    fail(DAEMON_EXIT.unreachable, `cannot listen on 127.0.0.1:${port}: ${error instanceof Error ? error.message : String(error)}`);
  }

  const endpoint: DaemonEndpoint = { pid: process.pid, port: bound, token, version: VERSION, startedAt: new Date().toISOString(), protocol: DAEMON_PROTOCOL, workspaceEncoding: 'uri' };
  writeEndpoint(config.configDir, endpoint);
  process.on('exit', () => removeEndpoint(config.configDir, endpoint)); // last resort; normal paths remove it first
  process.stderr.write(`tabwright daemon ${VERSION}: listening on http://127.0.0.1:${bound} (pid ${process.pid}; idle exit after ${Math.round(limits.idleMs / 1000)} s)\n`);
  // The dashboard, while this daemon owns the browser (docs/dashboard.md).
  const dashboard = await startDashboard(config, dispatcher);

  let stopping: Promise<void> | undefined;
  stop = (reason, code = DAEMON_EXIT.ok) => {
    stopping ??= (async () => {
      process.stderr.write(`tabwright daemon: stopping (${reason})\n`);
      setTimeout(() => process.exit(code), FORCE_EXIT_MS).unref();
      removeEndpoint(config.configDir, endpoint);
      await dashboard.close().catch(error => log.warn('closing the dashboard failed:', error));
      await server.close().catch(error => log.warn('closing the server failed:', error));
      await dispatcher.close().catch(error => log.warn('closing the browser failed:', error));
      process.exit(code);
    })();
    return stopping;
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGHUP', () => void stop('SIGHUP'));
  process.on('uncaughtException', error => {
    log.error('uncaught exception:', error);
    void stop(`uncaught exception: ${error.message}`, DAEMON_EXIT.error);
  });
  process.on('unhandledRejection', error => log.error('unhandled rejection:', error));
}
