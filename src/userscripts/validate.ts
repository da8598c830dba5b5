/**
 * The sanitization pipeline (docs/userscripts.md, "Validation"): parse the metadata
 * (metadata.ts), parse the code with acorn, and report every finding as a
 * {@link Diagnostic} with a 1-based line and column. Error-severity
 * diagnostics reject a save (`script_rejected`, CLI exit 8); warnings are
 * returned with a successful save.
 *
 * Parser options: `ecmaVersion: 'latest'`, `sourceType: 'script'` (scripts
 * are not modules), `allowReturnOutsideFunction: true` and
 * `allowHashBang: true`, because the managers (and tabwright's injection)
 * wrap the code in a function, so an early top-level `return` is common
 * userscript style. `allowAwaitOutsideFunction` stays false: top-level
 * `await` needs an async wrapper that not every manager uses, so a script
 * that passes here runs under a plain function wrapper too; use an async
 * IIFE instead.
 */
import { parse, type Node } from 'acorn';
import { isProvidedGrant, PROVIDED_GRANTS } from './grants.js';
import { isValidIncludePattern, isValidMatchPattern } from './match.js';
import { parseMetadata, stripBom, type MetadataEntry } from './metadata.js';
import type { Diagnostic, ScriptKind, ScriptMetadata } from './types.js';

export { PROVIDED_GRANTS } from './grants.js';

/** Largest script accepted by default: 1 MiB of UTF-8. */
export const MAX_SCRIPT_BYTES = 1024 * 1024;

/** Options of {@link validateScript}. `maxBytes` (UTF-8 bytes of the whole source, BOM included) defaults to {@link MAX_SCRIPT_BYTES}. */
export interface ValidateOptions {
  maxBytes?: number;
}

/** What {@link validateScript} returns: `ok` is true when no diagnostic has severity `error`. Diagnostics are sorted by line, then column. */
export interface ValidationResult {
  ok: boolean;
  kind?: ScriptKind;
  metadata?: ScriptMetadata;
  diagnostics: Diagnostic[];
}

/** A statically found `*.registerTool({ name: ... })` call: `name` undefined when not a string literal. */
export interface RegisterToolCall {
  name?: string;
  line: number;
  column: number;
}

type AnyNode = Node & Record<string, unknown>;

function isNode(value: unknown): value is AnyNode {
  return !!value && typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string';
}

/** Visits every node of an ESTree tree (depth first, source order). */
function walk(node: AnyNode, visit: (n: AnyNode) => void): void {
  visit(node);
  for (const key of Object.keys(node)) {
    if (key === 'loc') continue;
    const value = node[key];
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) walk(item, visit);
    } else if (isNode(value)) {
      walk(value, visit);
    }
  }
}

function propertyName(node: AnyNode, computed: boolean): string | undefined {
  if (!computed && node.type === 'Identifier') return node.name as string;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  return undefined;
}

function staticString(node: AnyNode): string | undefined {
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && (node.expressions as unknown[]).length === 0) {
    return ((node.quasis as AnyNode[])[0]!.value as { cooked: string }).cooked;
  }
  return undefined;
}

function pos(node: AnyNode): { line: number; column: number } {
  const loc = node.loc as { start: { line: number; column: number } };
  return { line: loc.start.line, column: loc.start.column + 1 };
}

/**
 * Every `<anything>.registerTool(...)` call in the program (including
 * `document.modelContext?.registerTool(...)` and `mc['registerTool'](...)`),
 * with the tool name when the first argument is an object literal whose
 * `name` is a string literal (or a template literal without substitutions).
 */
export function findRegisterToolCalls(program: Node): RegisterToolCall[] {
  const calls: RegisterToolCall[] = [];
  walk(program as AnyNode, n => {
    if (n.type !== 'CallExpression') return;
    const callee = n.callee as AnyNode;
    if (callee.type !== 'MemberExpression' || propertyName(callee.property as AnyNode, callee.computed as boolean) !== 'registerTool') return;
    const arg = (n.arguments as AnyNode[])[0];
    let name: string | undefined;
    let at = pos(n);
    if (arg?.type === 'ObjectExpression') {
      const prop = (arg.properties as AnyNode[]).find(p => p.type === 'Property' && propertyName(p.key as AnyNode, p.computed as boolean) === 'name');
      if (prop) {
        at = pos(prop.value as AnyNode);
        name = staticString(prop.value as AnyNode);
      }
    }
    const call: RegisterToolCall = { line: at.line, column: at.column };
    if (name !== undefined) call.name = name;
    calls.push(call);
  });
  return calls;
}

/** Identifiers (`GM_getValue`, `unsafeWindow`) and `GM.x` member reads of the provided API that the code uses, with where first seen. */
function usedGrants(program: Node): Map<string, { line: number; column: number }> {
  const used = new Map<string, { line: number; column: number }>();
  const notReferences = new WeakSet<AnyNode>(); // `x.GM_log`, `{ GM_log: 1 }`: names, not the API
  walk(program as AnyNode, n => {
    if (n.type === 'MemberExpression' && !n.computed) notReferences.add(n.property as AnyNode);
    if ((n.type === 'Property' || n.type === 'MethodDefinition' || n.type === 'PropertyDefinition') && !n.computed && !n.shorthand) notReferences.add(n.key as AnyNode);
    let name: string | undefined;
    if (n.type === 'Identifier' && !notReferences.has(n) && isProvidedGrant(n.name as string)) name = n.name as string;
    else if (n.type === 'MemberExpression' && (n.object as AnyNode).type === 'Identifier' && (n.object as AnyNode).name === 'GM') {
      const prop = propertyName(n.property as AnyNode, n.computed as boolean);
      if (prop && isProvidedGrant(`GM.${prop}`)) name = `GM.${prop}`;
    }
    if (name && !used.has(name)) used.set(name, pos(n));
  });
  return used;
}

function entryAt(entries: MetadataEntry[], key: string, value: string): MetadataEntry | undefined {
  return entries.find(e => e.key === key && !e.locale && e.value === value);
}

/**
 * Validates a script source. Diagnostic codes beyond
 * parseMetadata's: `too_large` (over `maxBytes` UTF-8 bytes; the code is
 * then not parsed), `syntax_error`, `invalid_match_pattern` (a bad
 * @match / @exclude-match / @include / @exclude), `match_pattern_compat`,
 * `tld_wildcard`, `match_fragment` and `unanchored_glob` (warnings), `no_match`
 * (neither @match nor @include), `unsupported_grant` (not in
 * {@link PROVIDED_GRANTS}), `conflicting_grants` (`none` beside real
 * grants), `ungranted_api` (warning: the code uses a GM function it does
 * not grant, which is undefined at run time), `webmcp_mismatch` (an
 * AgentScript's @webmcp lines and its registerTool name literals differ
 * either way), `webmcp_dynamic_name` (warning: a registerTool whose name
 * is not a literal; declared-but-not-registered is then not checked),
 * `registertool_in_userscript` (warning: tools registered by a userscript
 * have no @webmcp permission; make it an AgentScript).
 */
export function validateScript(code: string, options: ValidateOptions = {}): ValidationResult {
  const maxBytes = options.maxBytes ?? MAX_SCRIPT_BYTES;
  const parsed = parseMetadata(code);
  const diagnostics = [...parsed.diagnostics];
  const meta = parsed.metadata;
  const { entries } = parsed;
  const add = (severity: Diagnostic['severity'], c: string, message: string, line: number, column: number) =>
    diagnostics.push({ severity, code: c, message, line, column });

  const bytes = Buffer.byteLength(code, 'utf8');
  let program: Node | undefined;
  if (bytes > maxBytes) {
    add('error', 'too_large', `The script is ${bytes} bytes of UTF-8; the limit is ${maxBytes} bytes. Move data into a @resource or split the script.`, 1, 1);
  } else {
    const source = stripBom(code);
    const options = { ecmaVersion: 'latest', sourceType: 'script', locations: true, allowReturnOutsideFunction: true, allowHashBang: true } as const;
    try {
      program = parse(source, { ...options, allowAwaitOutsideFunction: false });
    } catch (error) {
      const e = error as SyntaxError & { loc?: { line: number; column: number } };
      let message = e.message.replace(/ \(\d+:\d+\)$/, '');
      try {
        parse(source, { ...options, allowAwaitOutsideFunction: true });
        message = 'Top-level await is not supported: wrap the code in an async IIFE, `(async () => { ... })();`';
      } catch { /* a real syntax error */ }
      add('error', 'syntax_error', message, e.loc?.line ?? 1, (e.loc?.column ?? 0) + 1);
    }
  }

  if (meta) {
    const header = parsed.header!;
    for (const [key, list, isMatch] of [
      ['match', meta.match, true], ['exclude-match', meta.excludeMatch, true], ['include', meta.include, false], ['exclude', meta.exclude, false],
    ] as const) {
      for (const pattern of list) {
        const at = entryAt(entries, key, pattern) ?? { line: header.startLine, column: 1 };
        const check = isMatch ? isValidMatchPattern(pattern) : isValidIncludePattern(pattern);
        if (!check.valid) add('error', 'invalid_match_pattern', `@${key} ${check.reason}`, at.line, at.column);
        else if (check.warning && (isMatch || key === 'include')) add('warning', check.warningCode!, `@${key} ${check.warning}`, at.line, at.column);
      }
    }
    if (!meta.match.length && !meta.include.length) {
      add('error', 'no_match', 'The script has no @match or @include, so it runs nowhere: add e.g. `// @match https://example.com/*`.', header.startLine, 1);
    }
    // The provided grants are listed once, in the first unsupported_grant diagnostic; the others point to its line.
    let listedAt: number | undefined;
    for (const grant of meta.grant) {
      const at = entryAt(entries, 'grant', grant)!;
      if (grant === 'none') {
        if (meta.grant.some(g => g !== 'none')) add('error', 'conflicting_grants', '`@grant none` (page world, no GM API) cannot be combined with other grants: remove one or the other.', at.line, at.column);
      } else if (!isProvidedGrant(grant)) {
        const provided = listedAt === undefined ? `Provided: ${PROVIDED_GRANTS.join(', ')}.` : `The grants provided are listed at line ${listedAt}.`;
        listedAt ??= at.line;
        add('error', 'unsupported_grant', `\`@grant ${grant}\` is not provided by tabwright. ${provided}`, at.line, at.column);
      }
    }
    if (program) {
      const granted = new Set(meta.grant);
      for (const [name, at] of usedGrants(program)) {
        if (!granted.has(name) && name !== 'GM_info' && name !== 'GM.info') {
          add('warning', 'ungranted_api', `The code uses \`${name}\` but the header does not grant it, so it is undefined at run time: add \`// @grant ${name}\`.`, at.line, at.column);
        }
      }
      const calls = findRegisterToolCalls(program);
      if (meta.kind === 'agentscript') {
        const declared = new Set(meta.webmcp.map(w => w.tool));
        const registered = new Set(calls.flatMap(c => (c.name !== undefined ? [c.name] : [])));
        const dynamic = calls.filter(c => c.name === undefined);
        for (const c of calls) {
          if (c.name !== undefined && !declared.has(c.name)) {
            add('error', 'webmcp_mismatch', `registerTool registers "${c.name}", but the header has no \`// @webmcp ${c.name} <allow|prompt|deny>\`.`, c.line, c.column);
            declared.add(c.name); // one report per name
          }
        }
        for (const c of dynamic) {
          add('warning', 'webmcp_dynamic_name', 'registerTool is called with a name that is not a string literal, so it cannot be checked against the @webmcp lines; write `name: \'tool_name\'`.', c.line, c.column);
        }
        if (!dynamic.length) {
          for (const w of meta.webmcp) {
            if (!registered.has(w.tool)) {
              const at = entries.find(e => e.key === 'webmcp' && e.line === w.line)!;
              add('error', 'webmcp_mismatch', `\`@webmcp ${w.tool}\` is declared, but no \`registerTool({ name: '${w.tool}', ... })\` call registers it.`, at.line, at.column);
            }
          }
        }
      } else if (calls.length) {
        const c = calls[0]!;
        add('warning', 'registertool_in_userscript', 'This userscript registers WebMCP tools without @webmcp permissions; make it an AgentScript (`// ==AgentScript==`) with one `// @webmcp <tool> <permission>` per tool.', c.line, c.column);
      }
    }
  }

  diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
  const result: ValidationResult = { ok: !diagnostics.some(d => d.severity === 'error'), diagnostics };
  if (meta) {
    result.kind = meta.kind;
    result.metadata = meta;
  }
  return result;
}
