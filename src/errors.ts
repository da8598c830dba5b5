/**
 * Tool errors with stable `type` strings (docs/errors.md).
 * Numbers and messages may change between releases; types do not.
 */
import { classifyPlaywrightError } from './util/playwrightErrors.js';

/** Every error type a tool can return. Adding one means documenting it in docs/errors.md. */
export const ERROR_TYPES = [
  'browser_unavailable',
  'browser_disconnected',
  'tab_not_found',
  'stale_ref',
  'element_not_actionable',
  'input_not_applied',
  'timeout',
  'cancelled',
  'navigation_failed',
  'invalid_arguments',
  'evaluation_failed',
  'result_too_large',
  'webmcp_tool_not_found',
  'capability_unavailable',
  'dialog_open',
  'no_dialog',
  'path_not_allowed',
  'file_not_found',
  'consent_denied',
  'consent_expired',
  'consent_unavailable',
  'unknown_tool',
  'relay_version_mismatch',
  'leader_lost',
  'script_not_found',
  'script_rejected',
  'conflict',
  'call_not_found',
  'workspace_unwritable',
  'internal',
] as const;

export type ErrorType = (typeof ERROR_TYPES)[number];

/** The wire shape of an error: `structuredContent.error` of an `isError` result. */
export interface ToolErrorData {
  type: ErrorType;
  message: string;
  hint: string;
}

/**
 * An error a tool reports to its caller. `message` says what went wrong,
 * `hint` says what to do next. Never put typed text or evaluated source in
 * either.
 */
export class ToolError extends Error {
  constructor(
    readonly type: ErrorType,
    message: string,
    readonly hint: string,
    /** Structured fields returned next to `error` in structuredContent (e.g. `diagnostics` of script_rejected). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ToolError';
  }

  toData(): ToolErrorData {
    return { type: this.type, message: this.message, hint: this.hint };
  }
}

/** Converts anything thrown by a handler to a ToolError; unknown errors become `internal`. */
export function toToolError(error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (classifyPlaywrightError(error).has('target_closed')) {
    return new ToolError('tab_not_found', 'The tab or browser closed during the call.', 'Call list_tabs to see the open tabs.');
  }
  return new ToolError('internal', firstLine(message), 'This is a tabwright bug if it repeats; run with TABWRIGHT_LOG=debug and report the log.');
}

/** The first line of a (Playwright) error message, without its call log. */
export function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/^\w+\.\w+: /, '').trim();
}
