// Call budgets (docs/policy.md, "Call budgets"): --max-calls caps a session's successful calls and the calendar
// day's (local midnight), the day counted in <data dir>/call-budget.db across processes and restarts. A failed
// call gives its slot back; get_bridge_status is never counted nor refused. Unit tests on CallBudget with a clock
// of their own, then the server: the session cap, the day cap a second session meets, and the status.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CallBudget, localDay, nextLocalMidnight } from '../../src/dispatch/callBudget.js';
import { ToolError } from '../../src/errors.js';
import { resolveConfig } from '../../src/config.js';
import { useSession } from '../fixtures/harness.js';
import { call, callError, callRaw } from '../fixtures/mcp.js';

/** The error a take must throw. */
function refusal(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ToolError);
    return error;
  }
  assert.fail('the budget did not refuse');
}

describe('CallBudget', () => {
  test('the session cap counts successes; a failure gives its slot back; get_bridge_status is free', () => {
    const budget = new CallBudget({ session: 2 }, mkdtempSync(join(tmpdir(), 'tw-budget-')));
    budget.take('navigate', undefined).end(true);
    budget.take('click', undefined).end(false); // failed: given back
    budget.take('click', undefined).end(true);
    for (let i = 0; i < 3; i++) budget.take('get_bridge_status', undefined).end(true);
    const error = refusal(() => budget.take('navigate', undefined));
    assert.equal(error.type, 'call_budget_exceeded');
    assert.deepEqual(error.details, { used: 2, limit: 2, scope: 'session' });
    // Another session has its own count; an ended session starts over.
    budget.take('navigate', 'other').end(true);
    assert.deepEqual(budget.status(undefined), { session: { used: 2, limit: 2 } });
    budget.endSession('other');
    assert.deepEqual(budget.status('other'), { session: { used: 0, limit: 2 } });
  });

  test('calls in flight hold their slots: parallel calls never overshoot', () => {
    const budget = new CallBudget({ session: 2, day: 2 }, mkdtempSync(join(tmpdir(), 'tw-budget-')));
    const a = budget.take('click', undefined);
    const b = budget.take('click', undefined);
    assert.equal(refusal(() => budget.take('click', undefined)).type, 'call_budget_exceeded');
    a.end(false);
    b.end(true);
    budget.take('click', undefined).end(true);
    assert.deepEqual(budget.status(undefined)?.session, { used: 2, limit: 2 });
  });

  test('the day count is persisted, shared by processes of the data dir, and resets at local midnight', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tw-budget-'));
    let now = new Date(2030, 4, 17, 23, 58);
    const clock = () => now;
    const first = new CallBudget({ day: 3 }, dir, clock);
    first.take('navigate', undefined).end(true);
    first.take('navigate', undefined).end(true);
    first.close();
    assert.ok(existsSync(join(dir, 'call-budget.db')));
    // A restart (or another process) reads the same count.
    const second = new CallBudget({ day: 3 }, dir, clock);
    const third = new CallBudget({ day: 3 }, dir, clock);
    second.take('click', undefined).end(true);
    const error = refusal(() => third.take('click', undefined));
    const resetsAt = new Date(2030, 4, 18).toISOString();
    assert.deepEqual(error.details, { used: 3, limit: 3, scope: 'day', resetsAt });
    assert.match(error.message, new RegExp(`resets at ${resetsAt.replace(/[.]/g, '\\.')}`));
    assert.deepEqual(third.status(undefined), { day: { used: 3, limit: 3, resetsAt } });
    // After local midnight the day starts over.
    now = new Date(2030, 4, 18, 0, 0, 1);
    third.take('click', undefined).end(true);
    assert.deepEqual(second.status(undefined)?.day, { used: 1, limit: 3, resetsAt: new Date(2030, 4, 19).toISOString() });
    second.close();
    third.close();
  });

  test('local day and midnight', () => {
    assert.equal(localDay(new Date(2030, 0, 5, 13)), '2030-01-05');
    assert.equal(nextLocalMidnight(new Date(2030, 11, 31, 23, 59)), new Date(2031, 0, 1).toISOString());
  });

  test('--max-calls caps both scopes; --max-calls-per-day the day alone; bad values are usage errors', () => {
    assert.deepEqual(resolveConfig({ maxCalls: '5' }, {}).budget, { session: 5, day: 5 });
    assert.deepEqual(resolveConfig({ maxCalls: '5', maxCallsPerDay: '50' }, {}).budget, { session: 5, day: 50 });
    assert.deepEqual(resolveConfig({}, { TABWRIGHT_MAX_CALLS_PER_DAY: '7' }).budget, { session: undefined, day: 7 });
    assert.deepEqual(resolveConfig({}, { TABWRIGHT_MAX_CALLS: '9' }).budget, { session: 9, day: 9 });
    assert.deepEqual(resolveConfig({}, {}).budget, { session: undefined, day: undefined });
    for (const bad of ['0', '-1', '1.5', 'x']) {
      assert.throws(() => resolveConfig({ maxCalls: bad }, {}), (e: ToolError) => e.type === 'invalid_arguments');
    }
  });
});

describe('a server with --max-calls 2', { concurrency: false }, () => {
  const tw = useSession({ args: ['--max-calls', '2'], pages: { '/a': '<!doctype html><title>A</title>' } });

  test('the third successful call of a session is refused; failed calls and get_bridge_status do not count', async () => {
    await call(tw.client, 'navigate', { url: `${tw.origin}/a` });
    assert.equal((await callError(tw.client, 'navigate', { url: 'not a url' })).type, 'invalid_arguments');
    await call(tw.client, 'list_tabs');
    await call(tw.client, 'get_bridge_status');
    const raw = await callRaw(tw.client, 'navigate', { url: `${tw.origin}/a` });
    assert.equal(raw.isError, true);
    const sc = raw.structuredContent as { error: { type: string }; used: number; limit: number; scope: string };
    assert.deepEqual([sc.error.type, sc.used, sc.limit, sc.scope], ['call_budget_exceeded', 2, 2, 'session']);
    assert.match(raw.content[0]!.text!, /^Error \[call_budget_exceeded\]: This session used its 2 tool calls \(--max-calls 2\)\.\nHint: Stop and report/);
    const status = await call<{ budget: { session: unknown; day: { used: number; limit: number; resetsAt: string } } }>(tw.client, 'get_bridge_status');
    assert.deepEqual(status.budget.session, { used: 2, limit: 2 });
    assert.deepEqual(status.budget.day, { used: 2, limit: 2, resetsAt: nextLocalMidnight(new Date()) });
    assert.match((await callRaw(tw.client, 'get_bridge_status')).content[0]!.text!, /Call budget: 2 of 2 this session, 2 of 2 today \(resets .*\); get_bridge_status is not counted\./);
  });

  test('a new session meets the day cap the first one used up', async () => {
    const sc = (await callRaw(tw.client, 'list_tabs')).structuredContent as { error: { type: string }; used: number; limit: number; scope: string; resetsAt: string };
    assert.deepEqual([sc.error.type, sc.used, sc.limit, sc.scope, sc.resetsAt], ['call_budget_exceeded', 2, 2, 'day', nextLocalMidnight(new Date())]);
    const status = await call<{ budget: unknown }>(tw.client, 'get_bridge_status');
    assert.deepEqual(status.budget, { session: { used: 0, limit: 2 }, day: { used: 2, limit: 2, resetsAt: nextLocalMidnight(new Date()) } });
  });
});
