// Every CLI verb once, run as a subprocess: `node dist/cli.js ...`
// with temporary config/data dirs, its own daemon port and a temporary cwd.
// The first command starts the daemon (headless Chromium); pages come from a
// loopback fixture site. Asserts the exact JSON fields each verb prints.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { CLI, ROOT } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';
import { cli, cliHome, daemonPid, ok, type CliHome } from '../fixtures/cli.js';

let site: Site;
let home: CliHome;
const tree = JSON.parse(readFileSync(join(ROOT, 'dist', 'cli', 'toolTree.json'), 'utf8')) as { tools: Array<{ name: string }> };
const hasScripts = tree.tools.some(t => t.name === 'export_script');

const ONE = `<!doctype html><title>Page one</title><h1>One</h1><input id=q aria-label=Query>
<script>
  console.log('hello from one');
  document.modelContext?.registerTool?.({ name: 'echo', description: 'Echo the text', annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    execute: async ({ text }) => ({ content: [{ type: 'text', text: 'echo ' + text }] }) });
</script>`;

before(async () => {
  site = await startSite();
  site.page('/one', ONE);
  site.page('/two', '<!doctype html><title>Page two</title><h1>Two</h1>');
  site.page('/lintme', `<!doctype html><title>Lint me</title><script>
    document.modelContext.registerTool({ name: 'peek', description: 'Reads the note', annotations: { readOnlyHint: true },
      execute: () => { localStorage.setItem('peeked', '1'); return 'note'; } });
    document.modelContext.registerTool({ name: 'read_note', description: 'Reads the note', annotations: { readOnlyHint: true }, execute: () => 'note' });
  </script>`);
  site.page('/tall', '<!doctype html><title>Tall</title><style>html,body{margin:0}</style><div style="height:3000px"></div>');
  home = await cliHome();
});

after(async () => {
  await home.cleanup();
  await site.close();
});

test('doctor reports node, browser, dirs, no daemon yet, and the ports', async () => {
  const r = await ok(home, ['doctor']);
  assert.equal(r.node.ok, true);
  assert.equal(r.browser.ok, true);
  assert.equal(typeof r.browser.path, 'string');
  assert.deepEqual(r.configDir, { path: home.configDir, ok: true });
  assert.deepEqual(r.dataDir, { path: home.dataDir, ok: true });
  assert.equal(r.daemon.running, false);
  assert.equal(r.ports.http.port, home.port);
  assert.equal(r.ports.http.inUse, false);
  assert.equal(r.healthy, true);
});

test('doctor --launch starts the browser: native WebMCP in the mode auto, the polyfill in the mode polyfill, the SQLite addon', async () => {
  const r = await ok(home, ['doctor', '--launch']);
  assert.equal(r.launch.browser.ok, true);
  assert.match(r.launch.browser.version, /^chromium \d+/i);
  assert.equal(r.launch.browser.runtime, 'loaded');
  assert.equal(r.launch.browser.webmcp, 'native');
  assert.deepEqual([r.launch.polyfill.ok, r.launch.polyfill.webmcp, r.launch.polyfill.registerTool], [true, 'polyfill', true]);
  assert.equal(r.launch.sqlite.ok, true);
  assert.match(r.launch.sqlite.version, /^3\.\d+\.\d+$/);
  assert.equal(r.healthy, true);
});

test('tabs starts the daemon on first use; daemon.json is 0600; daemon status answers', async () => {
  const r = await ok(home, ['tabs']);
  assert.deepEqual(r.tabs, []);
  const file = join(home.configDir, 'daemon.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const s = await ok(home, ['daemon', 'status']);
  assert.equal(s.running, true);
  assert.equal(s.pid, daemonPid(home));
  assert.equal(s.port, home.port);
  assert.ok(existsSync(join(home.dataDir, 'daemon.log')));
});

test('tab open, tabs, tab list, use --tab, tab use', async () => {
  const one = await ok(home, ['tab', 'open', `${site.origin}/one`]);
  assert.equal(one.tabId, 1);
  assert.equal(one.url, `${site.origin}/one`);
  assert.equal(one.title, 'Page one');
  assert.equal(one.status, 200);
  const two = await ok(home, ['tab', 'open', `${site.origin}/two`]);
  assert.equal(two.tabId, 2);
  assert.equal(two.active, true);
  const tabs = await ok(home, ['tabs']);
  assert.deepEqual(tabs.tabs.map((t: { tabId: number; title: string }) => [t.tabId, t.title]), [[1, 'Page one'], [2, 'Page two']]);
  assert.deepEqual((await ok(home, ['tab', 'list'])).tabs.map((t: { tabId: number }) => t.tabId), [1, 2]);
  const used = await ok(home, ['use', '--tab', '1']);
  assert.equal(used.tabId, 1);
  assert.equal(used.title, 'Page one');
  assert.equal(used.cwd, home.cwd);
  assert.equal(used.scope, '');
  // Another directory remembers its own tab.
  const other = join(home.root, 'other');
  mkdirSync(other);
  assert.equal((await ok(home, ['tab', 'use', '2'], { cwd: other })).tabId, 2);
  assert.equal((await ok(home, ['exec', 'document.title'], { cwd: other })).value, 'Page two');
  assert.equal((await ok(home, ['exec', 'document.title'])).value, 'Page one');
});

test('exec, context page, context text, context console and tab reload act on the remembered tab, not the active one', async () => {
  const focused = await ok(home, ['tab', 'focus', '2']);
  assert.equal(focused.tabId, 2);
  assert.equal(focused.active, true);
  const value = await ok(home, ['exec', 'document.title']);
  assert.deepEqual(value.value, 'Page one');
  const page = await ok(home, ['context', 'page']);
  assert.equal(page.tabId, 1);
  assert.equal(page.title, 'Page one');
  assert.match(page.snapshot, /heading "One"/);
  const text = await ok(home, ['context', 'text']);
  assert.equal(text.tabId, 1);
  assert.match(text.pageText, /^One$/m);
  const consoleCtx = await ok(home, ['context', 'console']);
  assert.equal(consoleCtx.tabId, 1);
  assert.ok(consoleCtx.entries.some((e: { text: string }) => e.text === 'hello from one'), JSON.stringify(consoleCtx.entries));
  const before = (await ok(home, ['tabs'])).tabs.find((t: { tabId: number }) => t.tabId === 1).revision as number;
  const reloaded = await ok(home, ['tab', 'reload']);
  assert.equal(reloaded.tabId, 1);
  assert.equal(reloaded.revision, before + 1);
  // TABWRIGHT_CLI_SCOPE keeps its own remembered tab in the same directory.
  assert.equal((await ok(home, ['use', '--tab', '2'], { env: { TABWRIGHT_CLI_SCOPE: 'bot-b' } })).scope, 'bot-b');
  assert.equal((await ok(home, ['exec', 'document.title'], { env: { TABWRIGHT_CLI_SCOPE: 'bot-b' } })).value, 'Page two');
  assert.equal((await ok(home, ['exec', 'document.title'])).value, 'Page one');
  // --tab wins over the remembered tab.
  assert.equal((await ok(home, ['exec', 'document.title', '--tab', '2'])).value, 'Page two');
});

test('shot -o and tab shot N -o write PNG files; shot without -o writes into the workspace', async () => {
  const a = await ok(home, ['shot', '-o', 'a.png']);
  assert.equal(a.tabId, 1);
  assert.equal(a.format, 'png');
  assert.equal(a.path, join(home.cwd, 'a.png'));
  assert.deepEqual([...readFileSync(a.path).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  assert.equal(readFileSync(a.path).length, a.bytes);
  const b = await ok(home, ['tab', 'shot', '2', '-o', 'b.png']);
  assert.equal(b.tabId, 2);
  assert.ok(statSync(join(home.cwd, 'b.png')).size > 100);
  const c = await ok(home, ['shot']);
  assert.ok(c.path.startsWith(join(home.cwd, '.tabwright', 'screenshots')), c.path);
  assert.ok(existsSync(c.path));
});

test('shot -o picks the format by the extension and writes the whole full page, not the inline cut', async () => {
  const jpeg = await ok(home, ['shot', '-o', 'c.jpg']);
  assert.equal(jpeg.format, 'jpeg');
  assert.deepEqual([...readFileSync(join(home.cwd, 'c.jpg')).subarray(0, 3)], [0xff, 0xd8, 0xff]);
  const webp = await ok(home, ['shot', '-o', 'd.webp']);
  assert.equal(webp.format, 'webp');
  assert.equal(readFileSync(join(home.cwd, 'd.webp')).toString('latin1', 8, 12), 'WEBP');
  // Tab 2, and back afterwards: the later tests expect the two tabs as they were.
  await ok(home, ['navigate', `${site.origin}/tall`, '--tab', '2']);
  const screenshots = join(home.cwd, '.tabwright', 'screenshots');
  const before = existsSync(screenshots) ? readdirSync(screenshots).length : 0;
  const full = await ok(home, ['tab', 'shot', '2', '--full-page', '-o', 'full.png']);
  assert.deepEqual([full.width, full.height, full.format, full.cut], [1280, 3000, 'png', undefined]);
  const file = readFileSync(join(home.cwd, 'full.png'));
  assert.deepEqual([file.readUInt32BE(16), file.readUInt32BE(20)], [1280, 3000], 'the whole page, not the inline budget\'s top');
  assert.equal(file.length, full.bytes);
  assert.equal(existsSync(screenshots) ? readdirSync(screenshots).length : 0, before, 'the daemon\'s copy was moved, not left behind');
  await ok(home, ['navigate', `${site.origin}/two`, '--tab', '2']);
});

test('tools and call reach the WebMCP tools of the remembered tab', async () => {
  const tools = await ok(home, ['tools']);
  assert.deepEqual(tools.tools.map((t: { name: string; tabId: number }) => [t.name, t.tabId]), [['echo', 1]]);
  const called = await ok(home, ['call', 'echo', '--args', '{"text":"hi"}']);
  assert.equal(called.tabId, 1);
  assert.equal(called.name, 'echo');
  assert.deepEqual(called.result.content, [{ type: 'text', text: 'echo hi' }]);
  assert.deepEqual((await ok(home, ['tab', 'tools'])).tools.length, 1);
});

test('tool NAME reaches any tool, with per-field options and --args', async () => {
  const nav = await ok(home, ['tool', 'navigate', '--url', `${site.origin}/two`]);
  assert.equal(nav.tabId, 1);
  assert.equal(nav.title, 'Page two');
  const back = await ok(home, ['tool', 'navigate', '--args', JSON.stringify({ url: `${site.origin}/one` })]);
  assert.equal(back.title, 'Page one');
  const status = await ok(home, ['tool', 'get_bridge_status']);
  assert.equal(status.tabCount, 2);
  // The daemon writes files for this caller into the directory the command ran in.
  assert.equal(status.workspace, home.cwd);
  const nav2 = await ok(home, ['navigate', `${site.origin}/one`]);
  assert.equal(nav2.tabId, 1);
  // An action prints what it did: the element, and the snapshot diff (fields, as the text says).
  const query = /- textbox "Query" \[ref=(e\d+)\]/.exec((await ok(home, ['context', 'page'])).snapshot)![1]!;
  const typed = await ok(home, ['tool', 'type', '--ref', query, '--text', 'hi']);
  assert.deepEqual(typed.element, { ref: query, role: 'textbox', name: 'Query' });
  assert.match(typed.diff, new RegExp(`\\nChanged:\\n  - textbox "Query" \\[ref=${query}\\]: hi  \\(was: empty\\)$`));
  assert.equal(typed.changes.changed, 1);
});

test('a remembered tab that closed is tab_not_found with a hint, never another tab', async () => {
  await ok(home, ['use', '--tab', '2']);
  const closed = await ok(home, ['tab', 'close', '2']);
  assert.equal(closed.closedTabId, 2);
  const run = await cli(home, ['exec', 'document.title']);
  assert.equal(run.code, 1);
  assert.equal(run.json?.ok, false);
  assert.equal(run.json?.error?.type, 'tab_not_found');
  assert.match(run.json!.error!.message, /Tab 2, remembered for /);
  assert.match(run.json!.error!.hint, /tabwright tabs/);
  assert.match(run.json!.error!.hint, /use --tab/);
  const use = await cli(home, ['use', '--tab', '2']);
  assert.equal(use.code, 1);
  assert.equal(use.json?.error?.type, 'tab_not_found');
  await ok(home, ['use', '--tab', '1']);
});

test('--format text and TABWRIGHT_CLI_FORMAT=text print what the model reads: the snapshot itself, lists, errors as text', async () => {
  const page = await cli(home, ['--format', 'text', 'context', 'page']);
  assert.equal(page.code, 0, page.stderr);
  const lines = page.stdout.split('\n');
  assert.match(lines[0]!, new RegExp(`^Tab 1 · revision \\d+ · ${site.origin.replace(/[.]/g, '\\.')}/one$`));
  assert.ok(lines.includes('- heading "One" [level=1]'), page.stdout);
  assert.ok(lines.some(line => /^- textbox "Query" \[ref=e\d+\]: hi$/.test(line)), page.stdout);
  const tabs = await cli(home, ['tabs'], { env: { TABWRIGHT_CLI_FORMAT: 'text' } });
  assert.equal(tabs.code, 0, tabs.stderr);
  assert.match(tabs.stdout, /^1 tab \(\* the active one\):\n\* \[1\] Page one — /);
  const status = await cli(home, ['--format', 'text', 'daemon', 'status']);
  assert.match(status.stdout, /^running: true$/m, 'a result with no tool text: key: value lines');
  const doctor = await cli(home, ['--format', 'text', 'doctor']);
  assert.doesNotMatch(doctor.stdout, /undefined/, 'members JSON leaves out are left out');
  const missing = await cli(home, ['--format=text', 'tab', 'close', '99']);
  assert.deepEqual([missing.code, missing.stdout.split('\n')[0]], [1, 'error (tab_not_found): There is no open tab 99.']);
  assert.match(missing.stdout, /^hint: /m);
  assert.equal(missing.stderr, '', 'the error is said once, on stdout');
  const json = await cli(home, ['--format', 'json', 'tabs'], { env: { TABWRIGHT_CLI_FORMAT: 'text' } });
  assert.equal(json.json?.ok, true, 'the flag wins over the environment');
  const bad = await cli(home, ['tabs'], { env: { TABWRIGHT_CLI_FORMAT: 'yaml' } });
  assert.deepEqual([bad.code, bad.json?.error?.type], [2, 'invalid_arguments']);
});

test('scripts install, list, get, trust, disable, enable, rm and sync', { skip: hasScripts ? false : 'the script tools are not in this build' }, async () => {
  writeFileSync(join(home.cwd, 'hello.user.js'), '// ==UserScript==\n// @name Hello CLI\n// @match http://127.0.0.1/*\n// ==/UserScript==\nconsole.log("hi");\n');
  const installed = await ok(home, ['scripts', 'install', 'hello.user.js']);
  assert.equal(installed.created, true);
  assert.equal(installed.name, 'Hello CLI');
  assert.equal(installed.kind, 'userscript');
  const id = installed.scriptId as string;
  const listed = await ok(home, ['scripts', 'list']);
  assert.deepEqual(listed.scripts.map((s: { scriptId: string; enabled: boolean }) => [s.scriptId, s.enabled]), [[id, true]]);
  const got = await ok(home, ['scripts', 'get', id, '-o', 'copy.user.js']);
  assert.equal(got.path, join(home.cwd, 'copy.user.js'));
  assert.equal(readFileSync(got.path, 'utf8'), readFileSync(join(home.cwd, 'hello.user.js'), 'utf8'));
  assert.equal(listed.scripts[0].author, 'agent');
  assert.deepEqual(await ok(home, ['scripts', 'trust', id]), { scriptId: id, name: 'Hello CLI', author: 'human' });
  assert.equal((await ok(home, ['scripts', 'list'])).scripts[0].author, 'human');
  assert.deepEqual(await ok(home, ['scripts', 'trust', id, '--revoke']), { scriptId: id, name: 'Hello CLI', author: 'agent' });
  const unknown = await cli(home, ['scripts', 'trust', 'nope']);
  assert.equal(unknown.code, 1);
  assert.equal(unknown.json?.error?.type, 'script_not_found');
  assert.deepEqual(await ok(home, ['scripts', 'disable', id]), { scriptId: id, enabled: false });
  assert.deepEqual(await ok(home, ['scripts', 'enable', id]), { scriptId: id, enabled: true });
  const synced = await ok(home, ['sync', 'synced']);
  assert.equal(synced.directory, join(home.cwd, 'synced'));
  assert.ok(existsSync(synced.manifest));
  assert.equal(synced.files.length, 1);
  assert.deepEqual(await ok(home, ['scripts', 'rm', id]), { scriptId: id, deleted: true });
  assert.deepEqual((await ok(home, ['scripts', 'list'])).scripts, []);
});

/** Runs the CLI with `args` under script(1), a pseudo-terminal, in `env`: its JSON line. */
async function onTerminal(args: string[], env: Record<string, string>): Promise<{ ok: boolean; result: Record<string, unknown> }> {
  const command = [process.execPath, CLI, ...args].map(a => JSON.stringify(a)).join(' ');
  const child = spawn('/usr/bin/script', ['-qec', command, '/dev/null'], { cwd: home.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
  await new Promise<void>(resolve => child.on('close', () => resolve()));
  // On a terminal the progress lines share the screen (each cleared with ESC[2K): the JSON follows the last one.
  return JSON.parse(out.slice(out.lastIndexOf('{"ok"')).split(/\r?\n/)[0]!);
}

test('scripts install from a terminal records the script as the human\'s; TABWRIGHT_AGENT=1 keeps it the agent\'s', { skip: !hasScripts ? 'the script tools are not in this build' : existsSync('/usr/bin/script') ? false : 'needs script(1) for a pseudo-terminal' }, async () => {
  writeFileSync(join(home.cwd, 'mine.user.js'), '// ==UserScript==\n// @name Mine\n// @match http://127.0.0.1/*\n// ==/UserScript==\nconsole.log("mine");\n');
  const human = await onTerminal(['scripts', 'install', 'mine.user.js'], home.env);
  assert.equal(human.ok, true);
  assert.equal(human.result.author, 'human');
  const id = human.result.scriptId as string;
  assert.equal((await ok(home, ['scripts', 'list'])).scripts.find((s: { scriptId: string }) => s.scriptId === id).author, 'human');
  // The person edits it and installs the copy again: their script is updated in place, still theirs.
  writeFileSync(join(home.cwd, 'mine.user.js'), '// ==UserScript==\n// @name Mine\n// @match http://127.0.0.1/*\n// ==/UserScript==\nconsole.log("mine, v2");\n');
  const again = await onTerminal(['scripts', 'install', 'mine.user.js'], home.env);
  assert.deepEqual([again.ok, again.result.scriptId, again.result.created, again.result.author], [true, id, false, 'human']);
  // An edited copy saved by an agent at a terminal of its own: the agent's.
  writeFileSync(join(home.cwd, 'mine.user.js'), '// ==UserScript==\n// @name Mine\n// @match http://127.0.0.1/*\n// ==/UserScript==\nconsole.log("mine, edited");\n');
  const agent = await onTerminal(['scripts', 'install', 'mine.user.js', '--script-id', id], { ...home.env, TABWRIGHT_AGENT: '1' });
  assert.equal(agent.ok, true);
  assert.equal(agent.result.author, undefined);
  assert.equal((await ok(home, ['scripts', 'list'])).scripts.find((s: { scriptId: string }) => s.scriptId === id).author, 'agent');
  await ok(home, ['scripts', 'rm', id]);
});

test('on a terminal a consent question counts down and takes the answer (once)', { skip: existsSync('/usr/bin/script') ? false : 'needs script(1) for a pseudo-terminal' }, async () => {
  site.page('/shop', `<!doctype html><title>Shop</title><script>document.modelContext.registerTool({ name: 'buy', description: 'Buy',
    annotations: { consequentialHint: true }, inputSchema: { type: 'object', properties: {} },
    execute: async () => ({ content: [{ type: 'text', text: 'bought' }] }) });</script>`);
  const shop = await ok(home, ['tab', 'open', `${site.origin}/shop`, '--background']);
  const child = spawn('/usr/bin/script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} call buy --tab ${shop.tabId}; echo EXIT=$?`, '/dev/null'], { cwd: home.cwd, env: home.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let answered = false;
  const done = new Promise<void>(resolve => child.on('close', () => resolve()));
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    // Answer when the question (with its countdown) is on the terminal: no timing involved.
    if (!answered && /Allow\? \[o\]nce, \[a\]lways, \[d\]eny, ne\[v\]er \(\d+ s left\)/.test(out)) {
      answered = true;
      child.stdin.write('o\r');
    }
  });
  await done;
  assert.match(out, /consent needed: /);
  assert.match(out, /EXIT=0/);
  const json = JSON.parse(out.split(/\r?\n/).find(l => l.startsWith('{"ok"'))!);
  assert.deepEqual(json.result.result.content, [{ type: 'text', text: 'bought' }]);
  await ok(home, ['tab', 'close', String(shop.tabId)]);
});

test('state save, list, load and delete; cookies redacts values', async () => {
  await ok(home, ['navigate', `${site.origin}/one`]);
  await ok(home, ['tool', 'set_cookies', '--cookies', JSON.stringify([{ name: 'sid', value: 'cli-secret', url: `${site.origin}/` }])]);
  await ok(home, ['exec', 'localStorage.setItem("k", "v")']);
  const cookies = await ok(home, ['cookies']);
  assert.deepEqual(cookies.cookies.map((c: { name: string; value: string }) => [c.name, c.value]), [['sid', '••• (10 chars)']]);
  const saved = await ok(home, ['state', 'save', 'web', '--origin', site.origin]);
  assert.deepEqual([saved.name, saved.path, saved.encrypted, saved.cookieCount, saved.origins], ['web', join(home.dataDir, 'storage-states', 'web.json'), false, 1, [{ origin: site.origin, localStorage: 1, indexedDB: 0, via: 'tab' }]]);
  const listed = await ok(home, ['state', 'list']);
  assert.deepEqual(listed.states.map((s: { name: string; origins: string[]; cookieCount: number }) => [s.name, s.origins, s.cookieCount]), [['web', [site.origin], 1]]);
  await ok(home, ['tool', 'clear_cookies', '--name', 'sid']);
  const loaded = await ok(home, ['state', 'load', 'web']);
  assert.deepEqual([loaded.name, loaded.cookieCount], ['web', 1]);
  assert.equal((await ok(home, ['cookies', '--reveal'])).cookies[0].value, 'cli-secret');
  assert.deepEqual(await ok(home, ['state', 'delete', 'web']), { name: 'web', deleted: true });
  const missing = await cli(home, ['state', 'load', 'web']);
  assert.deepEqual([missing.code, missing.json?.error?.type], [1, 'file_not_found']);
  await ok(home, ['tool', 'clear_cookies', '--name', 'sid']);
});

test('permissions list and reset', async () => {
  const listed = await ok(home, ['permissions', 'list']);
  assert.deepEqual(listed.overrides, []);
  assert.equal(listed.overridesFile, join(home.configDir, 'permission-overrides.json'));
  assert.equal(listed.rulesFile, join(home.configDir, 'permissions.json'));
  assert.deepEqual(await ok(home, ['permissions', 'reset']), { removed: [] });
});

test('schema prints the command tree and every tool schema', async () => {
  const run = await cli(home, ['schema', '--pretty']);
  assert.equal(run.code, 0);
  assert.match(run.stdout, /^\{\n {2}"ok": true,/);
  const s = run.json!.result;
  const names = s.commands.commands.map((c: { name: string }) => c.name);
  for (const verb of ['tabs', 'tab', 'use', 'tools', 'call', 'context', 'shot', 'exec', 'scripts', 'sync', 'permissions', 'schema', 'daemon', 'mcp', 'mcp-config', 'init', 'doctor', 'tool']) assert.ok(names.includes(verb), verb);
  const tab = s.commands.commands.find((c: { name: string }) => c.name === 'tab');
  assert.deepEqual(tab.commands.map((c: { name: string }) => c.name).slice(0, 8), ['list', 'open', 'close', 'focus', 'reload', 'navigate', 'shot', 'use']);
  const toolCmd = s.commands.commands.find((c: { name: string }) => c.name === 'tool');
  assert.deepEqual(toolCmd.commands.map((c: { name: string }) => c.name), tree.tools.map(t => t.name));
  assert.deepEqual(s.tools.map((t: { name: string }) => t.name), tree.tools.map(t => t.name));
  const listTabs = s.tools.find((t: { name: string }) => t.name === 'list_tabs');
  assert.equal(listTabs.inputSchema.type, 'object');
});

test('mcp-config prints each client\'s config with absolute paths', async () => {
  const node = process.execPath;
  const main = join(ROOT, 'dist', 'mcpMain.js');
  const entry = { command: node, args: [main] };
  const cc = await ok(home, ['mcp-config', '--client', 'claude-code']);
  assert.deepEqual(cc.config, { mcpServers: { tabwright: { type: 'stdio', ...entry } } });
  assert.equal(cc.command, `claude mcp add tabwright -- ${node} ${main}`);
  assert.deepEqual(JSON.parse(cc.text), cc.config);
  for (const [client, key] of [['cursor', 'mcpServers'], ['windsurf', 'mcpServers'], ['claude-desktop', 'mcpServers'], ['gemini-cli', 'mcpServers']] as const) {
    const r = await ok(home, ['mcp-config', '--client', client]);
    assert.equal(r.format, 'json');
    assert.deepEqual(JSON.parse(r.text), { [key]: { tabwright: entry } });
    assert.match(r.file, /^\//);
  }
  const vs = await ok(home, ['mcp-config', '--client', 'vscode']);
  assert.deepEqual(JSON.parse(vs.text), { servers: { tabwright: { type: 'stdio', ...entry } } });
  const codex = await ok(home, ['mcp-config', '--client', 'codex']);
  assert.equal(codex.format, 'toml');
  assert.deepEqual(codex.text.split('\n'), ['[mcp_servers.tabwright]', `command = ${JSON.stringify(node)}`, `args = [${JSON.stringify(main)}]`, '']);
  assert.deepEqual(JSON.parse((await ok(home, ['mcp-config', '--client', 'generic'])).text), entry);
  assert.deepEqual(JSON.parse((await ok(home, ['mcp-config'])).text), entry);
  const porter = await ok(home, ['mcp-config', '--client', 'mcporter']);
  assert.deepEqual(porter.config, { mcpServers: { tabwright: { command: node, args: [main, '--workspace', home.cwd], lifecycle: 'keep-alive' } } });
  const porterHere = await ok(home, ['mcp-config', '--client', 'mcporter', '--', '--workspace=/srv/site']);
  assert.deepEqual(porterHere.config.mcpServers.tabwright.args, [main, '--workspace=/srv/site']);
  assert.match(porter.file, /^config\/mcporter\.json/);
  // Server flags after -- go into the entry, checked as the server parses them.
  const flagged = await ok(home, ['mcp-config', '--client', 'claude-code', '--', '--toolsets', 'all', '--headed']);
  assert.deepEqual(flagged.config.mcpServers.tabwright.args, [main, '--toolsets', 'all', '--headed']);
  assert.equal(flagged.command, `claude mcp add tabwright -- ${node} ${main} --toolsets all --headed`);
  const typo = await cli(home, ['mcp-config', '--client', 'cursor', '--', '--toolsetz', 'all']);
  assert.deepEqual([typo.code, typo.json?.error?.type], [2, 'invalid_arguments']);
  assert.match(typo.json!.error!.message, /unknown option '--toolsetz'/);
  const value = await cli(home, ['mcp-config', '--client', 'cursor', '--', '--toolsets', 'bogus']);
  assert.deepEqual([value.code, value.json?.error?.message], [2, 'The server flags after -- would stop the server at start: Tool set "bogus" is unknown.']);
});

test('mcp-config on a terminal prints the snippet itself; --json the envelope', { skip: existsSync('/usr/bin/script') ? false : 'needs script(1) for a pseudo-terminal' }, async () => {
  // script(1) gives the command a pseudo-terminal as its stdout.
  const onTerminal = (args: string[]) => new Promise<string>((resolve, reject) => {
    const child = spawn('/usr/bin/script', ['-qc', [process.execPath, CLI, ...args].join(' '), '/dev/null'], { cwd: home.cwd, env: home.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(out.replace(/\r\n/g, '\n')));
  });
  const snippet = await onTerminal(['mcp-config', '--client', 'codex', '--', '--toolsets', 'all']);
  assert.equal(snippet.trim(), ['[mcp_servers.tabwright]', `command = ${JSON.stringify(process.execPath)}`, `args = [${JSON.stringify(join(ROOT, 'dist', 'mcpMain.js'))}, "--toolsets", "all"]`].join('\n'));
  const envelope = JSON.parse(await onTerminal(['mcp-config', '--client', 'codex', '--json']));
  assert.equal(envelope.ok, true);
  assert.equal(envelope.result.format, 'toml');
});

test('init writes the AGENTS.md section once and keeps the rest of the file', async () => {
  const file = join(home.cwd, 'AGENTS.md');
  assert.deepEqual(await ok(home, ['init']), { file, action: 'created' });
  const first = readFileSync(file, 'utf8');
  // `tabwright` when it is on PATH, else the absolute `node …/dist/cli.js` of this install (a clone has no bin on PATH).
  const cmd = /\n(tabwright|node (\S+)) use --tab 2 /.exec(first);
  assert.ok(cmd, first);
  if (cmd[2]) assert.equal(cmd[2], join(ROOT, 'dist', 'cli.js'));
  assert.deepEqual(await ok(home, ['init']), { file, action: 'unchanged' });
  writeFileSync(file, `# Project\n\nOwn notes.\n\n${first.replace('every command and tool schema as JSON', 'edited by hand')}\nMore notes.\n`);
  assert.deepEqual(await ok(home, ['init']), { file, action: 'updated' });
  const updated = readFileSync(file, 'utf8');
  assert.equal(updated, `# Project\n\nOwn notes.\n\n${first}\nMore notes.\n`);
  assert.equal(updated.split('tabwright:begin').length, 2);
});

test('webmcp lint URL opens the page in a new tab, lints its tools and closes the tab', async () => {
  const before = (await ok(home, ['tabs'])).tabs.length;
  const r = await ok(home, ['webmcp', 'lint', `${site.origin}/lintme`]);
  assert.deepEqual(r.tools, ['peek', 'read_note']);
  assert.deepEqual(r.findings.map((f: { rule: string; tool: string }) => `${f.rule} ${f.tool}`), ['readonly-mutates peek']);
  assert.deepEqual(r.probes.called, ['peek', 'read_note']);
  assert.equal((await ok(home, ['tabs'])).tabs.length, before);
  const text = await cli(home, ['--format', 'text', 'webmcp', 'lint', `${site.origin}/lintme`]);
  assert.match(text.stdout, /^1 finding for the 2 WebMCP tools of tab \d+ \(http:\/\/127\.0\.0\.1:\d+\/lintme\):\n- \[readonly-mutates\] error "peek": It declares readOnlyHint, but calling it in a throwaway context changed localStorage\./);
});

test('doctor names who holds each port: the running daemon by its pid', async () => {
  const r = await ok(home, ['doctor']);
  assert.equal(r.ports.http.inUse, true);
  assert.equal(r.ports.http.by, `the tabwright daemon (pid ${daemonPid(home)})`);
});

test('daemon stop ends the daemon and removes daemon.json; -h works on a nested verb', async () => {
  const pid = daemonPid(home)!;
  const r = await ok(home, ['daemon', 'stop']);
  assert.deepEqual(r, { stopped: true, pid, port: home.port });
  assert.equal(existsSync(join(home.configDir, 'daemon.json')), false);
  assert.deepEqual(await ok(home, ['daemon', 'status']), { running: false, endpointFile: join(home.configDir, 'daemon.json') });
  const help = await cli(home, ['tab', 'shot', '-h']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: tabwright tab shot \[options\] \[tabId\]/);
});

test('three commands at once on a fresh home start one daemon (the start lock)', async () => {
  const fresh = await cliHome();
  try {
    const runs = await Promise.all([cli(fresh, ['tabs']), cli(fresh, ['tabs']), cli(fresh, ['tabs'])]);
    assert.deepEqual(runs.map(r => [r.code, r.json?.ok]), [[0, true], [0, true], [0, true]]);
    const log = readFileSync(join(fresh.dataDir, 'daemon.log'), 'utf8');
    assert.equal(log.match(/listening on/g)?.length, 1, log);
    assert.equal(existsSync(join(fresh.configDir, 'daemon.lock')), false);
  } finally {
    await fresh.cleanup();
  }
});
