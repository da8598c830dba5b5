/**
 * `tabwright mcp-config --client X`: the exact MCP server entry
 * for this install (absolute paths to node and dist/mcpMain.js), in the
 * format and file each client reads, with the server flags given after `--`.
 * `--client http` gives HTTP-only clients the daemon's `/mcp` URL and bearer
 * header instead (docs/daemon.md "MCP at /mcp"); its flags are the daemon's.
 * Printed inside the JSON envelope: `config` (the object to merge) and
 * `text` (the snippet to paste); on a terminal the snippet itself.
 */
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDir } from '../config.js';
import { daemonPort } from '../daemon/limits.js';
import { daemonToken, daemonTokenPath } from '../daemon/token.js';
import { cliCommand } from './init.js';
import { EXIT } from './exitCodes.js';
import { cliError } from './output.js';

export const CLIENTS = ['claude-code', 'cursor', 'vscode', 'windsurf', 'codex', 'claude-desktop', 'gemini-cli', 'mcporter', 'http', 'generic'] as const;
export type McpClient = (typeof CLIENTS)[number];

/** The server entry of this install, with `flags` (server flags, e.g. `['--toolsets', 'all']`) after the script. */
export function serverEntry(flags: readonly string[] = []): { command: string; args: string[] } {
  return { command: process.execPath, args: [join(dirname(fileURLToPath(import.meta.url)), '..', 'mcpMain.js'), ...flags] };
}

function claudeDesktopFile(): string {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json');
  return join(homedir(), '.config', 'Claude', 'claude_desktop_config.json');
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * The config for `client`: `{client, file, format, config?, text, command?}`;
 * `file` is where the client reads it (`config` goes under the key shown).
 * @param flags  server flags for the entry (checked by the caller).
 */
export function mcpConfig(client: McpClient, flags: readonly string[] = []): Record<string, unknown> {
  const entry = serverEntry(flags);
  const json = (config: unknown) => JSON.stringify(config, null, 2);
  switch (client) {
    case 'claude-code': {
      const config = { mcpServers: { tabwright: { type: 'stdio', ...entry } } };
      const command = ['claude', 'mcp', 'add', 'tabwright', '--', entry.command, ...entry.args].map(shellQuote).join(' ');
      return { client, file: '.mcp.json (project scope) or `claude mcp add` (user/local scope)', format: 'json', command, config, text: json(config) };
    }
    case 'cursor': {
      const config = { mcpServers: { tabwright: entry } };
      return { client, file: join(homedir(), '.cursor', 'mcp.json'), format: 'json', config, text: json(config) };
    }
    case 'vscode': {
      const config = { servers: { tabwright: { type: 'stdio', ...entry } } };
      return { client, file: '.vscode/mcp.json', format: 'json', config, text: json(config) };
    }
    case 'windsurf': {
      const config = { mcpServers: { tabwright: entry } };
      return { client, file: join(homedir(), '.codeium', 'windsurf', 'mcp_config.json'), format: 'json', config, text: json(config) };
    }
    case 'codex': {
      // A JSON string is a valid TOML basic string (same escapes for quotes, backslashes and control characters).
      const text = `[mcp_servers.tabwright]\ncommand = ${JSON.stringify(entry.command)}\nargs = [${entry.args.map(a => JSON.stringify(a)).join(', ')}]\n`;
      return { client, file: join(process.env.CODEX_HOME ?? join(homedir(), '.codex'), 'config.toml'), format: 'toml', config: { mcp_servers: { tabwright: entry } }, text };
    }
    case 'claude-desktop': {
      const config = { mcpServers: { tabwright: entry } };
      return { client, file: claudeDesktopFile(), format: 'json', config, text: json(config) };
    }
    case 'gemini-cli': {
      // Gemini CLI reads `mcpServers` of ~/.gemini/settings.json (or .gemini/settings.json in a project).
      const config = { mcpServers: { tabwright: entry } };
      return { client, file: join(homedir(), '.gemini', 'settings.json'), format: 'json', config, text: json(config) };
    }
    case 'mcporter': {
      // mcporter reads ./config/mcporter.json of the project it runs in (or --config FILE). It starts a server per
      // call unless the entry keeps it alive (tabs and refs would not outlive a call), and starts it in its config
      // folder: the workspace is this project's folder unless the flags name one (README, "MCP clients").
      const args = flags.some(f => f === '--workspace' || f.startsWith('--workspace=')) ? entry.args : [...entry.args, '--workspace', process.cwd()];
      const config = { mcpServers: { tabwright: { ...entry, args, lifecycle: 'keep-alive' } } };
      return { client, file: 'config/mcporter.json (in the project), or mcporter --config FILE', format: 'json', config, text: json(config) };
    }
    case 'http':
      return httpConfig(flags);
    case 'generic':
      return { client, file: null, format: 'json', config: entry, text: json(entry) };
  }
}

/**
 * The daemon's `/mcp` for HTTP-only clients: `{client, file: null, format: 'text', url, headers, start, config, text}`,
 * `config` being the entry `{type: 'http', url, headers}`.
 * The URL is `http://127.0.0.1:<TABWRIGHT_HTTP_PORT or 19681>/mcp` and the bearer token is `<config dir>/daemon-token`
 * (created here on first use; the same across daemon restarts), so the entry stays valid while neither changes.
 * `start` is the command that starts the daemon with `flags`, after `TABWRIGHT_CONFIG_DIR=` and `TABWRIGHT_HTTP_PORT=`
 * when those are set here.
 * @throws CliError invalid_arguments (exit 2) when TABWRIGHT_HTTP_PORT is 0 or not a port: the URL would not be fixed.
 */
function httpConfig(flags: readonly string[]): Record<string, unknown> {
  let port: number;
  try {
    port = daemonPort();
  } catch (error) {
    throw cliError('invalid_arguments', (error as Error).message, 'Set TABWRIGHT_HTTP_PORT to the daemon\'s port, or unset it for 19681.', EXIT.usage);
  }
  if (port === 0) {
    throw cliError('invalid_arguments', 'TABWRIGHT_HTTP_PORT=0 gives the daemon another port at every start, so no URL stays valid.', 'Set TABWRIGHT_HTTP_PORT to a fixed port, or unset it for 19681.', EXIT.usage);
  }
  const url = `http://127.0.0.1:${port}/mcp`;
  const headers = { Authorization: `Bearer ${daemonToken(configDir())}` };
  const cli = cliCommand();
  // The settings that decide this URL and token, when set here, go with the command: a daemon started without them
  // would listen elsewhere or read another token.
  const settings = ['TABWRIGHT_CONFIG_DIR', 'TABWRIGHT_HTTP_PORT'].filter(key => process.env[key]).map(key => `${key}=${shellQuote(process.env[key]!)}`);
  const start = [...settings, ...[...(cli.startsWith('node ') ? ['node', cli.slice('node '.length)] : [cli]), 'daemon', 'start', ...flags].map(shellQuote)].join(' ');
  const config = { type: 'http', url, headers };
  const text = [
    `URL:    ${url}`,
    `Header: Authorization: ${headers.Authorization}`,
    '',
    JSON.stringify(config, null, 2),
    '',
    'The daemon must be running for this URL to answer. Start it with:',
    `  ${start}`,
    'By default it stops after 30 minutes with no request and no open session (`daemon status` tells).',
    `The token is ${daemonTokenPath(configDir())}, kept across restarts: delete it to rotate, then print this again.`,
    '',
  ].join('\n');
  return { client: 'http', file: null, format: 'text', url, headers, start, config, text };
}
