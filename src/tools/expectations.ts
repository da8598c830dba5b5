/**
 * Verified actions (docs/actions.md, "Verified actions"): after a page-changing tool did its action, the
 * postconditions of its `expect` input (./expectSchema.ts) are awaited together, within `timeoutSec`, with the
 * probes of wait_for (./waitFor.ts). The outcome is one of
 * - `verified`: every condition held;
 * - `failed`: the bound passed and a condition did not hold (the result says what was seen instead);
 * - `indeterminate`: a condition could not be judged (the tab closed, a dialog blocks the page, the browser went).
 * The action has happened in every case: a failed or indeterminate check is an error (`expectation_failed`,
 * `expectation_indeterminate`) that keeps the action's own report and says so.
 */
import type { Frame } from 'playwright-core';
import { ToolError } from '../errors.js';
import { resolveRef } from '../session/refs.js';
import type { Tab } from '../session/tab.js';
import { pollUntil } from '../util/wait.js';
import type { CallContext } from './context.js';
import { EXPECT_DEFAULT_SEC, kindsOf, type ExpectKind, type Expectations } from './expectSchema.js';
import type { InvalidField } from './formValidation.js';
import type { ToolResponse } from './response.js';
import { secs, waitForMatch, waitForRef, waitForUrl, type Held, type Input as WaitInput, type Wait } from './waitFor.js';

/** How one postcondition came out. */
export interface ConditionOutcome {
  kind: ExpectKind;
  status: 'held' | 'failed' | 'indeterminate';
  /** What held, or what was seen instead, in words. */
  said: string;
}

/** The verification of an action, as a result carries it (`verification`). */
export interface Verification {
  status: 'verified' | 'failed' | 'indeterminate';
  afterMs: number;
  conditions: ConditionOutcome[];
}


/** The fields `frame` shows invalid (at most 8): `:user-invalid` (the browser's own judgement once the person acted) or aria-invalid. */
async function invalidFields(frame: Frame): Promise<InvalidField[]> {
  return await frame.evaluate(() => {
    const out: Array<{ name: string; message: string }> = [];
    for (const el of document.querySelectorAll(':user-invalid, [aria-invalid="true"]')) {
      const rect = el.getBoundingClientRect();
      if (!rect.width || !rect.height || getComputedStyle(el).visibility === 'hidden') continue;
      const field = el as HTMLInputElement;
      const label = field.labels?.[0]?.textContent ?? el.getAttribute('aria-label') ?? field.name ?? el.id ?? el.tagName.toLowerCase();
      const described = el.getAttribute('aria-errormessage') ?? el.getAttribute('aria-describedby');
      const message = field.validationMessage || (described ? document.getElementById(described.split(/\s+/)[0]!)?.textContent ?? '' : '');
      out.push({ name: label.trim().replace(/\s+/g, ' ').slice(0, 80), message: message.trim().replace(/\s+/g, ' ').slice(0, 160) });
      if (out.length >= 8) break;
    }
    return out;
  });
}

/** Waits until no frame of the tab shows an invalid field. @throws ToolError timeout (with the fields seen). */
async function waitForNoInvalidField(w: Wait): Promise<Held> {
  let seen: InvalidField[] = [];
  const held = await pollUntil(async () => {
    const perFrame = await Promise.all(w.tab.page.frames().map(f => invalidFields(f).catch(() => [] as InvalidField[])));
    seen = perFrame.flat().slice(0, 8);
    return seen.length === 0;
  }, { ms: w.timeoutMs, intervalMs: 100, signal: w.signal });
  if (!held) {
    const list = seen.map(f => `${JSON.stringify(f.name)}${f.message ? ` (${f.message})` : ''}`).join('; ');
    throw new ToolError('timeout', `invalid field${seen.length === 1 ? '' : 's'} shown: ${list}`, '', { invalid: seen });
  }
  return { said: 'no field is shown invalid', fields: {} };
}

/** Waits until the field of `ref` holds exactly `equals`. The values are never echoed (they may be secrets). */
async function waitForValue(w: Wait, ref: string, equals: string): Promise<Held> {
  const resolved = await resolveRef(w.session, ref);
  let seen: string | null = null;
  const held = await pollUntil(async () => {
    seen = await resolved.frame.evaluate(id => {
      const el = (globalThis as { __tabwright?: { byRef(id: string): Element | null } }).__tabwright?.byRef(id);
      if (!el) return null;
      return 'value' in el ? String((el as HTMLInputElement).value) : (el as HTMLElement).isContentEditable ? (el as HTMLElement).innerText : null;
    }, resolved.id).catch(() => null);
    return seen === equals;
  }, { ms: w.timeoutMs, intervalMs: 100, signal: w.signal });
  if (!held) {
    const what = seen === null ? `${ref} is not a field with a value (or left the page)` : `${ref} holds a different value (${(seen as string).length} characters)`;
    throw new ToolError('timeout', what, '');
  }
  return { said: `${ref} holds the expected value`, fields: {} };
}

/** Waits for one postcondition. @throws ToolError timeout (it did not hold), or what kept it from being judged. */
function waitForCondition(w: Wait, kind: ExpectKind, expect: Expectations): Promise<Held> {
  switch (kind) {
    case 'text': return waitForMatch(w, { text: expect.text } as WaitInput, 'visible');
    case 'textGone': return waitForMatch(w, { text: expect.textGone } as WaitInput, 'hidden');
    case 'url': return waitForUrl(w, expect.url!);
    case 'gone': return waitForRef(w, expect.gone!, 'hidden');
    case 'value': return waitForValue(w, expect.value!.ref, expect.value!.equals);
    case 'noValidationError': return waitForNoInvalidField(w);
  }
}

/** What a condition that did not hold saw instead: the part of a wait timeout after "Last seen: ", else its message. */
function seenOf(error: ToolError): string {
  const at = error.message.indexOf('Last seen: ');
  return at >= 0 ? error.message.slice(at + 'Last seen: '.length) : error.message;
}

/**
 * Awaits the postconditions of `expect` on `tab` after the action and reports the verification: a `verification`
 * field and a line of text when verified; else fails `res` (keeping the action's report) with expectation_failed or
 * expectation_indeterminate.
 */
export async function verifyExpectations(tab: Tab, expect: Expectations, ctx: CallContext, res: ToolResponse): Promise<void> {
  const timeoutMs = Math.round((expect.timeoutSec ?? EXPECT_DEFAULT_SEC) * 1000);
  const w: Wait = { session: ctx.session, tab, timeoutMs, signal: ctx.signal, started: Date.now() };
  const kinds = kindsOf(expect);
  const settled = await Promise.allSettled(kinds.map(kind => {
    if (tab.closed) return Promise.reject(new ToolError('tab_not_found', `tab ${tab.id} closed after the action`, ''));
    if (tab.dialogs.current) return Promise.reject(new ToolError('dialog_open', `the page waits for its ${tab.dialogs.current.type} dialog (handle_dialog answers it)`, ''));
    return waitForCondition(w, kind, expect);
  }));
  if (ctx.signal.aborted) throw new ToolError('cancelled', 'The call was cancelled while its postconditions were checked; the action itself was done.', 'Check the page (get_page_context) before acting again.');
  const conditions: ConditionOutcome[] = settled.map((s, i) => {
    const kind = kinds[i]!;
    if (s.status === 'fulfilled') return { kind, status: 'held', said: s.value.said };
    const error = s.reason instanceof ToolError ? s.reason : new ToolError('browser_error', String((s.reason as Error)?.message ?? s.reason).slice(0, 200), '');
    if (error.type === 'timeout') return { kind, status: 'failed', said: seenOf(error) };
    if (tab.closed) return { kind, status: 'indeterminate', said: `tab ${tab.id} closed after the action` };
    return { kind, status: 'indeterminate', said: error.message };
  });
  const status: Verification['status'] = conditions.every(c => c.status === 'held') ? 'verified' : conditions.some(c => c.status === 'failed') ? 'failed' : 'indeterminate';
  const verification: Verification = { status, afterMs: Date.now() - w.started, conditions };
  res.set('verification', verification);
  if (status === 'verified') {
    res.text(`Verified after ${secs(verification.afterMs)}: ${conditions.map(c => c.said).join('; ')}.`);
    return;
  }
  const lines = conditions.map(c => `${c.kind}: ${c.status === 'held' ? `held (${c.said})` : `${c.status === 'failed' ? `did not hold within ${secs(timeoutMs)}` : 'could not be judged'}: ${c.said}`}`);
  const revision = tab.closed ? '' : ` Tab ${tab.id} is at revision ${tab.revision}.`;
  res.fail(new ToolError(
    status === 'failed' ? 'expectation_failed' : 'expectation_indeterminate',
    `The action was done, but ${status === 'failed' ? 'its postconditions did not all hold' : 'its postconditions could not be judged'}: ${lines.join(' | ')}.${revision}`,
    'Do not repeat the action blindly (it went through): look at the page (get_page_context) to see what it did, then decide.',
    { verification },
  ), { keep: true });
}
