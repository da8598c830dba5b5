/**
 * The init script of the userscript engine: the
 * engine bundle (dist/page/userscripts.js, from ./pageEntry.ts) wrapped in a
 * scope that defines `__TW_US__` (./gmPage.ts `PageConfig`), with each
 * enabled script as a function literal in the source text. Literals, not
 * `eval`: the page's Content-Security-Policy does not apply to init scripts,
 * but it would to `eval` and `new Function`.
 *
 * Each script is wrapped twice: the outer function takes the GM API as
 * parameters (`SCRIPT_PARAMS`), the inner one holds the `@require` code and
 * the script body, so a script may declare its own `let GM_log` or
 * `const document`, use a top-level `return`, or start with `'use strict'`.
 */
import type { StoredResource, StoredScript } from './types.js';
import { SCRIPT_PARAMS, type PageScript } from './gmPage.js';

/** One `@resource` as the page gets it: name, MIME type, the bytes base64. */
export type ShippedResource = NonNullable<PageScript['resources']>[number];

/**
 * One script and its current GM values (JSON texts by key), and its `@resource` data when it grants a resource
 * function (usesResources): shipped in its entry, so GM_getResourceText stays synchronous.
 */
export interface ScriptWithValues {
  script: StoredScript;
  values: Record<string, string>;
  resources?: ShippedResource[];
}

/** The resources as the page gets them (base64 once: the injector keeps the result per script version). */
export function shippedResources(resources: readonly StoredResource[]): ShippedResource[] {
  return resources.map(r => ({ name: r.name, mime: r.mime, data: Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength).toString('base64') }));
}

/** The grants that read `@resource` data: only scripts granting one carry it in the init script. */
const RESOURCE_GRANTS = new Set(['GM_getResourceText', 'GM_getResourceURL', 'GM.getResourceText', 'GM.getResourceUrl']);

/** Whether the script grants GM_getResourceText / GM_getResourceURL (either form), so its resources ship with it. */
export function usesResources(script: StoredScript): boolean {
  return script.metadata.grant.some(g => RESOURCE_GRANTS.has(g));
}

/** What the init script needs besides the scripts. */
export interface InitScriptOptions {
  engine: string;
  token: string;
  binding: string;
  version: string;
  /** The extension's event names and mark (./gmPage.ts PageConfig.bridge): set when chrome.userScripts runs the engine. */
  bridge?: { event: string; flag: string };
}

/** `JSON.stringify` safe inside a script (U+2028/2029 are line terminators in older engines; `</script>` is harmless here but escaped anyway). */
function literal(value: unknown): string {
  return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029').replace(/<\/script/gi, '<\\/script');
}

/** The code of a `data:` URL (`data:[type][;base64],...`), or undefined for other URLs. */
export function dataUrlCode(url: string): string | undefined {
  const m = /^data:([^,]*),(.*)$/s.exec(url);
  if (!m) return undefined;
  return /;base64$/i.test(m[1]!) ? Buffer.from(m[2]!, 'base64').toString('utf8') : decodeURIComponent(m[2]!);
}

/** The code each `@require` stands for, in header order (stored content, else a decoded `data:` URL; others are skipped). */
export function requiredCode(script: StoredScript): string[] {
  const stored = new Map((script.metadata.requireCode ?? []).map(r => [r.url, r.code]));
  const out: string[] = [];
  for (const url of script.metadata.require) {
    const code = stored.get(url) ?? dataUrlCode(url);
    if (code !== undefined) out.push(code);
  }
  return out;
}

/** The source of one script's entry in `__TW_US__.scripts`. */
function scriptEntry({ script, values, resources }: ScriptWithValues): string {
  const body = [...requiredCode(script), script.code.replace(/^\uFEFF/, '')].join('\n;\n');
  const { requireCode: _inlined, ...meta } = script.metadata;
  // Base64 needs no escaping: only the name and type go through literal() (megabytes of data would cost a scan each).
  const shipped = resources?.length && usesResources(script)
    ? `, resources: [${resources.map(r => `{name: ${literal(r.name)}, mime: ${literal(r.mime)}, data: "${r.data}"}`).join(', ')}]`
    : '';
  return `{id: ${literal(script.id)}, kind: ${literal(script.kind)}, meta: ${literal(meta)}, values: ${literal(values)}${shipped},\n` +
    `fn: function (${SCRIPT_PARAMS.join(', ')}) { return (function () {\n${body}\n}).call(this); }}`;
}

/** The init script and where each script's code sits in it (1-based lines, inclusive). */
export interface InitScript {
  source: string;
  /** Its `//# sourceURL`: stack frames of the scripts' code name it. */
  url: string;
  lines: Array<{ id: string; start: number; end: number }>;
}

/** The number of `\n` in text (without splitting it: an entry may carry megabytes of resource data). */
function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * The whole init script for these scripts. `serial` makes its sourceURL
 * unique per build (`tabwright-userscripts-<serial>.js`), so an error's stack
 * names the build, and `lines` the script (./injection.ts tags uncaught errors).
 */
export function buildInitScript(scripts: ScriptWithValues[], opts: InitScriptOptions, serial = 0): InitScript {
  const agentScripts = scripts.some(s => s.script.kind === 'agentscript');
  let source = `(() => {\nconst __TW_US__ = {token: ${literal(opts.token)}, binding: ${literal(opts.binding)}, version: ${literal(opts.version)}, agentScripts: ${agentScripts},${opts.bridge ? ` bridge: ${literal(opts.bridge)},` : ''} scripts: [\n`;
  const lines: InitScript['lines'] = [];
  let newlines = lineCount(source);
  scripts.forEach((entry, i) => {
    const text = scriptEntry(entry) + (i < scripts.length - 1 ? ',\n' : '');
    const start = newlines + 1;
    source += text;
    newlines += lineCount(text);
    lines.push({ id: entry.script.id, start, end: newlines + 1 });
  });
  const url = `tabwright-userscripts-${serial}.js`;
  source += `\n]};\n${opts.engine}\n})();\n//# sourceURL=${url}`;
  return { source, url, lines };
}
