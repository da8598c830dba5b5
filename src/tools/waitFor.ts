/**
 * `wait_for`: waits until one typed condition holds in a tab (docs/actions.md,
 * "Waiting for a condition"): text shown or gone, an element (by ref or a `find` query)
 * visible, hidden or enabled, the tab's URL matching a pattern, a request
 * matching a pattern completing, a load state, or a fixed time. The result
 * says which condition held and after how long; a timeout says what was
 * seen last.
 *
 * Text and queries are judged as `find` judges them (src/session/find.ts):
 * rendered elements only, across frames, so "shown" means what `find` and
 * the snapshot would show. The probes poll (every POLL_MS); a request is
 * awaited through Playwright's `requestfinished`/`requestfailed` events from
 * the moment the call starts.
 */
import * as z from 'zod';
import type { Frame, Request } from 'playwright-core';
import { findElements, type Found, type FindOutcome } from '../session/find.js';
import { goneError, resolveRef } from '../session/refs.js';
import type { Tab } from '../session/tab.js';
import type { Session } from '../session/session.js';
import { ToolError } from '../errors.js';
import { pollUntil, raceTimeout, sleep } from '../util/wait.js';
import { redactQuery, urlPattern } from '../util/urlPattern.js';
import { defineTabTool } from './define.js';
import { formatFound } from './find.js';
import { tabIdField } from './schemas.js';

/** Default and longest wait, in seconds. */
const WAIT_FOR_DEFAULT_SEC = 10;
const WAIT_FOR_MAX_SEC = 120;
/** Longest fixed wait (`timeSec`), in seconds. */
const WAIT_FOR_MAX_TIME_SEC = 60;
/** Pause between two probes of a polled condition, in ms. */
const POLL_MS = 100;

const STATES = ['visible', 'hidden', 'enabled'] as const;
export type State = (typeof STATES)[number];

const findQuery = z.object({
  text: z.string().min(1).max(1000).optional().describe('Text shown (substring, any case)'),
  role: z.string().min(1).max(40).optional().describe('Snapshot role: button, cell…'),
  name: z.string().min(1).max(1000).optional().describe('Accessible name (substring)'),
  selector: z.string().min(1).max(1000).optional().describe('CSS selector'),
  exact: z.boolean().optional().describe('text and name: whole, case-sensitive'),
});

const input = z.object({
  tabId: tabIdField,
  text: z.string().min(1).max(1000).optional().describe('Wait until this text is shown (state "hidden": until it is gone); substring, any case'),
  ref: z.string().min(1).max(64).optional().describe('Wait until this element is visible, hidden (gone counts) or enabled (state)'),
  find: findQuery.optional().describe('Wait until an element matching this find query is visible, hidden or enabled (state)'),
  within: z.string().min(1).max(64).optional().describe('text or find: look under this ref only (an iframe\'s: inside it)'),
  state: z.enum(STATES).optional().describe('For text, ref, find: default "visible"; text takes visible or hidden'),
  url: z.string().min(1).max(2000).optional().describe('Wait until the tab\'s URL matches: part of it, a glob ("**/done*") or /regex/'),
  request: z.string().min(1).max(2000).optional().describe('Wait until a request whose URL matches completes (part, glob or /regex/); counts from this call'),
  loadState: z.enum(['domcontentloaded', 'load', 'networkidle']).optional().describe('Wait for this load state of the tab\'s document'),
  timeSec: z.number().min(0).max(WAIT_FOR_MAX_TIME_SEC).optional().describe(`Wait this long, in seconds (at most ${WAIT_FOR_MAX_TIME_SEC})`),
  timeoutSec: z.number().min(0.1).max(WAIT_FOR_MAX_SEC).optional().describe(`Give up after this many seconds (default ${WAIT_FOR_DEFAULT_SEC})`),
});
export type Input = z.output<typeof input>;

/** The condition kinds, one of which a call names. */
const KINDS = ['text', 'ref', 'find', 'url', 'request', 'loadState', 'timeSec'] as const;
type Kind = (typeof KINDS)[number];

/** What held, for the result: what the text says held, what it found (after a colon) and the structured fields. */
export interface Held {
  said: string;
  detail?: string;
  fields: Record<string, unknown>;
}

/** The one condition `args` names. @throws ToolError invalid_arguments for none, several, or options that do not fit it. */
function kindOf(args: Input): Kind {
  const named = KINDS.filter(k => args[k] !== undefined);
  if (named.length !== 1) {
    throw new ToolError(
      'invalid_arguments',
      named.length ? `Name one condition per call, not ${named.join(' and ')}.` : 'Name a condition to wait for.',
      'One of: text, ref, find, url, request, loadState, timeSec; e.g. wait_for {text: "Order placed"} or wait_for {ref: "e12", state: "hidden"}. Call wait_for again for the next one.',
    );
  }
  const kind = named[0]!;
  if (args.state !== undefined && kind !== 'text' && kind !== 'ref' && kind !== 'find') {
    throw new ToolError('invalid_arguments', `state applies to text, ref and find, not ${kind}.`, 'Leave state out.');
  }
  if (args.state === 'enabled' && kind === 'text') {
    throw new ToolError('invalid_arguments', 'Text is visible or hidden, not enabled.', 'Wait for the element instead: wait_for {find: {text: "…"}, state: "enabled"}, or by its ref.');
  }
  if (args.within !== undefined && kind !== 'text' && kind !== 'find') {
    throw new ToolError('invalid_arguments', `within applies to text and find, not ${kind}.`, 'Leave within out.');
  }
  if (kind === 'find') {
    const q = args.find!;
    if (q.text === undefined && q.role === undefined && q.name === undefined && q.selector === undefined) {
      throw new ToolError('invalid_arguments', 'find names nothing to look for.', 'Give it text, role, name or selector, as the find tool takes them.');
    }
  }
  if (kind === 'url') urlPattern(args.url!, 'url');
  if (kind === 'request') urlPattern(args.request!, 'request');
  return kind;
}

/** Seconds, as a result says them: "1.2 s". */
export function secs(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** The refs a call names (its tab's, checked by defineTabTool): the element, else the scope. */
function refsOf(args: Input): string[] {
  return [args.ref, args.within].filter((r): r is string => r !== undefined);
}

/** What an element's state probe finds: gone, or whether it is visible and enabled. */
type ElementState = 'gone' | { visible: boolean; enabled: boolean };

/**
 * The state of the element `id` (a runtime id) of `frame`, read in one
 * evaluation: visible as Playwright means it (a non-empty box, not
 * visibility:hidden), enabled unless disabled (a fieldset's too) or
 * aria-disabled up its ancestors.
 */
async function elementState(frame: Frame, id: string): Promise<ElementState> {
  return await frame.evaluate(runtimeId => {
    const rt = (globalThis as { __tabwright?: { byRef(id: string): Element | null } }).__tabwright;
    const el = rt?.byRef(runtimeId);
    if (!el || !el.isConnected) return 'gone' as const;
    const rect = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    const visible = rect.width > 0 && rect.height > 0 && style.visibility !== 'hidden' && style.visibility !== 'collapse';
    const enabled = !el.matches(':disabled') && !el.closest('[aria-disabled="true"]');
    return { visible, enabled };
  }, id);
}

function stateHolds(state: State, seen: ElementState): boolean {
  if (seen === 'gone') return state === 'hidden';
  return state === 'hidden' ? !seen.visible : state === 'visible' ? seen.visible : seen.visible && seen.enabled;
}

function describeState(seen: ElementState): string {
  return seen === 'gone' ? 'gone from the page' : `${seen.visible ? 'visible' : 'hidden'} and ${seen.enabled ? 'enabled' : 'disabled'}`;
}

/** The context of a wait: what it reads and when it gives up. */
export interface Wait {
  session: Session;
  tab: Tab;
  timeoutMs: number;
  signal: AbortSignal;
  started: number;
}

/** A timeout that says what the wait was for and what it saw last. */
function notMet(w: Wait, what: string, lastSeen: string, details: Record<string, unknown>): ToolError {
  return new ToolError(
    'timeout',
    `Waited ${secs(w.timeoutMs)} for ${what} in tab ${w.tab.id}; it did not happen. Last seen: ${lastSeen}`,
    `Check the page (get_page_context) for why; raise timeoutSec (up to ${WAIT_FOR_MAX_SEC}) if it is only slow.`,
    { lastSeen: details },
  );
}

/** Waits for `ref` to reach `state`. @throws ToolError stale_ref (visible/enabled of an element whose document is gone), timeout. */
export async function waitForRef(w: Wait, ref: string, state: State): Promise<Held> {
  let resolved;
  try {
    resolved = await resolveRef(w.session, ref);
  } catch (error) {
    // Its document was replaced or the element removed: hidden holds; it cannot become visible again.
    if (state === 'hidden' && error instanceof ToolError && error.type === 'stale_ref') return { said: `${ref} is gone (its element left the page)`, fields: { ref, seen: 'gone' } };
    throw error;
  }
  let last: ElementState = 'gone';
  const held = await pollUntil(async () => {
    try {
      last = await elementState(resolved.frame, resolved.id);
    } catch {
      last = 'gone'; // the frame's document went away
    }
    if (last === 'gone' && state !== 'hidden') throw goneError(ref);
    return stateHolds(state, last);
  }, { ms: w.timeoutMs, intervalMs: POLL_MS, signal: w.signal });
  if (!held) throw notMet(w, `${ref} to be ${state}`, `${ref} was ${describeState(last)}.`, { ref, state: last });
  return { said: `${ref} is ${state === 'hidden' && last === 'gone' ? 'gone (its element left the page)' : state}`, fields: { ref, seen: last } };
}

/** The query of a text or find condition, in words and as find takes it. */
function queryOf(args: Input): { q: NonNullable<Input['find']>; label: string } {
  if (args.text !== undefined) return { q: { text: args.text }, label: `text ${JSON.stringify(args.text)}` };
  const q = args.find!;
  const parts: string[] = [];
  if (q.text !== undefined) parts.push(`${q.exact ? 'exact ' : ''}text ${JSON.stringify(q.text)}`);
  if (q.role !== undefined) parts.push(`role ${q.role}`);
  if (q.name !== undefined) parts.push(`${q.exact ? 'exact ' : ''}name ${JSON.stringify(q.name)}`);
  if (q.selector !== undefined) parts.push(`selector ${JSON.stringify(q.selector)}`);
  return { q, label: `an element with ${parts.join(', ')}` };
}

/** Waits until a text or find query matches (visible, enabled) or matches nothing (hidden). @throws ToolError timeout. */
export async function waitForMatch(w: Wait, args: Input, state: State): Promise<Held> {
  const { q, label } = queryOf(args);
  const where = args.within ? ` under ${args.within}` : '';
  let last: FindOutcome | undefined;
  let firstState: ElementState | undefined;
  const held = await pollUntil(async () => {
    try {
      last = await findElements(w.session, w.tab, { ...q, ref: args.within, limit: 1, timeoutMs: Math.min(5_000, w.timeoutMs) });
    } catch (error) {
      if (error instanceof ToolError && error.type !== 'timeout') throw error; // a stale scope ref, bad selector
      return false; // a document on its way out: the next probe reads the new one
    }
    if (state === 'hidden') return last.total === 0;
    if (!last.total) return false;
    if (state === 'visible') return true;
    const first = last.matches[0]!;
    try {
      const resolved = await resolveRef(w.session, first.ref);
      firstState = await elementState(resolved.frame, resolved.id);
    } catch {
      firstState = 'gone';
    }
    return stateHolds('enabled', firstState);
  }, { ms: w.timeoutMs, intervalMs: POLL_MS, signal: w.signal });
  const subject = `${label}${where}`;
  if (!held) {
    const seen = !last
      ? 'the page could not be searched.'
      : state === 'hidden'
        ? `${last.total} element${last.total === 1 ? '' : 's'} still matched, the first: ${formatFound(last.matches[0]!).slice(2)}`
        : last.total
          ? `it matched, but the first match was ${describeState(firstState ?? 'gone')}: ${formatFound(last.matches[0]!).slice(2)}`
          : `nothing matched${last.near.length ? `; elements that nearly did: ${last.near.slice(0, 8).map(f => formatFound(f).slice(2)).join('; ')}` : '.'}`;
    const goal = args.text !== undefined ? (state === 'hidden' ? `${subject} to be gone` : `${subject} to be shown`) : `${subject} to be ${state === 'hidden' ? 'gone or hidden' : state}`;
    throw notMet(w, goal, seen, { total: last?.total ?? 0, matches: last?.matches ?? [], near: last?.near.slice(0, 8) ?? [] });
  }
  const match: Found | undefined = state === 'hidden' ? undefined : last!.matches[0];
  const did = state === 'hidden' ? (args.text !== undefined ? 'is gone' : 'matches nothing shown') : args.text !== undefined ? 'is shown' : `is ${state}`;
  return {
    said: `${args.text !== undefined ? `Text ${JSON.stringify(args.text)}${where}` : `${label[0]!.toUpperCase()}${label.slice(1)}${where}`} ${did}`,
    ...(match ? { detail: formatFound(match).slice(2) } : {}),
    fields: match ? { match, total: last!.total } : { total: 0 },
  };
}

/** Waits until the tab's URL matches `pattern`. @throws ToolError timeout. */
export async function waitForUrl(w: Wait, pattern: string): Promise<Held> {
  const p = urlPattern(pattern, 'url');
  let last = w.tab.page.url();
  const held = await pollUntil(() => p.test((last = w.tab.page.url())), { ms: w.timeoutMs, intervalMs: POLL_MS, signal: w.signal });
  if (!held) throw notMet(w, `the ${p.label}`, `the URL was ${last}`, { url: last });
  return { said: `The URL matches the ${p.label}`, detail: last, fields: { url: last } };
}

/** Waits until a request of the tab whose URL matches `pattern` completes (finished or failed). @throws ToolError timeout. */
async function waitForRequest(w: Wait, pattern: string): Promise<Held> {
  const p = urlPattern(pattern, 'request');
  const page = w.tab.page;
  let others = 0;
  const recent: string[] = [];
  let onFinished!: (r: Request) => void;
  let onFailed!: (r: Request) => void;
  const done = new Promise<{ request: Request; failed?: string }>(resolve => {
    const seen = (request: Request, failed?: string) => {
      if (p.test(request.url())) return resolve({ request, ...(failed !== undefined ? { failed } : {}) });
      others++;
      recent.push(`${request.method()} ${redactQuery(request.url())}`);
      if (recent.length > 5) recent.shift();
    };
    onFinished = r => seen(r);
    onFailed = r => seen(r, r.failure()?.errorText ?? 'failed');
  });
  page.on('requestfinished', onFinished);
  page.on('requestfailed', onFailed);
  try {
    const got = await raceTimeout(done, { ms: w.timeoutMs, signal: w.signal, onTimeout: 'undefined' });
    if (!got) {
      throw notMet(w, `a request to a ${p.label} to complete`, others ? `${others} other request${others > 1 ? 's' : ''} completed, the last: ${recent.join('; ')}` : 'no request completed.', { otherRequests: others, recent });
    }
    const { request, failed } = got;
    const response = failed === undefined ? await request.response().catch(() => null) : null;
    const url = redactQuery(request.url());
    const fields = { request: { method: request.method(), url, resourceType: request.resourceType(), ...(response ? { status: response.status() } : {}), ...(failed !== undefined ? { failed } : {}) } };
    return { said: `A request to a ${p.label} ${failed !== undefined ? 'failed' : 'completed'}`, detail: `${request.method()} ${url} ${failed !== undefined ? `failed: ${failed}` : response ? `status ${response.status()}` : 'no response'}`, fields };
  } finally {
    page.off('requestfinished', onFinished);
    page.off('requestfailed', onFailed);
  }
}

/** Waits for the load state. @throws ToolError timeout. */
async function waitForLoadState(w: Wait, state: 'domcontentloaded' | 'load' | 'networkidle'): Promise<Held> {
  try {
    await raceTimeout(w.tab.page.waitForLoadState(state, { timeout: w.timeoutMs }), { ms: w.timeoutMs + 1_000, signal: w.signal, onTimeout: 'undefined' });
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') {
      throw notMet(w, `load state ${state}`, `the document at ${w.tab.page.url()} had not reached it.`, { url: w.tab.page.url() });
    }
    throw error;
  }
  return { said: `The document reached load state ${state}`, detail: w.tab.page.url(), fields: { url: w.tab.page.url() } };
}

export const waitFor = defineTabTool({
  name: 'wait_for',
  title: 'Wait for a condition',
  description:
    'Wait until one condition holds in a tab: text shown (or gone: state "hidden"); an element by ref or find query visible, hidden or enabled; ' +
    'the URL matching; a request completing; a load state; or timeSec seconds. Says which held and after how long; on timeout, what it saw last.',
  needs: ['snapshot'],
  effect: 'observe',
  launchesBrowser: true,
  target: 'refs',
  refs: refsOf,
  input,
  check(args) {
    kindOf(args);
  },
  async handle(tab, args, ctx, res) {
    const kind = kindOf(args);
    const timeoutMs = Math.round((args.timeoutSec ?? WAIT_FOR_DEFAULT_SEC) * 1000);
    // A page that crashes or closes ends the wait at once (page_crashed, tab_not_found: src/tools/define.ts), not at
    // its timeout.
    const signal = AbortSignal.any([ctx.signal, tab.crashSignal, tab.closeSignal]);
    const w: Wait = { session: ctx.session, tab, timeoutMs, signal, started: Date.now() };
    const state: State = args.state ?? 'visible';
    let held: Held;
    switch (kind) {
      case 'text':
      case 'find':
        held = await waitForMatch(w, args, state);
        break;
      case 'ref':
        held = await waitForRef(w, args.ref!, state);
        break;
      case 'url':
        held = await waitForUrl(w, args.url!);
        break;
      case 'request':
        held = await waitForRequest(w, args.request!);
        break;
      case 'loadState':
        held = await waitForLoadState(w, args.loadState!);
        break;
      case 'timeSec':
        await sleep(args.timeSec! * 1000, signal);
        held = { said: `Waited ${secs(args.timeSec! * 1000)}`, fields: {} };
        break;
    }
    const afterMs = Date.now() - w.started;
    res.merge({ tabId: tab.id, held: kind, afterMs, ...held.fields });
    const when = kind === 'timeSec' ? ` (tab ${tab.id})` : ` after ${secs(afterMs)} (tab ${tab.id})`;
    res.text(`${held.said}${when}${held.detail !== undefined ? `: ${held.detail}` : '.'}`);
  },
});
