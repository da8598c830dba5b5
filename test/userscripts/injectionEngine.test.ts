// The userscript engine against a real Chromium, one layer below MCP
// (issue #6, "Injection"): a Session with an in-memory ScriptSource, pages
// from the loopback site. The e2e tests over MCP with the real store are
// injection.test.ts and agentscript.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The built modules (npm test builds first): the session finds the bundled runtime and engine next to them in dist/.
import { LaunchConnection } from '../../dist/browser/launch/launchConnection.js';
import { resolveConfig } from '../../dist/config.js';
import { Session } from '../../dist/session/session.js';
import { UserscriptInjector } from '../../dist/userscripts/injection.js';
import type { Tab } from '../../src/session/tab.js';
import { startSite, type Site } from '../fixtures/site.js';
import { MemorySource } from './memorySource.js';

let site: Site;
let dir: string;
let source: MemorySource;
let session: Session;

function header(name: string, lines: string[], kind = 'UserScript'): string {
  return [`// ==${kind}==`, `// @name ${name}`, '// @namespace test', ...lines.map(l => `// ${l}`), `// ==/${kind}==`, ''].join('\n');
}

async function open(path: string): Promise<Tab> {
  const tab = await session.openTab(undefined, true);
  await tab.page.goto(`${site.origin}${path}`, { waitUntil: 'load' });
  return tab;
}

/** Polls `fn` until it returns a value that is not undefined (bounded: 10 s). */
async function until<T>(fn: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const end = Date.now() + 10_000;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met within 10 s');
    await new Promise(r => setTimeout(r, 50));
  }
}

before(async () => {
  site = await startSite();
  dir = mkdtempSync(join(tmpdir(), 'tabwright-usengine-'));
  const config = resolveConfig({ headless: true, isolated: true, webmcp: 'polyfill', workspace: dir }, { XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data'), PATH: process.env.PATH ?? '' });
  session = new Session(new LaunchConnection(config), config);
  source = new MemorySource();
  session.userscripts = new UserscriptInjector(source, '0.0.0-test');
  site.page('/order', '<!doctype html><script>window.seen = {start: window.startRan === true}; document.addEventListener("DOMContentLoaded", () => { window.seen.dclHandler = true; });</script><p id=p>hello</p><script>window.seen.endBeforeParse = window.endRan === true;</script>');
  site.page('/frames', `<!doctype html><p>top</p><iframe id=same src="/child"></iframe><iframe id=cross src="${site.origin.replace('127.0.0.1', 'localhost')}/child"></iframe>`);
  site.page('/child', '<!doctype html><p id=c>child</p>');
  site.page('/plain', '<!doctype html><script>var pageSecret = 42;</script><p>plain</p>');
});

after(async () => {
  await session?.close();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('run-at: document-start before the first page script, document-end at DOMContentLoaded, idle after it', async () => {
  source.add(header('Start', ['@match http://127.0.0.1/order', '@run-at document-start', '@grant none']) + 'window.startRan = true;');
  source.add(header('End', ['@match http://127.0.0.1/order', '@run-at document-end', '@grant none']) + 'window.endRan = {dcl: !!(window.seen && window.seen.dclHandler), p: !!document.getElementById("p")};');
  source.add(header('Idle', ['@match http://127.0.0.1/order', '@grant none']) + 'window.idleRan = {dclHandler: !!window.seen.dclHandler};');
  await session.userscripts!.refresh();
  const tab = await open('/order');
  const state = await until(() => tab.page.evaluate(() => ((window as unknown as { idleRan?: unknown }).idleRan ? { seen: (window as unknown as { seen: unknown }).seen, end: (window as unknown as { endRan: unknown }).endRan, idle: (window as unknown as { idleRan: unknown }).idleRan } : undefined)));
  assert.deepEqual(state, { seen: { start: true, dclHandler: true, endBeforeParse: false }, end: { dcl: false, p: true }, idle: { dclHandler: true } });
  assert.deepEqual(tab.userscripts.scripts().map(s => s.name).sort(), ['End', 'Idle', 'Start']);
});
