/**
 * The server policy (docs/policy.md): `--policy hardened` and the host rules `--allow-host` / `--deny-host`. Pure
 * functions of a policy and a URL or tool call; the session installs the request side (src/session/requestPolicy.ts),
 * the dispatcher calls checkCall before every tool call (src/dispatch/dispatcher.ts).
 */
import { ToolError } from '../errors.js';

/** `default`: no restriction beyond the host rules; `hardened`: see HARDENED_OFF and docs/policy.md. */
export type PolicyMode = 'default' | 'hardened';

export const POLICY_MODES: readonly PolicyMode[] = ['default', 'hardened'];

/** One `--allow-host` / `--deny-host` pattern, parsed. */
export interface HostPattern {
  /** The pattern as the user wrote it (what errors and status name). */
  text: string;
  /** The host, lower case, IDN in punycode, IPv6 in brackets; for `*.example.com` the part after `*.`. */
  host: string;
  /** True for `*.example.com`: subdomains of `host` at any depth, not `host` itself. */
  subdomains: boolean;
  /** The port the pattern names (`127.0.0.1:8080`); undefined: any port. */
  port?: string;
}

/** What the server allows, from its flags (Config.policy). */
export interface Policy {
  mode: PolicyMode;
  /** `--allow-host`: when any is given, every host none of them matches is denied. */
  allowHosts: HostPattern[];
  /** `--deny-host`: denied even when an allow pattern matches too. */
  denyHosts: HostPattern[];
}

/** The policy of a server started without policy flags. */
export const OPEN_POLICY: Policy = { mode: 'default', allowHosts: [], denyHosts: [] };

/**
 * Tools that run code the agent wrote, off under `--policy hardened`: `execute` (JavaScript in the page), `add_element`
 * (an element with its inline script or style),
 * `export_script` (saves a userscript/AgentScript that then runs in matching pages) and `sync_scripts` (exports
 * every edit of a watched folder the same way). Scripts a human installed still run; enabling, listing, reading
 * and deleting them stays allowed.
 */
export const HARDENED_OFF: ReadonlyMap<string, string> = new Map([
  ['execute', 'runs JavaScript the agent wrote in the page'],
  ['add_element', 'inserts elements the agent wrote into the page, inline scripts included'],
  ['export_script', 'saves agent-written code as a userscript that runs in pages'],
  ['sync_scripts', 'exports agent-written files as userscripts that run in pages'],
  ['route_from_har', 'answers requests from a HAR file, whose documents and scripts then run in pages as if the site had sent them'],
]);

/**
 * Uses of a tool that `--policy hardened` turns off while its other uses stay on (`what` names the use, `when` tells it
 * from the raw arguments): `route` with action `fulfill` serves a body the agent wrote, and a document or script
 * served so runs in the page with the site's authority (`abort` and `continue` only block or change the page's own
 * requests); `get_cookies` with `reveal` hands the agent the values of cookies, sign-ins among them, that
 * `execute` (off too) could not read (httpOnly ones).
 */
export const HARDENED_OFF_USES: ReadonlyMap<string, { what: string; why: string; when(args: Record<string, unknown>): boolean }> = new Map([
  ['route', { what: 'route with action fulfill', why: 'serves a body the agent wrote, and a document or script served so runs in the page with the site\'s authority (abort and continue stay on)', when: args => args.action === 'fulfill' }],
  ['get_cookies', { what: 'get_cookies with reveal', why: 'hands the agent cookie values, sign-ins and httpOnly ones among them (without reveal the values stay redacted)', when: args => args.reveal === true }],
]);

/** Schemes a navigation tool may load under `--policy hardened`: http(s), and about:blank (nothing else of about:). */
const HARDENED_SCHEMES = new Set(['http:', 'https:']);

/** The tools whose `url` argument loads a page (checked before dispatch). */
const NAVIGATION_TOOLS = new Set(['navigate', 'open_tab']);

/**
 * Parses one host pattern: `example.com`, `*.example.com`, `127.0.0.1:8080`, `[::1]:9000`.
 * @throws ToolError invalid_arguments for anything else (a scheme, a path, a wildcard elsewhere, an empty host).
 */
export function parseHostPattern(text: string, flag: string): HostPattern {
  const trimmed = text.trim();
  const bad = (why: string) => new ToolError('invalid_arguments', `${flag} "${text}" is not a host pattern: ${why}.`, `Use a host (example.com), its subdomains (*.example.com) or a host and port (127.0.0.1:8080), e.g. ${flag} example.com.`);
  if (!trimmed) throw bad('it is empty');
  if (/[/?#@\s]/.test(trimmed) || trimmed.includes('://')) throw bad('it has a scheme, path or user part');
  const subdomains = trimmed.startsWith('*.');
  const rest = subdomains ? trimmed.slice(2) : trimmed;
  if (rest.includes('*')) throw bad('"*" may only start it, as "*."');
  let url: URL;
  try {
    url = new URL(`http://${rest}`);
  } catch {
    throw bad('the host does not parse');
  }
  if (!url.hostname) throw bad('the host is empty');
  const explicitPort = /:(\d+)$/.exec(rest)?.[1];
  return { text: trimmed, host: stripDot(url.hostname), subdomains, port: explicitPort ? String(Number(explicitPort)) : undefined };
}

/**
 * Parses the policy flags.
 * @throws ToolError invalid_arguments for an unknown mode or a bad host pattern.
 */
export function parsePolicy(mode: string | undefined, allow: readonly string[], deny: readonly string[]): Policy {
  const name = (mode ?? 'default').trim().toLowerCase();
  if (!(POLICY_MODES as readonly string[]).includes(name)) {
    throw new ToolError('invalid_arguments', `Policy "${mode}" is unknown.`, 'Use --policy hardened (or default; env TABWRIGHT_POLICY).');
  }
  return {
    mode: name as PolicyMode,
    allowHosts: allow.map(p => parseHostPattern(p, '--allow-host')),
    denyHosts: deny.map(p => parseHostPattern(p, '--deny-host')),
  };
}

/** True when the policy restricts anything (status and the relay key show it). */
export function restricts(policy: Policy): boolean {
  return policy.mode !== 'default' || policy.allowHosts.length > 0 || policy.denyHosts.length > 0;
}

/** True when the policy has host rules: page requests must be routed (src/session/requestPolicy.ts). */
export function hasHostRules(policy: Policy): boolean {
  return policy.allowHosts.length > 0 || policy.denyHosts.length > 0;
}

/** A one-line summary: `hardened; allow-host example.com; deny-host *.evil.test`, or `default`. */
export function describePolicy(policy: Policy): string {
  const parts: string[] = [policy.mode];
  if (policy.allowHosts.length) parts.push(`allow-host ${policy.allowHosts.map(p => p.text).join(', ')}`);
  if (policy.denyHosts.length) parts.push(`deny-host ${policy.denyHosts.map(p => p.text).join(', ')}`);
  return parts.join('; ');
}

function stripDot(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

/** The port of `url`, the scheme's default when it names none (`80` for http:). */
function portOf(url: URL): string {
  if (url.port) return url.port;
  return { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443', 'ftp:': '21' }[url.protocol] ?? '';
}

function matches(pattern: HostPattern, host: string, port: string): boolean {
  if (pattern.port !== undefined && pattern.port !== port) return false;
  return pattern.subdomains ? host.endsWith(`.${pattern.host}`) : host === pattern.host;
}

/** Why a host is denied: the rule as the user would write it, and the host (`host:port` when a rule named a port). */
export interface HostDenial {
  /** `--deny-host *.evil.test`, or `--allow-host` when no allow pattern matched. */
  rule: string;
  host: string;
}

/**
 * Whether the host rules deny `rawUrl`: a deny pattern that matches wins; else, with allow patterns, one must match.
 * URLs without a host (about:, data:, blob:, file:) are not the host rules' business: undefined.
 */
export function hostDenial(policy: Policy, rawUrl: string): HostDenial | undefined {
  if (!hasHostRules(policy)) return undefined;
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return undefined;
  }
  if (!url.hostname || url.protocol === 'file:') return undefined;
  const host = stripDot(url.hostname);
  const port = portOf(url);
  const shown = url.port ? `${host}:${url.port}` : host;
  const denied = policy.denyHosts.find(p => matches(p, host, port));
  if (denied) return { rule: `--deny-host ${denied.text}`, host: shown };
  if (policy.allowHosts.length && !policy.allowHosts.some(p => matches(p, host, port))) return { rule: '--allow-host', host: shown };
  return undefined;
}

/** The ToolError for a denied host (`policy_denied_host`). */
export function hostDeniedError(denial: HostDenial, policy: Policy): ToolError {
  const why = denial.rule === '--allow-host'
    ? `it matches none of --allow-host ${policy.allowHosts.map(p => p.text).join(', ')}`
    : `it matches ${denial.rule}`;
  return new ToolError('policy_denied_host', `The server's policy denies host ${denial.host}: ${why}.`,
    'Stay on the hosts the policy allows (get_bridge_status shows the policy); only the person who started the server can change it.',
    { rule: denial.rule, host: denial.host });
}

/**
 * Checks a URL a navigation tool would load: the scheme under `hardened`, then the host rules.
 * @throws ToolError policy_denied_scheme or policy_denied_host.
 */
export function checkNavigation(policy: Policy, rawUrl: string): void {
  if (policy.mode === 'hardened' && rawUrl !== 'back' && rawUrl !== 'forward') {
    let scheme: string;
    try {
      scheme = new URL(rawUrl).protocol;
    } catch {
      return; // not a URL: the tool's own validation reports it
    }
    const blank = /^about:blank([?#]|$)/i.test(rawUrl.trim());
    if (!HARDENED_SCHEMES.has(scheme) && !blank) {
      throw new ToolError('policy_denied_scheme', `The server's policy (--policy hardened) denies loading ${scheme} URLs.`,
        'Under --policy hardened only http:, https: and about:blank load; only the person who started the server can change it.',
        { rule: '--policy hardened', scheme });
    }
  }
  const denial = hostDenial(policy, rawUrl);
  if (denial) throw hostDeniedError(denial, policy);
}

/**
 * Checks a tool call against the policy before it is dispatched: the tools HARDENED_OFF lists, and the `url` of a
 * navigation tool. Raw `args` (unvalidated): a malformed `url` is left to the tool's schema.
 * @throws ToolError policy_denied_execute, policy_denied_scheme or policy_denied_host.
 */
export function checkCall(policy: Policy, tool: string, args: unknown): void {
  if (policy.mode === 'hardened') {
    const use = HARDENED_OFF_USES.get(tool);
    const usedSo = use !== undefined && typeof args === 'object' && args !== null && use.when(args as Record<string, unknown>);
    const action = usedSo ? use.what : undefined;
    const why = HARDENED_OFF.get(tool) ?? (usedSo ? use.why : undefined);
    if (why) {
      throw new ToolError('policy_denied_execute', `The server's policy (--policy hardened) turns ${action ?? tool} off: it ${why}.`,
        'Do the task with the page\'s own controls (click, type, fill_form) or its WebMCP tools; only the person who started the server can change the policy.',
        { rule: '--policy hardened', tool });
    }
  }
  if (NAVIGATION_TOOLS.has(tool)) {
    const url = (args as { url?: unknown } | undefined)?.url;
    if (typeof url === 'string') checkNavigation(policy, url);
  }
}

/**
 * The ToolError for an upload under `--policy hardened` from outside `--allow-root` (`policy_denied_upload`):
 * the workspace is no upload source then.
 */
export function uploadDeniedError(path: string, roots: readonly string[]): ToolError {
  return new ToolError('policy_denied_upload',
    `The server's policy (--policy hardened) denies uploading ${path}: ${roots.length ? `it is outside the allowed roots (${roots.join(', ')})` : 'no --allow-root is configured, so uploads are off'}.`,
    roots.length ? 'Upload files from an allowed root (get_bridge_status shows them).' : 'Ask the person who started the server for an --allow-root folder to upload from.',
    { rule: '--policy hardened', path });
}
