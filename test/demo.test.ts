/**
 * The demo (`npm run demo`): runs the built
 * dist/demo/run.js as a child process, as a user would, and checks that it
 * passes and that its transcript names every step.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './fixtures/mcp.js';

const DEMO = join(ROOT, 'dist', 'demo', 'run.js');
const LIMIT_MS = 180_000;
/** The demo's steps, in order. */
const STEPS = ['list_tabs', 'navigate', 'get_page_context', 'type', 'click', 'list_webmcp_tools', 'call_webmcp_tool', 'take_screenshot', 'get_console_context'];

function runDemo(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // As a user runs it: without the suite's TABWRIGHT_STRUCTURED_CONTENT (scripts/test.mjs).
    const { TABWRIGHT_STRUCTURED_CONTENT: _suite, ...env } = process.env;
    const child = spawn(process.execPath, [DEMO, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Over the limit: SIGINT lets the demo close its browser; SIGKILL if it does not.
    const timer = setTimeout(() => {
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    }, LIMIT_MS);
    child.on('error', reject);
    child.on('close', code => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('npm run demo passes and its transcript names every step', { timeout: LIMIT_MS + 20_000 }, async () => {
  const out = mkdtempSync(join(tmpdir(), 'tabwright-demo-'));
  try {
    const { code, stdout, stderr } = await runDemo(['--out', out]);
    const report = `exit ${code}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`;
    assert.equal(code, 0, report);
    let at = 0;
    for (const step of STEPS) {
      const found = stdout.slice(at).search(new RegExp(`\\] ${step}\\b.*✓ \\d+ ms`));
      assert.ok(found >= 0, `step ${step} missing or out of order\n${report}`);
      at += found + 1;
    }
    assert.match(stdout, /Demo passed: \d+ steps/, report);
    const screenshot = /^Screenshot: (.+\.(?:png|jpg|webp))$/m.exec(stdout)?.[1];
    assert.ok(screenshot?.startsWith(out) && existsSync(screenshot), `the screenshot is not under ${out}\n${report}`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
