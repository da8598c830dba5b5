/**
 * The `expect` input of the tools that change a page (docs/actions.md, "Verified actions"): postconditions checked
 * after the action, within a bound. Declared apart from their check (./expectations.ts) so that tool declarations
 * (./define.ts) can take the field without reaching the wait machinery.
 */
import * as z from 'zod';
import { ToolError } from '../errors.js';
import { urlPattern } from '../util/urlPattern.js';

/** Default and longest time the postconditions may take to hold, in seconds. */
export const EXPECT_DEFAULT_SEC = 5;
export const EXPECT_MAX_SEC = 30;

/** The postcondition kinds, in the order a result reports them. */
export const EXPECT_KINDS = ['text', 'textGone', 'url', 'gone', 'value', 'noValidationError'] as const;
export type ExpectKind = (typeof EXPECT_KINDS)[number];

export const expectField = z.object({
  text: z.string().min(1).max(1000).optional().describe('This text is shown (substring, any case, across frames)'),
  textGone: z.string().min(1).max(1000).optional().describe('This text is no longer shown'),
  url: z.string().min(1).max(2000).optional().describe('The tab\'s URL matches: part of it, a glob ("**/done*") or /regex/'),
  gone: z.string().min(1).max(64).optional().describe('This element (ref) left the page or is hidden'),
  value: z.object({
    ref: z.string().min(1).max(64).describe('A field\'s ref'),
    equals: z.string().max(10_000).describe('Its value, exactly'),
  }).optional().describe('A field holds this value'),
  noValidationError: z.literal(true).optional().describe('No field is shown invalid (:user-invalid, aria-invalid="true")'),
  timeoutSec: z.number().min(0.1).max(EXPECT_MAX_SEC).optional().describe(`How long they may take to hold (default ${EXPECT_DEFAULT_SEC})`),
  // A misspelled postcondition must not pass unchecked: unknown keys are invalid_arguments.
}).strict().optional().describe('Postconditions checked after the action (all must hold): the result says verified, or fails with expectation_failed / expectation_indeterminate after the action was done');

export type Expectations = NonNullable<z.output<typeof expectField>>;

/** The postconditions `expect` names, in report order. */
export function kindsOf(expect: Expectations): ExpectKind[] {
  return EXPECT_KINDS.filter(k => expect[k] !== undefined);
}

/**
 * Checks `expect` before the action runs: at least one condition, valid URL pattern.
 * @throws ToolError invalid_arguments.
 */
export function checkExpect(expect: Expectations | undefined): void {
  if (!expect) return;
  if (!kindsOf(expect).length) {
    throw new ToolError('invalid_arguments', 'expect names no postcondition.', `Give it one or more of: ${EXPECT_KINDS.join(', ')}; e.g. expect: {text: "Saved"}.`);
  }
  if (expect.url !== undefined) urlPattern(expect.url, 'url');
}
