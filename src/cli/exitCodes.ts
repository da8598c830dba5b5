/**
 * The CLI's exit codes (docs/cli.md "Exit codes", generated from this file):
 * one documented table, so an agent can tell a cap from a refusal from a
 * timeout without parsing prose. Numbers are the interface: they never move.
 */

/** The codes by name; EXIT_MEANINGS says what each means. */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  unreachable: 3,
  auth: 4,
  cap: 5,
  consentDenied: 6,
  consentExpired: 7,
  rejected: 8,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What each code means, in the words of docs/cli.md's exit-code table (generated from this file). */
export const EXIT_MEANINGS: Record<keyof typeof EXIT, string> = {
  ok: 'success',
  error: 'anything else: the page threw, a tab closed, a tabwright bug',
  usage: 'usage error: an unknown command or option, a missing argument, bad `--args` JSON, arguments the tool refuses',
  unreachable: 'the browser, the daemon or the dashboard cannot be reached or started (the daemon: not running with autostart off, not started within 15 s, connection refused; no dashboard serving)',
  auth: 'pairing or authentication failed: the daemon refused the token (the one in `daemon.json` is not the daemon\'s)',
  cap: 'a cap was reached: too many requests in flight or workspaces active (`too_many_requests`, `too_many_workspaces`), a request body too large (`payload_too_large`), the call budget spent (`call_budget_exceeded`)',
  consentDenied: 'consent denied',
  consentExpired: 'consent expired unanswered',
  rejected: 'rejected by validation (the diagnostics are in the payload)',
};

/** The code of a failure by its error `type` (docs/errors.md), where it is not 1. */
export const EXIT_BY_TYPE: Readonly<Record<string, ExitCode>> = {
  invalid_arguments: EXIT.usage,
  unknown_tool: EXIT.usage,
  browser_unavailable: EXIT.unreachable,
  daemon_unavailable: EXIT.unreachable,
  dashboard_unavailable: EXIT.unreachable,
  consent_denied: EXIT.consentDenied,
  consent_expired: EXIT.consentExpired,
  script_rejected: EXIT.rejected,
  call_budget_exceeded: EXIT.cap,
};

/** The code of a request the daemon refused before dispatch, by its HTTP status (docs/daemon.md); it wins over the type. */
export const EXIT_BY_STATUS: Readonly<Record<number, ExitCode>> = {
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
  if (status !== undefined && EXIT_BY_STATUS[status] !== undefined) return EXIT_BY_STATUS[status]!;
  return EXIT_BY_TYPE[type] ?? EXIT.error;
}
