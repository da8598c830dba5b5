// Sizes and shapes that fit the MCP clients (docs/clients.md): Claude Code cuts tool descriptions and the server
// instructions silently at 2,048 characters; a tool with an outputSchema must carry structuredContent on every
// success (the TS SDK client rejects it otherwise), so no tool declares one; and the result shaping of
// src/mcp/clientResult.ts by mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { clientResult } from '../../src/mcp/clientResult.js';
import { INSTRUCTIONS } from '../../src/mcp/instructions.js';
import { TOOLS } from '../../src/tools/registry.js';
import { ToolError } from '../../src/errors.js';
import { ToolResponse } from '../../src/tools/response.js';
import { serverArgs, ROOT } from '../fixtures/mcp.js';

const CLAUDE_CODE_CUT = 2048;

test('every tool description and the instructions fit Claude Code\'s 2,048 characters; the instructions route', () => {
  for (const tool of TOOLS) assert.ok(tool.description.length <= CLAUDE_CODE_CUT, `${tool.name}: ${tool.description.length} characters`);
  assert.ok(INSTRUCTIONS.length <= CLAUDE_CODE_CUT, `instructions: ${INSTRUCTIONS.length} characters`);
  // What it is for comes first; the tool sets, how to turn them on, and the handbooks are named.
  assert.match(INSTRUCTIONS.slice(0, 200), /real Chromium/);
  for (const needle of ['--toolsets all', 'TABWRIGHT_TOOLSETS', 'tabwright://conventions', 'wait_for_call', 'get_page_context']) assert.ok(INSTRUCTIONS.includes(needle), needle);
});

test('tools/list over stdio: the instructions as written, no outputSchema on any tool, every tool set listed with --toolsets all', async () => {
  // A model configured (never asked: listing does not call it), so the task tools are listed too (docs/tasks.md).
  const env = { ...(process.env as Record<string, string>), TABWRIGHT_LLM_URL: 'http://127.0.0.1:9/v1', TABWRIGHT_LLM_MODEL: 'fit' };
  const transport = new StdioClientTransport({ command: process.execPath, args: serverArgs(['--toolsets', 'all']), stderr: 'pipe', cwd: ROOT, env });
  const client = new Client({ name: 'fit', version: '0.0.0' });
  await client.connect(transport);
  try {
    assert.equal(client.getInstructions(), INSTRUCTIONS);
    const { tools } = await client.listTools();
    // Every tool but a human's command (share_tabs), which MCP never lists.
    assert.equal(tools.length, TOOLS.filter(t => !t.humanOnly).length);
    for (const tool of tools) {
      assert.equal(tool.outputSchema, undefined, tool.name);
      assert.ok((tool.description ?? '').length <= CLAUDE_CODE_CUT, tool.name);
    }
    // Annotations carry only what differs from the spec's defaults; the declarations' `destructive` flag leaves destructiveHint at its default (true).
    const destructive = tools.filter(t => t.annotations?.readOnlyHint !== true && t.annotations?.destructiveHint !== false).map(t => t.name).sort();
    assert.deepEqual(destructive, ['add_element', 'batch', 'clear_cookies', 'close_browser', 'close_tab', 'delete_script', 'delete_storage_state', 'execute', 'run_task']);
    assert.deepEqual(destructive, TOOLS.filter(t => t.destructive && !t.humanOnly).map(t => t.name).sort());
  } finally {
    await client.close();
  }
});

test('clientResult: content only by default; fields + text under --structured-content, never with an image; errors keep structuredContent.error', () => {
  const ok = new ToolResponse().text('Clicked e5.').text('\n- button "Go" [ref=e5]', { mirrors: 'snapshot' }).set('tabId', 1).set('snapshot', '- button "Go" [ref=e5]').build();
  assert.deepEqual(clientResult(ok, false), { content: [{ type: 'text', text: 'Clicked e5.\n\n- button "Go" [ref=e5]' }] });
  // The mirrored snapshot line is not repeated in `text`: the field carries it.
  assert.deepEqual(clientResult(ok, true).structuredContent, { tabId: 1, snapshot: '- button "Go" [ref=e5]', text: 'Clicked e5.' });

  const shot = new ToolResponse().text('Screenshot of tab 1').image('iVBORw0KGgo=', 'image/png').set('bytes', 8).build();
  assert.equal(clientResult(shot, true).structuredContent, undefined);
  assert.equal(clientResult(shot, true).content.length, 2);

  const failed = new ToolResponse().fail(new ToolError('stale_ref', 'Ref e5 is from an older document.', 'Take a fresh snapshot with get_page_context.')).build();
  for (const structured of [false, true]) {
    const out = clientResult(failed, structured);
    assert.equal(out.isError, true);
    assert.equal(out.content[0]!.type === 'text' && out.content[0]!.text, 'Error [stale_ref]: Ref e5 is from an older document.\nHint: Take a fresh snapshot with get_page_context.');
    assert.deepEqual((out.structuredContent as { error: unknown }).error, { type: 'stale_ref', message: 'Ref e5 is from an older document.', hint: 'Take a fresh snapshot with get_page_context.' });
  }
  // Internal keys never reach a client.
  assert.equal('structuredText' in clientResult(ok, true), false);
  assert.equal('structuredText' in clientResult(ok, false), false);
});
