// Chaos in the middle of calls (docs/reliability.md, "Chaos"): for each tool kind that waits on a page
// (./chaosKinds.ts), a call really in progress when a fault lands:
// - the managed browser's process SIGKILLed: the call answers browser_disconnected (docs/errors.md) well before its
//   own timeout, and the next call works on a fresh browser;
// - the victim tab closed by its opener (`w.close()` on a timer, the victim being the opener's popup; the opener on
//   another site, so in a renderer of its own): the call answers tab_not_found well before its own timeout, list_tabs
//   no longer lists the victim, and a call on another tab works. Not on a busy page (see `closable`).
// The browser is found by a switch only this file's browser carries, as in test/tools/browserKilled.test.ts.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { until, useServer } from '../fixtures/harness.js';
import { call, callRaw, unlessConnection, type RawResult, type ToolClient } from '../fixtures/mcp.js';
import { isAlive, processesWith } from '../fixtures/processes.js';
import { record } from './fuzz.js';
import { CALL_TIMEOUT_MS, KINDS, releaseHeld, serveChaosPages, type ChaosKind } from './chaosKinds.js';

const MARKER = `--tabwright-test-marker=${randomUUID()}`;
/** A fault's answer must come within this (ms after the fault; the call's own limit is CALL_TIMEOUT_MS). */
const BOUND_MS = 15_000;
/** When the fault lands, ms after the call started. */
const FAULT_AT_MS = 1000;
/**
 * How much later than FAULT_AT_MS the opener's timer closes the tab: its clock starts a moment before the call's, so
 * without it the close could end the call before midCall looks. Answer times of the close count it in (up to this more).
 */
const CLOSE_LAG_MS = 250;

// The held responses end before the site closes (hooks run in the order they were registered).
after(releaseHeld);
// opener.test is 127.0.0.1 too (the last --host-resolver-rules wins over the suite's, which it repeats): another site.
const tw = useServer({ args: ['--browser-arg', MARKER, '--browser-arg', '--host-resolver-rules=MAP opener.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', '--auto-allow'], setup: t => serveChaosPages(t.site) });

const launchOnly = unlessConnection(['cdp', 'playwright-server', 'own-chrome', 'extension'], 'a browser tabwright did not launch is not its to kill, nor its popups to script');

/** The browser's own process: not the server, nor the browser's renderers, GPU or utility processes (--type=). */
function browserProcess(): number | undefined {
  return processesWith(MARKER).find(p => /chrom/i.test(p.args.split(' ')[0]!) && !p.args.includes('--type='))?.pid;
}

interface Outcome { tool: string; type?: string; ms: number; broke?: string }

/** The error of a result, or undefined for a success. */
function errorOf(result: RawResult): { type: string; message: string; hint: string } | undefined {
  return result.isError ? (result.structuredContent as { error: { type: string; message: string; hint: string } }).error : undefined;
}

/**
 * Runs the call and lands `fault` FAULT_AT_MS after it started (a fault of the page's own, set to land then: pass
 * nothing); what came back, how long after the fault (ms), and whether it came before.
 */
async function midCall(client: ToolClient, tool: string, args: Record<string, unknown>, fault: () => void = () => undefined): Promise<{ result: RawResult; ms: number; early: boolean }> {
  let settled = false;
  const pending = callRaw(client, tool, args).finally(() => { settled = true; });
  await sleep(FAULT_AT_MS);
  const early = settled;
  const faultAt = Date.now();
  fault();
  const result = await pending;
  return { result, ms: Date.now() - faultAt, early };
}

/** What broke the promise for an answer to a fault, or undefined. */
function judge(result: RawResult, ms: number, early: boolean, expected: string): string | undefined {
  const error = errorOf(result);
  if (early) return `answered before the fault landed (${error ? error.type : 'success'})`;
  if (!error) return `succeeded: ${JSON.stringify(result.structuredContent).slice(0, 300)}`;
  if (error.type !== expected) return `${error.type} (${error.message}) instead of ${expected}`;
  if (!error.hint) return 'no hint';
  if (ms > BOUND_MS) return `answered after ${ms} ms`;
  return undefined;
}

/** What broke the promise for a call that answers a closed tab with a success saying so (ChaosKind.onClose). */
function judgeClosedAnswer(result: RawResult, ms: number, early: boolean): string | undefined {
  const fields = result.structuredContent as { tabClosed?: boolean; result?: unknown } | undefined;
  if (early) return 'answered before the fault landed';
  if (result.isError || fields?.tabClosed !== true || fields.result != null) return `not a success with tabClosed and no result: ${JSON.stringify(fields).slice(0, 300)}`;
  if (ms > BOUND_MS) return `answered after ${ms} ms`;
  return undefined;
}

function summary(outcomes: Outcome[]): { failures: number; notes: Record<string, number | string> } {
  const broken = outcomes.filter(o => o.broke);
  return {
    failures: broken.length,
    notes: {
      kinds: outcomes.length,
      // Typed: an error type other than internal, or the success a kind answers instead (ChaosKind.onClose).
      typed: outcomes.filter(o => o.type && o.type !== 'internal').length,
      maxAnswerMs: Math.max(...outcomes.map(o => o.ms)),
      medianAnswerMs: [...outcomes.map(o => o.ms)].sort((a, b) => a - b)[Math.floor(outcomes.length / 2)]!,
      ...(broken.length ? { broken: broken.map(o => `${o.tool}: ${o.broke}`).join('; ') } : {}),
    },
  };
}

/**
 * The kinds of each round of the kill test: one call of each on a tab of its own, all in flight when the browser dies;
 * five at most (more, and the last ones had not reached their tab when it died on this two-core machine), the
 * busy-page reads in a round of their own.
 */
const ROUNDS = [KINDS.filter(k => !k.busy).slice(0, 5), KINDS.filter(k => !k.busy).slice(5), KINDS.filter(k => k.busy)];

test('the browser SIGKILLed in the middle of each kind of call: browser_disconnected at once, and the next call works on a fresh browser', launchOnly, async () => {
  const started = Date.now();
  const outcomes: Outcome[] = [];
  for (const kinds of ROUNDS) {
    // Each call on a tab of its own (calls on one tab would queue on its lock): readied first, the busy loops last.
    const calls: Array<{ kind: ChaosKind; args: Record<string, unknown> }> = [];
    for (const kind of kinds) {
      const { tabId } = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${tw.origin}${kind.path}` });
      calls.push({ kind, args: await kind.prepare(tw.client, tabId, tw.origin) });
    }
    const pid = browserProcess();
    assert.ok(pid, 'the browser process, by its marker');
    const answers = await Promise.all(calls.map(({ kind, args }) => midCall(tw.client, kind.tool, args, () => {
      if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    })));
    await until(`browser ${pid} to exit`, () => !isAlive(pid), 10_000);
    const next = await callRaw(tw.client, 'navigate', { url: `${tw.origin}/idle` });
    const fresh = browserProcess();
    answers.forEach(({ result, ms, early }, i) => {
      let broke = judge(result, ms, early, 'browser_disconnected');
      if (!broke && !/The browser tabwright launched went away during the call/.test(errorOf(result)!.message)) broke = `message: ${errorOf(result)!.message}`;
      if (!broke && next.isError) broke = `the next call failed: ${JSON.stringify(next.structuredContent)}`;
      if (!broke && (fresh === undefined || fresh === pid)) broke = 'no fresh browser';
      outcomes.push({ tool: calls[i]!.kind.tool, type: errorOf(result)?.type, ms, broke });
    });
  }
  const { failures, notes } = summary(outcomes);
  record({
    target: 'chaos-browser-killed',
    what: `The launched browser's process SIGKILLed ${FAULT_AT_MS} ms into calls of each kind that waits on a page (${KINDS.map(k => k.tool).join(', ')}; in ${ROUNDS.length} rounds, one call of each kind in flight on a tab of its own, the busy-page reads in a round of their own): each call answers browser_disconnected with a hint within ${BOUND_MS / 1000} s (their own limit is ${CALL_TIMEOUT_MS / 1000} s), and the next call works on a fresh browser`,
    kind: 'chaos',
    inputs: outcomes.length,
    failures,
    ms: Date.now() - started,
    notes: { kills: ROUNDS.length, ...notes },
    at: new Date().toISOString(),
  });
  assert.equal(failures, 0, `faults not answered typed and bounded, or whose next call failed:\n${outcomes.filter(o => o.broke).map(o => `${o.tool}: ${o.broke}`).join('\n')}`);
});

interface TabRow { tabId: number; url: string; openerTabId?: number }

/** Opens `path` as a popup of the opener tab and returns the popup's tabId. */
async function popup(openerTabId: number, url: string): Promise<number> {
  await call(tw.client, 'execute', { tabId: openerTabId, code: `window.victim = window.open(${JSON.stringify(url)}); return 1` });
  return await until(`a popup at ${url}`, async () => {
    const { tabs } = await call<{ tabs: TabRow[] }>(tw.client, 'list_tabs');
    return tabs.find(t => t.url === url && t.openerTabId === openerTabId)?.tabId;
  }, 10_000);
}

/**
 * The kinds the close is tried on: not the busy-page reads. A close does not land while the popup's main thread runs
 * a loop (closing needs that thread): the opener's `w.close()` runs at once and `w.closed` is true, but the tab stays
 * until tabwright stops the stuck script, so such a call answers as on any stuck page (timeout, the script stopped,
 * at its deadline: about 18 s for get_page_context in a trial), and the tab leaves list_tabs just after.
 */
const closable = (kind: ChaosKind) => !kind.busy;

test('the tab closed by its opener in the middle of each kind of call: tab_not_found at once, the tab is gone from list_tabs, and a call on another tab works', launchOnly, async () => {
  const started = Date.now();
  const outcomes: Outcome[] = [];
  // The opener on another site (opener.test, mapped to 127.0.0.1): its own renderer process, so its timer fires while the
  // victim's main thread is busy.
  const openerOrigin = tw.origin.replace('127.0.0.1', 'opener.test');
  const { tabId: opener } = await call<{ tabId: number }>(tw.client, 'open_tab', { url: `${openerOrigin}/opener` });
  for (const kind of KINDS.filter(closable)) {
    const victim = await popup(opener, `${tw.origin}${kind.path}`);
    const args = await kind.prepare(tw.client, victim, tw.origin);
    // Set just before the call starts, to land CLOSE_LAG_MS after midCall looks whether the call is still running.
    await call(tw.client, 'execute', { tabId: opener, code: `setTimeout(() => window.victim.close(), ${FAULT_AT_MS + CLOSE_LAG_MS}); return 1` });
    const { result, ms, early } = await midCall(tw.client, kind.tool, args);
    // On a loaded machine the action can finish just before the close lands: a success that says the tab closed
    // during it (tabClosed) is as true and as bounded an answer as tab_not_found.
    const finishedFirst = !kind.onClose && !early && !result.isError && (result.structuredContent as { tabClosed?: boolean } | undefined)?.tabClosed === true && ms <= BOUND_MS;
    let broke = kind.onClose ? judgeClosedAnswer(result, ms, early) : finishedFirst ? undefined : judge(result, ms, early, 'tab_not_found');
    const { tabs } = await call<{ tabs: TabRow[] }>(tw.client, 'list_tabs');
    if (!broke && tabs.some(t => t.tabId === victim)) broke = 'list_tabs still lists the closed tab';
    const next = await callRaw(tw.client, 'get_page_context', { tabId: opener, output: 'inline' });
    if (!broke && next.isError) broke = `the next call failed: ${JSON.stringify(next.structuredContent)}`;
    outcomes.push({ tool: kind.tool, type: errorOf(result)?.type ?? (kind.onClose ? kind.onClose.answer : finishedFirst ? 'tabClosed' : undefined), ms, broke });
  }
  const { failures, notes } = summary(outcomes);
  record({
    target: 'chaos-tab-closed',
    what: `A popup closed by its opener (\`w.close()\` on a timer) ${FAULT_AT_MS} ms into a call on it of each kind that waits on the page (${KINDS.filter(closable).map(k => k.tool).join(', ')}): tab_not_found with a hint within ${BOUND_MS / 1000} s, or a success that says the tab closed during the action when the action finished just before the close (call_webmcp_tool: tabClosed with no result, as for a tool that closes its own window), list_tabs no longer lists it, and a call on another tab works`,
    kind: 'chaos',
    inputs: outcomes.length,
    failures,
    ms: Date.now() - started,
    notes,
    at: new Date().toISOString(),
  });
  assert.equal(failures, 0, `faults not answered typed and bounded, or whose next call failed:\n${outcomes.filter(o => o.broke).map(o => `${o.tool}: ${o.broke}`).join('\n')}`);
});
