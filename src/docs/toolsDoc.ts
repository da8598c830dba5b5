/**
 * Renders docs/tools.md from the tool registry (`npm run docs`; test/docs.test.ts
 * fails when the file is stale): name, description, needs, effect, the
 * file that declares the tool, and the input parameters from each
 * declaration's JSON Schema.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { inputJsonSchema } from '../mcp/server.js';
import type { AnyTool } from '../tools/define.js';
import { TOOLS } from '../tools/registry.js';
import { markers, replaceSection } from './sections.js';

const TOOLS_SECTION = markers('TOOLS');

interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
}

function typeOf(s: JsonSchema): string {
  if (s.enum) return s.enum.map(v => JSON.stringify(v)).join(' \\| ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.anyOf) return s.anyOf.map(typeOf).join(' \\| ');
  if (s.type === 'array') return `${s.items ? typeOf(s.items) : 'any'}[]`;
  if (s.type === 'object' && s.properties) return `{${Object.keys(s.properties).join(', ')}}`;
  const base = Array.isArray(s.type) ? s.type.join(' \\| ') : (s.type ?? 'any');
  if (s.minimum !== undefined || s.maximum !== undefined) return `${base} (${s.minimum ?? ''}..${s.maximum ?? ''})`;
  return base;
}

const REGISTRY = new URL('../tools/registry.ts', import.meta.url);

/**
 * The file that declares each tool, as `src/tools/<file>.ts`, found through
 * the imports of src/tools/registry.ts: every module it imports a binding
 * from is loaded, and each tool (or array of tools) it exports is matched by
 * identity to the registry's TOOLS. Runs from the sources (tsx), where the
 * registry's .ts file is.
 * @throws Error when a tool of TOOLS comes from no module the registry imports.
 */
export async function toolSources(): Promise<Map<AnyTool, string>> {
  const text = readFileSync(REGISTRY, 'utf8');
  const sources = new Map<AnyTool, string>();
  for (const [, names, spec] of text.matchAll(/^import\s+\{([^}]+)\}\s+from\s+'(\.\/[^']+)\.js';/gm)) {
    const url = new URL(`${spec}.js`, REGISTRY);
    const mod = (await import(url.href)) as Record<string, unknown>;
    const file = `src/tools/${spec!.slice(2)}.ts`;
    for (const name of names!.split(',').map(n => n.trim().split(/\s+as\s+/)[0]!)) {
      const value = mod[name];
      for (const tool of Array.isArray(value) ? value : [value]) if (TOOLS.includes(tool as AnyTool)) sources.set(tool as AnyTool, file);
    }
  }
  const missing = TOOLS.filter(t => !sources.has(t)).map(t => t.name);
  if (missing.length) throw new Error(`No module imported by ${fileURLToPath(REGISTRY)} exports ${missing.join(', ')}.`);
  return sources;
}

/** The generated section of docs/tools.md, markers included; `sources` from toolSources(). */
export function renderToolsSection(sources: ReadonlyMap<AnyTool, string>): string {
  const out: string[] = [TOOLS_SECTION.begin, ''];
  for (const tool of TOOLS) {
    const schema = inputJsonSchema(tool) as JsonSchema;
    out.push(`## \`${tool.name}\``, '', tool.description, '');
    const source = sources.get(tool);
    if (source) out.push(`- source: [${source}](../${source})`);
    out.push(`- effect: \`${tool.effect}\`${tool.needs.length ? ` · needs: ${tool.needs.map(n => `\`${n}\``).join(', ')}` : ''}${tool.launchesBrowser ? '' : ' · answers without starting the browser'}${tool.servesRemoteTabs ? ' · on the userscript connection too, from inside the page ([userscript-connection.md](userscript-connection.md#tools))' : ''}${tool.toolset && tool.toolset !== 'core' ? ` · toolset \`${tool.toolset}\` (MCP clients see it with \`--toolsets all\`)` : ''}`, '');
    const props = Object.entries(schema.properties ?? {});
    if (props.length) {
      out.push('| parameter | type | required | description |', '| --- | --- | --- | --- |');
      for (const [name, prop] of props) {
        const desc = (prop.description ?? '').replace(/\|/g, '\\|');
        out.push(`| \`${name}\` | ${typeOf(prop)} | ${schema.required?.includes(name) ? 'yes' : 'no'} | ${desc} |`);
      }
    } else {
      out.push('No parameters.');
    }
    out.push('');
  }
  out.push(TOOLS_SECTION.end);
  return out.join('\n');
}

/** `doc` (docs/tools.md) with its generated section rendered anew (appended when the markers are missing). */
export async function updateToolsDoc(doc: string): Promise<string> {
  return replaceSection(doc, TOOLS_SECTION, renderToolsSection(await toolSources()));
}
