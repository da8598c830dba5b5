/**
 * Renders docs/tools.md from the tool registry (STYLE.md, "Generated
 * reference docs"): name, description, needs, effect and the input
 * parameters from each declaration's JSON Schema.
 */
import { inputJsonSchema } from '../mcp/server.js';
import { TOOLS } from '../tools/registry.js';

export const BEGIN = '<!-- BEGIN GENERATED TOOLS: npm run docs -->';
export const END = '<!-- END GENERATED TOOLS -->';

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

/** The generated section (between BEGIN and END, markers included). */
export function renderToolsSection(): string {
  const out: string[] = [BEGIN, ''];
  for (const tool of TOOLS) {
    const schema = inputJsonSchema(tool) as JsonSchema;
    out.push(`## \`${tool.name}\``, '', tool.description, '');
    out.push(`- effect: \`${tool.effect}\`${tool.needs.length ? ` · needs: ${tool.needs.map(n => `\`${n}\``).join(', ')}` : ''}${tool.launchesBrowser ? '' : ' · answers without starting the browser'}${tool.toolset && tool.toolset !== 'core' ? ` · toolset \`${tool.toolset}\` (MCP clients see it with \`--toolsets all\`)` : ''}`, '');
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
  out.push(END);
  return out.join('\n');
}

/** Replaces the generated section of `doc` (or appends it when the markers are missing). */
export function updateToolsDoc(doc: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < 0) return `${doc.trimEnd()}\n\n${renderToolsSection()}\n`;
  return doc.slice(0, start) + renderToolsSection() + doc.slice(end + END.length);
}
