/**
 * Real input: "typing, checking and selecting go through trusted
 * input events, so framework-controlled inputs (React, Vue) keep the value;
 * the tool reads the value back and fails with `input_not_applied` when it
 * did not stick. Rich-text editors (contenteditable that owns its model)
 * receive the text, including emoji; `type {clear: true}` replaces."
 *
 * - <input> / <textarea>: Playwright's `fill` (focus, select all, then the
 *   browser's own text insertion: a trusted `beforeinput` + `input` of type
 *   insertText, which React's value tracker accepts); appending focuses,
 *   moves the caret with End and inserts the same way.
 * - contenteditable: focus the editing host, select all + Delete through the
 *   keyboard when clearing, then insert each line as trusted text (line
 *   breaks as Shift+Enter), so an editor that handles `beforeinput` itself
 *   updates its own model.
 * - checkboxes are clicked (Playwright's setChecked verifies the state);
 *   selects use Playwright's selectOption; both are read back.
 */
import type { ElementHandle, Page } from 'playwright-core';
import { playwrightTimeout } from '../browser/playwright.js';
import { classifyPlaywrightError } from '../util/playwrightErrors.js';
import { raceTimeout } from '../util/wait.js';
import { ToolError } from '../errors.js';
import type { ActionsRuntime, FieldState } from './obstruction.js';

/** Longest expected or actual value quoted in an `input_not_applied` message, in characters. */
const QUOTE_MAX = 80;

const HINT = 'The page changed or rejected the value (an input mask, validation, a handler that resets it). Check the field in a fresh snapshot and type what the page accepts.';

/** The state of a text field (src/page/actions.ts `fieldState`). */
export async function readField(handle: ElementHandle<Element>, timeout: number): Promise<FieldState> {
  return await raceTimeout(handle.evaluate(el => (globalThis as unknown as ActionsRuntime).__tabwright.fieldState(el)), playwrightTimeout(timeout));
}

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX - 1)}…` : text);
}

/**
 * The `input_not_applied` error for a field whose value is not what was
 * typed. Password and one-time-code fields get lengths only, never values.
 */
export function inputNotApplied(ref: string, state: FieldState, expected: string, actual: string): ToolError {
  const limit = state.maxLength >= 0 && [...expected].length > state.maxLength ? ` (its maxlength is ${state.maxLength})` : '';
  const message = state.secret
    ? `The text typed into ${ref} did not stick: expected ${[...expected].length} characters, the field holds ${[...actual].length}${limit} (a password field: values not shown).`
    : `The text typed into ${ref} did not stick: expected ${quote(expected)}, the field holds ${quote(actual)}${limit}.`;
  return new ToolError('input_not_applied', message, HINT);
}

/** What an <input> or <textarea> holds after `text` was entered: the browser's value sanitisation (line breaks, trimming, colour case). */
export function sanitized(text: string, state: FieldState): string {
  if (state.tag === 'textarea') return text.replace(/\r\n?/g, '\n');
  let value = text.replace(/[\r\n]/g, '');
  if (state.inputType === 'email' || state.inputType === 'url') value = value.trim();
  if (state.inputType === 'color') value = value.toLowerCase();
  return value;
}

/**
 * Checks that a text field (`before` and `after` the typing) holds `expected`.
 * @throws ToolError input_not_applied naming both values (lengths only when either state is secret).
 */
export function assertTyped(ref: string, before: FieldState, after: FieldState, expected: string): void {
  if (after.value !== expected) throw inputNotApplied(ref, { ...after, secret: before.secret || after.secret }, expected, after.value);
}

/** innerText of an editing host, compared loosely: no-break spaces as spaces, no trailing line breaks. */
function editableText(text: string): string {
  return text.replace(/\u00a0/g, ' ').replace(/\r\n?/g, '\n').replace(/\n+$/, '');
}

/**
 * Enters `text` into the text field `handle` is through trusted input (keys go to `page`), then reads the field
 * back.
 * @param opts.clear  replace the current content (true) or add at its end (false).
 * @param opts.timeout  ms for each step.
 * @throws ToolError input_not_applied (the value did not stick),
 *   element_not_actionable (disabled, read-only); Playwright errors of the
 *   steps (the caller maps them with actionError).
 */
export async function typeText(page: Page, handle: ElementHandle<Element>, ref: string, text: string, opts: { clear: boolean; timeout: number }): Promise<void> {
  const { clear, timeout } = opts;
  const keyboard = page.keyboard;
  const before = await readField(handle, timeout);
  if (before.kind === 'none') {
    // Not a text field: Playwright's fill raises the matching error (or handles what it knows better).
    await handle.fill(text, { timeout });
    return;
  }
  if (before.kind === 'value') {
    if (clear) {
      await handle.fill(text, { timeout });
    } else {
      if (!(await raceTimeout(handle.isEditable(), playwrightTimeout(timeout)))) {
        throw new ToolError('element_not_actionable', `Could not type into ${ref}: it is disabled or read-only.`, 'Pick an enabled field in a fresh snapshot (get_page_context).');
      }
      await raceTimeout(handle.focus(), playwrightTimeout(timeout));
      await raceTimeout(keyboard.press(before.tag === 'textarea' ? 'ControlOrMeta+End' : 'End'), playwrightTimeout(timeout));
      if (text) await raceTimeout(keyboard.insertText(text), playwrightTimeout(timeout));
    }
    assertTyped(ref, before, await readField(handle, timeout), sanitized(clear ? text : before.value + text, before));
    return;
  }
  await raceTimeout(handle.evaluate((el, end) => (globalThis as unknown as ActionsRuntime).__tabwright.focusEditable(el, end), !clear), playwrightTimeout(timeout));
  if (clear && editableText(before.value) !== '') {
    await raceTimeout(keyboard.press('ControlOrMeta+A'), playwrightTimeout(timeout));
    await raceTimeout(keyboard.press('Delete'), playwrightTimeout(timeout));
  }
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) await raceTimeout(keyboard.press('Shift+Enter'), playwrightTimeout(timeout));
    if (lines[i]) await raceTimeout(keyboard.insertText(lines[i]!), playwrightTimeout(timeout));
  }
  const after = await readField(handle, timeout);
  const actual = editableText(after.value);
  const wanted = editableText(text);
  const stuck = clear ? actual === wanted : actual.endsWith(wanted);
  if (!stuck) throw inputNotApplied(ref, after, clear ? wanted : editableText(before.value) + wanted, actual);
}

/**
 * Sets a checkbox or radio through a real click (Playwright's setChecked);
 * "the click did not change its state" becomes input_not_applied.
 * @param timeout  ms.
 */
export async function setChecked(handle: ElementHandle<Element>, ref: string, checked: boolean, timeout: number): Promise<void> {
  try {
    await handle.setChecked(checked, { timeout });
  } catch (error) {
    if (classifyPlaywrightError(error).has('check_unchanged')) {
      throw new ToolError('input_not_applied', `Clicking ${ref} did not ${checked ? 'check' : 'uncheck'} it: the page keeps it ${checked ? 'unchecked' : 'checked'}.`, HINT);
    }
    throw error;
  }
  const now = await raceTimeout(handle.isChecked(), playwrightTimeout(timeout));
  if (now !== checked) {
    throw new ToolError('input_not_applied', `${ref} was ${checked ? 'checked' : 'unchecked'} but the page turned it back.`, HINT);
  }
}

/**
 * Selects options (Playwright's selectOption: the selection is set and
 * `input` / `change` are dispatched; frameworks track no select value, so
 * they accept it) and reads the selection back after the page's handlers
 * ran. Returns the selected option values.
 * @param timeout  ms.
 * @throws ToolError input_not_applied when the page changed the selection back.
 */
export async function selectOptions(handle: ElementHandle<Element>, ref: string, values: string[], timeout: number): Promise<string[]> {
  const selected = await handle.selectOption(values, { timeout });
  const now = await raceTimeout(handle.evaluate(el => {
    const select = (el.localName === 'label' ? (el as HTMLLabelElement).control : el) as HTMLSelectElement | null;
    return select?.selectedOptions ? Array.from(select.selectedOptions, o => o.value) : [];
  }), playwrightTimeout(timeout));
  if (JSON.stringify(now) !== JSON.stringify(selected)) {
    throw new ToolError('input_not_applied', `The options chosen in ${ref} did not stick: expected ${quote(selected.join(', '))}, now selected ${quote(now.join(', '))}.`, HINT);
  }
  return selected;
}
