// The userscript engine against a real Chromium, one layer below MCP
//: a Session with an in-memory ScriptSource, pages
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
import { until } from '../fixtures/harness.js';
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
  const state = await until('the scripts\' effect', () => tab.page.evaluate(() => ((window as unknown as { idleRan?: unknown }).idleRan ? { seen: (window as unknown as { seen: unknown }).seen, end: (window as unknown as { endRan: unknown }).endRan, idle: (window as unknown as { idleRan: unknown }).idleRan } : undefined)));
  assert.deepEqual(state, { seen: { start: true, dclHandler: true, endBeforeParse: false }, end: { dcl: false, p: true }, idle: { dclHandler: true } });
  assert.deepEqual(tab.userscripts.scripts().map(s => s.name).sort(), ['End', 'Idle', 'Start']);
});

test('worlds: a @grant none script sees page globals; a granted script\'s GM functions are invisible to the page', async () => {
  source.add(header('PageWorld', ['@match http://127.0.0.1/plain', '@grant none']) + 'document.body.dataset.secret = String(window.pageSecret); document.body.dataset.gmInNone = typeof GM_setValue;');
  source.add(header('Granted', ['@match http://127.0.0.1/plain', '@grant GM_setValue', '@grant GM_getValue']) +
    'document.body.dataset.granted = [typeof GM_setValue, typeof GM.setValue, typeof GM_addStyle, unsafeWindow === window, GM_info.script.name].join(",");');
  await session.userscripts!.refresh();
  const tab = await open('/plain');
  const data = await until('the scripts\' effect', () => tab.page.evaluate(() => (document.body.dataset.granted ? { ...document.body.dataset } : undefined)));
  assert.deepEqual(data, { secret: '42', gmInNone: 'undefined', granted: 'function,function,undefined,true,Granted' });
  const leaked = await tab.page.evaluate(() => Object.getOwnPropertyNames(window).filter(n => /^GM|__tabwright_us$/.test(n)));
  assert.deepEqual(leaked, []);
});

test('GM values: persisted through the source, shared with other tabs at once, shipped to new documents', async () => {
  const id = source.add(header('Counter', ['@match http://127.0.0.1/child', '@grant GM_getValue', '@grant GM_setValue', '@grant GM_listValues', '@grant GM_deleteValue', '@noframes']) +
    'window.readCount = () => GM_getValue("count", 0); window.bump = () => GM.setValue("count", GM_getValue("count", 0) + 1); window.keys = () => GM_listValues(); window.drop = () => GM.deleteValue("count");');
  await session.userscripts!.refresh();
  const a = await open('/child');
  const b = await open('/child');
  await until('the scripts\' effect', () => b.page.evaluate(() => (typeof (window as unknown as { bump?: unknown }).bump === 'function' ? true : undefined)));
  // GM.setValue resolves once the value is stored and new documents get it.
  await a.page.evaluate(() => (window as unknown as { bump: () => Promise<void> }).bump());
  await a.page.evaluate(() => (window as unknown as { bump: () => Promise<void> }).bump());
  assert.equal(source.getValue(id, 'count'), 2);
  assert.equal(await until('the scripts\' effect', () => b.page.evaluate(() => ((window as unknown as { readCount: () => number }).readCount() === 2 ? 2 : undefined))), 2);
  const c = await open('/child');
  assert.deepEqual(await until('the scripts\' effect', () => c.page.evaluate(() => (window as unknown as { keys?: () => string[] }).keys?.())), ['count']);
  assert.equal(await c.page.evaluate(() => (window as unknown as { readCount: () => number }).readCount()), 2);
  await c.page.evaluate(() => (window as unknown as { drop: () => Promise<void> }).drop());
  assert.equal(source.getValue(id, 'count'), undefined);
  assert.equal(await until('the scripts\' effect', () => a.page.evaluate(() => ((window as unknown as { readCount: () => number }).readCount() === 0 ? 0 : undefined))), 0);
});

test('GM_log and a throwing script land in the tab console with the script name; other scripts still run', async () => {
  source.add(header('Thrower', ['@match http://127.0.0.1/plain?log', '@grant none']) + 'throw new Error("boom from thrower");');
  source.add(header('Logger', ['@match http://127.0.0.1/plain?log', '@grant GM_log']) + 'GM_log("hello", {n: 1}); document.body.dataset.logger = "ran";');
  await session.userscripts!.refresh();
  const tab = await open('/plain?log');
  await until('the scripts\' effect', () => tab.page.evaluate(() => document.body.dataset.logger));
  const entries = await until('the scripts\' effect', () => {
    const e = tab.console.query({}).entries.filter(x => x.script);
    return e.length >= 2 ? e : undefined;
  });
  const log = entries.find(e => e.script!.name === 'Logger')!;
  assert.equal(log.text, '[Logger] hello {"n":1}');
  assert.equal(log.level, 'log');
  const err = entries.find(e => e.script!.name === 'Thrower')!;
  assert.equal(err.level, 'error');
  assert.equal(err.kind, 'exception');
  assert.match(err.text, /^\[Thrower\] Error: boom from thrower/);
});

test('an error thrown later from a script\'s own callback is tagged with the script too', async () => {
  source.add(header('Late thrower', ['@match http://127.0.0.1/plain?late', '@grant none']) + 'setTimeout(function lateTimer() { throw new Error("late boom"); }, 0);');
  await session.userscripts!.refresh();
  const tab = await open('/plain?late');
  const entry = await until('the scripts\' effect', () => tab.console.query({}).entries.find(e => e.kind === 'exception' && e.text.includes('late boom')));
  assert.deepEqual(entry.script?.name, 'Late thrower');
  assert.match(entry.text, /^\[Late thrower\] Error: late boom\n\s+at lateTimer \(tabwright-userscripts-\d+\.js:\d+:\d+\)/);
});

test('frames: a script runs in same-origin and cross-origin frames, @noframes only at the top', async () => {
  source.add(header('Everywhere', ['@include *', '@grant none']) + 'document.documentElement.dataset.everywhere = "1";');
  source.add(header('TopOnly', ['@include *', '@grant none', '@noframes']) + 'document.documentElement.dataset.toponly = "1";');
  await session.userscripts!.refresh();
  const tab = await open('/frames');
  const read = () => Promise.all(tab.page.frames().map(f => f.evaluate(() => `${location.host === new URL(document.referrer || location.href).host ? 'same' : 'cross'}:${document.documentElement.dataset.everywhere ?? '-'}${document.documentElement.dataset.toponly ?? '-'}`)));
  const frames = await until('the scripts\' effect', async () => {
    const r = await read();
    return r.length === 3 && r.every(x => x.includes(':1')) ? r : undefined;
  });
  assert.equal(frames[0], 'same:11');
  assert.deepEqual(frames.slice(1).sort(), ['cross:1-', 'same:1-']);
  assert.notEqual(tab.page.frames()[2]!.url().split('/')[2], tab.page.frames()[0]!.url().split('/')[2]);
});

test('a disabled script does not run; enabling it reaches new documents, open ones keep what ran until reloaded', async () => {
  const id = source.add(header('Toggled', ['@match http://127.0.0.1/plain?toggle', '@grant none']) + 'document.body.dataset.toggled = "yes";', { enabled: false });
  await session.userscripts!.refresh();
  const tab = await open('/plain?toggle');
  assert.equal(await tab.page.evaluate(() => document.body.dataset.toggled ?? 'no'), 'no');
  source.toggle(id, true);
  await session.userscripts!.refresh();
  assert.equal(await tab.page.evaluate(() => document.body.dataset.toggled ?? 'no'), 'no');
  await tab.page.reload({ waitUntil: 'load' });
  assert.equal(await until('the scripts\' effect', () => tab.page.evaluate(() => document.body.dataset.toggled)), 'yes');
  assert.deepEqual(tab.userscripts.scripts().filter(s => s.id === id), [{ id, name: 'Toggled' }]);
});

test('menu commands: listed per tab and run in their frame', async () => {
  source.add(header('Menu', ['@match http://127.0.0.1/plain?menu', '@grant GM_registerMenuCommand']) + 'GM_registerMenuCommand("Paint it", () => { document.body.dataset.painted = "red"; });');
  await session.userscripts!.refresh();
  const tab = await open('/plain?menu');
  const [command] = await until('the scripts\' effect', () => (tab.userscripts.menuCommands().length ? tab.userscripts.menuCommands() : undefined));
  assert.equal(command!.caption, 'Paint it');
  assert.equal(command!.scriptName, 'Menu');
  await session.userscripts!.runMenuCommand(tab, command!.commandId);
  assert.equal(await tab.page.evaluate(() => document.body.dataset.painted), 'red');
});

test('GM_setClipboard writes the page\'s clipboard', async () => {
  source.add(header('Clip', ['@match http://127.0.0.1/plain?clip', '@grant GM_setClipboard']) + 'window.copy = () => GM.setClipboard("copied by a script");');
  await session.userscripts!.refresh();
  const tab = await open('/plain?clip');
  await until('the scripts\' effect', () => tab.page.evaluate(() => (typeof (window as unknown as { copy?: unknown }).copy === 'function' ? true : undefined)));
  await tab.page.evaluate(() => (window as unknown as { copy: () => Promise<void> }).copy());
  assert.equal(await tab.page.evaluate(() => navigator.clipboard.readText()), 'copied by a script');
});

test('AgentScript (polyfill): its tool is listed with its scriptId and the page cannot execute it', async () => {
  const id = source.add(header('Notes', ['@match http://127.0.0.1/plain?agent', '@grant none', '@webmcp add_note allow'], 'AgentScript') +
    'document.modelContext.registerTool({name: "add_note", description: "Add a note", inputSchema: {type: "object"}, execute: async () => ({content: [{type: "text", text: "noted"}]})});');
  await session.userscripts!.refresh();
  const tab = await open('/plain?agent');
  const tools = await until('the scripts\' effect', () => tab.page.evaluate(() => {
    const list = (globalThis as unknown as { __tabwright: { webmcp: { list(): Array<{ name: string; scriptId?: string }> } } }).__tabwright.webmcp.list();
    return list.length ? list.map(t => ({ name: t.name, scriptId: t.scriptId })) : undefined;
  }));
  assert.deepEqual(tools, [{ name: 'add_note', scriptId: id }]);
  const fromPage = await tab.page.evaluate(() => (document as unknown as { modelContext: { executeTool(n: string, i: unknown): Promise<string> } }).modelContext.executeTool('add_note', {}).then(r => `ok ${r}`, (e: Error) => `${e.name}: ${e.message}`));
  assert.equal(fromPage, 'NotAllowedError: Tool "add_note" belongs to an AgentScript; only tabwright can call it.');
  // A page script claiming the registrar after the engine gets nothing.
  assert.equal(await tab.page.evaluate(() => (globalThis as unknown as { __tabwright: { webmcp: { claimScriptRegistrar(): unknown } } }).__tabwright.webmcp.claimScriptRegistrar() === undefined), true);
});
