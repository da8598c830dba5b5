/**
 * The tool verbs of the CLI: short verbs (`tabs`, `shot`, `exec`,
 * ...), their noun-verb forms (`tab list`, `tab shot`, ...), the script
 * verbs, and `tool NAME` for every tool in the generated tree.
 */
import { copyFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { dataDir } from '../config.js';
import { callTool, type ToolResult } from './call.js';
import { EXIT } from './exitCodes.js';
import { cliError } from './output.js';
import { currentScope, rememberTab, rememberedTabsPath } from './rememberedTab.js';
import { addToolVerb, defaultShape, parseIntArg, respond, type ToolVerbSpec } from './toolCommand.js';
import { toolTree } from './toolTree.js';
import { installArgs, installShape, trustScript } from './scriptTrust.js';

/**
 * Writes a screenshot result to `file` (atomically): the whole image the daemon wrote to a file when there is one
 * (moved into place; a full page cut inline to the clients' image budget comes with it), else the inline image.
 */
function saveShot(result: ToolResult, file: string): Record<string, unknown> {
  const structured = { ...(result.structuredContent ?? {}) };
  const target = resolve(file);
  const tmp = `${target}.${process.pid}.tmp`;
  const image = (result.content ?? []).find(c => c.type === 'image' && c.data);
  if (typeof structured.path === 'string') {
    try {
      renameSync(structured.path, tmp);
    } catch {
      copyFileSync(structured.path, tmp); // another file system
    }
    // The file is the whole image: its format, bytes and size are what lands at `file`.
    const whole = structured.file as Record<string, unknown> | undefined;
    if (whole) {
      Object.assign(structured, whole);
      delete structured.file;
      delete structured.cut;
    }
  } else if (image) writeFileSync(tmp, Buffer.from(image.data!, 'base64'));
  else throw cliError('internal', 'The screenshot result had neither an image nor a file.', 'Report this with the command you ran.', EXIT.error);
  renameSync(tmp, target);
  return { ...structured, path: target };
}

/** The image format a file name asks for by its extension (`.png`, `.jpg`/`.jpeg`, `.webp`); undefined for others. */
function formatOf(file: string): string | undefined {
  const ext = /\.([a-z]+)$/i.exec(file)?.[1]?.toLowerCase();
  return ext === 'png' ? 'png' : ext === 'jpg' || ext === 'jpeg' ? 'jpeg' : ext === 'webp' ? 'webp' : undefined;
}

const shotSpec = (positionals: ToolVerbSpec['positionals']): ToolVerbSpec => ({
  tool: 'take_screenshot',
  description: 'screenshot of a tab (default: the remembered or active tab) to -o FILE (format by its extension: .png, .jpg, .webp), else under .tabwright/screenshots/',
  positionals,
  extend: cmd => cmd.option('-o, --out <file>', 'write the image to this file (.png, .jpg or .webp picks the format)'),
  // With -o the image comes back inline (or, when it is over the inline budget, in a file) and is written there;
  // without, the daemon writes it into the workspace.
  prepare: (args, opts) => {
    if (typeof opts.out !== 'string') return { ...args, output: args.output ?? 'file' };
    const format = args.format ?? formatOf(opts.out);
    return { ...args, output: args.output ?? 'auto', ...(format ? { format } : {}) };
  },
  shape: (result, _args, opts) => (typeof opts.out === 'string' ? saveShot(result, opts.out) : defaultShape(result)),
});

const tabsSpec: ToolVerbSpec = { tool: 'list_tabs', description: 'list the open tabs (tool list_tabs)' };
const navigateSpec: ToolVerbSpec = { tool: 'navigate', description: 'load a URL in the remembered (or active) tab (tool navigate)', positionals: [{ arg: '<url>', field: 'url' }] };
const toolsSpec: ToolVerbSpec = { tool: 'list_webmcp_tools', description: 'the WebMCP tools of the remembered tab (every tab when none is remembered; tool list_webmcp_tools)' };
const callSpec: ToolVerbSpec = {
  tool: 'call_webmcp_tool',
  description: 'call a WebMCP tool of the remembered (or active) tab: call NAME --args JSON (tool call_webmcp_tool)',
  positionals: [{ arg: '<name>', field: 'name' }],
  argsField: 'arguments',
};
const execSpec: ToolVerbSpec = {
  tool: 'execute',
  description: 'run JavaScript in the remembered (or active) tab; CODE "-" reads it from stdin (tool execute)',
  positionals: [{ arg: '<code>', field: 'code' }],
  prepare: args => (args.code === '-' ? { ...args, code: argsFromStdin() } : args),
};
const pageSpec: ToolVerbSpec = { tool: 'get_page_context', description: 'the accessibility snapshot of the remembered (or active) tab (tool get_page_context)' };
const textSpec: ToolVerbSpec = { tool: 'get_text', description: 'the visible text of the remembered (or active) tab, or of --ref / --selector, bounded by --max-chars (tool get_text)' };
const consoleSpec: ToolVerbSpec = { tool: 'get_console_context', description: 'console messages and page errors of the remembered (or active) tab (tool get_console_context)' };
const networkSpec: ToolVerbSpec = { tool: 'list_network_requests', description: 'the network requests of the remembered (or active) tab\'s current document (tool list_network_requests)' };

function argsFromStdin(): string {
  return readFileSync(0, 'utf8');
}

/** `use --tab N` / `tab use N`: checks the tab is open, then remembers it for this directory and scope. */
async function useTab(tabId: number): Promise<unknown> {
  const listed = await callTool('list_tabs', {});
  const tabs = (listed.structuredContent?.tabs ?? []) as Array<{ tabId: number; url: string; title: string }>;
  const tab = tabs.find(t => t.tabId === tabId);
  if (!tab) throw cliError('tab_not_found', `There is no open tab ${tabId}.`, `Run \`tabwright tabs\` for the open tabs (${tabs.map(t => t.tabId).join(', ') || 'none'}).`);
  const scope = currentScope();
  const saved = rememberTab(dataDir(), scope, tabId);
  return { tabId, url: tab.url, title: tab.title, cwd: scope.cwd, scope: scope.scope, savedAt: saved.savedAt, file: rememberedTabsPath(dataDir()) };
}

const scriptPath = (field: string, arg: string): ToolVerbSpec['positionals'] => [{ arg, field, type: 'path' }];
const absolute = (field: string) => (args: Record<string, unknown>) => (typeof args[field] === 'string' ? { ...args, [field]: resolve(args[field] as string) } : args);

/** Adds every tool verb to `program`; `allTools` false leaves `tool` without its per-tool subcommands. */
export function addToolVerbs(program: Command, allTools = true): void {
  // Short verbs.
  addToolVerb(program, 'tabs', tabsSpec);
  addToolVerb(program, 'navigate', navigateSpec);
  addToolVerb(program, 'tools', toolsSpec);
  addToolVerb(program, 'call', callSpec);
  addToolVerb(program, 'shot', shotSpec([]));
  addToolVerb(program, 'exec', execSpec);
  addToolVerb(program, 'pick', {
    tool: 'pick_elements',
    description: 'let the person at the browser pick elements in the remembered (or active) tab: an overlay, then waits for their Confirm; files under .tabwright/dom-context/ (tool pick_elements)',
  });
  addToolVerb(program, 'share', {
    tool: 'share_tabs',
    description: "with --own-chrome: list the user's Chrome tabs, share tabs N... (numbers, ids or URL/title text) with the agent, or stop sharing them with --stop (tool share_tabs)",
    positionals: [{ arg: '[tabs...]', field: 'tabs' }],
  });
  addToolVerb(program, 'close-browser', { tool: 'close_browser', description: 'close the browser tabwright launched, or detach from an attached one (it keeps running); the next command starts or attaches again (tool close_browser)' });
  program.command('use').description('remember a tab for later commands run in this directory (and TABWRIGHT_CLI_SCOPE)')
    .requiredOption('--tab <n>', 'the tab to remember (from `tabwright tabs`)', parseIntArg)
    .action((opts: { tab: number }) => respond(() => useTab(opts.tab)));

  const context = program.command('context').description('what a tab shows: page (snapshot), text, console or network');
  addToolVerb(context, 'page', pageSpec);
  addToolVerb(context, 'text', textSpec);
  addToolVerb(context, 'console', consoleSpec);
  addToolVerb(context, 'network', networkSpec);

  // Noun-verb forms.
  const tab = program.command('tab').description('tabs: list, open, close, focus, reload, navigate, shot, use, tools, call, exec, page, text, console, network');
  addToolVerb(tab, 'list', tabsSpec);
  addToolVerb(tab, 'open', { tool: 'open_tab', description: 'open a tab, optionally loading URL (tool open_tab)', positionals: [{ arg: '[url]', field: 'url' }] });
  addToolVerb(tab, 'close', { tool: 'close_tab', description: 'close tab N (tool close_tab)', positionals: [{ arg: '<tabId>', field: 'tabId', type: 'int' }] });
  addToolVerb(tab, 'focus', { tool: 'focus_tab', description: 'make tab N the active tab (tool focus_tab)', positionals: [{ arg: '<tabId>', field: 'tabId', type: 'int' }] });
  addToolVerb(tab, 'reload', { tool: 'reload_tab', description: 'reload tab N (default: the remembered or active tab; tool reload_tab)', positionals: [{ arg: '[tabId]', field: 'tabId', type: 'int' }] });
  addToolVerb(tab, 'navigate', navigateSpec);
  addToolVerb(tab, 'shot', shotSpec([{ arg: '[tabId]', field: 'tabId', type: 'int' }]));
  tab.command('use').description('remember tab N for later commands run in this directory (same as use --tab N)')
    .argument('<tabId>', 'the tab to remember', parseIntArg)
    .action((tabId: number) => respond(() => useTab(tabId)));
  addToolVerb(tab, 'tools', toolsSpec);
  addToolVerb(tab, 'call', callSpec);
  addToolVerb(tab, 'exec', execSpec);
  addToolVerb(tab, 'page', pageSpec);
  addToolVerb(tab, 'text', textSpec);
  addToolVerb(tab, 'console', consoleSpec);
  addToolVerb(tab, 'network', networkSpec);

  // Scripts (the tool set `scripts`; docs/userscripts.md, "Tool sets").
  const scripts = program.command('scripts').alias('script').description('stored userscripts and AgentScripts: list, install, get, enable, disable, rm, sync');
  addToolVerb(scripts, 'list', { tool: 'list_scripts', description: 'every stored script (tool list_scripts)' });
  addToolVerb(scripts, 'install', { tool: 'export_script', description: 'validate and save FILE as a script; an edited copy (same @name and @namespace) updates the stored one, --script-id updates one by ID (tool export_script)', positionals: scriptPath('path', '<file>'), prepare: args => installArgs(absolute('path')(args)), shape: installShape });
  addToolVerb(scripts, 'get', {
    tool: 'import_script', description: 'write script ID to -o FILE (default .tabwright/scripts/; tool import_script)',
    positionals: [{ arg: '<scriptId>', field: 'scriptId' }],
    extend: cmd => cmd.option('-o, --out <file>', 'the file to write'),
    prepare: (args, opts) => (typeof opts.out === 'string' ? { ...args, path: resolve(opts.out) } : absolute('path')(args)),
  });
  addToolVerb(scripts, 'enable', { tool: 'toggle_script', description: 'run script ID on matching pages (tool toggle_script)', positionals: [{ arg: '<scriptId>', field: 'scriptId' }], fixed: { enabled: true } });
  addToolVerb(scripts, 'disable', { tool: 'toggle_script', description: 'stop running script ID (tool toggle_script)', positionals: [{ arg: '<scriptId>', field: 'scriptId' }], fixed: { enabled: false } });
  addToolVerb(scripts, 'rm', { tool: 'delete_script', description: 'delete script ID and its stored values (tool delete_script)', positionals: [{ arg: '<scriptId>', field: 'scriptId' }] });
  scripts.command('trust').description('mark script ID as written by you (a human): its `allow` tools keep `allow`; --revoke undoes it')
    .argument('<scriptId>', 'Script ID (scripts list)')
    .option('--revoke', 'mark it agent-written again')
    .action((scriptId: string, opts: { revoke?: boolean }) => respond(() => trustScript(scriptId, Boolean(opts.revoke))));
  const syncSpec: ToolVerbSpec = { tool: 'sync_scripts', description: 'write every script to DIR and keep it in sync (tool sync_scripts)', positionals: scriptPath('directory', '<dir>'), prepare: absolute('directory') };
  addToolVerb(scripts, 'sync', syncSpec);
  addToolVerb(program, 'sync', syncSpec);

  // Storage states and cookies (the tool set `storage`; docs/storage.md).
  const state = program.command('state').description('saved storage states (cookies, localStorage, IndexedDB): save, load, list, delete');
  const repeat = (value: string, previous: string[] = []) => [...previous, value];
  addToolVerb(state, 'save', {
    tool: 'save_storage_state',
    description: 'save the browser\'s cookies and web storage as NAME; --origin URL (repeatable) saves only those origins (tool save_storage_state)',
    positionals: [{ arg: '<name>', field: 'name' }],
    extend: cmd => cmd.option('--origin <url>', 'an origin to save, repeatable (default: every cookie, and the origins the tabs show)', repeat),
    prepare: (args, opts) => (Array.isArray(opts.origin) ? { ...args, origins: [...((args.origins as string[] | undefined) ?? []), ...(opts.origin as string[])] } : args),
  });
  addToolVerb(state, 'load', { tool: 'load_storage_state', description: 'load saved state NAME into the browser: cookies added, web storage written (tool load_storage_state)', positionals: [{ arg: '<name>', field: 'name' }] });
  addToolVerb(state, 'list', { tool: 'list_storage_states', description: 'the saved storage states, without their values (tool list_storage_states)' });
  addToolVerb(state, 'delete', { tool: 'delete_storage_state', description: 'delete saved state NAME (tool delete_storage_state)', positionals: [{ arg: '<name>', field: 'name' }] });
  addToolVerb(program, 'cookies', { tool: 'get_cookies', description: 'the browser\'s cookies, values redacted unless --reveal (tool get_cookies)' });

  // Every tool by name, with one option per input field.
  const tool = program.command('tool').description('call any tool by name: tool NAME [--field value ...] [--args JSON]; `tabwright schema` lists them');
  // One subcommand per tool, built only when it may run or be listed (a warm command pays for what it uses).
  if (allTools) for (const t of toolTree().tools) addToolVerb(tool, t.name, { tool: t.name, description: t.title });
}
