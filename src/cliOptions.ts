/** The flags every serving command shares (`tabwright mcp`, `tabwright-mcp`), and serving from them. */
import { Command, Option } from './cli/commander.js';
import { resolveConfig, SCREENSHOT_DEFAULTS, type ConfigFlags } from './config.js';
import { setLogFile } from './log.js';
import { ToolError } from './errors.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * Adds the browser and output options shared by every serving command. A usage error (an unknown option, a value
 * outside the choices) prints commander's message on stderr and exits 2, like a bad flag value (serveFromFlags)
 * and the CLI's other usage errors; stdout stays untouched (an MCP stdio server's stdout is protocol only).
 */
export function addServerOptions(cmd: Command): Command {
  return cmd
    .exitOverride(error => process.exit(error.exitCode === 0 ? 0 : 2))
    .option('--browser <path>', 'browser executable (env TABWRIGHT_BROWSER; default: auto-detect on PATH)')
    .option('--headless', 'run the browser headless (default when there is no display)')
    .option('--headed', 'show the browser window (default when a display exists)')
    .option('--isolated', 'use a temporary profile, removed on exit (env TABWRIGHT_ISOLATED=1)')
    .option('--user-data-dir <dir>', 'browser profile folder (env TABWRIGHT_USER_DATA_DIR; default <data dir>/profile)')
    .option('--browser-arg <arg>', 'extra browser switch, repeatable (env TABWRIGHT_BROWSER_ARGS, space-separated)', collect)
    .option('--viewport <WxH>', 'viewport size (env TABWRIGHT_VIEWPORT; default 1280x720)')
    .option('--workspace <dir>', 'folder whose .tabwright/ receives snapshots and screenshots (env TABWRIGHT_WORKSPACE; default cwd)')
    .option('--allow-root <dir>', 'folder upload_file may read besides the workspace, repeatable (env TABWRIGHT_ALLOWED_ROOTS, colon-separated)', collect)
    .addOption(new Option('--output <mode>', 'default output of snapshots and screenshots (env TABWRIGHT_OUTPUT)').choices(['auto', 'inline', 'file']))
    .option('--screenshot-format <format>', `take_screenshot's default format: png, jpeg or webp (env TABWRIGHT_SCREENSHOT_FORMAT; default ${SCREENSHOT_DEFAULTS.format})`)
    .option('--screenshot-quality <n>', `jpeg/webp quality 1-100 (env TABWRIGHT_SCREENSHOT_QUALITY; default ${SCREENSHOT_DEFAULTS.quality})`)
    .option('--screenshot-max-width <px>', `scale screenshots wider than this down to it (env TABWRIGHT_SCREENSHOT_MAX_WIDTH; default ${SCREENSHOT_DEFAULTS.maxWidth})`)
    .addOption(new Option('--webmcp <mode>', 'native WebMCP, the polyfill, or native where present (env TABWRIGHT_WEBMCP; default auto)').choices(['auto', 'native', 'polyfill']))
    .option('--auto-allow', 'answer every consent prompt "allow" without asking (CI, unattended runs; deny rules still apply)')
    .option('--auto-deny', 'answer every consent prompt "deny" without asking (CI, unattended runs)')
    .option('--toolsets <list>', 'tool sets MCP clients see: core, scripts, storage, network, emulation, recording, tasks, webmcp-dev or all, comma-separated (env TABWRIGHT_TOOLSETS; default core)')
    .option('--structured-content', 'also send structuredContent with successful results (env TABWRIGHT_STRUCTURED_CONTENT=1; default off: Claude Code, Codex and VS Code then show the model only that JSON)')
    .option('--max-wait <seconds>', 'an MCP call still running after this long answers pending; wait_for_call gets its outcome (env TABWRIGHT_MAX_WAIT; default 45, 0 = never)')
    .option('--dashboard-port <port>', 'where the local dashboard listens on 127.0.0.1: a port, 0 = any free one, or off (env TABWRIGHT_DASHBOARD_PORT; default 19682; docs/dashboard.md)')
    .option('--log-file <file>', 'write logs to this file instead of stderr (env TABWRIGHT_LOG_FILE)')
    .option('--cdp-endpoint <url>', 'attach to a running Chromium: http://host:port of --remote-debugging-port, or its ws:// URL (env TABWRIGHT_CDP_ENDPOINT)')
    .option('--ws-endpoint <url>', 'attach to a Playwright server (playwright run-server, hosted services) (env TABWRIGHT_WS_ENDPOINT)')
    .option('--cdp-header <header>', '"Name: value" header sent when attaching, repeatable; values are never logged (env TABWRIGHT_CDP_HEADERS, one a line)', collect)
    .addOption(new Option('--connection <kind>', 'how to reach the browser: launch one, the user\'s own Chrome by its approval prompt, the companion extension, or the tabs opted in through the companion userscript (env TABWRIGHT_CONNECTION; default launch)').choices(['launch', 'own-chrome', 'extension', 'userscript']))
    .option('--own-chrome', 'drive the user\'s running Chrome after they click "Allow remote debugging?" (same as --connection own-chrome; docs/own-browser.md)')
    .option('--own-chrome-profile <dir>', 'with --own-chrome: the Chrome user data dir whose DevToolsActivePort to read (env TABWRIGHT_OWN_CHROME_PROFILE; default: the OS\'s Chrome, then Chromium folder)')
    .option('--new-context', 'with --cdp-endpoint: use a context of our own, closed on exit, instead of the browser\'s tabs (env TABWRIGHT_NEW_CONTEXT=1)')
    .addOption(new Option('--policy <mode>', 'hardened: no agent-written code (execute, export_script, sync_scripts), only http(s) and about:blank loads, uploads only from --allow-root, no downloads (env TABWRIGHT_POLICY; docs/policy.md)').choices(['default', 'hardened']))
    .option('--allow-host <pattern>', 'only these hosts may be loaded or requested: example.com, *.example.com, 127.0.0.1:8080; repeatable (env TABWRIGHT_ALLOW_HOSTS, comma-separated)', collect)
    .option('--deny-host <pattern>', 'these hosts may never be loaded or requested; wins over --allow-host; repeatable (env TABWRIGHT_DENY_HOSTS, comma-separated)', collect)
    .option('--max-calls <n>', 'at most n successful tool calls per session, and per day unless --max-calls-per-day (env TABWRIGHT_MAX_CALLS)')
    .option('--max-calls-per-day <n>', 'at most n successful tool calls per calendar day across processes (env TABWRIGHT_MAX_CALLS_PER_DAY; default --max-calls)')
    .option('--isolate-sessions', 'give each MCP session its own browser context, closed when the session ends (env TABWRIGHT_ISOLATE_SESSIONS=1)')
    .option('--shared-context', 'daemon: let /mcp sessions work in the main context, the CLI\'s tabs and logins, instead of one context each (env TABWRIGHT_SHARED_CONTEXT=1)')
    .option('--state-encryption', 'save_storage_state seals saved states with AES-256-GCM, key in <config dir>/state-key (env TABWRIGHT_STATE_ENCRYPTION=1; docs/storage.md)');
}

/** Serves MCP on stdio with the given flags; exits 2 with a message for bad flags. */
export async function serveFromFlags(flags: ConfigFlags & { logFile?: string }): Promise<void> {
  if (flags.logFile) setLogFile(flags.logFile);
  let config;
  try {
    config = resolveConfig(flags);
  } catch (error) {
    if (error instanceof ToolError) {
      process.stderr.write(`tabwright: ${error.message}\n${error.hint}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (config.consent.auto) {
    process.stderr.write(`tabwright: warning: --auto-${config.consent.auto} answers every WebMCP consent prompt with "${config.consent.auto}" without asking anyone.\n`);
  }
  // Loaded here, not at the top: the CLI's other verbs import this module and must not load the server.
  const { runMcpServer } = await import('./serve.js');
  await runMcpServer(config);
}

