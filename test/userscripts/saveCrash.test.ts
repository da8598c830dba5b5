// A save killed at each stage: the server is told to stop at the
// start of a stage (TABWRIGHT_TEST_PAUSE_SAVE_AT, test only) or inside the persist
// transaction before COMMIT (`commit`), is killed with SIGKILL there, and restarted.
// The script must be the old or the new version, whole (code and codeHash agree), and
// get_bridge_status for that operation must agree: not_committed before the commit,
// committed (and current) after it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../fixtures/harness.js';
import { call, connect, type Connected } from '../fixtures/mcp.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function script(body: string): string {
  return ['// ==UserScript==', '// @name Crash', '// @namespace https://example.test', '// @match https://example.test/*',
    '// @grant none', '// ==/UserScript==', body, ''].join('\r\n');
}

let dirs: string;
before(() => {
  dirs = mkdtempSync(join(tmpdir(), 'tabwright-crash-'));
});
after(() => rmSync(dirs, { recursive: true, force: true }));

const cases: Array<{ stage: string; committed: boolean }> = [
  { stage: 'validate', committed: false },
  { stage: 'normalize', committed: false },
  { stage: 'persist', committed: false },
  { stage: 'commit', committed: false },
  { stage: 'deploy', committed: true },
];

for (const { stage, committed } of cases) {
  test(`killed at ${stage}: the script is ${committed ? 'the new' : 'the old'} version, whole, and the receipt agrees`, async () => {
    const dataDir = join(dirs, stage);
    const env = { TABWRIGHT_DATA_DIR: dataDir };
    const oldCode = script('old();');
    const newCode = script('brand_new();');

    const setup = await connect({ args: ['--toolsets', 'all'], env });
    const { scriptId } = await call<{ scriptId: string }>(setup.client, 'export_script', { code: oldCode });
    await setup.close();

    const paused: Connected = await connect({ args: ['--toolsets', 'all'], env: { ...env, TABWRIGHT_TEST_PAUSE_SAVE_AT: stage } });
    const pending = paused.client.callTool({ name: 'export_script', arguments: { code: newCode, scriptId, expectedCodeHash: sha(oldCode) } }).catch(error => error);
    const marker = await until(`the ${stage} marker`, () => new RegExp(`tabwright-test: save paused at ${stage} operation ([0-9a-f-]{36}) script (\\S+)`).exec(paused.stderr()) ?? undefined);
    const operationId = marker[1]!;
    assert.equal(marker[2], scriptId);
    const pid = paused.transport.pid!;
    process.kill(pid, 'SIGKILL');
    await until('the server to die', () => {
      try {
        process.kill(pid, 0);
        return undefined;
      } catch {
        return true;
      }
    });
    await pending;
    await paused.close().catch(() => undefined);

    const restarted = await connect({ args: ['--toolsets', 'all'], env });
    try {
      const imported = await call<{ path: string; codeHash: string }>(restarted.client, 'import_script', { scriptId, path: 'now.user.js' });
      const onDisk = await readFile(imported.path, 'utf8');
      assert.equal(onDisk, committed ? newCode : oldCode);
      assert.equal(imported.codeHash, sha(onDisk));
      const { save } = await call<{ save: { status: string; matchesCurrentCode?: boolean; operationId: string } }>(restarted.client, 'get_bridge_status', { operationId, scriptId });
      assert.equal(save.operationId, operationId);
      if (committed) {
        assert.equal(save.status, 'committed');
        assert.equal(save.matchesCurrentCode, true);
      } else {
        assert.equal(save.status, 'not_committed');
      }
      // The store is usable after the crash: the same save goes through now.
      const retried = await call<{ codeHash: string }>(restarted.client, 'export_script', { code: script('after_crash();'), scriptId, expectedCodeHash: sha(onDisk) });
      assert.equal(retried.codeHash, sha(script('after_crash();')));
    } finally {
      await restarted.close();
    }
  });
}

test('MCP cancellation while a save waits before persist: cancelled, nothing written, not_committed', async () => {
  const dataDir = join(dirs, 'cancel');
  const env = { TABWRIGHT_DATA_DIR: dataDir };
  const oldCode = script('old();');
  const setup = await connect({ args: ['--toolsets', 'all'], env });
  const { scriptId } = await call<{ scriptId: string }>(setup.client, 'export_script', { code: oldCode });
  await setup.close();

  const server = await connect({ args: ['--toolsets', 'all'], env: { ...env, TABWRIGHT_TEST_PAUSE_SAVE_AT: 'persist' } });
  try {
    const controller = new AbortController();
    const pending = server.client.callTool({ name: 'export_script', arguments: { code: script('never();'), scriptId } }, { signal: controller.signal });
    const marker = await until('the persist marker', () => /save paused at persist operation ([0-9a-f-]{36})/.exec(server.stderr()) ?? undefined);
    controller.abort();
    await assert.rejects(pending);
    const operationId = marker[1]!;
    const { save } = await waitForStatus(server, operationId, 'not_committed');
    assert.equal(save.running, false);
    assert.equal(save.error?.type, 'cancelled');
    const imported = await call<{ path: string; codeHash: string }>(server.client, 'import_script', { scriptId, path: 'now.user.js' });
    assert.equal(await readFile(imported.path, 'utf8'), oldCode);
    assert.equal(imported.codeHash, sha(oldCode));
  } finally {
    await server.close();
  }
});

test('the save deadline (TABWRIGHT_SAVE_DEADLINE_MS) while a save waits before persist: timeout, nothing written', async () => {
  const dataDir = join(dirs, 'deadline');
  const env = { TABWRIGHT_DATA_DIR: dataDir };
  const oldCode = script('old();');
  const setup = await connect({ args: ['--toolsets', 'all'], env });
  const { scriptId } = await call<{ scriptId: string }>(setup.client, 'export_script', { code: oldCode });
  await setup.close();

  const server = await connect({ args: ['--toolsets', 'all'], env: { ...env, TABWRIGHT_TEST_PAUSE_SAVE_AT: 'normalize', TABWRIGHT_SAVE_DEADLINE_MS: '1000' } });
  try {
    const result = await server.client.callTool({ name: 'export_script', arguments: { code: script('late();'), scriptId } });
    const sc = result.structuredContent as { error: { type: string; message: string }; operationId: string; scriptId: string };
    assert.equal(sc.error.type, 'timeout');
    assert.match(sc.error.message, /within 1000 ms; nothing was written/);
    assert.equal(sc.scriptId, scriptId);
    const operationId = sc.operationId;
    assert.ok(sc.error.message.includes(operationId));
    const { save } = await call<{ save: { status: string } }>(server.client, 'get_bridge_status', { operationId });
    assert.equal(save.status, 'not_committed');
    const imported = await call<{ path: string }>(server.client, 'import_script', { scriptId, path: 'now.user.js' });
    assert.equal(await readFile(imported.path, 'utf8'), oldCode);
  } finally {
    await server.close();
  }
});

async function waitForStatus(server: Connected, operationId: string, status: string) {
  let last: unknown;
  return await until(() => `operation ${operationId} to be ${status} (it is ${JSON.stringify(last)})`, async () => {
    const result = await call<{ save: { status: string; running?: boolean; error?: { type: string } } }>(server.client, 'get_bridge_status', { operationId });
    last = result.save;
    return result.save.status === status && result.save.running === false ? result : undefined;
  }, 15_000);
}
