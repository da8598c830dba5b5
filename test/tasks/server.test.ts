// The task tools over a spawned MCP server: not listed without a model (get_bridge_status says why), listed with
// one; a run survives the server's death in the store, marked interrupted with the steps it took, and a later
// server's run_status reads it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, callRaw, connect } from '../fixtures/mcp.js';
import { startFakeModel } from '../fixtures/fakeModel.js';
import { startSite } from '../fixtures/site.js';

const TASK_TOOLS = ['run_task', 'run_status', 'run_respond', 'run_abort', 'extract'];
const model = await startFakeModel();
const site = await startSite();
site.page('/page', '<!doctype html><title>Page</title><p>Hello</p>');
const dirs = mkdtempSync(join(tmpdir(), 'tabwright-tasks-'));
after(async () => {
  await model.close();
  await site.close();
  rmSync(dirs, { recursive: true, force: true });
});

interface Status { tasks: { available: boolean; listed: boolean; reason?: string; model?: string; url?: string } }

test('no model: the task tools are not listed, and get_bridge_status says why; with one they are', async () => {
  const bare = await connect({ args: ['--toolsets', 'all'] });
  try {
    const names = (await bare.client.listTools()).tools.map(t => t.name);
    assert.deepEqual(TASK_TOOLS.filter(n => names.includes(n)), []);
    assert.ok(names.includes('list_routes'));
    const raw = await callRaw(bare.client, 'get_bridge_status');
    assert.deepEqual((raw.structuredContent as unknown as Status).tasks, { available: false, listed: false, reason: 'no model configured: set TABWRIGHT_LLM_URL (with /v1) and TABWRIGHT_LLM_MODEL where the server starts (docs/tasks.md); run_task, extract, run_status, run_respond and run_abort are not listed until then.' });
    assert.match(raw.content.map(c => c.text).join('\n'), /^Tasks: unavailable, no model configured: /m);
  } finally {
    await bare.close();
  }
});

test('a run whose server dies mid-run shows as interrupted, with its steps, to the next server', async () => {
  const env = { TABWRIGHT_LLM_URL: model.url, TABWRIGHT_LLM_MODEL: 'fake', TABWRIGHT_MAX_WAIT: '2', TABWRIGHT_DATA_DIR: join(dirs, 'data'), TABWRIGHT_CONFIG_DIR: join(dirs, 'config') };
  const first = await connect({ args: ['--toolsets', 'core,tasks'], env });
  let runId: string;
  try {
    const names = (await first.client.listTools()).tools.map(t => t.name);
    assert.deepEqual(TASK_TOOLS.filter(n => names.includes(n)), TASK_TOOLS);
    const status = (await call<Status>(first.client, 'get_bridge_status')).tasks;
    assert.deepEqual(status, { available: true, listed: true, model: 'fake', url: model.url });
    await call(first.client, 'navigate', { url: `${site.origin}/page` });
    model.script([{ calls: [{ name: 'get_text', args: {} }] }, { delayMs: 60_000, content: 'never' }]);
    const run = await call<{ runId: string; state: string; steps: Array<{ tool: string; status: string }> }>(first.client, 'run_task', { task: 'Read', mode: 'ask' });
    runId = run.runId;
    assert.equal(run.state, 'running');
    // run_task answers after its wait (¾ of the max-wait); on a loaded machine the step may still be running then.
    let steps = run.steps;
    for (let i = 0; i < 100 && steps[0]?.status !== 'done'; i++) {
      await new Promise(resolve => setTimeout(resolve, 100));
      steps = (await call<{ steps: Array<{ tool: string; status: string }> }>(first.client, 'run_status', { runId })).steps;
    }
    assert.deepEqual(steps.map(s => [s.tool, s.status]), [['get_text', 'done']]);
    assert.equal(statSync(join(dirs, 'data', 'runs.db')).mode & 0o777, 0o600);
    // The process dies without a word: nothing marks the run, the next reader does.
    process.kill(first.transport.pid!, 'SIGKILL');
  } finally {
    await first.close().catch(() => undefined);
  }
  const second = await connect({ args: ['--toolsets', 'core,tasks'], env });
  try {
    const raw = await callRaw(second.client, 'run_status', { runId });
    const run = raw.structuredContent as { state: string; steps: Array<{ tool: string; status: string }>; error: { type: string; message: string } };
    assert.equal(run.state, 'interrupted');
    assert.deepEqual(run.steps.map(s => [s.tool, s.status]), [['get_text', 'done']]);
    assert.equal(run.error.type, 'interrupted');
    assert.match(run.error.message, /^The tabwright process that ran it \(pid \d+\) ended before the run did\.$/);
    assert.match(raw.content[0]!.text!, new RegExp(`^Run ${runId} \\(ask mode, tab 1\\): interrupted after 1 step of 20\\.$`, 'm'));
    // A server that shuts down cleanly marks its own unfinished runs.
    model.script([{ delayMs: 60_000, content: 'never' }]);
    runId = (await call<{ runId: string }>(second.client, 'run_task', { task: 'Think', mode: 'ask' })).runId;
  } finally {
    await second.close();
  }
  const third = await connect({ args: ['--toolsets', 'core,tasks'], env });
  try {
    const run = await call<{ state: string; error: { message: string } }>(third.client, 'run_status', { runId });
    assert.equal(run.state, 'interrupted');
    assert.match(run.error.message, /^The tabwright process that ran it \(pid \d+\) shut down before the run ended\.$/);
  } finally {
    await third.close();
  }
});
