/**
 * The extension link lives (EXTENSION-DESIGN.md §2a, §4.2; docs/own-browser.md, "How it connects"), proven on a
 * Chromium spawned raw: nothing attaches to it (a Playwright-launched browser keeps the extension's worker alive
 * and would hide every suspension). Chrome stops an MV3 worker whose socket is silent for 30 s; the server's ping
 * every 20 s (the real period: TABWRIGHT_EXTENSION_PING_MS is not set here) must hold the link past that, and a
 * server that starts after the worker was stopped must be reached through the worker's chrome.alarms redial.
 * Neither may open a tab. The profile is paired once through the extension's pairing page (with Playwright),
 * then the browser under test runs raw on it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { spawnRawChromium, startExtensionBrowser, TEST_PAIRING_CODE, type RawChromium } from '../fixtures/extension.js';
import { freePort, until } from '../fixtures/harness.js';
import { call, connect, type Connected } from '../fixtures/mcp.js';

const connectedLines = (server: Connected) => server.stderr().split('\n').filter(l => /the extension \S+ \S+ is connected/.test(l)).length;
const closedLines = (server: Connected) => server.stderr().split('\n').filter(l => /the extension link closed/.test(l)).length;

let profile: string;
let port: number;
let raw: RawChromium | undefined;
const env = () => ({ TABWRIGHT_WS_PORT: String(port), TABWRIGHT_PAIRING_KEY: TEST_PAIRING_CODE, TABWRIGHT_LOG: 'info' });

before(async () => {
  profile = mkdtempSync(join(tmpdir(), 'tabwright-live-'));
  port = await freePort();
  // Pair the profile as a user would, then let that browser go: the pairing is in the extension's storage.
  const pairing = await startExtensionBrowser({ profile });
  await pairing.pair(TEST_PAIRING_CODE, port);
  await pairing.close();
  raw = spawnRawChromium({ profile });
});
after(async () => {
  await raw?.stop({ keepProfile: true });
  rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

test('the server\'s pings hold an idle link past the worker\'s 30 s limit; the server starting later is reached by the alarm; no tab opens', async () => {
  const pagesAtStart = (await raw!.pages()).length;

  // 1. A server on the port: the worker dials it (at start, or on its next retry).
  let server = await connect({ args: ['--connection', 'extension'], env: env() });
  try {
    await until(() => `the extension to connect (stderr: ${server.stderr().slice(-500)})`, () => connectedLines(server) === 1, 60_000);
    await call(server.client, 'list_tabs');
    // Idle for 45 s: no tool calls, only the server's pings on the socket.
    await sleep(45_000);
    assert.equal(closedLines(server), 0, `the link dropped while idle:\n${server.stderr()}`);
    assert.equal(connectedLines(server), 1, 'one link throughout, no reconnect');
    await call(server.client, 'list_tabs');
  } finally {
    await server.close();
  }

  // 2. No server for 40 s: the worker's socket closed, it retries and then Chrome stops it (30 s without events).
  await sleep(40_000);
  const startedLate = Date.now();
  server = await connect({ args: ['--connection', 'extension'], env: env() });
  try {
    // The alarm fires every 30 s and wakes the worker, which dials.
    await until(() => `the extension to come back (stderr: ${server.stderr().slice(-500)})`, () => connectedLines(server) === 1, 75_000);
    const waited = Date.now() - startedLate;
    await call(server.client, 'list_tabs');
    assert.ok(waited < 75_000, `reconnected after ${waited} ms`);
  } finally {
    await server.close();
  }
  assert.equal((await raw!.pages()).length, pagesAtStart, 'no tab opened by pairing, linking or reconnecting');
});
