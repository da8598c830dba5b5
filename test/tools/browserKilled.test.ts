// The managed browser killed mid-call (docs/errors.md, browser_disconnected): the browser process ends with SIGKILL
// while a call waits on a page; the call answers a typed error at once, not after its own timeout, and the next
// call starts a fresh browser. The process is found by a switch only this file's browser carries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { useServer } from '../fixtures/harness.js';
import { call, callError, unlessConnection } from '../fixtures/mcp.js';
import { isAlive, processesWith } from '../fixtures/processes.js';

const MARKER = `--tabwright-test-marker=${randomUUID()}`;
const tw = useServer({
  pages: { '/a': '<!doctype html><title>A</title><h1>Page A</h1>', '/b': '<!doctype html><title>B</title><h1>Page B</h1>' },
  args: ['--browser-arg', MARKER],
});

/** The browser's own process: not the server (whose --browser-arg names the marker too), nor the browser's renderers, GPU or utility processes (those carry --type=). */
function browserProcess(): number | undefined {
  return processesWith(MARKER).find(p => /chrom/i.test(p.args.split(' ')[0]!) && !p.args.includes('--type='))?.pid;
}

for (const [kind, tool, args] of [
  ['a wait on the page', 'wait_for', { text: 'never shown', timeoutSec: 30 }],
  ['page code that never settles', 'execute', { code: 'await new Promise(() => {})', timeoutSec: 30 }],
] as const) {
  test(`the browser killed during ${kind}: the call ends at once with a typed error; the next call starts a fresh browser`, unlessConnection(['cdp', 'playwright-server', 'own-chrome', 'extension'], 'a browser tabwright did not launch is not its to kill; an attached browser that goes away is tested in test/attach/attach.test.ts'), async () => {
    const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/a` });
    const pid = browserProcess();
    assert.ok(pid, 'the browser process, by its marker');
    const started = Date.now();
    const pending = callError(tw.client, tool, { tabId, ...args });
    await new Promise(resolve => setTimeout(resolve, 500));
    process.kill(pid, 'SIGKILL');
    const error = await pending;
    const took = Date.now() - started;
    assert.equal(error.type, 'browser_disconnected', JSON.stringify(error));
    assert.match(error.message, /The browser tabwright launched went away during the call/);
    assert.ok(took < 15_000, `the call took ${took} ms`);
    assert.equal(isAlive(pid), false);
    const next = await call<{ tabId: number; title: string; status: number }>(tw.client, 'navigate', { url: `${tw.origin}/b` });
    assert.deepEqual([next.title, next.status], ['B', 200]);
    assert.ok(browserProcess(), 'a fresh browser');
    assert.notEqual(browserProcess(), pid);
  });
}
