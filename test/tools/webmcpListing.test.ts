// What list_webmcp_tools tells beyond the tools' names (docs/webmcp.md,
// "What a listing tells"), under Chromium's native WebMCP and under the
// polyfill, over stdio with the SDK client: whether a declarative form
// submits itself or waits for the person (and such a call's progress and
// pending result), the annotations as declared (none for a form), the forms
// and registerTool calls the browser rejected with the reason, schemas with
// `$ref`/`$defs` served resolved but validated as the page wrote them, and a
// string result read as the string itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { seenBy } from '../fixtures/clientLens.js';
import { useServer } from '../fixtures/harness.js';
import { callRaw, evaluate, type RawResult, type ToolClient } from '../fixtures/mcp.js';

const MODES = ['native', 'polyfill'] as const;
/** The servers' max-wait, in seconds: a form waiting for its submit answers pending after it. */
const MAX_WAIT = 2;

const LONG_NAME = 'n'.repeat(129);
const ADDRESS = { type: 'object', properties: { street: { type: 'string' }, zip: { type: 'string', pattern: '^[0-9]{5}$' } }, required: ['street'] };
const REF_SCHEMA = {
  type: 'object',
  properties: {
    home: { $ref: '#/$defs/address' },
    work: { $ref: '#/$defs/address', description: 'Where you work' },
    tree: { $ref: '#/$defs/node' },
  },
  required: ['home'],
  $defs: {
    address: ADDRESS,
    node: { type: 'object', properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } } },
  },
};

const PAGE = `<!doctype html><title>Listing</title>
<form id="search" toolname="search" tooldescription="Search the shop" toolautosubmit>
  <label>Query <input name="q"></label><button>Go</button>
</form>
<form id="ask" toolname="ask" tooldescription="Ask the shop a question">
  <label>Question <input name="q"></label><button>Send</button>
</form>
<form toolname="bad form!" tooldescription="A form with a space and a bang"><input name="q"></form>
<form toolname="${'f'.repeat(129)}" tooldescription="A form whose name is too long"><input name="q"></form>
<form toolname="undescribed"><input name="q"></form>
<form toolname="search" tooldescription="A second search form"><input name="q"></form>
<form toolname="lookup" tooldescription="Hidden by the imperative lookup"><input name="q"></form>
<script>
  for (const f of document.querySelectorAll('#search, #ask')) f.addEventListener('submit', event => {
    event.preventDefault();
    if (event.agentInvoked) event.respondWith(Promise.resolve(f.id + ': ' + f.q.value));
  });
  const mc = document.modelContext;
  const ignore = () => {};
  mc.registerTool({ name: 'lookup', description: 'Looks an item up', annotations: { readOnlyHint: true, debugging: true }, execute: () => ({ content: [{ type: 'text', text: 'found' }] }) });
  mc.registerTool({ name: 'declared_none', description: 'Declares annotations, none true', annotations: {}, execute: () => 'ok' });
  mc.registerTool({ name: 'say_ok', description: 'Returns a plain string', execute: () => 'ok' });
  mc.registerTool({ name: 'say_number', description: 'Returns a number', execute: () => 42 });
  mc.registerTool({ name: 'say_object', description: 'Returns an object', execute: () => ({ a: 1 }) });
  mc.registerTool({ name: 'say_empty', description: 'Returns an empty string', execute: () => '' });
  mc.registerTool({ name: 'addresses', description: 'Stores addresses', inputSchema: ${JSON.stringify(REF_SCHEMA)}, execute: input => ({ content: [{ type: 'text', text: 'stored ' + JSON.stringify(input) }] }) });
  mc.registerTool({ name: 'bad name!', description: 'x', execute: () => 1 }).catch(ignore);
  mc.registerTool({ name: '${LONG_NAME}', description: 'x', execute: () => 1 }).catch(ignore);
  mc.registerTool({ name: 'caf\\u00e9', description: 'x', execute: () => 1 }).catch(ignore);
  mc.registerTool({ name: 'no_description', description: '', execute: () => 1 }).catch(ignore);
  mc.registerTool({ name: 'lookup', description: 'A duplicate is not a naming problem', execute: () => 1 }).catch(ignore);
</script>`;

/** Over and under the listing's schema cap (262,144 characters of JSON, src/page/webmcp.ts): 3,000 and 1,500 properties of about 120 characters. */
const OVERSIZED = `<!doctype html><title>Oversized</title><script>
  const schema = n => { const properties = {}; for (let i = 0; i < n; i++) properties['p' + i] = { type: 'string', description: 'd'.repeat(80) }; return { type: 'object', properties, required: ['p0'] }; };
  document.modelContext.registerTool({ name: 'big_schema', description: 'Over the cap', inputSchema: schema(3000), execute: () => 'big ran' });
  document.modelContext.registerTool({ name: 'near_cap', description: 'Under the cap', inputSchema: schema(1500), execute: input => 'near ran ' + input.p0 });
</script>`;

/**
 * A call's outcome: on a loaded machine a call can outlast the 2 s max-wait and answer pending, so a pending
 * answer is followed through wait_for_call (only the form test below relies on going pending).
 */
async function settled(client: ToolClient, name: string, args: Record<string, unknown>): Promise<RawResult> {
  let res = await callRaw(client, name, args);
  for (let i = 0; (res.structuredContent as { pending?: boolean } | undefined)?.pending && i < 10; i++) {
    res = await callRaw(client, 'wait_for_call', { callId: (res.structuredContent as { callId: string }).callId });
  }
  return res;
}

/** The error of a call that must fail. */
async function settledError(client: ToolClient, name: string, args: Record<string, unknown>): Promise<{ type: string; message: string }> {
  const res = await settled(client, name, args);
  assert.equal(res.isError, true, JSON.stringify(res));
  return (res.structuredContent as { error: { type: string; message: string } }).error;
}

interface Listed {
  tools: Array<{ name: string; description: string; annotations?: Record<string, boolean>; form?: { autosubmit: boolean }; inputSchema?: unknown; refsLeft?: unknown; source: string }>;
  rejected?: Array<{ tabId: number; origin: string; name: string; nameLength?: number; kind: string; reason: string }>;
}

for (const mode of MODES) {
  let tabId: number;
  const tw = useServer({
    args: ['--webmcp', mode, '--auto-allow', '--max-wait', String(MAX_WAIT)],
    pages: { '/listing': PAGE, '/oversized': OVERSIZED, '/plain': '<!doctype html><title>Plain</title><p>No tools here</p>' },
    setup: async tw => {
      // A cold browser start can outlast the max-wait: the navigation's outcome then comes through wait_for_call.
      const res = await settled(tw.client, 'navigate', { url: `${tw.origin}/listing` });
      tabId = (res.structuredContent as { tabId: number }).tabId;
      assert.equal(typeof tabId, 'number', JSON.stringify(res));
    },
  });
  const source = mode;

  test(`${mode}: the listing says which tools are forms and whether they submit themselves; annotations as declared`, async () => {
    const raw = await settled(tw.client, 'list_webmcp_tools', { tabId });
    const { tools } = raw.structuredContent as unknown as Listed;
    const byName = Object.fromEntries(tools.map(t => [t.name, t]));
    assert.deepEqual(tools.map(t => t.name), ['addresses', 'ask', 'declared_none', 'lookup', 'say_empty', 'say_number', 'say_object', 'say_ok', 'search']);
    for (const t of tools) assert.equal(t.source, source, t.name);
    assert.deepEqual(byName.search!.form, { autosubmit: true });
    assert.deepEqual(byName.ask!.form, { autosubmit: false });
    assert.equal(byName.search!.description, 'Search the shop', 'the first form of a name is the tool');
    // A form declares no annotations (Chromium 156 has no form attribute for them): none reported, not {}.
    assert.equal('annotations' in byName.search!, false);
    assert.equal('annotations' in byName.ask!, false);
    assert.deepEqual(byName.lookup!.annotations, { readOnlyHint: true, debugging: true });
    assert.equal(byName.lookup!.form, undefined, 'the imperative lookup hides the form of that name');
    assert.deepEqual(byName.declared_none!.annotations, {});
    assert.equal('annotations' in byName.say_ok!, false);
    assert.equal(byName.say_ok!.form, undefined);

    const text = seenBy('cursor', raw).text;
    assert.ok(text.includes('- [tab ' + tabId + '] search [prompt]: Search the shop\n  form (toolautosubmit): a call fills it in and submits it; a form declares no annotations\n'), text);
    assert.ok(text.includes('- [tab ' + tabId + '] ask [prompt]: Ask the shop a question\n  form without toolautosubmit: a call fills it in, then waits for the person at the browser to submit it; a form declares no annotations\n'), text);
    assert.ok(text.includes('- [tab ' + tabId + '] lookup [allow]: Looks an item up (readOnlyHint, debugging)\n  input: '), text);
  });

  test(`${mode}: a page without tools says so and what to do instead`, async () => {
    const opened = await settled(tw.client, 'open_tab', { url: `${tw.origin}/plain` });
    const plainTab = (opened.structuredContent as { tabId: number }).tabId;
    try {
      const raw = await settled(tw.client, 'list_webmcp_tools', { tabId: plainTab });
      assert.deepEqual((raw.structuredContent as unknown as Listed).tools, []);
      assert.equal(seenBy('cursor', raw).text, `0 WebMCP tools in tab ${plainTab}.\nThe page in tab ${plainTab} registered no WebMCP tool (navigator.modelContext.registerTool or <form toolname>); most sites offer none: read the page with get_page_context and act with click, type and fill_form.`);
    } finally {
      await settled(tw.client, 'close_tab', { tabId: plainTab });
    }
  });

  test(`${mode}: forms and registerTool calls the browser rejected are listed with the reason`, async () => {
    const raw = await settled(tw.client, 'list_webmcp_tools', { tabId });
    const { rejected } = raw.structuredContent as unknown as Listed;
    const where = { tabId, origin: tw.origin };
    const chars = 'name has characters outside ASCII letters, digits, "_", "-" and ".":';
    assert.deepEqual(rejected, [
      { ...where, name: 'bad name!', kind: 'registerTool', reason: `${chars} " ", "!"` },
      { ...where, name: LONG_NAME, kind: 'registerTool', reason: 'name is 129 characters long, over the limit of 128' },
      { ...where, name: 'café', kind: 'registerTool', reason: `${chars} "é"` },
      { ...where, name: 'no_description', kind: 'registerTool', reason: 'description is empty' },
      { ...where, name: 'bad form!', kind: 'form', reason: `${chars} " ", "!"` },
      { ...where, name: 'f'.repeat(129), kind: 'form', reason: 'name is 129 characters long, over the limit of 128' },
      { ...where, name: 'undescribed', kind: 'form', reason: 'the form has no tooldescription attribute' },
      { ...where, name: 'search', kind: 'form', reason: 'an earlier form has the same toolname; that one is the tool' },
      { ...where, name: 'lookup', kind: 'form', reason: 'a tool registered with registerTool has the same name and hides the form' },
    ]);
    const text = seenBy('cursor', raw).text;
    assert.match(text, /^9 WebMCP tools in tab \d+; 9 declarations rejected by the browser \(below\)\./);
    assert.ok(text.includes(`- [tab ${tabId}] rejected: "bad name!" (registerTool) — ${chars} " ", "!"`), text);
    assert.ok(text.includes(`- [tab ${tabId}] rejected: "${'n'.repeat(80)}"… (129 characters) (registerTool) — name is 129 characters long, over the limit of 128`), text);
    assert.ok(text.includes(`- [tab ${tabId}] rejected: "undescribed" (<form toolname>) — the form has no tooldescription attribute`), text);
    // A call by a rejected name says why there is no such tool.
    const err = await settledError(tw.client, 'call_webmcp_tool', { tabId, name: 'no_description' });
    assert.equal(err.type, 'webmcp_tool_not_found');
    assert.equal(err.message, `Tab ${tabId} has no WebMCP tool named "no_description": the browser rejected its registerTool call (description is empty).`);
  });

  test(`${mode}: a schema with $ref/$defs is served resolved, cycles left as references; arguments are validated against the original`, async () => {
    const raw = await settled(tw.client, 'list_webmcp_tools', { tabId });
    const addresses = (raw.structuredContent as unknown as Listed).tools.find(t => t.name === 'addresses')!;
    const node = REF_SCHEMA.$defs.node;
    assert.deepEqual(addresses.inputSchema, {
      type: 'object',
      properties: {
        home: ADDRESS,
        work: { ...ADDRESS, description: 'Where you work' },
        tree: node, // its children refer back to it: a cycle, left as a $ref
      },
      required: ['home'],
      $defs: { node },
    });
    assert.deepEqual(addresses.refsLeft, [{ ref: '#/$defs/node', reason: 'cycle' }]);
    const text = seenBy('cursor', raw).text;
    assert.ok(text.includes(`] addresses [prompt]: Stores addresses\n  input ($refs resolved except #/$defs/node (cyclic)): ${JSON.stringify(addresses.inputSchema)}`), text);

    // The page's own schema judges the arguments: a zip that breaks the referenced pattern, deep in the cycle too.
    const bad = await settledError(tw.client, 'call_webmcp_tool', { tabId, name: 'addresses', arguments: { home: { street: 'Main', zip: 'abc' } } });
    assert.equal(bad.type, 'invalid_arguments');
    assert.match(bad.message, /\/home\/zip must match pattern/);
    const deep = await settledError(tw.client, 'call_webmcp_tool', { tabId, name: 'addresses', arguments: { home: { street: 'Main' }, tree: { children: [{ children: [{ label: 3 }] }] } } });
    assert.equal(deep.type, 'invalid_arguments');
    assert.match(deep.message, /\/tree\/children\/0\/children\/0\/label must be string/);
    const args = { home: { street: 'Main', zip: '12345' }, tree: { label: 'a', children: [{ label: 'b' }] } };
    const ok = await settled(tw.client, 'call_webmcp_tool', { tabId, name: 'addresses', arguments: args });
    assert.equal(ok.isError, undefined, JSON.stringify(ok));
    const stored = seenBy('cursor', ok).text.split('\n').at(-1)!;
    assert.ok(stored.startsWith('stored '), stored);
    assert.deepEqual(JSON.parse(stored.slice('stored '.length)), args);
  });

  test(`${mode}: a string result reads as the string itself; other values as JSON`, async () => {
    const cases: Array<[string, unknown, string]> = [
      ['say_ok', 'ok', 'ok'],
      ['say_number', 42, 'Result: 42'],
      ['say_object', { a: 1 }, 'Result: {"a":1}'],
      // Chromium 156's executeTool answers 'Operation succeeded' for an empty string; the polyfill does too.
      ['say_empty', 'Operation succeeded', 'Operation succeeded'],
    ];
    for (const [name, result, text] of cases) {
      const raw = await settled(tw.client, 'call_webmcp_tool', { tabId, name });
      assert.equal(raw.isError, undefined, JSON.stringify(raw));
      assert.deepEqual((raw.structuredContent as { result: unknown }).result, result, name);
      // The text alone is complete: a client that drops structuredContent reads the result.
      const seen = seenBy('cursor', { content: raw.content });
      assert.equal(seen.texts.at(-1), text, name);
    }
  });

  test(`${mode}: a form that submits itself answers at once; one that waits for the person sends progress, then answers pending`, async () => {
    const done = await settled(tw.client, 'call_webmcp_tool', { tabId, name: 'search', arguments: { q: 'tea' } });
    assert.equal((done.structuredContent as { result: unknown }).result, 'search: tea', JSON.stringify(done));

    const ticks: string[] = [];
    const onprogress = (t: { message?: string }) => ticks.push(t.message ?? '');
    const client: Client = tw.server.client;
    const raw = await client.callTool({ name: 'call_webmcp_tool', arguments: { tabId, name: 'ask', arguments: { q: 'why' }, timeoutSec: 60 } }, { onprogress }) as RawResult;
    const p = raw.structuredContent as { pending?: boolean; callId: string; waitingFor: { kind: string; tool: string } };
    assert.equal(p.pending, true, JSON.stringify(raw));
    assert.deepEqual({ kind: p.waitingFor.kind, tool: p.waitingFor.tool }, { kind: 'form_submit', tool: 'ask' });
    const text = seenBy('cursor', raw).text;
    assert.ok(text.includes(`waiting for the person at the browser to submit the declarative form "ask" of ${tw.origin} (tab ${tabId})`), text);
    assert.ok(text.includes(`wait_for_call {"callId":"${p.callId}"}`), text);
    assert.equal(await evaluate(tw.client, 'document.querySelector("#ask [name=q]").value', tabId), 'why');
    // Nobody submits yet: wait_for_call waits its max-wait and answers pending again. Progress went out all along
    // (the heartbeat beats every second at this max-wait), saying what the call waits for.
    const again = await client.callTool({ name: 'wait_for_call', arguments: { callId: p.callId } }, { onprogress }) as RawResult;
    assert.equal((again.structuredContent as { pending?: boolean }).pending, true, JSON.stringify(again));
    assert.ok(ticks.length >= 1, 'no progress while the form waited');
    assert.match(ticks.at(-1)!, /^Waiting for the person at the browser to submit the form "ask" \(\d+ s\)$/);

    // The person submits; wait_for_call returns the form's answer.
    await evaluate(tw.client, 'document.querySelector("#ask").requestSubmit(); true', tabId);
    const outcome = await settled(tw.client, 'wait_for_call', { callId: p.callId });
    assert.equal(outcome.isError, undefined, JSON.stringify(outcome));
    assert.equal((outcome.structuredContent as { result: unknown }).result, 'ask: why');
    assert.equal(seenBy('cursor', outcome).texts.at(-1), 'ask: why');
  });

  test(`${mode}: a schema over the cap is listed by its length, not shown, and its tool refused; one under it is checked`, async () => {
    const opened = await settled(tw.client, 'open_tab', { url: `${tw.origin}/oversized` });
    const tab = (opened.structuredContent as { tabId: number }).tabId;
    try {
      const raw = await settled(tw.client, 'list_webmcp_tools', { tabId: tab });
      const { tools } = raw.structuredContent as unknown as { tools: Array<{ name: string; inputSchema?: unknown; inputSchemaChars?: number }> };
      const big = tools.find(t => t.name === 'big_schema')!;
      const near = tools.find(t => t.name === 'near_cap')!;
      assert.equal(big.inputSchema, undefined);
      assert.ok(big.inputSchemaChars! > 262_144 && big.inputSchemaChars! < 400_000, String(big.inputSchemaChars));
      assert.equal(near.inputSchemaChars, undefined);
      assert.equal(Object.keys((near.inputSchema as { properties: object }).properties).length, 1500);
      const text = seenBy('cursor', raw).text;
      assert.ok(text.includes(`big_schema [not callable]: Over the cap\n  input: an inputSchema of ${big.inputSchemaChars!.toLocaleString('en-US')} characters, over the 262,144 tabwright reads: not shown, and the tool cannot be called through tabwright\n`), text.slice(0, 500));
      assert.ok(text.length < 262_144 + 20_000, `the listing's text is ${text.length} characters`);

      const refused = await settledError(tw.client, 'call_webmcp_tool', { tabId: tab, name: 'big_schema', arguments: { p0: 'x' } });
      assert.equal(refused.type, 'capability_unavailable');
      assert.match(refused.message, /^WebMCP tool "big_schema" has an inputSchema of [\d,]+ characters, over the 262,144 tabwright reads/);
      const wrong = await settledError(tw.client, 'call_webmcp_tool', { tabId: tab, name: 'near_cap', arguments: { p0: 7 } });
      assert.equal(wrong.type, 'invalid_arguments');
      const ran = await settled(tw.client, 'call_webmcp_tool', { tabId: tab, name: 'near_cap', arguments: { p0: 'tea' } });
      assert.equal((ran.structuredContent as { result: unknown }).result, 'near ran tea', JSON.stringify(ran).slice(0, 300));
    } finally {
      await callRaw(tw.client, 'close_tab', { tabId: tab });
    }
  });
}
