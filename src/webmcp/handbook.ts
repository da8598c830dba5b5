/**
 * The handbook for app developers adding WebMCP tools (docs/webmcp-dev.md, "Handbook"), served as the MCP resource
 * `tabwright://webmcp-conventions` (src/mcp/resources.ts). The text lives in src/webmcp/handbooks/*.md;
 * scripts/build.mjs copies it to dist/webmcp/handbooks/, so the same relative path works from src (tsx) and from
 * dist. Read on first use and cached. test/tools/webmcpHandbook.test.ts runs every example in it.
 */
import { readFileSync } from 'node:fs';

/** The resource: URI, name, title, MIME type, description. */
export const WEBMCP_HANDBOOK = {
  uri: 'tabwright://webmcp-conventions',
  name: 'webmcp-conventions',
  title: 'WebMCP handbook for app developers',
  mimeType: 'text/markdown',
  description: 'How to add WebMCP tools to a web app: registerTool and forms, names, schemas, annotations, cancellation.',
} as const;

let text: string | undefined;

/** The handbook's markdown (UTF-8). Throws ENOENT only when the package is broken (the .md was not shipped). */
export function webmcpHandbook(): string {
  text ??= readFileSync(new URL('./handbooks/webmcp-conventions.md', import.meta.url), 'utf8');
  return text;
}
