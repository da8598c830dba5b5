// The per-tab lock is taken on the tab a call acts on (docs/relay.md, "Per-tab serialization"):
// a call by ref without tabId locks the ref's own tab, not the active one. Two tabs, A active and B in the
// background: a slow execute by a ref in B and an execute naming B never overlap in B's page, and a call on A
// is not held by the call on B; an element tool (click by ref) takes the lock of the ref's tab too. The pages record what the calls do (/enter, /leave, /flag); the assertions
// read that record, not timings.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, connect, type Connected } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { refOf, snapshot } from '../fixtures/mcp.js';

let site: Site;
let server: Connected;
let tabA: number;
let tabB: number;
/** A ref in tab B. */
let refB: string;
/** What the calls did in the pages, in order: enter-<name>, leave-<name>. */
const marks: string[] = [];
/** Calls inside their page code now. */
let inside = 0;
let flag = false;
/** Whether some page asked for the flag since it was reset. */
let polled = false;

before(async () => {
  site = await startSite();
  site.page('/a', '<title>A</title><p>a</p>');
  site.page('/b', '<title>B</title><button onclick="fetch(\'/click\')">Go</button>');
  site.route('/click', (_req, res) => {
    marks.push('click');
    res.end('ok');
  });
  site.route('/enter', (req, res) => {
    inside++;
    marks.push(`enter-${new URL(req.url ?? '', site.origin).searchParams.get('x')}`);
    res.end('ok');
  });
  site.route('/leave', (req, res) => {
    inside--;
    marks.push(`leave-${new URL(req.url ?? '', site.origin).searchParams.get('x')}`);
    res.end('ok');
  });
  site.route('/inside', (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(inside));
  });
  site.route('/flag', (req, res) => {
    if (req.url?.includes('set=1')) flag = true;
    else polled = true;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ set: flag }));
  });
  server = await connect();
  tabA = (await call<{ tabId: number }>(server.client, 'navigate', { url: `${site.origin}/a` })).tabId;
  tabB = (await call<{ tabId: number }>(server.client, 'open_tab', { url: `${site.origin}/b`, background: true })).tabId;
  refB = refOf((await snapshot(server.client, { tabId: tabB })).snapshot, 'button', 'Go');
});

after(async () => {
  await server?.close();
  await site?.close();
});

/**
 * Page code that enters, waits until another call is inside its page code too (at most 800 ms, so calls that
 * run one after the other each wait it out), and leaves.
 */
function enterAndLeave(name: string): string {
  return `await fetch('/enter?x=${name}');
    for (let i = 0; i < 16; i++) { if ((await (await fetch('/inside')).json()) > 1) break; await new Promise(r => setTimeout(r, 50)); }
    await fetch('/leave?x=${name}'); return '${name}'`;
}

test('a call by ref without tabId and a call naming the ref\'s tab run one after the other, while another tab is active', async () => {
  const tabs = await call<{ tabs: Array<{ tabId: number; active: boolean }> }>(server.client, 'list_tabs');
  assert.deepEqual(tabs.tabs.map(t => [t.tabId, t.active]), [[tabA, true], [tabB, false]]);
  marks.length = 0;
  const [byRef, byTab] = await Promise.all([
    call<{ value: string; tabId: number }>(server.client, 'execute', { ref: refB, code: enterAndLeave('ref') }),
    call<{ value: string; tabId: number }>(server.client, 'execute', { tabId: tabB, code: enterAndLeave('tab') }),
  ]);
  assert.deepEqual([byRef.value, byRef.tabId, byTab.value, byTab.tabId], ['ref', tabB, 'tab', tabB]);
  const first = marks[0]!.slice('enter-'.length);
  const second = first === 'ref' ? 'tab' : 'ref';
  assert.deepEqual(marks, [`enter-${first}`, `leave-${first}`, `enter-${second}`, `leave-${second}`]);
});

test('a call on the active tab is not held by a call by ref on another tab', async () => {
  flag = false;
  polled = false;
  // The call on B returns once the call on A has run: were A locked by it, it would wait 10 s and say 'never'.
  const waiter = `for (let i = 0; i < 200; i++) { if ((await (await fetch('/flag')).json()).set) return 'saw'; await new Promise(r => setTimeout(r, 50)); } return 'never'`;
  const onB = call<{ value: string; tabId: number }>(server.client, 'execute', { ref: refB, code: waiter });
  // The call on A (no tabId: the active tab) goes out once the call on B runs in its page, so B's call holds its lock first.
  for (let i = 0; !polled && i < 500; i++) await new Promise(resolve => setTimeout(resolve, 20));
  assert.ok(polled, 'the call on B runs its page code');
  const onA = await call<{ value: string; tabId: number }>(server.client, 'execute', { code: `await fetch('/flag?set=1'); return 'set'` });
  const b = await onB;
  assert.deepEqual([b.value, b.tabId, onA.value, onA.tabId], ['saw', tabB, 'set', tabA]);
});

test('an element tool by ref waits for the call that holds its tab: click {ref} in B after execute {tabId: B}', async () => {
  marks.length = 0;
  const slow = `await fetch('/enter?x=exec'); await new Promise(r => setTimeout(r, 600)); await fetch('/leave?x=exec'); return 'exec'`;
  const exec = call<{ value: string }>(server.client, 'execute', { tabId: tabB, code: slow });
  for (let i = 0; !marks.includes('enter-exec') && i < 500; i++) await new Promise(resolve => setTimeout(resolve, 20));
  assert.ok(marks.includes('enter-exec'), 'the execute runs its page code');
  const click = call<{ tabId: number }>(server.client, 'click', { ref: refB });
  const [done, clicked] = await Promise.all([exec, click]);
  assert.deepEqual([done.value, clicked.tabId], ['exec', tabB]);
  for (let i = 0; !marks.includes('click') && i < 250; i++) await new Promise(resolve => setTimeout(resolve, 20));
  // Unlocked, the click would land while the execute sleeps: between its enter and its leave.
  assert.deepEqual(marks, ['enter-exec', 'leave-exec', 'click']);
});
