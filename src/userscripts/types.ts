/**
 * The shapes shared by the userscript and AgentScript parts:
 * the parsed header (src/userscripts/metadata.ts), validation diagnostics
 * (validate.ts), the stored script (store.ts) and what injection reads
 * (injection.ts). Contract: docs/userscripts.md, "Format".
 */

/** `userscript`: `// ==UserScript==` block; `agentscript`: `// ==AgentScript==` block (adds `@webmcp`). */
export type ScriptKind = 'userscript' | 'agentscript';

/** When a script runs in a document (`@run-at`; default `document-idle`). */
export type RunAt = 'document-start' | 'document-end' | 'document-idle';

/** A WebMCP permission as `@webmcp <tool> <permission>` declares it. */
export type DeclaredPermission = 'allow' | 'prompt' | 'deny';

/** One `// @webmcp <toolName> <allow|prompt|deny>` line. `line` is 1-based in the source. */
export interface WebMcpDeclaration {
  tool: string;
  permission: DeclaredPermission;
  line: number;
}

/**
 * `@resource <name> <value>`: value is an http(s) or protocol-relative URL (fetched at save time), a local path
 * (relative to the script's file) or a `data:` URL.
 */
export interface ResourceDeclaration {
  name: string;
  value: string;
}

/**
 * One `@resource` as a save resolved it (src/userscripts/saves.ts; kept in the store's `script_resources`): `url` is
 * the declared value, `mime` the type the page gets (./resourceData.ts resourceMime), `sha256` hex of `bytes`.
 */
export interface StoredResource {
  name: string;
  url: string;
  mime: string;
  sha256: string;
  bytes: Uint8Array;
}

/**
 * The parsed metadata block. Keys the block repeats (`@match`, `@grant`,
 * ...) are arrays in source order; localized keys (`@name:de`) land in
 * `localized[key][locale]`. Strings are NFC-normalized.
 */
export interface ScriptMetadata {
  kind: ScriptKind;
  name: string;
  namespace: string;
  version?: string;
  description?: string;
  /** `localized.name.de` = value of `@name:de`; same for description. */
  localized: Record<string, Record<string, string>>;
  match: string[];
  include: string[];
  exclude: string[];
  excludeMatch: string[];
  /** `@grant` values; `['none']` means the page's world. Empty = none declared (treated as `none`). */
  grant: string[];
  runAt: RunAt;
  noframes: boolean;
  require: string[];
  resource: ResourceDeclaration[];
  /**
   * `@connect` values, lower case: the hosts GM_xmlhttpRequest and GM_download may reach (./connect.ts). Absent in
   * metadata stored before tabwright read the key (it was then kept in `extra.connect`; connectList reads both).
   */
  connect?: string[];
  /** AgentScripts only; empty for userscripts. */
  webmcp: WebMcpDeclaration[];
  /**
   * Keys tabwright does not act on (`@author`, `@antifeature`, ...
   * and localized forms like `@antifeature:de`), kept in source order so
   * nothing in the header is lost. Always set by parseMetadata.
   */
  extra?: Record<string, string[]>;
  /**
   * The code of each local `@require`, as read at save time relative to the
   * saved file (or the workspace, for inline code; src/userscripts/saves.ts), and of each remote one as fetched
   * at its first save (`sha256` of its bytes; src/userscripts/remoteFetch.ts).
   * Injection inlines it before the script body, in `require` order; a
   * `data:` URL is decoded at injection. Absent: nothing resolved.
   */
  requireCode?: Array<{ url: string; code: string; sha256?: string }>;
}

/** A validation finding. `line`/`column` are 1-based positions in the script source. */
export interface Diagnostic {
  severity: 'error' | 'warning';
  /** Stable code, e.g. `syntax_error`, `unknown_key`, `invalid_match_pattern`, `webmcp_mismatch`. */
  code: string;
  message: string;
  line: number;
  column: number;
}

/** Who wrote the script: agent-written AgentScripts never grant themselves `allow`. */
export type ScriptAuthor = 'agent' | 'human';

/** A script as the store keeps it. Times are epoch ms; codeHash is the sha256 hex of `code` (UTF-8, byte-exact). */
export interface StoredScript {
  id: string;
  kind: ScriptKind;
  name: string;
  namespace: string;
  code: string;
  codeHash: string;
  enabled: boolean;
  author: ScriptAuthor;
  metadata: ScriptMetadata;
  createdAt: number;
  updatedAt: number;
}

/**
 * What injection and the consent gate need from the store (implemented by
 * src/userscripts/store.ts). `onChange` fires after any commit, delete or
 * toggle; the listener is removed by calling the returned function.
 */
export interface ScriptSource {
  enabledScripts(): StoredScript[];
  get(id: string): StoredScript | undefined;
  getValue(scriptId: string, key: string): unknown;
  setValue(scriptId: string, key: string, value: unknown): void;
  deleteValue(scriptId: string, key: string): void;
  listValues(scriptId: string): string[];
  /** The script's resources in `@resource` order, as its last save resolved them (none before a save resolved them). */
  resources(scriptId: string): StoredResource[];
  onChange(listener: () => void): () => void;
}
