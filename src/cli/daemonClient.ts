/**
 * The CLI's side of the daemon (docs/daemon.md): find it through
 * `<config dir>/daemon.json`, start it detached when it is not running, and
 * call its HTTP API (plain JSON, or Server-Sent Events for progress and
 * consent). Loads only node:* modules.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliError } from './output.js';
import { pollUntil } from '../util/wait.js';
import { processAlive } from '../util/processes.js';

/** The endpoint file's content (docs/daemon.md, "The endpoint file"). */
export interface DaemonInfo {
  pid: number;
  port: number;
  token: string;
  version: string;
  startedAt?: string;
  protocol?: number;
  workspaceEncoding?: string;
}

/** Where the daemon's entry point is in this install. */
export const DAEMON_MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'daemon', 'main.js');

/** How long the CLI waits for a daemon it started to answer, in ms (bounded). */
export const START_TIMEOUT_MS = 15_000;

export function endpointPath(configDir: string): string {
  return join(configDir, 'daemon.json');
}


/** The endpoint file if it names a live process; undefined when missing, unreadable or stale. */
export function readEndpoint(configDir: string): DaemonInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(endpointPath(configDir), 'utf8')) as DaemonInfo;
    if (info && typeof info.port === 'number' && typeof info.token === 'string' && processAlive(info.pid)) return info;
  } catch {
    // Missing or half-written elsewhere (the daemon renames it into place, so rarely): treat as absent.
  }
  return undefined;
}

/** A response of the daemon: HTTP status and parsed JSON body. */
export interface DaemonResponse {
  status: number;
  body: Record<string, unknown>;
}

/** The workspace headers for `dir` (percent-encoded when not plain ASCII; docs/daemon.md). */
export function workspaceHeaders(dir: string): Record<string, string> {
  // eslint-disable-next-line no-control-regex
  return /^[\x20-\x7e]*$/.test(dir) && !dir.includes('%')
    ? { 'x-tabwright-workspace': dir }
    : { 'x-tabwright-workspace': encodeURIComponent(dir), 'x-tabwright-workspace-encoding': 'uri' };
}

const unreachable = (info: DaemonInfo, why: string) => cliError('daemon_unavailable', `The daemon (pid ${info.pid}, port ${info.port}) did not answer: ${why}.`, 'Run `tabwright daemon stop` and try again; `tabwright doctor` checks the setup.');

/** Sends one request and reads the whole JSON answer. @throws CliError daemon_unavailable when the connection fails. */
export function daemonRequest(info: DaemonInfo, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<DaemonResponse> {
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
    const req = request({
      host: '127.0.0.1', port: info.port, method, path,
      headers: { 'x-tabwright-token': info.token, ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}), ...opts.headers },
      timeout: opts.timeoutMs,
    }, res => readJson(res).then(resolve, reject));
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', error => reject(unreachable(info, error.message)));
    req.end(body);
  });
}

function readJson(res: IncomingMessage): Promise<DaemonResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', reject);
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown>;
      try {
        body = text ? JSON.parse(text) as Record<string, unknown> : {};
      } catch {
        body = { outcome: 'failed', error: { type: 'internal', message: `The daemon answered HTTP ${res.statusCode} with a body that is not JSON.`, hint: 'Check <data dir>/daemon.log.' } };
      }
      resolve({ status: res.statusCode ?? 0, body });
    });
  });
}

/** What a streamed call reports besides its result. */
export interface StreamHandlers {
  progress?(data: { done: number; total?: number; message?: string }): void;
  consent?(data: Record<string, unknown>): void;
  /** The consent question `questionId` was withdrawn: answered through another surface (`answeredBy`), expired or cancelled. */
  consentClosed?(data: { questionId?: string; answeredBy?: string; message?: string }): void;
}

/**
 * `POST /v1/tools/{tool}` with `Accept: text/event-stream`: progress and
 * consent events go to `handlers`; resolves with the final `result` event
 * (or the JSON body of a rejection before dispatch, with its status).
 * Writes `body` as given (a string of JSON) so an oversize argument reaches
 * the daemon's own 413.
 * @throws CliError daemon_unavailable when the connection fails before an answer.
 */
export function streamTool(info: DaemonInfo, tool: string, body: string, workspace: string, handlers: StreamHandlers, headers: Record<string, string> = {}): Promise<DaemonResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const data = Buffer.from(body);
    const req = request({
      host: '127.0.0.1', port: info.port, method: 'POST', path: `/v1/tools/${encodeURIComponent(tool)}`,
      headers: { 'x-tabwright-token': info.token, accept: 'text/event-stream', 'content-type': 'application/json', 'content-length': String(data.length), ...workspaceHeaders(workspace), ...headers },
    }, res => {
      answered = true;
      if (!String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        readJson(res).then(resolve, reject);
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      let final: DaemonResponse | undefined;
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          let payload = '';
          for (const line of frame.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) payload += line.slice(5).trim();
          }
          if (!payload) continue;
          let parsed: Record<string, unknown>;
          try {
            parsed = JSON.parse(payload) as Record<string, unknown>;
          } catch {
            continue;
          }
          if (event === 'progress') handlers.progress?.(parsed as { done: number; total?: number; message?: string });
          else if (event === 'consent') handlers.consent?.(parsed);
          else if (event === 'consent_closed') handlers.consentClosed?.(parsed);
          else if (event === 'result') final = { status: res.statusCode ?? 200, body: parsed };
        }
      });
      res.on('end', () => {
        if (final) resolve(final);
        else reject(cliError('daemon_unavailable', 'The daemon closed the stream before the result: the call\'s outcome is unknown.', 'Check what happened (e.g. `tabwright tabs`) before retrying a call that changes something; <data dir>/daemon.log has the daemon\'s side.'));
      });
      res.on('error', error => reject(unreachable(info, error.message)));
    });
    req.on('error', error => {
      // A daemon that rejects an oversize body answers and closes while we still write: the answer counts.
      if (!answered) reject(unreachable(info, error.message));
    });
    req.end(data);
  });
}

/**
 * A lock so that two CLIs do not start two daemons: `<config dir>/daemon.lock`
 * created with O_EXCL, holding the owner's pid; a lock whose pid is dead is
 * stale and taken over. Returns a release function, or undefined while
 * another live CLI holds it.
 */
function tryLock(configDir: string): (() => void) | undefined {
  const path = join(configDir, 'daemon.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(path);
        } catch {
          // Already gone.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let owner = NaN;
      try {
        owner = Number(readFileSync(path, 'utf8'));
      } catch {
        continue;
      }
      if (processAlive(owner)) return undefined;
      try {
        unlinkSync(path);
      } catch {
        // Someone else took it over first.
      }
    }
  }
  return undefined;
}


/** Whether `GET /v1/status` answers 200 with this token. */
async function answers(info: DaemonInfo): Promise<boolean> {
  try {
    return (await daemonRequest(info, 'GET', '/v1/status', { timeoutMs: 2_000 })).status === 200;
  } catch {
    return false;
  }
}

/**
 * `: <what the daemon said last>` for a daemon that exited at start (its last `tabwright daemon: ` line in the log, e.g. a bad
 * setting; else the log's last line), or '' when the log has nothing. Ends without a period.
 */
function lastLogLine(log: string): string {
  try {
    const lines = readFileSync(log, 'utf8').trimEnd().split('\n').filter(line => line.trim());
    const said = lines.filter(line => /^tabwright( daemon)?: /.test(line)).at(-1) ?? lines.at(-1);
    return said ? `: ${said.replace(/^tabwright( daemon)?: /, '').replace(/\.$/, '').slice(0, 300)}` : '';
  } catch {
    return '';
  }
}

/**
 * The live daemon's endpoint, starting the daemon (detached, stdio to
 * `<data dir>/daemon.log`, with the server flags `args`) when there is none
 * and `autostart` allows it.
 * @throws CliError daemon_unavailable (exit 3) when none runs and autostart is off, or it does not answer within START_TIMEOUT_MS.
 */
export async function ensureDaemon(configDir: string, dataDir: string, autostart: boolean, args: string[] = []): Promise<DaemonInfo> {
  const found = readEndpoint(configDir);
  if (found) return found;
  const log = join(dataDir, 'daemon.log');
  if (!autostart) {
    throw cliError('daemon_unavailable', 'The tabwright daemon is not running and starting it is turned off (TABWRIGHT_DAEMON_AUTOSTART=0).', 'Start it with `tabwright daemon start` (or unset TABWRIGHT_DAEMON_AUTOSTART).');
  }
  if (!existsSync(DAEMON_MAIN)) {
    throw cliError('daemon_unavailable', `The daemon's entry point ${DAEMON_MAIN} is missing from this install.`, 'Reinstall tabwright, or run `npm run build` in a source checkout.');
  }
  mkdirSync(configDir, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  let release: (() => void) | undefined;
  let child: ReturnType<typeof spawn> | undefined;
  try {
    const started = await pollUntil(async () => {
      const info = readEndpoint(configDir);
      if (info && await answers(info)) return info;
      if (!release && !child) {
        release = tryLock(configDir);
        // Re-read under the lock: another CLI may have started one meanwhile.
        if (release && !readEndpoint(configDir)) child = startDetached(log, args);
      }
      if (child && child.exitCode !== null && !readEndpoint(configDir)) {
        throw cliError('daemon_unavailable', `The daemon exited with code ${child.exitCode} while starting${lastLogLine(log)}.`, `See ${log}; \`tabwright doctor\` checks the setup.`);
      }
      return undefined;
    }, { ms: START_TIMEOUT_MS, intervalMs: 40 });
    if (started) return started;
  } finally {
    release?.();
    child?.unref();
  }
  throw cliError('daemon_unavailable', `The daemon did not answer within ${START_TIMEOUT_MS / 1000} s of starting.`, `See ${log}; \`tabwright doctor\` checks the setup.`);
}

/** Spawns `node dist/daemon/main.js [args]` detached, its output appended to `log`. */
export function startDetached(log: string, args: string[] = []): ReturnType<typeof spawn> {
  const fd = openSync(log, 'a', 0o600);
  try {
    const child = spawn(process.execPath, [DAEMON_MAIN, ...args], { detached: true, stdio: ['ignore', fd, fd], cwd: dirname(log), env: process.env });
    child.on('error', () => undefined);
    return child;
  } finally {
    closeSync(fd);
  }
}
