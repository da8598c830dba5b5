/**
 * The script resources (docs/userscripts.md, "Resources"), as text any front can
 * serve (src/mcp/resources.ts registers them with the MCP server):
 *
 * - `tabwright://scripts`: JSON list of every script (scriptSummary);
 * - `tabwright://scripts/{scriptId}`: the source (text/javascript, byte-exact)
 *   and a JSON document with the summary and the parsed metadata (with
 *   `requireCode`, the `@require` code resolved at save time) and `resources` (each `@resource` as resolved at
 *   save time: name, url, mime, sha256, bytes, without the data);
 * - `tabwright://conventions`, `tabwright://userscript-conventions`,
 *   `tabwright://agentscript-conventions`: the handbooks (handbooks.ts, read from handbooks/*.md).
 */
import type { Config } from '../config.js';
import { HANDBOOKS, handbook } from './handbooks.js';
import { scriptService } from './service.js';
import type { StoredResource, StoredScript } from './types.js';

/** One content block of a resource read. */
export interface ResourceText {
  uri: string;
  mimeType: string;
  text: string;
}

/** The static resources: URI, name, title, MIME type. */
export const STATIC_RESOURCES = [
  { uri: 'tabwright://scripts', name: 'scripts', title: 'Stored scripts', mimeType: 'application/json', description: 'Every stored userscript and AgentScript (JSON).' },
  { uri: 'tabwright://conventions', name: 'conventions', title: 'Script conventions', mimeType: 'text/markdown', description: 'Which handbook to read before writing a script.' },
  { uri: 'tabwright://userscript-conventions', name: 'userscript-conventions', title: 'Userscript handbook', mimeType: 'text/markdown', description: 'How to write a userscript tabwright accepts.' },
  { uri: 'tabwright://agentscript-conventions', name: 'agentscript-conventions', title: 'AgentScript handbook', mimeType: 'text/markdown', description: 'How to write an AgentScript: @webmcp, registerTool, consent.' },
] as const;

/** The resource template of one script. */
export const SCRIPT_RESOURCE_TEMPLATE = 'tabwright://scripts/{scriptId}';

/** What list_scripts and tabwright://scripts say about a script. */
export function scriptSummary(s: StoredScript) {
  return {
    scriptId: s.id,
    name: s.name,
    namespace: s.namespace,
    kind: s.kind,
    version: s.metadata.version ?? null,
    enabled: s.enabled,
    author: s.author,
    match: s.metadata.match,
    include: s.metadata.include,
    codeHash: s.codeHash,
    updatedAt: s.updatedAt,
  };
}

/** What the script tools and resources say about a script's `@resource` data: no bytes, a long data: URL cut. */
export function resourceSummaries(resources: readonly StoredResource[]) {
  return resources.map(r => ({ name: r.name, url: r.url.length > 200 ? `${r.url.slice(0, 200)}…` : r.url, mime: r.mime, sha256: r.sha256, bytes: r.bytes.byteLength }));
}

/**
 * Reads a script resource; undefined for a URI that names nothing (an
 * unknown script ID, an unknown path).
 */
export function readScriptResource(uri: string, config: Pick<Config, 'dataDir' | 'saveDeadlineMs'>): ResourceText[] | undefined {
  const name = HANDBOOKS.find(h => uri === `tabwright://${h}`);
  if (name) return [{ uri, mimeType: 'text/markdown', text: handbook(name) }];
  const { store } = scriptService(config);
  if (uri === 'tabwright://scripts') {
    return [{ uri, mimeType: 'application/json', text: JSON.stringify({ scripts: store.list().map(scriptSummary) }, null, 2) }];
  }
  const m = /^tabwright:\/\/scripts\/([^/?#]+)$/.exec(uri);
  if (!m) return undefined;
  const script = store.get(decodeURIComponent(m[1]!));
  if (!script) return undefined;
  return [
    { uri, mimeType: 'text/javascript', text: script.code },
    { uri, mimeType: 'application/json', text: JSON.stringify({ ...scriptSummary(script), metadata: script.metadata, resources: resourceSummaries(store.resources(script.id)) }, null, 2) },
  ];
}
