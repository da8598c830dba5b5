/**
 * Who serves the dashboard, and when (docs/dashboard.md, "Who serves it"): the process that dispatches calls, i.e.
 * the one whose Dispatcher has a LocalDispatcher (the daemon or MCP server that leads the relay, or one that runs
 * alone). A follower serves none; it starts serving when it takes over, and stops when it steps down. While it serves,
 * the consent hub has the dashboard attached (prompts are answerable there), its discovery file names it, and the
 * token file exists.
 *
 * Port: `config.dashboardPort` (default 19682). When the default port is taken (another leading process on this
 * machine serves its own dashboard there), it serves on any free port instead and says so on stderr; when a port set
 * by flag or variable is taken, it serves none and says so. `off`: never.
 */
import { DEFAULT_DASHBOARD_PORT, type Config } from '../config.js';
import { consentHub, type ConsentHub } from '../consent/hub.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { logger } from '../log.js';
import { ensureToken, removeEntry, writeEntry } from './discovery.js';
import { DashboardServer } from './server.js';

const log = logger('dashboard');

/** How often a process checks whether it leads now (a takeover, a step-down), ms. */
const ROLE_CHECK_MS = 1000;

/** A running host: `url` while it serves; `close` stops serving and checking. */
export interface DashboardHost {
  readonly url: string | undefined;
  close(): Promise<void>;
}

/**
 * Serves the dashboard whenever `dispatcher` leads. Never throws: a dashboard that cannot start is logged on stderr
 * and the process runs without one.
 */
export async function startDashboard(config: Config, dispatcher: Dispatcher, hub: ConsentHub = consentHub): Promise<DashboardHost> {
  const wanted = config.dashboardPort;
  let server: DashboardServer | undefined;
  let detach: (() => void) | undefined;
  let gaveUp = false;
  let busy: Promise<void> = Promise.resolve();

  const start = async () => {
    const token = ensureToken(config.configDir);
    const candidate = new DashboardServer(config, token, hub, () => dispatcher.local?.());
    try {
      await candidate.listen(wanted as number);
    } catch (error) {
      const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (!(inUse && wanted === DEFAULT_DASHBOARD_PORT)) {
        await candidate.close().catch(() => undefined);
        gaveUp = true;
        log.warn(`no dashboard: cannot listen on 127.0.0.1:${String(wanted)} (${(error as Error).message}); set --dashboard-port or TABWRIGHT_DASHBOARD_PORT to a free port, 0, or off`);
        return;
      }
      await candidate.listen(0);
      log.warn(`the dashboard's default port ${DEFAULT_DASHBOARD_PORT} is taken (another tabwright process?); serving on ${candidate.url} instead`);
    }
    server = candidate;
    detach = hub.attach({ url: candidate.url });
    writeEntry(config.configDir, { url: candidate.url, pid: process.pid, port: Number(new URL(candidate.url).port), startedAt: new Date().toISOString() });
    log.info(`dashboard on ${candidate.url} (\`tabwright dashboard\` prints it with its key)`);
  };
  const stop = async () => {
    const running = server;
    server = undefined;
    detach?.();
    detach = undefined;
    removeEntry(config.configDir);
    await running?.close().catch(error => log.warn('closing the dashboard failed:', error));
  };
  const check = () => {
    busy = busy.then(async () => {
      const leads = dispatcher.local?.() !== undefined;
      if (leads && !server && !gaveUp) await start().catch(error => {
        gaveUp = true;
        log.warn('no dashboard:', error);
      });
      else if (!leads && server) await stop();
    });
    return busy;
  };

  if (wanted === 'off') return { url: undefined, close: async () => undefined };
  await check();
  const timer = setInterval(() => void check(), ROLE_CHECK_MS);
  timer.unref();
  process.on('exit', () => removeEntry(config.configDir)); // last resort; close removes it first
  return {
    get url() {
      return server?.url;
    },
    async close() {
      clearInterval(timer);
      await busy;
      await stop();
    },
  };
}
