/**
 * `tabwright doctor`: what a command needs, checked without
 * starting anything: Node version, a browser, writable config and data
 * dirs, the daemon, the ports, the companion extension's folder and pairing key. Prints the report; exits 3 when no browser
 * can be found (nothing could run), else 0 with `healthy` saying whether
 * every check passed.
 */
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PAIRING_KEY_FILE } from '../browser/extension/pairingKey.js';
import { EXTENSION_ID } from '../browser/extension/protocol.js';
import { extensionFolder } from './extensionCommands.js';
import { allowUserScriptsHint } from '../userscripts/extensionScripts.js';
import { createServer } from 'node:net';
import { configDir, dataDir, resolveConfig } from '../config.js';
import { findBrowser } from '../browser/launch/findBrowser.js';
import { ENABLE_HINT, findActivePort } from '../browser/ownChrome/activePort.js';
import { VERSION } from '../version.js';
import { daemonRequest, endpointPath, readEndpoint, type DaemonInfo } from './daemonClient.js';
import { launchChecks } from './doctorLaunch.js';
import { portHolder } from './portHolder.js';
import { readLeaderFile } from '../relay/leaderFile.js';
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

/** Who holds a port that is in use: the tabwright daemon or relay leader by their files, else the process from procfs. */
function holder(port: number, inUse: boolean, daemon: DaemonInfo | undefined): string | undefined {
  if (!inUse) return undefined;
  if (daemon && daemon.port === port) return `the tabwright daemon (pid ${daemon.pid})`;
  const leader = readLeaderFile(configDir());
  if (leader && leader.port === port) return `the tabwright relay leader (pid ${leader.pid}, tabwright ${leader.version})`;
  const found = portHolder(port);
  return found ? `pid ${found.pid}: ${found.command}` : 'a process this user cannot see';
}

/**
 * The report, or a CliError (exit 3) carrying it when no browser is found.
 * @param opts.launch  also start the browser, check WebMCP and the polyfill, and load the SQLite addon (./doctorLaunch.ts);
 *   a failed check makes the report unhealthy.
 */
export async function doctor(opts: { launch?: boolean } = {}): Promise<Record<string, unknown>> {
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
  const httpInUse = httpPort ? await portInUse(httpPort) : false;
  const wsInUse = wsPort ? await portInUse(wsPort) : false;
  const ports = {
    http: { port: httpPort, inUse: httpInUse, by: holder(httpPort, httpInUse, info) },
    bridge: { port: wsPort, inUse: wsInUse, by: holder(wsPort, wsInUse, info) },
  };
  // The server settings from the environment, as the daemon would read them (a bad TABWRIGHT_* value stops it at start).
  let settings: { ok: boolean; error?: { type: string; message: string; hint: string } } = { ok: true };
  try {
    resolveConfig({}, process.env);
  } catch (error) {
    const e = error as { type?: string; message: string; hint?: string };
    settings = { ok: false, error: { type: e.type ?? 'invalid_arguments', message: e.message, hint: e.hint ?? '' } };
  }
  const ownChrome = await ownChromeCheck();
  const wantsOwnChrome = process.env.TABWRIGHT_CONNECTION === 'own-chrome';
  const healthy = node.ok && Boolean(browser.ok) && config.ok && data.ok && (!info || daemon.answers === true) && (!wantsOwnChrome || ownChrome.found) && settings.ok;
  // The companion extension (docs/own-browser.md): where to load it from, and whether a pairing key exists yet.
  const extensionPath = extensionFolder();
  const extension = {
    path: extensionPath, id: EXTENSION_ID, built: existsSync(join(extensionPath, 'manifest.json')),
    pairingKey: process.env.TABWRIGHT_PAIRING_KEY ? 'TABWRIGHT_PAIRING_KEY' : existsSync(process.env.TABWRIGHT_PAIRING_KEY_FILE || join(configDir(), PAIRING_KEY_FILE)) ? 'file' : 'none yet (`tabwright pairing-key` makes one)',
    // Userscripts go through chrome.userScripts only when the user allowed it; the browser is not asked from here.
    userScripts: {
      uses: 'chrome.userScripts when "Allow User Scripts" is on for the extension, else tabwright\'s CDP injector (shared tabs only either way)',
      enable: allowUserScriptsHint(),
      check: 'get_bridge_status → userscripts.path (`tabwright tool get_bridge_status` with --connection extension)',
    },
  };
  const launch = opts.launch && browser.ok ? await launchChecks() : undefined;
  const launched = !launch || (launch.browser.ok && launch.polyfill.ok && launch.sqlite.ok);
  const report = { version: VERSION, healthy: healthy && launched, node, browser, configDir: config, dataDir: data, daemon, ports, settings, ownChrome, extension, ...(launch ? { launch } : {}) };
  if (!browser.ok) {
    const error = browser.error as { type: string; message: string; hint: string };
    throw new CliError(error, EXIT.unreachable, { report });
  }
  return report;
}

/**
 * Whether `--own-chrome` would find a Chrome with remote debugging on: its DevToolsActivePort, checked by a TCP
 * connect only (a WebSocket would raise Chrome's "Allow remote debugging?" dialog; docs/own-browser.md).
 */
async function ownChromeCheck(): Promise<{ found: boolean; profileDir?: string; port?: number; error?: string; hint?: string }> {
  try {
    const found = await findActivePort(process.env.TABWRIGHT_OWN_CHROME_PROFILE || undefined);
    return { found: true, profileDir: found.profileDir, port: found.port };
  } catch (error) {
    return { found: false, error: (error as Error).message, hint: (error as { hint?: string }).hint ?? ENABLE_HINT };
  }
}
