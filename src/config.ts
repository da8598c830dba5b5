/**
 * Server configuration: command-line flags over environment variables over
 * defaults (README "Configuration").
 */
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { checkEndpoint, parseHeaders } from './browser/cdp/endpoint.js';
import { ToolError } from './errors.js';
import { describePolicy, OPEN_POLICY, parsePolicy, restricts, type Policy } from './consent/policy.js';

export type OutputMode = 'auto' | 'inline' | 'file';

/** Which WebMCP serves pages: the browser's own, the runtime's polyfill, or native where present. */
export type WebMcpMode = 'auto' | 'native' | 'polyfill';

/** Everything the server needs to know before the first tool call. */
export interface Config {
  /** Browser executable; undefined = auto-detect on PATH. */
  browser?: string;
  /** true = headless, false = headed. */
  headless: boolean;
  /** Temporary profile removed on exit instead of the persistent one. */
  isolated: boolean;
  /** Profile directory for the persistent profile. */
  userDataDir: string;
  /** Extra Chromium switches. */
  browserArgs: string[];
  /** Viewport in CSS pixels. */
  viewport: { width: number; height: number };
  /** Folder whose `.tabwright/` receives files the tools write. */
  workspace: string;
  /**
   * Folders besides the workspace that `upload_file` may read from
   * (absolute; `--allow-root`, `TABWRIGHT_ALLOWED_ROOTS`).
   */
  allowedRoots: string[];
  /** Default `output` of get_page_context and take_screenshot. */
  output: OutputMode;
  /** Config folder (pairing key, rules, endpoint file). */
  configDir: string;
  /** Data folder (script store, managed browser profile). */
  dataDir: string;
  /**
   * `--webmcp` / `TABWRIGHT_WEBMCP`: `native` uses only the
   * browser's WebMCP, `polyfill` only the runtime's (the launch drops the
   * WebMCP feature), `auto` the native one where present, else the polyfill.
   */
  webmcp: WebMcpMode;
  /** The consent gate of WebMCP calls (src/consent/gate.ts). */
  consent: ConsentConfig;
  /**
   * The model that runs task-level tools (`run_task`, `extract`; docs/tasks.md): `TABWRIGHT_LLM_URL` (the
   * OpenAI-compatible base URL, `/v1` included) and `TABWRIGHT_LLM_MODEL`. Undefined when either is unset: the
   * task tools are then not listed. The key is never here: src/tasks/model.ts reads it when a request goes out.
   */
  llm?: LlmConfig;
  /** A remote browser to attach to instead of launching one; undefined = launch. */
  remote?: RemoteConfig;
  /**
   * The user's own browser instead of a launched or attached one (docs/own-browser.md): `--own-chrome`
   * (Chrome's approval prompt) or `--connection extension` (the companion extension); undefined = neither.
   */
  own?: OwnBrowserConfig;
  /**
   * `--isolate-sessions` / `TABWRIGHT_ISOLATE_SESSIONS=1`: each
   * MCP session (a dispatcher `sessionKey`) gets its own browser context,
   * closed when the session ends. With the launch connection it implies `--isolated`.
   */
  isolateSessions: boolean;
  /**
   * `--shared-context` / `TABWRIGHT_SHARED_CONTEXT=1`: the daemon's 2025-era `/mcp` sessions work in the main
   * context (the CLI's tabs, cookies and logins) instead of a context of their own (docs/daemon.md, "One browser
   * context per `/mcp` session").
   */
  sharedContext: boolean;
  /**
   * `--state-encryption` / `TABWRIGHT_STATE_ENCRYPTION=1`: save_storage_state seals the states it saves with
   * AES-256-GCM under `<configDir>/state-key` (docs/storage.md, "Encryption").
   */
  stateEncryption: boolean;
  /**
   * Which tool sets MCP clients see in tools/list (`--toolsets`,
   * `TABWRIGHT_TOOLSETS`; docs/userscripts.md, "Tool sets"): `core`
   * (default) and/or `scripts`.
   * The CLI and daemon run any tool by name regardless.
   */
  toolsets: Toolset[];
  /** The bound of one script save, in ms: 90 s; `TABWRIGHT_SAVE_DEADLINE_MS` overrides it (tests). */
  saveDeadlineMs: number;
  /**
   * `--structured-content` / `TABWRIGHT_STRUCTURED_CONTENT=1`: successful MCP
   * results also carry `structuredContent` (the tool's fields plus `text`, a
   * superset of what the text says), except results with an image. Default
   * off: Claude Code, Codex and VS Code show the model only the JSON of
   * `structuredContent` when it is present (docs/clients.md).
   */
  structuredContent: boolean;
  /**
   * `--max-wait` / `TABWRIGHT_MAX_WAIT` (seconds, default 45; 0 = never): an
   * MCP call still running after this long answers with a pending result and
   * goes on; `wait_for_call` returns its outcome (docs/pending.md).
   * In ms. The CLI and the daemon's HTTP API wait for every outcome.
   */
  maxWaitMs: number;
  /** take_screenshot's defaults: format, quality and maximum width (docs/screenshots.md). */
  screenshot: ScreenshotConfig;
  /**
   * `--policy hardened`, `--allow-host`, `--deny-host` (or `TABWRIGHT_POLICY`, `TABWRIGHT_ALLOW_HOSTS`,
   * `TABWRIGHT_DENY_HOSTS`): what the agent may not do (docs/policy.md).
   */
  policy: Policy;
  /** `--max-calls` / `--max-calls-per-day`: how many calls may succeed (docs/policy.md, "Call budgets"). */
  budget: CallBudgetConfig;
  /**
   * `--dashboard-port` / `TABWRIGHT_DASHBOARD_PORT`: where the leading process serves the local dashboard
   * (docs/dashboard.md): a port on 127.0.0.1 (default 19682; 0 = any free port), or `off`.
   */
  dashboardPort: number | 'off';
}

/** Caps on successful tool calls (src/dispatch/callBudget.ts); undefined = no cap. */
export interface CallBudgetConfig {
  /** Per session: the serving process's lifetime (`--max-calls`, `TABWRIGHT_MAX_CALLS`). */
  session?: number;
  /**
   * Per calendar day, local time, shared by every process of the data dir (`--max-calls-per-day`,
   * `TABWRIGHT_MAX_CALLS_PER_DAY`; default: `--max-calls`).
   */
  day?: number;
}

/**
 * Parses a call cap: a whole number from 1 to 10^9.
 * @throws ToolError invalid_arguments for anything else.
 */
export function parseCallCap(text: string, flag: string): number {
  const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= 1e9)) {
    throw new ToolError('invalid_arguments', `${flag} "${text}" is not a whole number from 1 to 1000000000.`, `Use e.g. ${flag} 200 (successful tool calls).`);
  }
  return n;
}

/**
 * The call budget from `--max-calls` / `--max-calls-per-day` over `TABWRIGHT_MAX_CALLS` /
 * `TABWRIGHT_MAX_CALLS_PER_DAY` (an empty variable counts as unset). The day cap defaults to the session cap.
 * @throws ToolError invalid_arguments for a value that is not a whole number from 1 up.
 */
export function resolveBudget(flags: ConfigFlags, env: Env): CallBudgetConfig {
  const sessionText = flags.maxCalls ?? (env.TABWRIGHT_MAX_CALLS || undefined);
  const dayText = flags.maxCallsPerDay ?? (env.TABWRIGHT_MAX_CALLS_PER_DAY || undefined);
  const session = sessionText !== undefined ? parseCallCap(sessionText, '--max-calls') : undefined;
  const day = dayText !== undefined ? parseCallCap(dayText, '--max-calls-per-day') : session;
  return { session, day };
}

/** Splits a list of host patterns: commas or whitespace (`TABWRIGHT_ALLOW_HOSTS`, `TABWRIGHT_DENY_HOSTS`). */
function hostList(text: string | undefined): string[] {
  return (text ?? '').split(/[\s,]+/).filter(Boolean);
}

/**
 * The policy from `--policy`, `--allow-host`, `--deny-host` (else `TABWRIGHT_POLICY`, `TABWRIGHT_ALLOW_HOSTS`,
 * `TABWRIGHT_DENY_HOSTS`; the variables' patterns and the flags' add up, like `--allow-root`).
 * @throws ToolError invalid_arguments for an unknown mode or a bad pattern.
 */
export function resolvePolicy(flags: ConfigFlags, env: Env): Policy {
  const mode = flags.policy ?? (env.TABWRIGHT_POLICY || undefined);
  const allow = [...hostList(env.TABWRIGHT_ALLOW_HOSTS), ...(flags.allowHost ?? [])];
  const deny = [...hostList(env.TABWRIGHT_DENY_HOSTS), ...(flags.denyHost ?? [])];
  if (mode === undefined && !allow.length && !deny.length) return OPEN_POLICY;
  return parsePolicy(mode, allow, deny);
}

/** An image format take_screenshot writes. */
export type ScreenshotFormat = 'png' | 'jpeg' | 'webp';

export const SCREENSHOT_FORMATS: readonly ScreenshotFormat[] = ['png', 'jpeg', 'webp'];

/**
 * take_screenshot's defaults (`--screenshot-format`, `--screenshot-quality`,
 * `--screenshot-max-width`, or their `TABWRIGHT_SCREENSHOT_*` variables);
 * the tool's own `format` and `quality` arguments win over them per call.
 */
export interface ScreenshotConfig {
  format: ScreenshotFormat;
  /** Encoder quality 1-100 of jpeg and webp (png is lossless and ignores it). */
  quality: number;
  /** Images wider than this many pixels are scaled down to it, aspect ratio kept (100-10000). */
  maxWidth: number;
}

/**
 * The defaults, chosen from bench/screenshotSizes.ts on the corpus and the
 * bench's pages (docs/screenshots.md, "Screenshot sizes").
 */
export const SCREENSHOT_DEFAULTS: ScreenshotConfig = { format: 'jpeg', quality: 80, maxWidth: 1280 };

/**
 * The screenshot defaults from flags over the environment over SCREENSHOT_DEFAULTS
 * (an empty variable counts as unset).
 * @throws ToolError invalid_arguments for an unknown format, or a quality or width that is not a whole number in range.
 */
export function resolveScreenshot(flags: ConfigFlags, env: Env): ScreenshotConfig {
  const pick = (flag: string | undefined, name: string) => flag ?? (env[name] || undefined);
  const formatText = pick(flags.screenshotFormat, 'TABWRIGHT_SCREENSHOT_FORMAT') ?? SCREENSHOT_DEFAULTS.format;
  const format = formatText.trim().toLowerCase() === 'jpg' ? 'jpeg' : formatText.trim().toLowerCase();
  if (!(SCREENSHOT_FORMATS as readonly string[]).includes(format)) {
    throw new ToolError('invalid_arguments', `Screenshot format "${formatText}" is unknown.`, 'Use png, jpeg or webp (--screenshot-format or TABWRIGHT_SCREENSHOT_FORMAT).');
  }
  const whole = (text: string | undefined, min: number, max: number, fallback: number, what: string, hint: string): number => {
    if (text === undefined) return fallback;
    const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
    if (!(n >= min && n <= max)) throw new ToolError('invalid_arguments', `${what} "${text}" is not a whole number from ${min} to ${max}.`, hint);
    return n;
  };
  return {
    format: format as ScreenshotFormat,
    quality: whole(pick(flags.screenshotQuality, 'TABWRIGHT_SCREENSHOT_QUALITY'), 1, 100, SCREENSHOT_DEFAULTS.quality, 'Screenshot quality',
      'Use e.g. --screenshot-quality 80 (1-100; jpeg and webp only) or TABWRIGHT_SCREENSHOT_QUALITY.'),
    maxWidth: whole(pick(flags.screenshotMaxWidth, 'TABWRIGHT_SCREENSHOT_MAX_WIDTH'), 100, 10_000, SCREENSHOT_DEFAULTS.maxWidth, 'Screenshot max width',
      'Use e.g. --screenshot-max-width 1280 (pixels, 100-10000) or TABWRIGHT_SCREENSHOT_MAX_WIDTH.'),
  };
}

/** The model endpoint of the task tools (Config.llm; docs/tasks.md, "Configuration"). */
export interface LlmConfig {
  /** Base URL without a trailing slash, `/v1` included: requests go to `${url}/chat/completions`. */
  url: string;
  model: string;
  /** Per-request timeout in ms (`TABWRIGHT_LLM_TIMEOUT_MS`, default 120000). */
  timeoutMs: number;
}

/** The model config from the environment, or undefined when `TABWRIGHT_LLM_URL` or `TABWRIGHT_LLM_MODEL` is unset. */
export function resolveLlm(env: Env): LlmConfig | undefined {
  const url = env.TABWRIGHT_LLM_URL?.trim();
  const model = env.TABWRIGHT_LLM_MODEL?.trim();
  if (!url || !model) return undefined;
  if (!/^https?:\/\//i.test(url)) throw new ToolError('invalid_arguments', `TABWRIGHT_LLM_URL "${url.slice(0, 100)}" is not an http(s) URL.`, 'Set it to the base URL with /v1, e.g. http://127.0.0.1:11434/v1 (Ollama).');
  const timeout = Number(env.TABWRIGHT_LLM_TIMEOUT_MS);
  return { url: url.replace(/\/+$/, ''), model, timeoutMs: Number.isFinite(timeout) && timeout > 0 ? Math.min(timeout, 600_000) : 120_000 };
}

/**
 * A group of tools an MCP client can opt into (ToolDef.toolset): `core` (the default), `scripts` (userscripts and
 * AgentScripts), `storage` (saved storage states, cookies, web storage), `network` (routes and HAR), `emulation`
 * (devices, locale, geolocation, offline), `recording` (a WebM of a tab), `tasks` (runs of a configured model over
 * tabwright's own tools: docs/tasks.md), `webmcp-dev` (for developers of pages' WebMCP tools: lint_webmcp_tools).
 */
export type Toolset = 'core' | 'scripts' | 'storage' | 'network' | 'emulation' | 'recording' | 'tasks' | 'webmcp-dev';

/** Every tool set; `all` in `--toolsets` means these. */
export const TOOLSETS: readonly Toolset[] = ['core', 'scripts', 'storage', 'network', 'emulation', 'recording', 'tasks', 'webmcp-dev'];

/**
 * Parses `core,scripts` / `all` (comma- or space-separated).
 * @throws ToolError invalid_arguments for an unknown name or an empty list.
 */
export function parseToolsets(text: string): Toolset[] {
  const names = text.split(/[\s,]+/).filter(Boolean);
  const out = new Set<Toolset>();
  for (const name of names) {
    if (name === 'all') TOOLSETS.forEach(t => out.add(t));
    else if ((TOOLSETS as readonly string[]).includes(name)) out.add(name as Toolset);
    else throw new ToolError('invalid_arguments', `Tool set "${name}" is unknown.`, `Use ${TOOLSETS.join(', ')} or all, comma-separated (--toolsets or TABWRIGHT_TOOLSETS).`);
  }
  if (!out.size) throw new ToolError('invalid_arguments', 'No tool set named.', `Use ${TOOLSETS.join(', ')} or all (--toolsets or TABWRIGHT_TOOLSETS).`);
  return TOOLSETS.filter(t => out.has(t));
}

/** Where and how to attach (docs/attach.md). */
export interface RemoteConfig {
  /** `cdp`: `--cdp-endpoint` (connectOverCDP); `playwright-server`: `--ws-endpoint` (chromium.connect). */
  kind: 'cdp' | 'playwright-server';
  /** The URL as given, secrets included: never log it, show `redactUrl(endpoint)`. */
  endpoint: string;
  /** `--cdp-header` lines (secrets: never logged), sent when connecting over either kind. */
  headers: Record<string, string>;
  /** `--new-context`: a context of our own (closed on exit) instead of the browser's default one; always so for playwright-server. */
  newContext: boolean;
  /** How long attaching may take before `browser_unavailable`, in ms (15 s; `TABWRIGHT_CONNECT_TIMEOUT_MS`). */
  connectTimeoutMs: number;
}

/** How long attaching to a remote browser may take, in ms (nothing hangs). */
export const CONNECT_TIMEOUT_MS = 15_000;

/** The connection kinds a user picks with `--connection` (cdp and playwright-server come from their endpoint flags). */
export const CONNECTION_FLAG_KINDS = ['launch', 'own-chrome', 'extension', 'userscript'] as const;

/** The user's own browser (docs/own-browser.md). */
export interface OwnBrowserConfig {
  /**
   * `own-chrome`: Chrome's approval-based remote debugging; `extension`: the companion extension's link;
   * `userscript`: the tabs the user opted in through the companion userscript (docs/userscript-connection.md).
   */
  kind: 'own-chrome' | 'extension' | 'userscript';
  /**
   * own-chrome: the user data dir whose `DevToolsActivePort` names the running browser (`--own-chrome-profile`,
   * `TABWRIGHT_OWN_CHROME_PROFILE`); undefined = the first default folder of this OS that has one.
   */
  profileDir?: string;
  /** own-chrome: how long to wait for the user's "Allow", in ms (120 s; `TABWRIGHT_APPROVAL_TIMEOUT_MS`, at least 1 s). */
  approvalTimeoutMs: number;
}

/** 120 s: how long `--own-chrome` waits for the user to answer Chrome's "Allow remote debugging?". */
export const APPROVAL_TIMEOUT_MS = 120_000;

/** How the consent gate answers and waits. */
export interface ConsentConfig {
  /** Fixed answer to every `prompt` (`--auto-allow` / `--auto-deny`, for CI and unattended runs); undefined = ask a human. */
  auto?: 'allow' | 'deny';
  /** How long a prompt waits for the human, in ms: 5 minutes; `TABWRIGHT_CONSENT_TIMEOUT_MS` shortens it (meant for tests). */
  timeoutMs: number;
  /** Whether the server may ask on its controlling terminal; `TABWRIGHT_CONSENT_TTY=0` turns it off (tests, services). */
  terminal: boolean;
}

/** 90 s: the bound of one whole script save (docs/userscripts.md, "Store and saves"). */
export const SAVE_DEADLINE_MS = 90_000;

/**
 * 45 s: how long an MCP call may block before it answers pending. Under the
 * shortest client timeout we know of (Claude Desktop gives up at about 60 s;
 * Cline's default is 60 s and it ignores progress).
 */
export const DEFAULT_MAX_WAIT_MS = 45_000;

/** The longest `--max-wait`, in seconds (an hour). */
export const MAX_MAX_WAIT_SEC = 3600;

/**
 * Parses `--max-wait` / `TABWRIGHT_MAX_WAIT`: seconds, 0 (never pending) to 3600, decimals allowed.
 * @returns milliseconds.
 * @throws ToolError invalid_arguments for anything else.
 */
export function parseMaxWait(text: string): number {
  const seconds = text.trim() === '' ? NaN : Number(text);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_MAX_WAIT_SEC) {
    throw new ToolError('invalid_arguments', `Max wait "${text}" is not a number of seconds from 0 to ${MAX_MAX_WAIT_SEC}.`, 'Use e.g. --max-wait 45 (TABWRIGHT_MAX_WAIT=45); 0 makes every MCP call wait for its outcome.');
  }
  return Math.round(seconds * 1000);
}

/** Five minutes: how long a consent prompt waits. */
export const CONSENT_TIMEOUT_MS = 5 * 60_000;

/** Flags as commander hands them over; every field optional. */
export interface ConfigFlags {
  browser?: string;
  headless?: boolean;
  headed?: boolean;
  isolated?: boolean;
  userDataDir?: string;
  browserArg?: string[];
  viewport?: string;
  workspace?: string;
  allowRoot?: string[];
  output?: string;
  webmcp?: string;
  autoAllow?: boolean;
  autoDeny?: boolean;
  cdpEndpoint?: string;
  wsEndpoint?: string;
  cdpHeader?: string[];
  newContext?: boolean;
  connection?: string;
  ownChrome?: boolean;
  ownChromeProfile?: string;
  isolateSessions?: boolean;
  sharedContext?: boolean;
  stateEncryption?: boolean;
  toolsets?: string;
  structuredContent?: boolean;
  maxWait?: string;
  screenshotFormat?: string;
  screenshotQuality?: string;
  screenshotMaxWidth?: string;
  policy?: string;
  allowHost?: string[];
  denyHost?: string[];
  maxCalls?: string;
  maxCallsPerDay?: string;
  dashboardPort?: string;
}

type Env = Record<string, string | undefined>;

/** `$TABWRIGHT_CONFIG_DIR`, else `$XDG_CONFIG_HOME/tabwright`, else `~/.config/tabwright` (README, "Where files go"). */
export function configDir(env: Env = process.env): string {
  if (env.TABWRIGHT_CONFIG_DIR) return resolve(env.TABWRIGHT_CONFIG_DIR);
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'tabwright');
}

/** `$TABWRIGHT_DATA_DIR`, else `$XDG_DATA_HOME/tabwright`, else `~/.local/share/tabwright` (README, "Where files go"). */
export function dataDir(env: Env = process.env): string {
  if (env.TABWRIGHT_DATA_DIR) return resolve(env.TABWRIGHT_DATA_DIR);
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'tabwright');
}

/** True when a headed browser can show a window here (macOS, Windows, or a Linux display). */
export function hasDisplay(env: Env = process.env, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/**
 * Parses `WxH` (e.g. `1280x720`) into a viewport.
 * @throws ToolError invalid_arguments for anything else or sizes outside 100..10000.
 */
export function parseViewport(text: string): { width: number; height: number } {
  const m = /^\s*(\d{2,5})\s*[xX×]\s*(\d{2,5})\s*$/.exec(text);
  const width = m ? Number(m[1]) : NaN;
  const height = m ? Number(m[2]) : NaN;
  if (!m || width < 100 || height < 100 || width > 10000 || height > 10000) {
    throw new ToolError('invalid_arguments', `Viewport "${text}" is not WIDTHxHEIGHT.`, 'Use e.g. --viewport 1280x720 (100..10000 pixels each side).');
  }
  return { width, height };
}

/** Splits `TABWRIGHT_BROWSER_ARGS` on whitespace; double quotes group words. */
export function splitArgs(text: string | undefined): string[] {
  if (!text) return [];
  const out: string[] = [];
  for (const m of text.matchAll(/"([^"]*)"|(\S+)/g)) out.push(m[1] ?? m[2]!);
  return out;
}

/**
 * Builds the configuration.
 * @throws ToolError invalid_arguments for a bad viewport, output mode, WebMCP mode or screenshot default.
 */
export function resolveConfig(flags: ConfigFlags = {}, env: Env = process.env): Config {
  const outputText = flags.output ?? env.TABWRIGHT_OUTPUT ?? 'auto';
  if (!['auto', 'inline', 'file'].includes(outputText)) {
    throw new ToolError('invalid_arguments', `Output mode "${outputText}" is unknown.`, 'Use auto, inline or file (--output or TABWRIGHT_OUTPUT).');
  }
  if (flags.isolated && flags.userDataDir) {
    throw new ToolError('invalid_arguments', '--isolated and --user-data-dir exclude each other.', 'Use --isolated for a temporary profile, or --user-data-dir DIR for a persistent one.');
  }
  const webmcpText = flags.webmcp ?? env.TABWRIGHT_WEBMCP ?? 'auto';
  if (!['auto', 'native', 'polyfill'].includes(webmcpText)) {
    throw new ToolError('invalid_arguments', `WebMCP mode "${webmcpText}" is unknown.`, 'Use auto, native or polyfill (--webmcp or TABWRIGHT_WEBMCP).');
  }
  let headless = !hasDisplay(env);
  if (env.TABWRIGHT_HEADLESS === '1' || env.TABWRIGHT_HEADLESS === 'true') headless = true;
  if (env.TABWRIGHT_HEADLESS === '0' || env.TABWRIGHT_HEADLESS === 'false') headless = false;
  if (flags.headless) headless = true;
  if (flags.headed) headless = false;
  if (flags.autoAllow && flags.autoDeny) {
    throw new ToolError('invalid_arguments', '--auto-allow and --auto-deny exclude each other.', 'Pass one of them, or neither to ask a human.');
  }
  const consentTimeout = Number(env.TABWRIGHT_CONSENT_TIMEOUT_MS);
  const saveDeadline = Number(env.TABWRIGHT_SAVE_DEADLINE_MS);
  const data = dataDir(env);
  const remote = resolveRemote(flags, env);
  const own = resolveOwnBrowser(flags, env, remote !== undefined);
  const isolateSessions = Boolean(flags.isolateSessions) || env.TABWRIGHT_ISOLATE_SESSIONS === '1';
  const sharedContext = Boolean(flags.sharedContext) || env.TABWRIGHT_SHARED_CONTEXT === '1';
  if (isolateSessions && sharedContext) {
    throw new ToolError('invalid_arguments', '--isolate-sessions and --shared-context exclude each other.', 'Pass --shared-context to let /mcp sessions work in the CLI\'s tabs, or --isolate-sessions to give every session its own context; not both.');
  }
  const policy = resolvePolicy(flags, env);
  // The extension's downloads go to the user's download folder, unseen, and its requests are not routed through
  // Playwright here: neither a download refusal nor a host rule could be enforced (docs/policy.md, "Connections").
  if ((own?.kind === 'extension' || own?.kind === 'userscript') && restricts(policy)) {
    throw new ToolError('invalid_arguments', `--policy, --allow-host and --deny-host cannot be enforced on the ${own.kind} connection.`,
      'Drive a browser tabwright launches or attaches to (default launch, --cdp-endpoint, --ws-endpoint, --own-chrome) with a policy, or drop the policy flags.');
  }
  if (isolateSessions && !remote && flags.userDataDir) {
    throw new ToolError('invalid_arguments', '--isolate-sessions and --user-data-dir exclude each other.', 'Session contexts are temporary; drop --user-data-dir (the launch then uses a temporary profile).');
  }
  return {
    browser: flags.browser ?? (env.TABWRIGHT_BROWSER || undefined),
    headless,
    // A --user-data-dir flag wins over TABWRIGHT_ISOLATED (flags win over the environment).
    isolated: Boolean(flags.isolated) || (env.TABWRIGHT_ISOLATED === '1' && !flags.userDataDir) || (isolateSessions && !remote),
    userDataDir: resolve(flags.userDataDir ?? env.TABWRIGHT_USER_DATA_DIR ?? join(data, 'profile')),
    browserArgs: [...splitArgs(env.TABWRIGHT_BROWSER_ARGS), ...(flags.browserArg ?? [])],
    viewport: parseViewport(flags.viewport ?? env.TABWRIGHT_VIEWPORT ?? '1280x720'),
    workspace: resolve(flags.workspace ?? env.TABWRIGHT_WORKSPACE ?? process.cwd()),
    // Both sources add up, like browser switches: the variable's roots, then the flags'.
    allowedRoots: [...(env.TABWRIGHT_ALLOWED_ROOTS ?? '').split(delimiter), ...(flags.allowRoot ?? [])].filter(Boolean).map(dir => resolve(dir)),
    output: outputText as OutputMode,
    configDir: configDir(env),
    dataDir: data,
    webmcp: webmcpText as WebMcpMode,
    consent: {
      auto: flags.autoAllow ? 'allow' : flags.autoDeny ? 'deny' : undefined,
      timeoutMs: Number.isFinite(consentTimeout) && consentTimeout > 0 ? Math.min(consentTimeout, CONSENT_TIMEOUT_MS) : CONSENT_TIMEOUT_MS,
      terminal: env.TABWRIGHT_CONSENT_TTY !== '0',
    },
    llm: resolveLlm(env),
    remote,
    own,
    isolateSessions,
    sharedContext,
    stateEncryption: Boolean(flags.stateEncryption) || env.TABWRIGHT_STATE_ENCRYPTION === '1',
    toolsets: parseToolsets(flags.toolsets ?? env.TABWRIGHT_TOOLSETS ?? 'core'),
    saveDeadlineMs: Number.isFinite(saveDeadline) && saveDeadline > 0 ? saveDeadline : SAVE_DEADLINE_MS,
    maxWaitMs: flags.maxWait !== undefined || env.TABWRIGHT_MAX_WAIT ? parseMaxWait(flags.maxWait ?? env.TABWRIGHT_MAX_WAIT!) : DEFAULT_MAX_WAIT_MS,
    structuredContent: Boolean(flags.structuredContent) || env.TABWRIGHT_STRUCTURED_CONTENT === '1' || env.TABWRIGHT_STRUCTURED_CONTENT === 'true',
    screenshot: resolveScreenshot(flags, env),
    policy,
    budget: resolveBudget(flags, env),
    dashboardPort: parseDashboardPort(flags.dashboardPort ?? env.TABWRIGHT_DASHBOARD_PORT),
  };
}

/** The dashboard's default port on 127.0.0.1 (the daemon's HTTP port is 19681). */
export const DEFAULT_DASHBOARD_PORT = 19682;

/**
 * Parses `--dashboard-port` / `TABWRIGHT_DASHBOARD_PORT`: a port 0..65535 (0 = any free port), or `off`; unset or
 * empty is the default, 19682.
 * @throws ToolError invalid_arguments for anything else.
 */
export function parseDashboardPort(text: string | undefined): number | 'off' {
  if (text === undefined || text.trim() === '') return DEFAULT_DASHBOARD_PORT;
  if (text.trim().toLowerCase() === 'off') return 'off';
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new ToolError('invalid_arguments', `Dashboard port "${text}" is not a port number (0..65535) or "off".`, 'Use e.g. --dashboard-port 19682 (TABWRIGHT_DASHBOARD_PORT=19682), 0 for any free port, or off.');
  }
  return n;
}

/**
 * The user's own browser from `--connection own-chrome|extension` or `--own-chrome` (else `TABWRIGHT_CONNECTION`),
 * `--own-chrome-profile` (else `TABWRIGHT_OWN_CHROME_PROFILE`) and `TABWRIGHT_APPROVAL_TIMEOUT_MS`; undefined for
 * `launch` or nothing.
 * @throws ToolError invalid_arguments for an unknown kind, `--connection cdp|playwright-server` (their endpoint flags
 *   choose them), a contradiction (`--own-chrome` with another `--connection`, or with an endpoint flag), or
 *   `--own-chrome-profile` without own-chrome.
 */
export function resolveOwnBrowser(flags: ConfigFlags, env: Env, hasRemote: boolean): OwnBrowserConfig | undefined {
  const named = flags.connection ?? (flags.ownChrome ? undefined : env.TABWRIGHT_CONNECTION || undefined);
  if (flags.ownChrome && named !== undefined && named !== 'own-chrome') {
    throw new ToolError('invalid_arguments', `--own-chrome and --connection ${named} exclude each other.`, 'Pass one of them.');
  }
  const kind = flags.ownChrome ? 'own-chrome' : named?.trim().toLowerCase();
  if (kind === 'cdp' || kind === 'playwright-server') {
    throw new ToolError('invalid_arguments', `--connection ${kind} is chosen by its endpoint flag.`, kind === 'cdp' ? 'Pass --cdp-endpoint URL instead.' : 'Pass --ws-endpoint URL instead.');
  }
  if (kind !== undefined && !(CONNECTION_FLAG_KINDS as readonly string[]).includes(kind)) {
    throw new ToolError('invalid_arguments', `Connection "${named}" is unknown.`, `Use ${CONNECTION_FLAG_KINDS.join(', ')} (--connection or TABWRIGHT_CONNECTION), or --cdp-endpoint / --ws-endpoint to attach.`);
  }
  const profileText = flags.ownChromeProfile ?? (env.TABWRIGHT_OWN_CHROME_PROFILE || undefined);
  if (kind === undefined || kind === 'launch') {
    if (flags.ownChromeProfile !== undefined) throw new ToolError('invalid_arguments', '--own-chrome-profile needs --own-chrome.', 'Add --own-chrome, or drop --own-chrome-profile.');
    return undefined;
  }
  if (hasRemote) {
    throw new ToolError('invalid_arguments', `--connection ${kind} and --cdp-endpoint / --ws-endpoint exclude each other.`, 'Pass one way to reach the browser.');
  }
  if ((kind === 'extension' || kind === 'userscript') && flags.ownChromeProfile !== undefined) {
    throw new ToolError('invalid_arguments', `--own-chrome-profile needs --own-chrome, not --connection ${kind}.`, `Drop --own-chrome-profile: the ${kind} dials in from whichever profile it is installed in.`);
  }
  const timeout = Number(env.TABWRIGHT_APPROVAL_TIMEOUT_MS);
  return {
    kind: kind as OwnBrowserConfig['kind'],
    profileDir: kind === 'own-chrome' && profileText ? resolve(profileText) : undefined,
    approvalTimeoutMs: Number.isFinite(timeout) && timeout >= 1000 ? timeout : APPROVAL_TIMEOUT_MS,
  };
}

/**
 * What the relay shares among the processes of one config dir (docs/relay.md): the profile dir of a launched
 * browser, `own-chrome:<profile dir or "default">` for the user's Chrome in approval mode, `extension` for the
 * companion extension's link. Processes whose keys differ run their own browsers.
 */
export function sharedBrowserKey(config: Config): string {
  // Processes with different policies never share a browser: a follower's calls would run under the leader's.
  const policy = restricts(config.policy) ? ` (policy ${describePolicy(config.policy)})` : '';
  if (config.own?.kind === 'own-chrome') return `own-chrome:${config.own.profileDir ?? 'default'}${policy}`;
  if (config.own?.kind === 'extension' || config.own?.kind === 'userscript') return config.own.kind;
  return config.userDataDir + policy;
}

/**
 * The remote browser from `--cdp-endpoint` / `--ws-endpoint` (else
 * `TABWRIGHT_CDP_ENDPOINT` / `TABWRIGHT_WS_ENDPOINT`), `--cdp-header`
 * (else `TABWRIGHT_CDP_HEADERS`, one header a line) and `--new-context`
 * (`TABWRIGHT_NEW_CONTEXT=1`); undefined when neither endpoint is given.
 * @throws ToolError invalid_arguments for both endpoints at once, a bad URL or header (secrets never echoed).
 */
export function resolveRemote(flags: ConfigFlags, env: Env): RemoteConfig | undefined {
  const fromFlags = flags.cdpEndpoint !== undefined || flags.wsEndpoint !== undefined;
  const cdp = fromFlags ? flags.cdpEndpoint : env.TABWRIGHT_CDP_ENDPOINT || undefined;
  const ws = fromFlags ? flags.wsEndpoint : env.TABWRIGHT_WS_ENDPOINT || undefined;
  if (cdp && ws) {
    throw new ToolError('invalid_arguments', '--cdp-endpoint and --ws-endpoint exclude each other.', 'Pass --cdp-endpoint for a DevTools endpoint, or --ws-endpoint for a Playwright server.');
  }
  if (!cdp && !ws) return undefined;
  const headerLines = flags.cdpHeader?.length ? flags.cdpHeader : (env.TABWRIGHT_CDP_HEADERS ?? '').split('\n').filter(line => line.trim());
  const timeout = Number(env.TABWRIGHT_CONNECT_TIMEOUT_MS);
  return {
    kind: cdp ? 'cdp' : 'playwright-server',
    endpoint: cdp ? checkEndpoint('--cdp-endpoint', cdp) : checkEndpoint('--ws-endpoint', ws!),
    headers: parseHeaders(headerLines),
    newContext: !cdp || Boolean(flags.newContext) || env.TABWRIGHT_NEW_CONTEXT === '1',
    connectTimeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : CONNECT_TIMEOUT_MS,
  };
}

/** The connection kind `config` selects (before anything connects): an endpoint's kind, the user's own browser's, else launch. */
export function connectionKindOf(config: Pick<Config, 'remote' | 'own'>): 'launch' | 'cdp' | 'playwright-server' | 'own-chrome' | 'extension' | 'userscript' {
  return config.remote?.kind ?? config.own?.kind ?? 'launch';
}
