/**
 * `tabwright dashboard [--open]`, `tabwright consent list` and `tabwright consent answer ID ANSWER`
 * (docs/dashboard.md): the dashboards of this config dir found through their discovery files, reached with the key
 * from `<config dir>/dashboard-token`. CLI verbs only: no MCP tool can answer a consent prompt.
 */
import { spawn } from 'node:child_process';
import { configDir } from '../config.js';
import { isConsentAnswer } from '../consent/channel.js';
import { listDashboards, readToken, writeOpener, type DashboardEntry } from '../dashboard/discovery.js';
import { autostart, daemon } from './call.js';
import type { Command } from './commander.js';
import { EXIT } from './exitCodes.js';
import { cliError, CliError } from './output.js';
import { respond } from './toolCommand.js';
import { pollUntil } from '../util/wait.js';

/** How long `tabwright dashboard` waits for a daemon it started to serve its dashboard, ms. */
const DASHBOARD_START_MS = 5000;
/** How long one request to a dashboard may take, ms. */
const REQUEST_MS = 5000;

function unavailable(why: string): CliError {
  return cliError('dashboard_unavailable', `No tabwright dashboard is serving for ${configDir()}: ${why}.`,
    'Start one: any tabwright MCP server or daemon that owns the browser serves it (`tabwright daemon start`), unless its dashboard is off (--dashboard-port off, TABWRIGHT_DASHBOARD_PORT=off).', EXIT.unreachable);
}

/** The serving dashboards and the key, else dashboard_unavailable (exit 3). */
function found(): { dashboards: DashboardEntry[]; token: string } {
  const dashboards = listDashboards(configDir());
  const token = readToken(configDir());
  if (!dashboards.length || !token) throw unavailable(dashboards.length ? 'its key file is missing' : 'no process serves one');
  return { dashboards, token };
}

/** The address with the key: the key in the fragment, which the browser never sends in a request. */
function withKey(url: string, token: string): string {
  return `${url}#token=${token}`;
}

/** Calls a dashboard's API. @returns the status and the parsed body. @throws CliError dashboard_unavailable when it does not answer. */
async function api(entry: DashboardEntry, token: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: any }> {
  try {
    const res = await fetch(new URL(path, entry.url), {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_MS),
    });
    return { status: res.status, body: await res.json().catch(() => ({})) };
  } catch (error) {
    throw unavailable(`the dashboard at ${entry.url} (pid ${entry.pid}) did not answer (${(error as Error).message})`);
  }
}

/** A dashboard's error answer as the CLI's error: its `{type, message, hint}`, exit 4 for 401 (auth), else 1. */
function refusal(answer: { status: number; body: any }): CliError {
  const error = answer.body.error ?? { type: 'internal', message: `The dashboard answered HTTP ${answer.status}.`, hint: 'Check the server\'s log.' };
  return new CliError(error, answer.status === 401 ? EXIT.auth : EXIT.error);
}

/** `tabwright dashboard`: the address(es) with the key; starts the daemon first when nothing serves and autostart is on. */
async function open(opts: { open?: boolean }): Promise<unknown> {
  if (!listDashboards(configDir()).length && autostart()) {
    await daemon();
    await pollUntil(() => listDashboards(configDir()).length > 0 || undefined, { ms: DASHBOARD_START_MS, intervalMs: 50 });
  }
  const { dashboards, token } = found();
  const url = withKey(dashboards[0]!.url, token);
  let opened: boolean | undefined;
  if (opts.open) opened = await launchBrowser(writeOpener(configDir(), url));
  return { url, dashboards: dashboards.map(d => ({ url: withKey(d.url, token), pid: d.pid, port: d.port })), ...(opened === undefined ? {} : { opened }) };
}

/**
 * Opens `file` (the 0600 page that forwards to the address with the key: the key stays out of every argv) in the
 * desktop's browser (xdg-open, open, start). @returns false when no opener could start.
 */
function launchBrowser(file: string): Promise<boolean> {
  const [command, args] = process.platform === 'darwin' ? ['open', [file]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', file]] : ['xdg-open', [file]];
  return new Promise(resolve => {
    const child = spawn(command as string, args as string[], { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

/** `tabwright consent list`: every prompt waiting in every dashboard of this config dir. */
async function list(): Promise<unknown> {
  const { dashboards, token } = found();
  const prompts: unknown[] = [];
  for (const entry of dashboards) {
    const answer = await api(entry, token, 'GET', '/api/prompts');
    if (answer.status !== 200) throw refusal(answer);
    for (const p of answer.body.prompts ?? []) prompts.push({ ...p, dashboard: entry.url });
  }
  return { prompts };
}

/** `tabwright consent answer ID ANSWER`: answers the prompt in whichever dashboard holds it (surface consent_cli). */
async function answer(id: string, value: string): Promise<unknown> {
  if (!isConsentAnswer(value)) {
    throw cliError('invalid_arguments', `"${value}" is not an answer.`, 'Answer once (allow once), always (always allow), deny (deny once) or never (always deny); a prompt about execute or add_element also takes code (this exact code on this site) and everywhere (any code on every site).', EXIT.usage);
  }
  if (!/^[0-9a-f]{32}$/.test(id)) throw cliError('invalid_arguments', `"${id.slice(0, 80)}" is not a prompt id (32 hex characters).`, '`tabwright consent list` shows the ids.', EXIT.usage);
  const { dashboards, token } = found();
  for (const entry of dashboards) {
    const res = await api(entry, token, 'POST', `/api/prompts/${id}`, { answer: value, via: 'cli' });
    if (res.status === 200) return { answered: id, answer: value, dashboard: entry.url };
    if (res.status !== 404) throw refusal(res);
  }
  throw cliError('prompt_not_found', `No consent prompt ${id} waits: it was answered elsewhere, expired, or its call ended.`, '`tabwright consent list` shows the prompts waiting now.');
}

/** Adds `dashboard` and the `consent` group. */
export function addDashboardCommands(program: Command): void {
  program.command('dashboard').description('print the local dashboard\'s address with its key (starts the daemon when nothing serves one)')
    .option('--open', 'also open it in the desktop\'s browser')
    .action((opts: { open?: boolean }) => respond(() => open(opts)));
  const consent = program.command('consent').description('consent prompts waiting in the dashboard, answered from this shell');
  consent.command('list').description('the consent prompts waiting now, with their ids').action(() => respond(list));
  consent.command('answer').description('answer a waiting prompt: once (allow once), always (always allow), deny, never (always deny); code, everywhere for execute and add_element')
    .argument('<id>', 'the prompt id from `tabwright consent list`')
    .argument('<answer>', 'once | always | deny | never')
    .action((id: string, value: string) => respond(() => answer(id, value)));
}
