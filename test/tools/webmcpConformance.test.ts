// WebMCP conformance: the same page-level assertions on document.modelContext
// run against Chromium 156's native WebMCP (--webmcp native) and against
// tabwright's polyfill (--webmcp polyfill, the browser launched without the
// WebMCP feature), so parity with native is a test (docs/webmcp.md, "The polyfill").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, evaluate, unlessConnection } from '../fixtures/mcp.js';

const MODES = ['native', 'polyfill'] as const;

/** The polyfill half runs on the launch lane only: tabwright cannot switch off the native WebMCP of a browser it did not start. */
const skipPolyfill = (mode: (typeof MODES)[number]) =>
  mode === 'polyfill' ? unlessConnection(['cdp', 'playwright-server', 'own-chrome', 'extension'], 'tabwright cannot switch off the native WebMCP of a browser it did not start (docs/attach.md); the launch lane checks the polyfill') : {};

/** Runs on the page; every outcome is `{ ok }` (strings prefixed `str:`) or `{ err, reason }`. */
const PROBE = `(async () => {
  const mc = document.modelContext;
  const r = {};
  const reason = new Error('the caller gave up');
  const t = async f => { try { const v = await f(); return { ok: typeof v === 'string' ? 'str:' + v : v === undefined ? 'undefined' : v }; } catch (e) { return { err: e && e.name, reason: e === reason }; } };
  const timeout = p => Promise.race([p, new Promise(res => setTimeout(() => res('timeout'), 3000))]);
  const byName = async name => (await mc.getTools()).find(x => x.name === name);
  await mc.registerTool({ name: 'echo', description: 'Echoes its input', inputSchema: { type: 'object', properties: {} }, execute: input => ({ got: input }) });
  await mc.registerTool({ name: 'text', description: 'Returns a string', execute: () => 'plain "text"' });
  await mc.registerTool({ name: 'nothing', description: 'Returns undefined', execute: () => undefined });
  const echo = await byName('echo');
  // 1. input defaults to {}; an array is accepted as it is; null and primitives are refused.
  r.noInput = await t(() => mc.executeTool(echo));
  r.undefinedInput = await t(() => mc.executeTool(echo, undefined));
  r.arrayInput = await t(() => mc.executeTool(echo, [1, 2]));
  r.nullInput = await t(() => mc.executeTool(echo, null));
  r.numberInput = await t(() => mc.executeTool(echo, 5));
  // 2. a string result is returned as it is.
  r.stringResult = await t(async () => mc.executeTool(await byName('text'), {}));
  r.undefinedResult = await t(async () => mc.executeTool(await byName('nothing'), {}));
  // 3. aborting the caller's signal rejects with its reason; already aborted: the tool does not run.
  const log = { started: 0, aborted: 0 };
  await mc.registerTool({ name: 'wait', description: 'Never settles', execute: (input, client) => {
    log.started++;
    client.signal.addEventListener('abort', () => { log.aborted++; });
    return new Promise(() => {});
  } });
  const wait = await byName('wait');
  const ctl = new AbortController();
  const pending = t(() => mc.executeTool(wait, {}, { signal: ctl.signal }));
  await new Promise(res => setTimeout(res, 50));
  ctl.abort(reason);
  r.abortPending = await timeout(pending);
  await new Promise(res => setTimeout(res, 50));
  r.abortPendingLog = { ...log };
  const aborted = new AbortController();
  aborted.abort(reason);
  r.abortBefore = await timeout(t(() => mc.executeTool(wait, {}, { signal: aborted.signal })));
  r.abortBeforeStarted = log.started;
  // 4. registerTool with an already-aborted signal rejects with the reason and registers nothing.
  r.registerAborted = await t(() => mc.registerTool({ name: 'never', description: 'Not registered', execute: () => 1 }, { signal: aborted.signal }));
  r.registerAbortedListed = Boolean(await byName('never'));
  // 5. an inputSchema that is null, or serializes to undefined, is a TypeError.
  r.schemaNull = await t(() => mc.registerTool({ name: 's_null', description: 'd', inputSchema: null, execute: () => 1 }));
  r.schemaFunction = await t(() => mc.registerTool({ name: 's_fn', description: 'd', inputSchema: () => 1, execute: () => 1 }));
  r.schemaToJson = await t(() => mc.registerTool({ name: 's_tojson', description: 'd', inputSchema: { toJSON() { return undefined; } }, execute: () => 1 }));
  r.schemaNumber = await t(() => mc.registerTool({ name: 's_num', description: 'd', inputSchema: 5, execute: () => 1 }));
  r.schemaListed = (await mc.getTools()).filter(x => x.name.startsWith('s_')).length;
  // 6. a page listener stopping the abort event does not keep the tool registered.
  const reg = new AbortController();
  reg.signal.addEventListener('abort', event => event.stopImmediatePropagation());
  await mc.registerTool({ name: 'stopped', description: 'd', execute: () => 1 }, { signal: reg.signal });
  const before = Boolean(await byName('stopped'));
  reg.abort();
  await new Promise(res => setTimeout(res, 0));
  r.stoppedListed = [before, Boolean(await byName('stopped'))];
  // 7. annotations: all four booleans once given (truthiness), none when absent.
  await mc.registerTool({ name: 'ann_none', description: 'd', execute: () => 1 });
  await mc.registerTool({ name: 'ann_empty', description: 'd', annotations: {}, execute: () => 1 });
  await mc.registerTool({ name: 'ann_some', description: 'd', annotations: { readOnlyHint: true, consequentialHint: 0, debugging: 'yes' }, execute: () => 1 });
  r.annotations = Object.fromEntries((await mc.getTools()).filter(x => x.name.startsWith('ann_')).map(x => [x.name, 'annotations' in x ? x.annotations : 'absent']));
  r.toolKeys = Object.keys(await byName('ann_none')).sort();
  await mc.registerTool({ name: 'ann_null', description: 'd', annotations: null, execute: () => 1 });
  r.annotationsNull = (await byName('ann_null')).annotations ?? 'absent';
  // 8. concurrent calls: each caller's signal rejects its own call only; one signal shared by two calls rejects both.
  const seen = [];
  // Natively a tool's cancellation comes from the browser process, a task or more later: wait for the entry
  // expected last (at most 2 s), then a moment more for any that should not come.
  const logged = async last => {
    for (let i = 0; i < 100 && !seen.includes(last); i++) await new Promise(res => setTimeout(res, 20));
    await new Promise(res => setTimeout(res, 50));
  };
  await mc.registerTool({ name: 'hold', description: 'Never settles', execute: (input, client) => {
    seen.push('start ' + input.n);
    client.signal.addEventListener('abort', () => seen.push('abort ' + input.n));
    return new Promise(() => {});
  } });
  const hold = await byName('hold');
  const other = new Error('the other caller gave up');
  const c1 = new AbortController(), c2 = new AbortController();
  const p1 = t(() => mc.executeTool(hold, { n: 1 }, { signal: c1.signal }));
  const p2 = t(() => mc.executeTool(hold, { n: 2 }, { signal: c2.signal }));
  await logged('start 2');
  c1.abort(reason);
  r.concurrentFirst = await timeout(p1);
  await logged('abort 1');
  r.concurrentSecond = await Promise.race([p2, new Promise(res => setTimeout(() => res('pending'), 100))]);
  c2.abort(other);
  const second = await timeout(p2);
  r.concurrentSecondAborted = second.err === 'Error' && second.reason === false;
  await logged('abort 2');
  const c3 = new AbortController();
  const p3 = t(() => mc.executeTool(hold, { n: 3 }, { signal: c3.signal }));
  const p4 = t(() => mc.executeTool(hold, { n: 4 }, { signal: c3.signal }));
  await logged('start 4');
  c3.abort(reason);
  r.sharedSignal = [await timeout(p3), await timeout(p4)];
  await logged('abort 4');
  r.concurrentLog = seen.splice(0);
  // 9. re-entrant: a tool that awaits another call under the same caller signal. The abort rejects both; the
  //    outer tool's execute settles with it, so only the inner one is cancelled (its signal, toolcancel).
  const c5 = new AbortController();
  const onCancel = e => seen.push('toolcancel ' + e.toolName);
  mc.addEventListener('toolcancel', onCancel);
  await mc.registerTool({ name: 'outer', description: 'Calls hold', execute: async (input, client) => {
    client.signal.addEventListener('abort', () => seen.push('abort outer'));
    return await mc.executeTool(hold, { n: 5 }, { signal: c5.signal });
  } });
  const p5 = t(async () => mc.executeTool(await byName('outer'), {}, { signal: c5.signal }));
  await logged('start 5');
  c5.abort(reason);
  r.reentrant = await timeout(p5);
  await logged('toolcancel hold');
  mc.removeEventListener('toolcancel', onCancel);
  r.reentrantLog = seen.splice(0);
  // 10. a tool that unregisters itself while it runs still answers; so does one unregistered mid-call.
  const own = new AbortController();
  await mc.registerTool({ name: 'self_unreg', description: 'd', execute: () => { own.abort(); return 'done'; } }, { signal: own.signal });
  r.selfUnregister = await timeout(t(async () => mc.executeTool(await byName('self_unreg'), {})));
  r.selfUnregisterListed = Boolean(await byName('self_unreg'));
  const gone = new AbortController();
  let release;
  await mc.registerTool({ name: 'slow', description: 'd', execute: (input, client) => {
    client.signal.addEventListener('abort', () => seen.push('abort slow'));
    return new Promise(res => { release = res; });
  } }, { signal: gone.signal });
  const p6 = t(async () => mc.executeTool(await byName('slow'), {}));
  for (let i = 0; i < 100 && !release; i++) await new Promise(res => setTimeout(res, 20));
  gone.abort();
  await new Promise(res => setTimeout(res, 50));
  release('late');
  r.unregisterDuring = await timeout(p6);
  r.unregisterDuringLog = seen.splice(0);
  return r;
})()`;

const EXPECTED = {
  noInput: { ok: 'str:{"got":{}}' },
  undefinedInput: { ok: 'str:{"got":{}}' },
  arrayInput: { ok: 'str:{"got":[1,2]}' },
  nullInput: { err: 'TypeError', reason: false },
  numberInput: { err: 'TypeError', reason: false },
  stringResult: { ok: 'str:plain "text"' },
  undefinedResult: { ok: 'str:undefined' },
  abortPending: { err: 'Error', reason: true },
  abortPendingLog: { started: 1, aborted: 1 },
  abortBefore: { err: 'Error', reason: true },
  abortBeforeStarted: 1,
  registerAborted: { err: 'Error', reason: true },
  registerAbortedListed: false,
  schemaNull: { err: 'TypeError', reason: false },
  schemaFunction: { err: 'TypeError', reason: false },
  schemaToJson: { err: 'TypeError', reason: false },
  schemaNumber: { err: 'TypeError', reason: false },
  schemaListed: 0,
  stoppedListed: [true, false],
  annotations: {
    ann_empty: { consequentialHint: false, debugging: false, readOnlyHint: false, untrustedContentHint: false },
    ann_none: 'absent',
    ann_some: { consequentialHint: false, debugging: true, readOnlyHint: true, untrustedContentHint: false },
  },
  toolKeys: ['description', 'name', 'origin', 'title', 'window'],
  annotationsNull: { consequentialHint: false, debugging: false, readOnlyHint: false, untrustedContentHint: false },
  concurrentFirst: { err: 'Error', reason: true },
  concurrentSecond: 'pending',
  concurrentSecondAborted: true,
  sharedSignal: [{ err: 'Error', reason: true }, { err: 'Error', reason: true }],
  concurrentLog: ['start 1', 'start 2', 'abort 1', 'abort 2', 'start 3', 'start 4', 'abort 3', 'abort 4'],
  reentrant: { err: 'Error', reason: true },
  reentrantLog: ['start 5', 'abort 5', 'toolcancel hold'],
  selfUnregister: { ok: 'str:done' },
  selfUnregisterListed: false,
  unregisterDuring: { ok: 'str:late' },
  unregisterDuringLog: [],
};

/**
 * The interface (Chromium 156's WebIDL shape), when things settle (a task, never a microtask), the handler
 * attributes, toolactivated / toolcancel, and the WebIDL conversions of registerTool and executeTool.
 */
const INTERFACE_PROBE = `(async () => {
  const mc = document.modelContext;
  const r = {};
  const sleep = ms => new Promise(res => setTimeout(res, ms));
  const settle = () => sleep(100);
  const deep = (log, label) => Promise.resolve().then(() => Promise.resolve()).then(() => Promise.resolve()).then(() => log.push(label));
  const t = async f => { try { const v = await f(); return { ok: v === null ? null : typeof v === 'string' ? 'str:' + v : v === undefined ? 'undefined' : v }; } catch (e) { return { err: e && e.name + ': ' + e.message }; } };
  const byName = async name => (await mc.getTools()).find(x => x.name === name);
  // 1. interface shape
  const desc = Object.getOwnPropertyDescriptor(Document.prototype, 'modelContext');
  r.shape = {
    ctor: typeof window.ModelContext, ctorLength: ModelContext.length, ctorName: ModelContext.name, instance: mc instanceof ModelContext,
    windowProp: (d => d && [d.writable, d.enumerable, d.configurable])(Object.getOwnPropertyDescriptor(window, 'ModelContext')),
    construct: (() => { try { new ModelContext(); return 'constructed'; } catch (e) { return e.name + ': ' + e.message; } })(),
    docGetter: desc && [typeof desc.get, typeof desc.set, desc.enumerable, desc.configurable], ownOnDocument: Object.getOwnPropertyNames(document).includes('modelContext'),
    ownOnContext: Object.getOwnPropertyNames(mc), same: document.modelContext === mc,
    proto: Object.getOwnPropertyNames(ModelContext.prototype).filter(k => k !== 'unregisterTool'),
    enumerable: Object.keys(ModelContext.prototype).filter(k => k !== 'unregisterTool'),
    lengths: [mc.registerTool.length, mc.getTools.length, mc.executeTool.length],
    eventTarget: Object.getPrototypeOf(ModelContext.prototype) === EventTarget.prototype,
    handlers: [mc.ontoolchange, mc.ontoolactivated, mc.ontoolcancel],
    illegal: await t(() => ModelContext.prototype.getTools.call({})),
    events: ['ToolActivatedEvent', 'ToolCancelEvent'].map(n => [typeof window[n], window[n].name, Object.getPrototypeOf(window[n].prototype) === Event.prototype, Object.getOwnPropertyNames(window[n].prototype), new window[n]('x', { toolName: 'y' }).toolName, new window[n]('x').toolName]),
    submitEvent: [new SubmitEvent('submit').agentInvoked, (() => { try { new SubmitEvent('submit').respondWith(1); return 'ok'; } catch (e) { return e.name; } })()],
  };
  mc.ontoolchange = 5; const afterNumber = mc.ontoolchange;
  const obj = {}; mc.ontoolchange = obj; const afterObject = mc.ontoolchange === obj; mc.ontoolchange = null;
  r.handlerValues = [afterNumber, afterObject, mc.ontoolchange];
  // 2. timing: nothing settles in a microtask; ontoolchange runs where it was first set among the listeners
  let log = [];
  const A = () => log.push('A'), B = () => log.push('B');
  mc.addEventListener('toolchange', A);
  mc.ontoolchange = function (e) { log.push('handler:' + (this === mc) + ':' + e.type + ':' + arguments.length); };
  mc.addEventListener('toolchange', B);
  const p = mc.registerTool({ name: 'a', description: 'd', execute: () => { log.push('execute-a'); return 1; } });
  log.push('sync');
  p.then(() => log.push('resolved'));
  deep(log, 'microtasks');
  await p; await sleep(0);
  r.registerOrder = log; log = [];
  mc.ontoolchange = null; mc.ontoolchange = () => log.push('handler2');
  await mc.registerTool({ name: 'b', description: 'd', execute: () => 1 }).then(() => log.push('resolved'));
  r.reassignedOrder = log; log = [];
  const listing = mc.getTools().then(() => log.push('getTools')); deep(log, 'microtasks');
  await listing;
  r.getToolsOrder = log; log = [];
  mc.removeEventListener('toolchange', A); mc.removeEventListener('toolchange', B); mc.ontoolchange = null;
  // 3. toolactivated / toolcancel
  const seen = [];
  const onTool = e => { log.push(e.type + ':' + e.toolName); seen.push([e.constructor.name, e.bubbles, e.cancelable, e.composed, e.target === mc, Object.keys(e)]); };
  mc.addEventListener('toolactivated', onTool); mc.addEventListener('toolcancel', onTool);
  mc.ontoolactivated = e => log.push('ontoolactivated:' + e.toolName);
  mc.ontoolcancel = e => log.push('ontoolcancel:' + e.toolName);
  const a = await byName('a');
  const running = mc.executeTool(a, {}).then(v => log.push('resolved:' + v)); log.push('sync'); deep(log, 'microtasks');
  await running;
  r.activated = log; log = [];
  await mc.registerTool({ name: 'w', description: 'd', execute: (input, client) => { log.push('execute-w'); client.signal.addEventListener('abort', () => log.push('tool-signal:' + client.signal.reason.name)); return new Promise(() => {}); } });
  const w = await byName('w');
  const reason = new Error('the caller gave up');
  const ctl = new AbortController();
  const started = new Promise(res => mc.addEventListener('toolactivated', res, { once: true }));
  mc.executeTool(w, {}, { signal: ctl.signal }).catch(e => log.push('rejected:' + (e === reason)));
  await started;
  const cancelled = new Promise(res => mc.addEventListener('toolcancel', res, { once: true }));
  ctl.abort(reason); log.push('aborted');
  await cancelled;
  r.cancelled = log; log = [];
  const early = new AbortController(); early.abort(reason);
  await mc.executeTool(w, {}, { signal: early.signal }).catch(e => log.push('rejected:' + (e === reason)));
  const late = new AbortController();
  await mc.registerTool({ name: 'quick', description: 'd', execute: () => 'q' });
  await mc.executeTool(await byName('quick'), {}, { signal: late.signal }).then(v => log.push('resolved:' + v));
  late.abort();
  await settle();
  r.notCancelled = log; log = [];
  await mc.registerTool({ name: 'throws', description: 'd', execute: () => { throw new RangeError('no'); } });
  r.throws = await t(async () => mc.executeTool(await byName('throws'), {}));
  r.eventShape = seen[0];
  await settle();
  log = [];
  mc.ontoolactivated = null; mc.ontoolcancel = null;
  // 4. WebIDL conversions
  const ex = () => 1;
  r.idl = {
    symbolName: await t(() => mc.registerTool({ name: Symbol('x'), description: 'd', execute: ex })),
    symbolDescription: await t(() => mc.registerTool({ name: 'sd', description: Symbol('x'), execute: ex })),
    nullName: await t(() => mc.registerTool({ name: null, description: 'd', execute: ex })),
    noDescription: await t(() => mc.registerTool({ name: 'nd', execute: ex })),
    nothing: await t(() => mc.registerTool({})),
    noArgument: await t(() => mc.registerTool()),
    primitiveTool: await t(() => mc.registerTool(5)),
    executeNumber: await t(() => mc.registerTool({ name: 'en', description: 'd', execute: 5 })),
    annotationsNumber: await t(() => mc.registerTool({ name: 'an', description: 'd', execute: ex, annotations: 5 })),
    signalNull: await t(() => mc.registerTool({ name: 'sn', description: 'd', execute: ex }, { signal: null })),
    optionsNull: await t(() => mc.registerTool({ name: 'on', description: 'd', execute: ex }, null)),
    optionsNumber: await t(() => mc.registerTool({ name: 'onum', description: 'd', execute: ex }, 5)),
    surrogates: await t(() => mc.registerTool({ name: 'sur', description: 'a\\uD800b', title: 'c\\uDC00d', execute: ex })),
  };
  const sur = await byName('sur');
  r.surrogateStrings = { description: sur.description, title: [...sur.title].map(c => c.charCodeAt(0).toString(16)) };
  r.listedNames = (await mc.getTools()).map(x => x.name).filter(n => ['null', 'sn', 'on', 'onum', 'nd', 'en', 'an', 'sd'].includes(n));
  r.keyOrder = Object.keys(await byName('a'));
  await mc.registerTool({ name: 'echo', description: 'd', annotations: {}, inputSchema: { type: 'object' }, execute: input => ({ fresh: input !== window.__given, input }) });
  const echo = await byName('echo');
  r.keyOrderFull = Object.keys(echo);
  window.__given = { a: 1, f() {}, u: undefined, n: NaN, nested: { toJSON() { return 'j'; } } };
  r.execute = {
    input: await t(() => mc.executeTool(echo, window.__given)),
    signalNull: await t(() => mc.executeTool(echo, {}, { signal: null })),
    optionsNull: await t(() => mc.executeTool(echo, {}, null)),
    optionsNumber: await t(() => mc.executeTool(echo, {}, 5)),
    noArgument: await t(() => mc.executeTool()),
    bigint: await t(() => mc.executeTool(echo, { b: 1n })),
    date: await t(() => mc.executeTool(echo, new Date(0))),
    missing: await t(() => mc.executeTool({ name: 'gone_tool', description: 'd', origin: location.origin, window }, {})),
    loneSurrogateResult: await t(async () => { await mc.registerTool({ name: 'lone', description: 'd', execute: () => 'a\\uD800' }); return mc.executeTool(await byName('lone'), {}); }),
    functionResult: await t(async () => { await mc.registerTool({ name: 'fn', description: 'd', execute: () => () => 1 }); return mc.executeTool(await byName('fn'), {}); }),
  };
  return r;
})()`;

const INTERFACE_EXPECTED = {
  "shape": {
    "ctor": "function",
    "ctorLength": 0,
    "ctorName": "ModelContext",
    "instance": true,
    "windowProp": [
      true,
      false,
      true
    ],
    "construct": "TypeError: Failed to construct 'ModelContext': Illegal constructor",
    "docGetter": [
      "function",
      "undefined",
      true,
      true
    ],
    "ownOnDocument": false,
    "ownOnContext": [],
    "same": true,
    "proto": [
      "ontoolchange",
      "ontoolactivated",
      "ontoolcancel",
      "executeTool",
      "getTools",
      "registerTool",
      "constructor"
    ],
    "enumerable": [
      "ontoolchange",
      "ontoolactivated",
      "ontoolcancel",
      "executeTool",
      "getTools",
      "registerTool"
    ],
    "lengths": [
      1,
      0,
      1
    ],
    "eventTarget": true,
    "handlers": [
      null,
      null,
      null
    ],
    "illegal": {
      "err": "TypeError: Failed to execute 'getTools' on 'ModelContext': Illegal invocation"
    },
    "events": [
      [
        "function",
        "ToolActivatedEvent",
        true,
        [
          "toolName",
          "constructor"
        ],
        "y",
        ""
      ],
      [
        "function",
        "ToolCancelEvent",
        true,
        [
          "toolName",
          "constructor"
        ],
        "y",
        ""
      ]
    ],
    "submitEvent": [
      false,
      "InvalidStateError"
    ]
  },
  "handlerValues": [
    null,
    true,
    null
  ],
  "registerOrder": [
    "sync",
    "microtasks",
    "A",
    "handler:true:toolchange:1",
    "B",
    "resolved"
  ],
  "reassignedOrder": [
    "A",
    "B",
    "handler2",
    "resolved"
  ],
  "getToolsOrder": [
    "microtasks",
    "getTools"
  ],
  "activated": [
    "sync",
    "microtasks",
    "execute-a",
    "toolactivated:a",
    "ontoolactivated:a",
    "resolved:1"
  ],
  "cancelled": [
    "execute-w",
    "toolactivated:w",
    "ontoolactivated:w",
    "aborted",
    "rejected:true",
    "tool-signal:AbortError",
    "toolcancel:w",
    "ontoolcancel:w"
  ],
  "notCancelled": [
    "rejected:true",
    "toolactivated:quick",
    "ontoolactivated:quick",
    "resolved:q"
  ],
  "throws": {
    "err": "UnknownError: Tool was executed but the invocation failed. For example, the script function threw an error"
  },
  "eventShape": [
    "ToolActivatedEvent",
    false,
    false,
    false,
    true,
    [
      "isTrusted"
    ]
  ],
  "idl": {
    "symbolName": {
      "err": "TypeError: Failed to execute 'registerTool' on 'ModelContext': Failed to read the 'name' property from 'ModelContextTool': Cannot convert a Symbol value to a string"
    },
    "symbolDescription": {
      "err": "TypeError: Failed to execute 'registerTool' on 'ModelContext': Failed to read the 'description' property from 'ModelContextTool': Cannot convert a Symbol value to a string"
    },
    "nullName": {
      "ok": "undefined"
    },
    "noDescription": {
      "err": "TypeError: Failed to execute 'registerTool' on 'ModelContext': Failed to read the 'description' property from 'ModelContextTool': Required member is undefined."
    },
    "nothing": {
      "err": "TypeError: Failed to execute 'registerTool' on 'ModelContext': Failed to read the 'description' property from 'ModelContextTool': Required member is undefined."
    },
    "noArgument": {
      "err": "TypeError: Failed to execute 'registerTool' on 'ModelContext': 1 argument required, but only 0 present."
    },
    "primitiveTool": {
      "err": "TypeError: Failed to execute 'registerTool' on 'ModelContext': The provided value is not of type 'ModelContextTool'."
    },
    "executeNumber": {
      "err": "TypeError: Failed to execute 'registerTool' on 'ModelContext': Failed to read the 'execute' property from 'ModelContextTool': The given value is not a function."
    },
    "annotationsNumber": {
      "err": "TypeError: Failed to execute 'registerTool' on 'ModelContext': Failed to read the 'annotations' property from 'ModelContextTool': The provided value is not of type 'ToolAnnotations'."
    },
    "signalNull": {
      "err": "TypeError: Failed to execute 'registerTool' on 'ModelContext': Failed to read the 'signal' property from 'ModelContextRegisterToolOptions': Failed to convert value to 'AbortSignal'."
    },
    "optionsNull": {
      "ok": "undefined"
    },
    "optionsNumber": {
      "err": "TypeError: Failed to execute 'registerTool' on 'ModelContext': The provided value is not of type 'ModelContextRegisterToolOptions'."
    },
    "surrogates": {
      "ok": "undefined"
    }
  },
  "surrogateStrings": {
    "description": "",
    "title": [
      "63",
      "fffd",
      "64"
    ]
  },
  "listedNames": [
    "null",
    "on"
  ],
  "keyOrder": [
    "description",
    "name",
    "origin",
    "title",
    "window"
  ],
  "keyOrderFull": [
    "annotations",
    "description",
    "inputSchema",
    "name",
    "origin",
    "title",
    "window"
  ],
  "execute": {
    "input": {
      "ok": "str:{\"fresh\":true,\"input\":{\"a\":1,\"n\":null,\"nested\":\"j\"}}"
    },
    "signalNull": {
      "err": "TypeError: Failed to execute 'executeTool' on 'ModelContext': Failed to read the 'signal' property from 'ExecuteToolOptions': Failed to convert value to 'AbortSignal'."
    },
    "optionsNull": {
      "ok": "str:{\"fresh\":true,\"input\":{}}"
    },
    "optionsNumber": {
      "err": "TypeError: Failed to execute 'executeTool' on 'ModelContext': The provided value is not of type 'ExecuteToolOptions'."
    },
    "noArgument": {
      "err": "TypeError: Failed to execute 'executeTool' on 'ModelContext': 1 argument required, but only 0 present."
    },
    "bigint": {
      "err": "TypeError: Failed to execute 'executeTool' on 'ModelContext': Do not know how to serialize a BigInt"
    },
    "date": {
      "err": "UnknownError: Failed to parse input arguments"
    },
    "missing": {
      "err": "UnknownError: The operation failed for an unknown transient reason (e.g. out of memory)."
    },
    "loneSurrogateResult": {
      "ok": null
    },
    "functionResult": {
      "ok": "str:undefined"
    }
  }
};

/** Declarative forms: toolchange on add / change / remove, tooltitle, and the events a fill fires. */
const FORMS_PROBE = `(async () => {
  const mc = document.modelContext;
  const r = {};
  const sleep = ms => new Promise(res => setTimeout(res, ms));
  let changes = 0;
  mc.addEventListener('toolchange', () => changes++);
  // Counts the toolchange events of one change: then a sentinel tool's registration, whose toolchange comes after
  // them (both ways the events are dispatched in order), closes the count, and its removal is awaited.
  let sentinels = 0;
  const step = async fn => {
    changes = 0;
    fn();
    // The browser dispatches a form's toolchange from a task of its own: wait until none has come for 100 ms, so a
    // loaded machine's late event is counted in its own step, not in the next one.
    await sleep(20);
    for (let seen = -1, i = 0; seen !== changes && i < 20; i++) {
      seen = changes;
      await sleep(100);
    }
    const stop = new AbortController();
    await mc.registerTool({ name: 'sentinel_' + sentinels++, description: 'd', execute: () => 1 }, { signal: stop.signal });
    const count = changes - 1;
    const removed = new Promise(res => mc.addEventListener('toolchange', res, { once: true }));
    stop.abort();
    await removed;
    return count;
  };
  const listed = async () => (await mc.getTools()).filter(t => t.name.startsWith('form_')).map(t => [t.name, t.description, t.title]);
  const f = document.createElement('form');
  f.setAttribute('toolname', 'form_one'); f.setAttribute('tooldescription', 'Form one'); f.setAttribute('tooltitle', 'Form One');
  f.innerHTML = '<input name="t"><select name="s" multiple><option value="a">A</option><option value="b" selected>B</option><option value="c">C</option></select><select name="one"><option>x</option><option>y</option></select>';
  // 1. toolchange when a form tool is added, changed, removed
  const counts = {};
  counts.append = await step(() => document.body.append(f));
  r.afterAppend = await listed();
  counts.description = await step(() => f.setAttribute('tooldescription', 'Form one, changed'));
  counts.sameValue = await step(() => f.setAttribute('tooldescription', 'Form one, changed'));
  counts.title = await step(() => f.setAttribute('tooltitle', 'Title two'));
  counts.autosubmit = await step(() => f.setAttribute('toolautosubmit', ''));
  counts.unrelated = await step(() => f.setAttribute('data-x', '1'));
  counts.controlClass = await step(() => { f.elements.t.className = 'wide'; });
  counts.controlName = await step(() => { f.elements.t.name = 'text'; });
  counts.controlAdded = await step(() => f.insertAdjacentHTML('beforeend', '<input name="n" type="number">'));
  counts.buttonAdded = await step(() => f.append(document.createElement('button')));
  counts.invalidName = await step(() => f.setAttribute('toolname', 'form one'));
  r.afterInvalid = await listed();
  counts.validName = await step(() => f.setAttribute('toolname', 'form_one'));
  counts.noDescription = await step(() => f.removeAttribute('tooldescription'));
  counts.description2 = await step(() => f.setAttribute('tooldescription', '  spaced  '));
  r.spaced = await listed();
  counts.removed = await step(() => f.remove());
  r.afterRemove = await listed();
  counts.readded = await step(() => document.body.append(f));
  counts.moved = await step(() => { const d = document.createElement('div'); document.body.append(d); d.append(f); });
  // a second form with a taken name is not a tool, not even once the first one goes
  const g = f.cloneNode(true); g.setAttribute('tooldescription', 'the clone');
  counts.duplicate = await step(() => document.body.append(g));
  counts.firstRemoved = await step(() => f.remove());
  r.afterFirstRemoved = await listed();
  counts.cloneChanged = await step(() => g.setAttribute('tooldescription', 'the clone, changed'));
  r.afterCloneChanged = await listed();
  r.imperativeDuplicate = await mc.registerTool({ name: 'form_one', description: 'd', execute: () => 1 }).then(() => 'registered', e => e.name + ': ' + e.message);
  r.counts = counts;
  // 2. filling: input and change once each where the state changed, none elsewhere
  const events = [];
  for (const el of Array.from(g.elements)) for (const type of ['input', 'change']) el.addEventListener(type, e => events.push(el.name + ':' + type + ':' + e.bubbles + ':' + e.composed));
  g.addEventListener('submit', e => { events.push('submit:' + e.agentInvoked); e.preventDefault(); e.respondWith(Promise.resolve('done')); });
  mc.addEventListener('toolactivated', e => events.push('toolactivated:' + e.toolName));
  const tool = (await mc.getTools()).find(t => t.name === 'form_one');
  r.fill1 = await mc.executeTool(tool, { text: 'hi', s: ['a', 'c'], one: 'y' });
  r.fill1Events = events.splice(0);
  r.selected = Array.from(g.elements.s.selectedOptions, o => o.value);
  r.fill2 = await mc.executeTool(tool, { text: 'hi', s: ['c', 'a'], one: 'y' });
  r.fill2Events = events.splice(0);
  r.fill3 = await mc.executeTool(tool, { s: [] });
  r.fill3Events = events.splice(0);
  return r;
})()`;

const FORMS_EXPECTED = {
  "afterAppend": [
    [
      "form_one",
      "Form one",
      "Form One"
    ]
  ],
  "afterInvalid": [],
  "spaced": [
    [
      "form_one",
      "  spaced  ",
      "Title two"
    ]
  ],
  "afterRemove": [],
  "afterFirstRemoved": [],
  "afterCloneChanged": [
    [
      "form_one",
      "the clone, changed",
      "Title two"
    ]
  ],
  "imperativeDuplicate": "InvalidStateError: Duplicate tool name",
  "counts": {
    "append": 1,
    "description": 2,
    "sameValue": 0,
    "title": 2,
    "autosubmit": 2,
    "unrelated": 0,
    "controlClass": 0,
    "controlName": 2,
    "controlAdded": 2,
    "buttonAdded": 0,
    "invalidName": 1,
    "validName": 1,
    "noDescription": 1,
    "description2": 1,
    "removed": 1,
    "readded": 1,
    "moved": 2,
    "duplicate": 0,
    "firstRemoved": 1,
    "cloneChanged": 1
  },
  "fill1": "done",
  "fill1Events": [
    "text:input:true:true",
    "text:change:true:false",
    "s:input:true:true",
    "s:change:true:false",
    "one:input:true:true",
    "one:change:true:false",
    "submit:true",
    "toolactivated:form_one"
  ],
  "selected": [
    "a",
    "c"
  ],
  "fill2": "done",
  "fill2Events": [
    "submit:true",
    "toolactivated:form_one"
  ],
  "fill3": "done",
  "fill3Events": [
    "s:input:true:true",
    "s:change:true:false",
    "submit:true",
    "toolactivated:form_one"
  ]
};

/** A form tool call: refused without a submit button, ended by a reset, an abort, a removal, or invalid fields. */
const FORM_CALLS_PROBE = `(async () => {
  const mc = document.modelContext;
  const log = [];
  const sleep = ms => new Promise(res => setTimeout(res, ms));
  for (const type of ['toolactivated', 'toolcancel']) mc.addEventListener(type, e => log.push(type + ':' + e.toolName));
  const registered = new Promise(res => { let n = 0; mc.addEventListener('toolchange', () => ++n === 3 && res()); });
  document.body.insertAdjacentHTML('beforeend', '<form id="nobutton" toolname="call_nobutton" tooldescription="d"><input name="q"></form><form id="ask" toolname="call_ask" tooldescription="d"><input name="q"><button>Go</button></form><form id="auto" toolname="call_auto" tooldescription="d" toolautosubmit><input name="q" required></form>');
  await registered;
  const ask = document.getElementById('ask');
  ask.elements.q.addEventListener('input', () => log.push('input'));
  ask.addEventListener('submit', e => { log.push('submit:' + e.agentInvoked); e.preventDefault(); e.respondWith(Promise.resolve('answered')); });
  const tool = async name => (await mc.getTools()).find(t => t.name === name);
  const out = p => p.then(v => log.push('resolved:' + v), e => log.push('rejected:' + e.name + ': ' + e.message));
  const next = type => new Promise(res => mc.addEventListener(type, res, { once: true }));
  await out(mc.executeTool(await tool('call_nobutton'), { q: 'x' }));
  log.push('--- reset');
  let started = next('toolactivated');
  let p = out(mc.executeTool(await tool('call_ask'), { q: 'a' }));
  await started; ask.reset(); await p;
  log.push('--- abort');
  const ctl = new AbortController();
  started = next('toolactivated');
  p = out(mc.executeTool(await tool('call_ask'), { q: 'b' }, { signal: ctl.signal }));
  await started; const cancelled = next('toolcancel'); ctl.abort(); await p; await cancelled;
  log.push('--- a person submits');
  started = next('toolactivated');
  p = out(mc.executeTool(await tool('call_ask'), { q: 'c' }));
  await started; ask.requestSubmit(); await p;
  log.push('--- removed');
  started = next('toolactivated');
  p = out(mc.executeTool(await tool('call_ask'), { q: 'd' }));
  await started; ask.remove(); await p;
  log.push('--- invalid');
  await out(mc.executeTool(await tool('call_auto'), { q: '' }));
  return log;
})()`;

const FORM_CALLS_EXPECTED = [
  "toolactivated:call_nobutton",
  "rejected:UnknownError: No submit button was found, but for a form without `toolautosubmit`, there must be a submit button",
  "--- reset",
  "input",
  "toolactivated:call_ask",
  "rejected:UnknownError: Tool execution cancelled by a form reset",
  "--- abort",
  "input",
  "toolactivated:call_ask",
  "rejected:AbortError: signal is aborted without reason",
  "toolcancel:call_ask",
  "--- a person submits",
  "input",
  "toolactivated:call_ask",
  "submit:true",
  "resolved:answered",
  "--- removed",
  "input",
  "toolactivated:call_ask",
  "rejected:UnknownError: Tool execution cancelled, since tool definition was updated",
  "--- invalid",
  "toolactivated:call_auto",
  "rejected:UnknownError: Form validation failed: q: Please fill out this field.. "
];

/** Forms the parser builds: one toolchange per form, whatever the parser runs in between. */
const PARSED_PAGE = `<!doctype html><title>Parsed</title><script>window.__changes = 0; document.modelContext.addEventListener('toolchange', () => window.__changes++);</script>
<form toolname="parsed_a" tooldescription="A"><input name="x"><script>window.__mid = 1;</script><input name="y"><select name="s"><option>1</option><option>2</option></select><button>Go</button></form>
<form toolname="parsed_b" tooldescription="B"><input name="z"></form>
<form toolname="parsed_c" tooldescription=""><input name="w"></form>
<form toolname="parsed_d"><input name="v"></form>`;

const PARSED_PROBE = '(async () => { await new Promise(r => setTimeout(r, 300)); return { changes: __changes, tools: (await document.modelContext.getTools()).map(t => [t.name, JSON.stringify(t.description), Object.keys(t.inputSchema.properties)]) }; })()';

/** An empty `tooldescription` makes a tool (its description empty); a form without one does not. */
const PARSED_EXPECTED = { changes: 3, tools: [['parsed_a', '"A"', ['x', 'y', 's']], ['parsed_b', '"B"', ['z']], ['parsed_c', '""', ['w']]] };

/** Whether document.modelContext's getter is the browser's own (the polyfill's sits on Document.prototype too). */
const NATIVE_GETTER = 'Function.prototype.toString.call(Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")?.get ?? (() => 0)).includes("[native code]")';

for (const mode of MODES) {
  const tw = useSession({ args: ['--webmcp', mode, '--auto-allow'], context: 'file', setup: async tw => {
      tw.site.page('/probe', '<!doctype html><title>Probe</title>');
      tw.site.page('/parsed', PARSED_PAGE);
    },
  });
  test(`${mode}: document.modelContext behaves as Chromium 156's native WebMCP`, skipPolyfill(mode), async () => {
    const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.site.origin}/probe` });
    const which = await evaluate<boolean>(tw.client, NATIVE_GETTER, tabId);
    assert.equal(which, mode === 'native', 'native WebMCP is on exactly in native mode');
    const got = await evaluate<Record<string, unknown>>(tw.client, PROBE, tabId);
    assert.deepEqual(got, EXPECTED);
  });

  test(`${mode}: the interface, its events and WebIDL conversions are Chromium 156's`, skipPolyfill(mode), async () => {
    const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.site.origin}/probe` });
    assert.deepEqual(await evaluate(tw.client, INTERFACE_PROBE, tabId), INTERFACE_EXPECTED);
  });

  test(`${mode}: declarative forms: toolchange, tooltitle, fill events, calls`, skipPolyfill(mode), async () => {
    const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.site.origin}/probe` });
    assert.deepEqual(await evaluate(tw.client, FORMS_PROBE, tabId), FORMS_EXPECTED);
    await call(tw.client, 'navigate', { tabId, url: `${tw.site.origin}/probe` });
    assert.deepEqual(await evaluate(tw.client, FORM_CALLS_PROBE, tabId), FORM_CALLS_EXPECTED);
    await call(tw.client, 'navigate', { tabId, url: `${tw.site.origin}/parsed` });
    // One toolchange per form on an idle machine; a parser that yields inside a form (a loaded machine) may fire more.
    const parsed = await evaluate<typeof PARSED_EXPECTED>(tw.client, PARSED_PROBE, tabId);
    assert.deepEqual(parsed.tools, PARSED_EXPECTED.tools);
    assert.ok(parsed.changes >= PARSED_EXPECTED.changes, JSON.stringify(parsed));
  });
}
