/**
 * The metadata block of a userscript or AgentScript (docs/userscripts.md,
 * "Format"): `// ==UserScript== … // ==/UserScript==` or
 * `// ==AgentScript== … // ==/AgentScript==`, read the way Tampermonkey and
 * Violentmonkey read it. A UTF-8 BOM, CRLF / CR line endings, tabs between
 * key and value and trailing whitespace are all tolerated; values are
 * trimmed at both ends (internal spacing is kept) and NFC-normalized.
 *
 * This module only reads the header and reports problems of the header's
 * own syntax (unknown or malformed keys, remote @require/@resource,
 * @webmcp in a userscript). Pattern validity, grants, the registerTool
 * cross-check and the size limit are validate.ts's.
 */
import type { DeclaredPermission, Diagnostic, ResourceDeclaration, RunAt, ScriptKind, ScriptMetadata } from './types.js';

/** One `// @key[:locale] value` line of the header. `line`/`column` are 1-based; `column` points at the value (or the key when there is none). */
export interface MetadataEntry {
  key: string;
  locale?: string;
  value: string;
  line: number;
  column: number;
}

/** What {@link parseMetadata} returns. `metadata` is absent only when no complete header block was found. */
export interface ParsedMetadata {
  metadata?: ScriptMetadata;
  diagnostics: Diagnostic[];
  /** 1-based lines of the opening and closing marker lines. */
  header?: { startLine: number; endLine: number };
  /** Every key line in source order (for diagnostics that need a position, e.g. a bad `@match`). */
  entries: MetadataEntry[];
}

/** Keys with one value; a repeat is a `duplicate_key` warning and the first value wins (as Tampermonkey does). */
const SINGLE_KEYS = new Set(['name', 'namespace', 'version', 'description', 'run-at']);
/** Keys whose values collect into arrays. */
const LIST_KEYS = new Set(['match', 'include', 'exclude', 'exclude-match', 'grant', 'require', 'connect']);
/** Keys that may carry a `:locale` suffix and land in `localized`. */
const LOCALIZABLE = new Set(['name', 'description']);
/**
 * Informational keys of the Tampermonkey / Violentmonkey / Greasy Fork
 * vocabulary: accepted silently and kept in `extra`, with no effect in tabwright.
 */
export const INFORMATIONAL_KEYS: readonly string[] = [
  'author', 'copyright', 'license', 'homepage', 'homepageURL', 'website', 'source', 'icon', 'iconURL', 'defaulticon',
  'icon64', 'icon64URL', 'updateURL', 'downloadURL', 'installURL', 'supportURL', 'contributionURL', 'contributionAmount',
  'compatible', 'incompatible', 'tag',
];
const INFORMATIONAL = new Set(INFORMATIONAL_KEYS);
const RUN_AT: readonly RunAt[] = ['document-start', 'document-end', 'document-idle'];
const PERMISSIONS: readonly DeclaredPermission[] = ['allow', 'prompt', 'deny'];
/** WebMCP tool names: letters, digits, `_`, `-`, `.`; 1–128 characters (what the in-page polyfill accepts). */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The marker lines; extra `=` after the word (`// ==UserScript======`) are accepted, as Tampermonkey and Violentmonkey accept them. */
const OPEN = /^\s*\/\/\s*==(UserScript|AgentScript)={2,}\s*$/;
const CLOSE = /^\s*\/\/\s*==\/(UserScript|AgentScript)={2,}\s*$/;
/** Single keys whose empty line is accepted (the managers store an empty string) with an `empty_value` warning. */
const EMPTY_OK = new Set(['version', 'description']);
/** `// @key[:locale] value` — key letters, digits, `-` and `_`; locale like `de`, `zh-CN`, `pt_BR`. */
const KEY_LINE = /^(\s*\/\/\s*)@([A-Za-z][\w-]*)(?::([A-Za-z0-9_-]+))?(?:([ \t]+)(.*))?$/;

/** Splits source into lines on `\r\n`, `\r` or `\n` (the terminators are not part of the lines). */
export function splitLines(code: string): string[] {
  return code.split(/\r\n|\r|\n/);
}

/** The source without a leading UTF-8 BOM (U+FEFF); everything else untouched. */
export function stripBom(code: string): string {
  return code.charCodeAt(0) === 0xfeff ? code.slice(1) : code;
}

function kindOf(marker: string): ScriptKind {
  return marker === 'AgentScript' ? 'agentscript' : 'userscript';
}

function diag(severity: Diagnostic['severity'], code: string, message: string, line: number, column: number): Diagnostic {
  return { severity, code, message, line, column };
}

/** A remote URL (`http:`/`https:`/protocol-relative): fetched at save time (./remoteFetch.ts), never at injection. */
function isRemote(value: string): boolean {
  return /^(https?:)?\/\//i.test(value);
}

/** A URL scheme other than `data:` (e.g. `file:`, `ftp:`), but not a Windows drive letter. */
function otherScheme(value: string): string | undefined {
  const m = /^([A-Za-z][A-Za-z0-9+.-]+):/.exec(value);
  if (!m || m[1]!.toLowerCase() === 'data') return undefined;
  return m[1];
}

function emptyMetadata(kind: ScriptKind): ScriptMetadata {
  return {
    kind, name: '', namespace: '', localized: {}, match: [], include: [], exclude: [], excludeMatch: [], grant: [],
    runAt: 'document-idle', noframes: false, require: [], resource: [], connect: [], webmcp: [], extra: {},
  };
}

/**
 * `obj[key]` as an own property, defined as `make()` first when `obj` has none: a key is the script's text, and
 * `@valueOf`, `@constructor` or `@__proto__` must make a property of their own, not reach Object.prototype's.
 */
function own<T>(obj: Record<string, T>, key: string, make: () => T): T {
  if (!Object.hasOwn(obj, key)) Object.defineProperty(obj, key, { value: make(), enumerable: true, writable: true, configurable: true });
  return obj[key]!;
}

/**
 * Parses the first metadata block of `code` (anywhere in the file, as the
 * managers do). Returns the metadata (whenever a complete block exists, even
 * with errors in it), the diagnostics (1-based line/column, columns counted
 * in UTF-16 code units after the BOM) and the block's line range.
 *
 * Diagnostic codes: `no_header` (no block), `unterminated_header`,
 * `header_mismatch` (`==UserScript==` closed by `==/AgentScript==`),
 * `malformed_header_line` (warning: a non-comment line inside the block,
 * ignored), `malformed_key` (empty or unusable value), `empty_value`
 * (warning: an empty `@version` / `@description[:locale]`, read as `''`
 * unless a later line gives a value, or an empty `@grant`, ignored),
 * `missing_name`,
 * `duplicate_key` (warning), `unknown_key` (warning; the value is kept in
 * `extra`), `unsupported_run_at` (warning, `document-body` runs as
 * `document-end`, other manager-specific values as `document-idle`),
 * `webmcp_in_userscript` (error), `duplicate_webmcp` (error),
 * `invalid_tool_name` (error), `invalid_permission` (error).
 */
export function parseMetadata(code: string): ParsedMetadata {
  const lines = splitLines(stripBom(code));
  const diagnostics: Diagnostic[] = [];
  const entries: MetadataEntry[] = [];
  const start = lines.findIndex(l => OPEN.test(l));
  if (start < 0) {
    diagnostics.push(diag('error', 'no_header', 'No metadata block: start the file with `// ==UserScript==` (or `// ==AgentScript==`), the `// @key value` lines, and `// ==/UserScript==`.', 1, 1));
    return { diagnostics, entries };
  }
  const marker = OPEN.exec(lines[start]!)![1]!;
  const kind = kindOf(marker);
  let end = -1;
  for (let i = start + 1; i < lines.length; i++) {
    const close = CLOSE.exec(lines[i]!);
    if (close) {
      if (close[1] !== marker) diagnostics.push(diag('error', 'header_mismatch', `The block opened with \`// ==${marker}==\` is closed with \`// ==/${close[1]}==\`; use \`// ==/${marker}==\`.`, i + 1, 1));
      end = i;
      break;
    }
    if (OPEN.test(lines[i]!)) break;
  }
  if (end < 0) {
    diagnostics.push(diag('error', 'unterminated_header', `The metadata block opened on line ${start + 1} is never closed: add \`// ==/${marker}==\` after the last \`// @key\` line.`, start + 1, 1));
    return { diagnostics, entries };
  }

  for (let i = start + 1; i < end; i++) {
    const text = lines[i]!;
    if (!text.trim()) continue;
    const m = KEY_LINE.exec(text);
    if (!m) {
      if (/^\s*\/\//.test(text)) continue; // a plain comment line inside the block; the managers ignore it too
      // Tampermonkey and Violentmonkey skip such a line; so do we, with a warning.
      diagnostics.push(diag('warning', 'malformed_header_line', `Line ${i + 1} inside the metadata block is not a \`// @key value\` comment; it is ignored.`, i + 1, 1));
      continue;
    }
    const value = (m[5] ?? '').trim().normalize('NFC');
    // The value starts after the `[ \t]+` separator, so it is the line's last m[5].length characters.
    const column = m[5] ? text.length - m[5].length + 1 : m[1]!.length + 1;
    const entry: MetadataEntry = { key: m[2]!, value, line: i + 1, column };
    if (m[3]) entry.locale = m[3];
    entries.push(entry);
  }

  const meta = emptyMetadata(kind);
  const seen = new Set<string>();
  for (const e of entries) {
    const { key, value, line, column } = e;
    const full = e.locale ? `${key}:${e.locale}` : key;
    const err = (code: string, message: string) => diagnostics.push(diag('error', code, message, line, column));
    const warn = (code: string, message: string) => diagnostics.push(diag('warning', code, message, line, column));
    if (e.locale && !LOCALIZABLE.has(key)) {
      if (SINGLE_KEYS.has(key) || LIST_KEYS.has(key) || key === 'noframes' || key === 'resource' || key === 'webmcp') {
        warn('unknown_key', `\`@${full}\`: only @name and @description take a locale; the line is ignored.`);
      } else {
        own(meta.extra!, full, () => []).push(value);
        if (!INFORMATIONAL.has(key)) warn('unknown_key', `\`@${full}\` is not a key tabwright reads; it is kept but has no effect.`);
      }
      continue;
    }
    if (SINGLE_KEYS.has(key) || (e.locale && LOCALIZABLE.has(key))) {
      if (!value && EMPTY_OK.has(key)) {
        // An empty line does not take the slot: a later non-empty value is used without a duplicate_key warning.
        warn('empty_value', `\`@${full}\` has no value; it is read as empty.`);
        if (e.locale) own(own<Record<string, string>>(meta.localized, key, () => ({})), e.locale, () => '');
        else if (key === 'version') meta.version ??= '';
        else meta.description ??= '';
        continue;
      }
      if (!value) { err('malformed_key', `\`@${full}\` needs a value.`); continue; }
      if (seen.has(full)) { warn('duplicate_key', `\`@${full}\` appears more than once; the first value is used.`); continue; }
      seen.add(full);
      if (e.locale) {
        const names = own<Record<string, string>>(meta.localized, key, () => ({}));
        own(names, e.locale, () => value);
        names[e.locale] = value; // over the '' of an empty line before it
        continue;
      }
      if (key === 'name') meta.name = value;
      else if (key === 'namespace') meta.namespace = value;
      else if (key === 'version') meta.version = value;
      else if (key === 'description') meta.description = value;
      else if (key === 'run-at') {
        if ((RUN_AT as string[]).includes(value)) meta.runAt = value as RunAt;
        else if (value === 'document-body') { meta.runAt = 'document-end'; warn('unsupported_run_at', '`@run-at document-body` is not supported; the script runs at `document-end`.'); }
        else if (value === 'context-menu') warn('unsupported_run_at', '`@run-at context-menu` is not supported; the script runs at `document-idle`.');
        else err('malformed_key', `\`@run-at ${value}\` is not one of document-start, document-end, document-idle.`);
      }
      continue;
    }
    if (LIST_KEYS.has(key)) {
      if (!value && key === 'grant') { warn('empty_value', '`@grant` has no value; the line is ignored.'); continue; }
      if (!value) { err('malformed_key', `\`@${key}\` needs a value.`); continue; }
      if (key === 'match') meta.match.push(value);
      else if (key === 'include') meta.include.push(value);
      else if (key === 'exclude') meta.exclude.push(value);
      else if (key === 'exclude-match') meta.excludeMatch.push(value);
      else if (key === 'grant') {
        if (/\s/.test(value)) err('malformed_key', `\`@grant ${value}\`: one grant per line (\`// @grant GM_getValue\`).`);
        else meta.grant.push(value);
      } else if (key === 'connect') {
        // Tampermonkey's forms (docs/userscripts.md, "GM API"): a host (subdomains included), an IP, `self`, `localhost`, `*`.
        // A URL is read as its host, with a warning; anything else that is not one host is skipped, with a warning.
        let host: string | undefined = value.toLowerCase();
        if (/^[a-z][a-z0-9+.-]*:\/\//.test(host)) {
          try {
            host = new URL(host).hostname || undefined;
          } catch {
            host = undefined;
          }
          if (host) warn('malformed_key', `\`@connect ${value}\` names a URL; it is read as the host \`${host}\`.`);
        }
        if (host && !/[\s/?#@]/.test(host)) meta.connect!.push(host);
        else if (!host || host === value.toLowerCase()) warn('malformed_key', `\`@connect ${value}\` is not one host (\`// @connect api.example.com\`, \`self\`, \`localhost\`, \`*\`); the line is ignored.`);
      } else if (key === 'require') {
        // http(s) and protocol-relative URLs are fetched once at save time and pinned (./remoteFetch.ts).
        if (isRemote(value)) meta.require.push(value);
        else if (otherScheme(value)) err('malformed_key', `\`@require ${value}\`: use an http(s) URL, a relative path beside the script or a \`data:\` URL.`);
        else meta.require.push(value);
      }
      continue;
    }
    if (key === 'noframes') {
      if (value) warn('malformed_key', '`@noframes` takes no value; the value is ignored.');
      meta.noframes = true;
      continue;
    }
    if (key === 'resource') {
      const rm = /^(\S+)\s+(\S.*)$/.exec(value);
      if (!rm) { err('malformed_key', '`@resource` needs a name and a value: `// @resource logo images/logo.png`.'); continue; }
      const res: ResourceDeclaration = { name: rm[1]!, value: rm[2]! };
      if (meta.resource.some(r => r.name === res.name)) { err('malformed_key', `\`@resource ${res.name}\` is declared twice.`); continue; }
      // Like @require: http(s) and protocol-relative URLs are fetched once at save time and pinned (./remoteFetch.ts).
      if (!isRemote(res.value) && otherScheme(res.value)) err('malformed_key', `\`@resource ${res.name} ${res.value}\`: use an http(s) URL, a relative path beside the script or a \`data:\` URL.`);
      else meta.resource.push(res);
      continue;
    }
    if (key === 'webmcp') {
      if (kind !== 'agentscript') { err('webmcp_in_userscript', '`@webmcp` belongs in an AgentScript: open the block with `// ==AgentScript==` and close it with `// ==/AgentScript==`.'); continue; }
      const parts = value.split(/\s+/).filter(Boolean);
      if (parts.length !== 2) { err('malformed_key', '`@webmcp` takes a tool name and a permission: `// @webmcp search_orders prompt`.'); continue; }
      const [tool, permission] = parts as [string, string];
      if (!TOOL_NAME.test(tool)) { err('invalid_tool_name', `\`@webmcp ${tool}\`: tool names use letters, digits, _ - . (1–128 characters).`); continue; }
      if (!(PERMISSIONS as string[]).includes(permission)) { err('invalid_permission', `\`@webmcp ${tool} ${permission}\`: the permission is allow, prompt or deny.`); continue; }
      if (meta.webmcp.some(w => w.tool === tool)) { err('duplicate_webmcp', `\`@webmcp ${tool}\` is declared twice.`); continue; }
      meta.webmcp.push({ tool, permission: permission as DeclaredPermission, line });
      continue;
    }
    own(meta.extra!, key, () => []).push(value);
    if (!INFORMATIONAL.has(key)) warn('unknown_key', `\`@${key}\` is not a key tabwright reads; it is kept but has no effect.`);
  }
  if (!meta.name) {
    diagnostics.push(diag('error', 'missing_name', 'The metadata block has no `@name`: add `// @name  My script`.', start + 1, 1));
  }
  return { metadata: meta, diagnostics, header: { startLine: start + 1, endLine: end + 1 }, entries };
}

/**
 * A script's identity: `<namespace> :: <name>`, both NFC, so an
 * NFD and an NFC copy of one script are one script. Namespace may be empty.
 */
export function scriptIdentity(meta: Pick<ScriptMetadata, 'namespace' | 'name'>): string {
  return `${meta.namespace.normalize('NFC')} :: ${meta.name.normalize('NFC')}`;
}

/**
 * The name to show for a UI locale (`en`, `zh-CN`): `@name:<locale>`, else
 * `@name:<language>` (`zh` for `zh-CN`), else `@name`.
 */
export function displayName(meta: Pick<ScriptMetadata, 'name' | 'localized'>, locale?: string): string {
  const names = meta.localized.name ?? {};
  if (!locale) return meta.name;
  const exact = Object.keys(names).find(k => k.toLowerCase() === locale.toLowerCase());
  if (exact) return names[exact]!;
  const lang = locale.split(/[-_]/)[0]!.toLowerCase();
  const byLang = Object.keys(names).find(k => k.toLowerCase() === lang);
  return byLang ? names[byLang]! : meta.name;
}
