/**
 * The install files generated from one source (docs/clients.md, "Claude Desktop bundle" and "MCP registry"):
 * package.json (name, version, description, author, license, keywords, engines, mcpName) and the tool
 * declarations. `npm run docs` writes `mcpb/manifest.json` (the MCPB manifest, MANIFEST.md of the MCPB spec,
 * manifest_version 0.3) and `server.json` (the MCP registry's server.json, schema 2025-12-11);
 * test/installFiles.test.ts fails when either is stale. `npm run mcpb` zips the manifest into
 * `tabwright-<version>.mcpb`.
 *
 * Both point at the npm package, pinned to this version, and start it with npx (the MCPB spec's "npm + npx"
 * pattern): a bundle of node_modules would carry better-sqlite3's native addon for the platform it was packed on
 * only.
 */
import { readFileSync } from 'node:fs';
import { TOOLS } from '../tools/registry.js';
import { zip } from './zip.js';

/** The fields of package.json these files read. */
export interface PackageInfo {
  name: string;
  version: string;
  description: string;
  author: string;
  license: string;
  keywords: string[];
  engines: { node: string };
  mcpName: string;
}

/** This repository's package.json. */
export function packageInfo(): PackageInfo {
  return JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as PackageInfo;
}

/** Where the generated files go, relative to the repository root. */
export const MCPB_MANIFEST = 'mcpb/manifest.json';
export const SERVER_JSON = 'server.json';

/** The bundle's file name: `tabwright-<version>.mcpb`. */
export const mcpbFileName = (pkg: PackageInfo): string => `${pkg.name}-${pkg.version}.mcpb`;

/** What a catalogue shows of a tool: the first sentence of its description, without parenthesized asides. */
function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return (end < 0 ? text : text.slice(0, end + 1)).replace(/\s*\([^()]*\)/g, '');
}

/**
 * The MCPB manifest for Claude Desktop. The server runs as `npx -y --package=<name>@<version> <name>-mcp` with:
 * - `--output inline`: snapshots and screenshots in the result (Claude Desktop shows images; its model reads no
 *   files of the workspace);
 * - `--workspace <user_config.workspace>`: Claude Desktop starts servers in a folder of its own, so downloads, PDFs
 *   and long results go to a folder the user picks (default: Documents);
 * - TABWRIGHT_TOOLSETS and TABWRIGHT_HEADLESS from the user's settings.
 * Claude Desktop cannot elicit, so consent questions wait in the dashboard (README "Clients without elicitation").
 */
export function mcpbManifest(pkg: PackageInfo = packageInfo()): Record<string, unknown> {
  const core = TOOLS.filter(t => !t.humanOnly && (t.toolset ?? 'core') === 'core');
  return {
    manifest_version: '0.3',
    name: pkg.name,
    display_name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    long_description: [
      `${pkg.name} drives a real Chromium for the model: tabs, compact page snapshots with element refs, clicks and typing by ref, dialogs,`,
      'downloads, screenshots, the console, JavaScript, and the tools pages offer through WebMCP. Results come inline (screenshots as images).',
      'It launches a Chromium-family browser it finds on the machine (Chrome, Edge, Chromium, Brave) and never downloads one.',
      'The first start installs the npm package with npx, which takes a while. WebMCP calls that are not read-only ask first: Claude Desktop',
      'cannot show that question, so it waits in the local dashboard (http://127.0.0.1:19682). The userscript tools are the "scripts" tool set.',
    ].join(' '),
    author: { name: pkg.author },
    license: pkg.license,
    keywords: pkg.keywords,
    server: {
      type: 'node',
      entry_point: 'dist/mcpMain.js',
      mcp_config: {
        command: 'npx',
        args: ['-y', `--package=${pkg.name}@${pkg.version}`, `${pkg.name}-mcp`, '--output', 'inline', '--workspace', '${user_config.workspace}'],
        env: { TABWRIGHT_TOOLSETS: '${user_config.toolsets}', TABWRIGHT_HEADLESS: '${user_config.headless}' },
      },
    },
    tools: core.map(t => ({ name: t.name, description: firstSentence(t.description) })),
    tools_generated: true,
    compatibility: { platforms: ['darwin', 'win32', 'linux'], runtimes: { node: pkg.engines.node } },
    user_config: {
      workspace: {
        type: 'directory',
        title: 'Folder for files',
        description: 'Downloads, PDFs and results too long to show go to .tabwright/ in this folder.',
        required: true,
        default: '${DOCUMENTS}',
      },
      toolsets: {
        type: 'string',
        title: 'Tool sets',
        description: 'core (browsing), scripts (userscripts and AgentScripts) or all, comma-separated.',
        required: false,
        default: 'core',
      },
      headless: {
        type: 'boolean',
        title: 'Hide the browser window',
        description: 'Run the browser headless instead of showing its window.',
        required: false,
        default: false,
      },
    },
  };
}

/** The MCP registry's server.json: the npm package, run by `npx -y <name>@<version> mcp` over stdio. */
export function serverJson(pkg: PackageInfo = packageInfo()): Record<string, unknown> {
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    name: pkg.mcpName,
    title: pkg.name,
    description: pkg.description,
    version: pkg.version,
    packages: [{
      registryType: 'npm',
      registryBaseUrl: 'https://registry.npmjs.org',
      identifier: pkg.name,
      version: pkg.version,
      runtimeHint: 'npx',
      transport: { type: 'stdio' },
      packageArguments: [{ type: 'positional', value: 'mcp' }],
    }],
  };
}

/** A generated file's text: JSON, two-space indent, a final newline. */
export const renderJson = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** The .mcpb bundle (a ZIP holding manifest.json), built from the manifest's text. */
export function mcpbBundle(manifestText: string): Buffer {
  return zip([{ name: 'manifest.json', data: Buffer.from(manifestText, 'utf8') }]);
}
