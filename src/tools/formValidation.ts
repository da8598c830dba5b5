/**
 * A click on a form's submit control that the browser's constraint validation stopped (HTML, "Form submission
 * algorithm", interactive validation): the page changes nothing, so the action report would only say "Snapshot
 * unchanged". This names the fields that held the submit back (docs/actions.md, "Actions report what changed").
 */
import type { ResolvedRef } from '../session/refs.js';
import { raceTimeout } from '../util/wait.js';

/** A field constraint validation finds invalid: its label (or name) and the browser's message. */
export interface InvalidField {
  name: string;
  message: string;
}

/** Fields listed at most. */
const MAX_FIELDS = 8;

/**
 * The invalid fields of the form `el` submits, when `el` is a submit control of a form that validates (no
 * `novalidate`, no `formnovalidate`) and some field is invalid; else undefined. Reads `validity` (never
 * checkValidity(): that would fire the page's `invalid` handlers again). Never throws.
 */
export async function blockedSubmit(el: ResolvedRef): Promise<{ fields: InvalidField[]; total: number } | undefined> {
  // Bounded: a page held by a dialog or a busy script answers nothing, and the click's report is done already.
  return await raceTimeout(readBlockedSubmit(el), { ms: READ_MS, onTimeout: 'undefined' });
}

/** Longest wait for the form's state, in ms. */
const READ_MS = 1_000;

async function readBlockedSubmit(el: ResolvedRef): Promise<{ fields: InvalidField[]; total: number } | undefined> {
  return await el.frame.evaluate(([id, max]) => {
    const node = (globalThis as { __tabwright?: { byRef(id: string): Element | null } }).__tabwright?.byRef(id);
    const control = node as HTMLButtonElement | HTMLInputElement | null;
    if (!control || !('form' in control) || !control.form) return undefined;
    const isSubmit = control instanceof HTMLButtonElement ? control.type === 'submit' : control instanceof HTMLInputElement && (control.type === 'submit' || control.type === 'image');
    if (!isSubmit || control.form.noValidate || control.formNoValidate) return undefined;
    const invalid = [...control.form.elements].filter(e => (e as HTMLInputElement).willValidate && !(e as HTMLInputElement).validity.valid) as HTMLInputElement[];
    if (!invalid.length) return undefined;
    const fields = invalid.slice(0, max).map(f => ({
      name: (f.labels?.[0]?.textContent ?? f.getAttribute('aria-label') ?? f.name ?? f.id ?? f.tagName.toLowerCase()).trim().replace(/\s+/g, ' ').slice(0, 80),
      message: f.validationMessage.trim().replace(/\s+/g, ' ').slice(0, 160),
    }));
    return { fields, total: invalid.length };
  }, [el.id, MAX_FIELDS] as const).catch(() => undefined);
}

/** The report line: `The browser did not submit the form: 1 field is invalid: "Email" (Please fill out this field.).` */
export function blockedSubmitLine(blocked: { fields: InvalidField[]; total: number }): string {
  const list = blocked.fields.map(f => `${JSON.stringify(f.name)}${f.message ? ` (${f.message})` : ''}`).join('; ');
  const more = blocked.total > blocked.fields.length ? `; ${blocked.total - blocked.fields.length} more` : '';
  return `The browser did not submit the form: ${blocked.total === 1 ? '1 field is' : `${blocked.total} fields are`} invalid: ${list}${more}.`;
}
