/**
 * Where the user's running Chrome listens in approval mode (OWN-BROWSER.md §2): with remote debugging turned on
 * at chrome://inspect/#remote-debugging (Chrome 144+, Chromium 150+), the browser writes
 * `<user data dir>/DevToolsActivePort`: the port on line 1, the browser target's path (`/devtools/browser/<guid>`)
 * on line 2. There is no HTTP discovery in this mode (`/json/version` is 404), so the WebSocket URL comes from
 * this file alone. The file can outlive the server (the toggle turned off, the browser gone): liveness is a TCP
 * connect, never a WebSocket (each upgrade raises Chrome's "Allow remote debugging?" dialog).
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ToolError } from '../../errors.js';

type Env = Record<string, string | undefined>;

/** What a DevToolsActivePort file names. */
export interface ActivePort {
  /** The user data dir the file was read from. */
  profileDir: string;
  port: number;
  /** `/devtools/browser/<guid>`. */
  browserPath: string;
  /** `ws://127.0.0.1:<port><browserPath>`. */
  wsUrl: string;
}

/** How long the TCP liveness check of a port may take, in ms. */
const TCP_CHECK_MS = 1_500;

/** The switch a user turns on, as the hints name it. */
export const ENABLE_HINT = 'In Chrome, open chrome://inspect/#remote-debugging and turn on "Allow remote debugging for this browser instance" (Chrome 144 or newer), then call again.';

/**
 * The default user data dirs of Chrome-family browsers on this OS, most common first: Chrome, Chrome Beta,
 * Chromium (Linux: `~/.config/google-chrome`, `~/.config/chromium`; macOS: `~/Library/Application Support/...`;
 * Windows: `%LOCALAPPDATA%\Google\Chrome\User Data`, ...).
 */
export function defaultProfileDirs(env: Env = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const home = env.HOME || homedir();
  if (platform === 'darwin') {
    const base = join(home, 'Library', 'Application Support');
    return [join(base, 'Google', 'Chrome'), join(base, 'Google', 'Chrome Beta'), join(base, 'Google', 'Chrome Canary'), join(base, 'Chromium')];
  }
  if (platform === 'win32') {
    const base = env.LOCALAPPDATA || join(home, 'AppData', 'Local');
    return [join(base, 'Google', 'Chrome', 'User Data'), join(base, 'Google', 'Chrome Beta', 'User Data'), join(base, 'Google', 'Chrome SxS', 'User Data'), join(base, 'Chromium', 'User Data')];
  }
  const config = env.XDG_CONFIG_HOME || join(home, '.config');
  return [join(config, 'google-chrome'), join(config, 'google-chrome-beta'), join(config, 'google-chrome-unstable'), join(config, 'chromium')];
}

/**
 * Parses the text of a DevToolsActivePort file.
 * @returns undefined when it is not `<port>\n/devtools/browser/<id>`.
 */
export function parseActivePort(text: string, profileDir: string): ActivePort | undefined {
  const [portLine, pathLine] = text.split(/\r?\n/);
  const port = Number(portLine);
  if (!Number.isInteger(port) || port < 1 || port > 65535 || !pathLine?.startsWith('/devtools/browser/')) return undefined;
  return { profileDir, port, browserPath: pathLine.trim(), wsUrl: `ws://127.0.0.1:${port}${pathLine.trim()}` };
}

/** True when something accepts a TCP connection on 127.0.0.1:`port` within TCP_CHECK_MS. */
export function portAnswers(port: number): Promise<boolean> {
  return new Promise(resolve => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(TCP_CHECK_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Finds the running browser to connect to: the DevToolsActivePort of `profileDir`, else of the first default dir
 * that has one, checked live by a TCP connect (no WebSocket: that would raise the dialog).
 * @throws ToolError browser_unavailable when no file names a live port, saying which folders were read and what
 *   to turn on.
 */
export async function findActivePort(profileDir: string | undefined, env: Env = process.env): Promise<ActivePort> {
  const dirs = profileDir ? [profileDir] : defaultProfileDirs(env);
  const seen: string[] = [];
  for (const dir of dirs) {
    let text: string;
    try {
      text = readFileSync(join(dir, 'DevToolsActivePort'), 'utf8');
    } catch {
      continue;
    }
    const found = parseActivePort(text, dir);
    if (!found) {
      seen.push(`${dir} (unreadable DevToolsActivePort)`);
      continue;
    }
    if (await portAnswers(found.port)) return found;
    seen.push(`${dir} (port ${found.port} does not answer)`);
  }
  const where = seen.length ? `Found only: ${seen.join('; ')}.` : `No DevToolsActivePort in ${dirs.join(', ')}.`;
  throw new ToolError(
    'browser_unavailable',
    `No running Chrome with remote debugging turned on was found. ${where}`,
    `${ENABLE_HINT} If Chrome runs on another profile folder, pass --own-chrome-profile DIR (chrome://version shows its "Profile Path"; pass the folder above it).`,
  );
}
