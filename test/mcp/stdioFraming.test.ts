/**
 * Shared case 013 (stdio framing): stdout carries only newline-delimited
 * JSON-RPC frames, input is framed on "\n" only (split and batched writes,
 * U+2028/U+2029 inside strings), and the server escapes U+2028/U+2029 on the
 * wire. Plus: a page that floods its console, with every log of the server
 * and of playwright-core switched on, puts no byte on stdout that is not
 * part of a JSON-RPC frame.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, serverArgs } from '../fixtures/mcp.js';
import { RawSession } from '../fixtures/raw.js';
import { SHARED, sharedMissing, startSite, type Site } from '../fixtures/site.js';

const CASE = join(SHARED, 'cases', '013-stdio-framing');

/** Runs a command to completion (bounded), collecting stdout and stderr. */
function run(cmd: string, args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.once('close', code => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('shared case 013: drive.mjs prints PASS against tabwright mcp, with no WARN', { skip: sharedMissing(CASE) }, async () => {
  const { code, stdout, stderr } = await run(
    process.execPath,
    [join(CASE, 'drive.mjs'), '--', process.execPath, ...serverArgs()],
    { EVAL_TOOL: 'execute', EVAL_ARG: 'code' },
    120_000,
  );
  const out = `stdout:\n${stdout}\nstderr:\n${stderr}`;
  assert.match(stdout, /^PASS \(\d+ stdout lines, all JSON-RPC\)$/m, out);
  assert.doesNotMatch(stdout, /^FAIL/m, out);
  assert.doesNotMatch(stdout, /^WARN/m, out);
  assert.equal(code, 0, out);
});

let site: Site;

before(async () => {
  site = await startSite();
  // Floods the console at load and keeps logging while the test works: long lines,
  // lines that look like JSON-RPC, U+2028/U+2029, objects, errors and uncaught exceptions.
  site.page('/flood', `<!doctype html><title>Flood</title><p id="p">flooding</p><script>
    const fake = '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}';
    for (let i = 0; i < 500; i++) {
      console.log('flood ' + i + ' ' + 'x'.repeat(2000));
      console.info(fake);
      console.warn('sep\\u2028line\\u2029para ' + i);
      console.error(new Error('flood error ' + i));
      console.debug({ i, nested: { fake } });
    }
    setTimeout(() => { throw new Error('uncaught flood'); }, 0);
    Promise.reject(new Error('unhandled flood'));
    window.tick = 0;
    setInterval(() => { for (let i = 0; i < 10; i++) console.log(fake + ' tick\\u2028' + window.tick++); }, 20);
  </script>`);
});
after(async () => {
  await site?.close();
});

test('a page flooding its console puts nothing but JSON-RPC frames on stdout', async () => {
  const raw = new RawSession(serverArgs(), { env: { TABWRIGHT_LOG: 'debug', DEBUG: 'pw:browser*,pw:api,tabwright*' } });
  try {
    const init = await raw.initialize('2025-06-18');
    assert.equal(init.result?.protocolVersion, '2025-06-18');
    const nav = await raw.callTool('navigate', { url: `${site.origin}/flood` });
    assert.notEqual(nav.isError, true, JSON.stringify(nav));
    // Keep the page logging for a while with calls in flight.
    for (let i = 0; i < 5; i++) {
      const exec = await raw.callTool('execute', { code: 'await new Promise(r => setTimeout(r, 200)); return window.tick;' });
      assert.equal(typeof (exec.structuredContent as { value: unknown }).value, 'number');
    }
    const consoleRes = await raw.callTool('get_console_context', { limit: 5 });
    const entries = (consoleRes.structuredContent as { entries: Array<{ text: string }> }).entries;
    assert.equal(entries.length, 5, JSON.stringify(consoleRes));
    assert.ok(entries.every(e => e.text.startsWith('{"jsonrpc":"2.0","id":1,') && e.text.includes(' tick\u2028')), JSON.stringify(entries));
    const tick = (await raw.callTool('execute', { code: 'window.tick' })).structuredContent as { value: number };
    assert.ok(tick.value > 100, `the page kept logging (${tick.value} ticks)`);
    await raw.callTool('navigate', { url: 'about:blank' });
    const exit = await raw.close();
    assert.equal(exit.code, 0, raw.stderr);

    assert.deepEqual(raw.junk, [], 'every stdout line is a JSON-RPC 2.0 message');
    assert.equal(raw.partial, '', 'stdout ends on a frame boundary');
    const messages = raw.lines.map(l => JSON.parse(l) as { id?: number; result?: unknown; error?: unknown });
    // Exactly one response per request (ids 1..10) and nothing else: the page's fake
    // frames and log lines never reached stdout.
    assert.deepEqual(messages.map(m => m.id).sort((a, b) => a! - b!), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const line of raw.lines) {
      assert.doesNotMatch(line, /[\u2028\u2029]/, 'U+2028/U+2029 are escaped on the wire');
    }
    assert.match(raw.stderr, /\[(serve|mcp|launch)\]/, 'logs went to stderr');
  } finally {
    raw.kill('SIGKILL');
  }
});
