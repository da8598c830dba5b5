/**
 * The CLI's exit codes (issue #7, "Output contract"; README "CLI"): one
 * documented table, so an agent can tell a cap from a refusal from a
 * timeout without parsing prose. Numbers are the interface: they never move.
 */

export const EXIT = {
  ok: 0,
  /** Anything not covered below (a page error, a tabwright bug). */
  error: 1,
  /** Usage: a commander parse error, bad `--args` JSON, or `invalid_arguments` from the tool. */
  usage: 2,
  /** The browser or the daemon cannot be reached or started (`browser_unavailable`, `daemon_unavailable`). */
  unreachable: 3,
  /** The daemon refused the CLI's token (HTTP 401/403): pairing or authentication failed. */
  auth: 4,
  /** A cap was reached: too many concurrent requests or workspaces (HTTP 429), an upload too large (HTTP 413). */
  cap: 5,
  /** The consent gate refused the call (`consent_denied`). */
  consentDenied: 6,
  /** The consent prompt went unanswered (`consent_expired`). */
  consentExpired: 7,
  /** Validation rejected the input (`script_rejected`; the diagnostics are in the payload). */
  rejected: 8,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const BY_TYPE: Record<string, ExitCode> = {
  invalid_arguments: EXIT.usage,
  unknown_tool: EXIT.usage,
  browser_unavailable: EXIT.unreachable,
  daemon_unavailable: EXIT.unreachable,
  consent_denied: EXIT.consentDenied,
  consent_expired: EXIT.consentExpired,
  script_rejected: EXIT.rejected,
};

const BY_STATUS: Record<number, ExitCode> = {
  400: EXIT.usage,
  401: EXIT.auth,
  403: EXIT.auth,
  413: EXIT.cap,
  429: EXIT.cap,
};

/**
 * The exit code of a failure: by the daemon's HTTP status for a request
 * rejected before dispatch (`status`), else by the error `type`; 1 when
 * neither is known.
 */
export function exitCodeOf(type: string, status?: number): ExitCode {
  if (status !== undefined && BY_STATUS[status] !== undefined) return BY_STATUS[status]!;
  return BY_TYPE[type] ?? EXIT.error;
}
