/**
 * Runs the MCP stdio server with the launch connection and owns the
 * process lifecycle: the browser closes when the server exits for any
 * reason (stdin EOF, SIGINT, SIGTERM, SIGHUP, parent death).
 */
import type { Config } from './config.js';
import { logger } from './log.js';
import { serveMcpStdio } from './mcp/stdio.js';
import { createDispatcher } from './dispatch/create.js';
import { installDebugStats } from './dispatch/debugStats.js';
import { startDashboard } from './dashboard/host.js';

const log = logger('serve');

/** How often the parent process is checked, in ms. */
const PARENT_POLL_MS = 1000;

/** Routes console.log/info/debug to stderr: stdout belongs to the protocol. */
export function protectStdout(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

/** Starts serving; resolves when the server has shut down (the process then exits). */
export async function runMcpServer(config: Config): Promise<void> {
  protectStdout();
  const dispatcher = await createDispatcher(config);
  installDebugStats(dispatcher);
  const handle = serveMcpStdio(dispatcher, config);
  log.info('serving MCP on stdio');
  // The dashboard, while this process owns the browser (docs/dashboard.md); a follower's leader serves it.
  const dashboard = await startDashboard(config, dispatcher);

  let shuttingDown: Promise<void> | undefined;
  const shutdown = (reason: string, code = 0) => {
    shuttingDown ??= (async () => {
      log.info(`shutting down: ${reason}`);
      const force = setTimeout(() => process.exit(code), 5000);
      force.unref();
      await handle.close().catch(error => log.warn('closing the transport failed:', error));
      await dashboard.close().catch(error => log.warn('closing the dashboard failed:', error));
      await dispatcher.close().catch(error => log.warn('closing the browser failed:', error));
      process.exit(code);
    })();
    return shuttingDown;
  };

  void handle.closed.then(() => shutdown('MCP connection closed'));
  process.stdin.on('end', () => void shutdown('stdin closed'));
  process.stdin.on('close', () => void shutdown('stdin closed'));
  process.on('SIGINT', () => void shutdown('SIGINT', 130));
  process.on('SIGTERM', () => void shutdown('SIGTERM', 143));
  process.on('SIGHUP', () => void shutdown('SIGHUP', 129));
  process.stdout.on('error', error => void shutdown(`stdout failed: ${error.message}`));
  const parent = process.ppid;
  const poll = setInterval(() => {
    if (process.ppid !== parent) void shutdown('parent process exited');
  }, PARENT_POLL_MS);
  poll.unref();
  process.on('uncaughtException', error => {
    log.error('uncaught exception:', error);
    void shutdown('uncaught exception', 1);
  });
  process.on('unhandledRejection', error => log.error('unhandled rejection:', error));
  await new Promise<never>(() => undefined);
}
