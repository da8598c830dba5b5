/**
 * `tabwright doctor`: what a command needs, checked without
 * starting anything: Node version, a browser, writable config and data
 * dirs, the daemon, the ports. Prints the report; exits 3 when no browser
 * can be found (nothing could run), else 0 with `healthy` saying whether
 * every check passed.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { configDir, dataDir } from '../config.js';
import { findBrowser } from '../browser/launch/findBrowser.js';
import { VERSION } from '../version.js';
import { daemonRequest, endpointPath, readEndpoint } from './daemonClient.js';
import { EXIT } from './exitCodes.js';
import { CliError } from './output.js';

function writable(dir: string): { path: string; ok: boolean; error?: string } {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return { path: dir, ok: true };
  } catch (error) {
    return { path: dir, ok: false, error: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
}

/** Whether something listens on 127.0.0.1:port (a bind fails with EADDRINUSE). */
function portInUse(port: number): Promise<boolean> {
  return new Promise(resolve => {
    const server = createServer();
    server.once('error', () => resolve(true));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
  });
}

const portOf = (value: string | undefined, fallback: number) => (value && /^\d+$/.test(value) ? Number(value) : fallback);

/** The report, or a CliError (exit 3) carrying it when no browser is found. */
export async function doctor(): Promise<Record<string, unknown>> {
  const major = Number(process.versions.node.split('.')[0]);
  const node = { version: process.versions.node, required: '>=20', ok: major >= 20 };
  let browser: Record<string, unknown>;
  try {
    browser = { ok: true, path: findBrowser(process.env.TABWRIGHT_BROWSER || undefined), from: process.env.TABWRIGHT_BROWSER ? 'TABWRIGHT_BROWSER' : 'PATH' };
  } catch (error) {
    const e = error as { type?: string; message: string; hint?: string };
    browser = { ok: false, error: { type: e.type ?? 'browser_unavailable', message: e.message, hint: e.hint ?? '' } };
  }
  const config = writable(configDir());
  const data = writable(dataDir());
  const info = readEndpoint(configDir());
  let daemon: Record<string, unknown> = { running: false, endpointFile: endpointPath(configDir()) };
  if (info) {
    const status = await daemonRequest(info, 'GET', '/v1/status', { timeoutMs: 3_000 }).catch(() => undefined);
    daemon = { running: true, pid: info.pid, port: info.port, version: info.version, answers: status?.status === 200, ...(status?.status === 401 ? { error: 'the token in daemon.json was refused (HTTP 401)' } : {}), endpointFile: endpointPath(configDir()) };
  }
  const httpPort = portOf(process.env.TABWRIGHT_HTTP_PORT, 19681);
  const wsPort = portOf(process.env.TABWRIGHT_WS_PORT, 19680);
  const ports = {
    http: { port: httpPort, inUse: httpPort ? await portInUse(httpPort) : false, by: info && info.port === httpPort ? 'the tabwright daemon' : undefined },
    bridge: { port: wsPort, inUse: wsPort ? await portInUse(wsPort) : false },
  };
  const healthy = node.ok && Boolean(browser.ok) && config.ok && data.ok && (!info || daemon.answers === true);
  const report = { version: VERSION, healthy, node, browser, configDir: config, dataDir: data, daemon, ports };
  if (!browser.ok) {
    const error = browser.error as { type: string; message: string; hint: string };
    throw new CliError(error, EXIT.unreachable, { report });
  }
  return report;
}
