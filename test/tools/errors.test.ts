// The error contract end to end: isError results with
// structuredContent.error = {type, message, hint}; tab_not_found across the
// tools that take a tabId; invalid_arguments for what the client sends wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, useSession } from '../fixtures/harness.js';
import { call, callRaw, refOf, snapshot } from '../fixtures/mcp.js';

const tw = useSession({
  pages: { '/': '<!doctype html><title>Errors</title><button>Press</button><input aria-label="Field">' },
  context: 'file',
  setup: async tw => void await call(tw.client, 'navigate', { url: `${tw.origin}/` }),
});

/** Calls a tool that must fail and checks the whole error shape; returns the error. */
async function expectError(name: string, args: Record<string, unknown>, type: string): Promise<{ type: string; message: string; hint: string }> {
  const res = await callRaw(tw.client, name, args);
  const label = `${name} ${JSON.stringify(args)}`;
  assert.equal(res.isError, true, `${label} should fail`);
  const error = (res.structuredContent as { error: { type: string; message: string; hint: string } }).error;
  assert.deepEqual(Object.keys(error).sort(), ['hint', 'message', 'type'], label);
  assert.equal(error.type, type, `${label}: ${error.message}`);
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.length > 0, label);
  assert.equal(typeof error.hint, 'string');
  assert.ok(error.hint.length > 0, label);
  // The text content carries the same type, for clients that read text only.
  assert.equal(res.content.length, 1);
  assert.ok(res.content[0]!.text!.startsWith(`Error [${type}]`), res.content[0]!.text);
  assert.equal(res.content.some(c => c.type === 'image'), false);
  return error;
}

const MISSING = 987;

test('tab_not_found for an unknown tabId, on every tool that takes one', async () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['navigate', { tabId: MISSING, url: `${tw.origin}/` }],
    ['close_tab', { tabId: MISSING }],
    ['focus_tab', { tabId: MISSING }],
    ['reload_tab', { tabId: MISSING }],
    ['get_page_context', { tabId: MISSING }],
    ['press_key', { tabId: MISSING, key: 'Enter' }],
    ['scroll', { tabId: MISSING, dy: 100 }],
    ['take_screenshot', { tabId: MISSING }],
    ['execute', { tabId: MISSING, code: '1' }],
    ['get_console_context', { tabId: MISSING }],
    ['list_webmcp_tools', { tabId: MISSING }],
    ['call_webmcp_tool', { tabId: MISSING, name: 'anything' }],
  ];
  for (const [name, args] of cases) {
    const error = await expectError(name, args, 'tab_not_found');
    assert.match(error.hint, /list_tabs/, name);
  }
});

test('a closed tab is tab_not_found too', async () => {
  const { tabId } = await call<{ tabId: number }>(tw.client, 'open_tab');
  await call(tw.client, 'close_tab', { tabId });
  await expectError('execute', { tabId, code: '1' }, 'tab_not_found');
  await expectError('close_tab', { tabId }, 'tab_not_found');
  await expectError('get_page_context', { tabId }, 'tab_not_found');
});

test('invalid_arguments for schema violations, with the field named in the message', async () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['navigate', {}, 'url'],
    ['close_tab', {}, 'tabId'],
    ['close_tab', { tabId: 'one' }, 'tabId'],
    ['focus_tab', { tabId: -1 }, 'tabId'],
    ['focus_tab', { tabId: 1.5 }, 'tabId'],
    ['click', {}, 'ref'],
    ['click', { ref: 'e1', button: 'fourth' }, 'button'],
    ['click', { ref: 'e1', modifiers: ['Hyper'] }, 'modifiers'],
    ['type', { ref: 'e1' }, 'text'],
    ['fill_form', { fields: [] }, 'fields'],
    ['select_option', { ref: 'e1', values: [] }, 'values'],
    ['press_key', {}, 'key'],
    ['execute', {}, 'code'],
    ['execute', { code: 42 }, 'code'],
    ['take_screenshot', { format: 'bmp' }, 'format'],
    ['get_page_context', { output: 'printer' }, 'output'],
    ['get_console_context', { level: 'loud' }, 'level'],
    ['call_webmcp_tool', {}, 'name'],
    ['open_tab', { url: 'mailto:someone@example.com' }, 'url'],
    ['open_tab', { background: 'yes' }, 'background'],
  ];
  for (const [name, args, field] of cases) {
    const error = await expectError(name, args, 'invalid_arguments');
    assert.ok(error.message.includes(field), `${name}: "${error.message}" should name ${field}`);
    assert.match(error.hint, new RegExp(name), `${name}: the hint points at the schema`);
  }
});

test('invalid_arguments names the arguments the tool does not take, with the one probably meant, and where a ref comes from', async () => {
  const error = await expectError('click', { tab: 1, element: 'Press' }, 'invalid_arguments');
  assert.match(error.message, /^Invalid arguments for click: ref: /);
  // click takes no tabId (its ref names the tab): nothing to suggest for either.
  assert.equal(error.hint, 'A ref comes from get_page_context or find (find {query: "Save button"}). click does not take "tab", "element". See the click input schema (tools/list or `tabwright schema`).');
  const typed = await expectError('type', { reff: 'e1', text: 'x' }, 'invalid_arguments');
  assert.match(typed.hint, /type does not take "reff" \(did you mean ref\?\)\. See the type input schema/);
  // A valid call with an extra argument runs, and its last line names it.
  const res = await callRaw(tw.client, 'get_page_context', { tab: 1 });
  assert.equal(res.isError, undefined);
  assert.equal(res.content.at(-1)!.text!.split('\n').at(-1), 'get_page_context does not take "tab" (did you mean tabId?): it was ignored.');
});

test('values the client sent are not echoed in invalid_arguments', async () => {
  const secret = 'sekrit-value-4711';
  for (const [name, args] of [
    ['execute', { code: 'return 1', maxBytes: secret }],
    ['type', { ref: 'e1', text: 1, submit: secret }],
    ['open_tab', { url: `${secret}:nothing` }],
  ] as Array<[string, Record<string, unknown>]>) {
    const res = await callRaw(tw.client, name, args);
    assert.equal(res.isError, true, name);
    assert.ok(!JSON.stringify(res).includes(secret), `${name} echoed: ${JSON.stringify(res)}`);
  }
});

test('a ref tabwright never issued is invalid_arguments', async () => {
  await expectError('click', { ref: 'e424242' }, 'invalid_arguments');
  await expectError('click', { ref: 'button-1' }, 'invalid_arguments');
  await expectError('take_screenshot', { ref: 'e424242' }, 'invalid_arguments');
});

test('each error type the tools promise is reachable with this contract', async () => {
  const { snapshot: snap } = await snapshot(tw.client);
  const press = refOf(snap, 'button', 'Press');
  await call(tw.client, 'reload_tab');
  await expectError('click', { ref: press }, 'stale_ref');
  await expectError('execute', { code: 'throw new Error("x")' }, 'evaluation_failed');
  await expectError('execute', { code: '"y".repeat(5000)', maxBytes: 1024 }, 'result_too_large');
  await expectError('call_webmcp_tool', { name: 'nothing_here' }, 'webmcp_tool_not_found');
  await expectError('navigate', { url: `http://127.0.0.1:${await freePort()}/` }, 'navigation_failed');
  await call(tw.client, 'navigate', { url: `${tw.origin}/` });
  const fresh = refOf((await snapshot(tw.client)).snapshot, 'button', 'Press');
  await call(tw.client, 'execute', { code: 'document.querySelector("button").disabled = true; return 1' });
  await expectError('click', { ref: fresh, timeoutMs: 500 }, 'element_not_actionable');
});

test('an unknown tool is a protocol-level error, not a crash', async () => {
  const res = await tw.client.callTool({ name: 'no_such_tool', arguments: {} }).then(r => ({ result: r }), (error: unknown) => ({ error }));
  if ('result' in res) assert.equal(res.result.isError, true);
  else assert.ok(res.error instanceof Error);
  // The server still answers.
  await call(tw.client, 'list_tabs');
});
