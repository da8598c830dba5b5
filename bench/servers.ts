/**
 * The three servers as the bench drives them: how each is started (same
 * Chromium, headless, temporary profile, page traffic kept on 127.0.0.1)
 * and how the common operations (navigate, snapshot, click, type,
 * screenshot, evaluate) map onto each one's own tools and arguments.
 * `checkMapping` verifies the mapping against the server's tools/list.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ServerId } from './types.js';

/** Keeps every page request on 127.0.0.1: other hosts fail to resolve at once. */
export const HOST_RULES = '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1';
/** Switches that keep Chromium from calling home. */
export const QUIET_ARGS = ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export const VIEWPORT = '1280x720';

/** A tool call: name and arguments. */
export interface Call {
  name: string;
  args: Record<string, unknown>;
}

/** A form field the scripted task fills (bench/task.ts): its ref, what kind of control, its label and the value. */
export interface FormField {
  ref: string;
  kind: 'text' | 'checkbox' | 'select';
  label: string;
  /** Text, an option's label for a select, true/false for a checkbox. */
  value: string | boolean;
}

/** Per-connection state an adapter may keep (Chrome DevTools MCP's pageId). */
export interface AdapterState {
  pageId?: number;
}

/** Everything the bench needs to know about one server. */
export interface ServerSpec {
  id: ServerId;
  label: string;
  /** npm package and exact version for peers (installed into bench/cache/<id>); absent for tabwright. */
  pkg?: { name: string; version: string; bin: string };
  /** argv after `node`: script and flags. `script` is the resolved entry file. */
  argv(opts: { script: string; chromium: string; workspace: string; root: boolean }): string[];
  env?: Record<string, string>;
  /** The Chromium switches the browser gets, for the report. */
  browserArgs(root: boolean): string[];
  notes: string[];
  /** Files the server needs in its workspace before it starts (e.g. a config). */
  files?(opts: { chromium: string; root: boolean }): Record<string, string>;
  navigate(url: string, s: AdapterState): Call;
  snapshot(s: AdapterState): Call;
  click(ref: string, description: string, s: AdapterState): Call;
  type(ref: string, description: string, text: string, s: AdapterState): Call;
  /** Several fields in one call (each server's own form tool). */
  fillForm(fields: readonly FormField[], s: AdapterState): Call;
  screenshot(s: AdapterState): Call;
  evaluate(fn: string, s: AdapterState): Call;
  /**
   * The call a paging line names: one container's children from `offset` on (tabwright only:
   * `get_page_context {ref, offset}`, docs/snapshot.md). Absent for servers that never page.
   */
  page?(ref: string, offset: number, s: AdapterState): Call;
  /**
   * When the result's snapshot was written to a file instead of returned, the file's path (the agent reads the file:
   * bench/measure.ts snapshotText). Playwright MCP's navigate and click results point to one too.
   */
  snapshotFile(text: string, structured: Record<string, unknown> | undefined, workspace: string): string | undefined;
}

/** Browser switches every server's Chromium gets (the server may add its own). */
export function commonBrowserArgs(root: boolean): string[] {
  return [...(root ? ['--no-sandbox'] : []), ...QUIET_ARGS, HOST_RULES];
}

const tabwright: ServerSpec = {
  id: 'tabwright',
  label: 'tabwright',
  argv: ({ script, chromium }) => [script, 'mcp', '--headless', '--isolated', '--browser', chromium, '--browser-arg', HOST_RULES],
  browserArgs: root => [...commonBrowserArgs(root), '--enable-features=WebMCP'],
  notes: ['adds --no-sandbox (as root), --enable-features=WebMCP and the no-call-home switches itself; default viewport 1280x720'],
  navigate: url => ({ name: 'navigate', args: { url } }),
  snapshot: () => ({ name: 'get_page_context', args: {} }),
  click: ref => ({ name: 'click', args: { ref } }),
  type: (ref, _d, text) => ({ name: 'type', args: { ref, text } }),
  fillForm: fields => ({ name: 'fill_form', args: { fields: fields.map(f => ({ ref: f.ref, value: f.value })) } }),
  screenshot: () => ({ name: 'take_screenshot', args: {} }),
  evaluate: fn => ({ name: 'execute', args: { code: `(${fn})()` } }),
  page: (ref, offset) => ({ name: 'get_page_context', args: { ref, offset } }),
  // The path is in the text ("Snapshot written to <path> because ..."); the `path` field reaches MCP clients only with --structured-content.
  snapshotFile: (text, structured) => (typeof structured?.path === 'string' ? structured.path : /^Snapshot written to (\S+) /m.exec(text)?.[1]),
};

const playwrightMcp: ServerSpec = {
  id: 'playwright-mcp',
  label: 'Playwright MCP',
  pkg: { name: '@playwright/mcp', version: '0.0.83', bin: 'cli.js' },
  files: ({ root }) => ({
    'bench-playwright-mcp.json': JSON.stringify({ browser: { browserName: 'chromium', launchOptions: { args: commonBrowserArgs(root).filter(a => a !== '--no-sandbox') } } }, null, 2),
  }),
  argv: ({ script, chromium, workspace, root }) => [
    script, '--headless', '--isolated', '--executable-path', chromium, ...(root ? ['--no-sandbox'] : []),
    '--viewport-size', VIEWPORT, '--output-dir', join(workspace, 'output'), '--config', join(workspace, 'bench-playwright-mcp.json'),
  ],
  browserArgs: root => commonBrowserArgs(root),
  notes: [
    'switches other than --no-sandbox go through --config (browser.launchOptions.args)',
    'browser_click and browser_type include the default 500 ms settle wait (--timeout-settle), as a user gets it',
    'browser_navigate also writes a snapshot file, so its latency includes a snapshot',
  ],
  navigate: url => ({ name: 'browser_navigate', args: { url } }),
  snapshot: () => ({ name: 'browser_snapshot', args: {} }),
  click: (ref, element) => ({ name: 'browser_click', args: { element, target: ref } }),
  type: (ref, element, text) => ({ name: 'browser_type', args: { element, target: ref, text } }),
  fillForm: fields => ({
    name: 'browser_fill_form',
    args: { fields: fields.map(f => ({ target: f.ref, name: f.label, type: f.kind === 'text' ? 'textbox' : f.kind === 'select' ? 'combobox' : 'checkbox', value: String(f.value) })) },
  }),
  screenshot: () => ({ name: 'browser_take_screenshot', args: { type: 'png', scale: 'css' } }),
  evaluate: fn => ({ name: 'browser_evaluate', args: { function: fn } }),
  snapshotFile: (text, _s, workspace) => {
    if (/```yaml/.test(text)) return undefined;
    const m = /### Snapshot\s*\n- \[[^\]]*\]\(([^)]+)\)/.exec(text);
    return m ? resolve(workspace, m[1]!) : undefined;
  },
};

const chromeDevtoolsMcp: ServerSpec = {
  id: 'chrome-devtools-mcp',
  label: 'Chrome DevTools MCP',
  pkg: { name: 'chrome-devtools-mcp', version: '1.11.0', bin: 'build/src/bin/chrome-devtools-mcp.js' },
  env: { CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: '1', CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1' },
  argv: ({ script, chromium, root }) => [
    script, '--headless', '--isolated', '--executablePath', chromium, '--viewport', VIEWPORT,
    '--no-usage-statistics', '--no-performance-crux',
    ...commonBrowserArgs(root).map(a => `--chromeArg=${a}`),
  ],
  browserArgs: root => commonBrowserArgs(root),
  notes: [
    'usage statistics, CrUX lookups and update checks off (flags and CHROME_DEVTOOLS_MCP_NO_* variables)',
    'default tool set; pageId routing on by default, so every page call passes the pageId from list_pages',
  ],
  navigate: (url, s) => ({ name: 'navigate_page', args: { pageId: s.pageId, type: 'url', url } }),
  snapshot: s => ({ name: 'take_snapshot', args: { pageId: s.pageId } }),
  click: (ref, _d, s) => ({ name: 'click', args: { pageId: s.pageId, uid: ref } }),
  type: (ref, _d, text, s) => ({ name: 'fill', args: { pageId: s.pageId, uid: ref, value: text } }),
  fillForm: (fields, s) => ({ name: 'fill_form', args: { pageId: s.pageId, elements: fields.map(f => ({ uid: f.ref, value: String(f.value) })) } }),
  screenshot: s => ({ name: 'take_screenshot', args: { pageId: s.pageId } }),
  evaluate: (fn, s) => ({ name: 'evaluate_script', args: { pageId: s.pageId, function: fn } }),
  snapshotFile: () => undefined,
};

export const SPECS: readonly ServerSpec[] = [tabwright, playwrightMcp, chromeDevtoolsMcp];

/** A tool as tools/list describes it (the part checked here). */
export interface ListedTool {
  name: string;
  inputSchema?: { properties?: Record<string, unknown>; required?: string[] };
}

/**
 * Problems with the mapping: a mapped tool missing from tools/list, a
 * required argument not sent, or an argument the schema does not declare.
 */
export function checkMapping(spec: ServerSpec, tools: readonly ListedTool[]): string[] {
  const s: AdapterState = { pageId: 1 };
  const calls = [spec.navigate('http://127.0.0.1/', s), spec.snapshot(s), spec.click('e1', 'x', s), spec.type('e1', 'x', 'y', s), spec.fillForm([{ ref: 'e1', kind: 'text', label: 'x', value: 'y' }], s), spec.screenshot(s), spec.evaluate('() => 1', s), ...(spec.page ? [spec.page('e1', 50, s)] : [])];
  const problems: string[] = [];
  for (const call of calls) {
    const tool = tools.find(t => t.name === call.name);
    if (!tool) {
      problems.push(`${call.name}: not in tools/list`);
      continue;
    }
    const props = Object.keys(tool.inputSchema?.properties ?? {});
    for (const req of tool.inputSchema?.required ?? []) if (!(req in call.args)) problems.push(`${call.name}: required argument ${req} not sent`);
    for (const key of Object.keys(call.args)) if (!props.includes(key)) problems.push(`${call.name}: argument ${key} not in its schema`);
  }
  return problems;
}

/** The entry script of a server: tabwright's dist/cli.js, or the peer's bin under bench/cache/<id>. */
export function entryScript(spec: ServerSpec, root: string, cacheDir: string): string {
  if (!spec.pkg) return join(root, 'dist', 'cli.js');
  return join(cacheDir, spec.id, 'node_modules', spec.pkg.name, spec.pkg.bin);
}

/** Installed version of a peer (or tabwright's package.json version); undefined when not installed. */
export function installedVersion(spec: ServerSpec, root: string, cacheDir: string): string | undefined {
  const file = spec.pkg ? join(cacheDir, spec.id, 'node_modules', spec.pkg.name, 'package.json') : join(root, 'package.json');
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}
