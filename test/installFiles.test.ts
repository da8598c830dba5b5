/**
 * The install files generated from package.json and the tool declarations (src/docs/installFiles.ts,
 * docs/clients.md "Claude Desktop bundle" and "MCP registry"): the checked-in mcpb/manifest.json and server.json
 * are current, follow their formats (the MCPB manifest spec, the registry's server.json schema), and start a server
 * with flags the server accepts; the .mcpb bundle is a ZIP that other tools read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { ROOT } from './fixtures/mcp.js';
import { addServerOptions } from '../src/cliOptions.js';
import { resolveConfig, type ConfigFlags } from '../src/config.js';
import { MCPB_MANIFEST, mcpbBundle, mcpbManifest, packageInfo, renderJson, SERVER_JSON, serverJson } from '../src/docs/installFiles.js';
import { TOOLS } from '../src/tools/registry.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const pkg = packageInfo();

interface Manifest {
  manifest_version: string; name: string; version: string; description: string; author: { name: string };
  server: { type: string; entry_point: string; mcp_config: { command: string; args: string[]; env: Record<string, string> } };
  tools: Array<{ name: string; description: string }>;
  user_config: Record<string, { type: string; title: string; description: string; default?: unknown }>;
  compatibility: { runtimes: { node: string } };
}

test('mcpb/manifest.json and server.json are generated from package.json and the tool declarations', () => {
  assert.equal(read(MCPB_MANIFEST), renderJson(mcpbManifest()), `${MCPB_MANIFEST} is out of date: run npm run docs`);
  assert.equal(read(SERVER_JSON), renderJson(serverJson()), `${SERVER_JSON} is out of date: run npm run docs`);
});

test('the MCPB manifest has the spec\'s required fields, this version, the core tools, and settings for every ${user_config.*} it uses', () => {
  const m = JSON.parse(read(MCPB_MANIFEST)) as Manifest;
  for (const key of ['manifest_version', 'name', 'version', 'description', 'author', 'server'] as const) assert.ok(m[key], key);
  assert.equal(m.version, pkg.version);
  assert.equal(m.server.type, 'node');
  assert.equal(m.server.mcp_config.command, 'npx');
  assert.deepEqual(m.server.mcp_config.args.slice(0, 3), ['-y', `--package=${pkg.name}@${pkg.version}`, 'tabwright-mcp'], 'the bundle runs this very version');
  assert.equal(m.compatibility.runtimes.node, pkg.engines.node);
  assert.deepEqual(m.tools.map(t => t.name), TOOLS.filter(t => !t.humanOnly && (t.toolset ?? 'core') === 'core').map(t => t.name));
  for (const t of m.tools) assert.ok(t.description.length > 0 && t.description.length <= 200, `${t.name}: ${t.description}`);
  const used = new Set([...JSON.stringify(m.server.mcp_config).matchAll(/\$\{user_config\.(\w+)\}/g)].map(x => x[1]!));
  assert.deepEqual([...used].sort(), Object.keys(m.user_config).sort());
  for (const [key, field] of Object.entries(m.user_config)) {
    assert.ok(['string', 'number', 'boolean', 'directory', 'file'].includes(field.type), key);
    assert.ok(field.title && field.description, key);
  }
});

test('the bundle\'s server flags and settings are ones the server accepts at start', () => {
  const m = JSON.parse(read(MCPB_MANIFEST)) as Manifest;
  const workspace = mkdtempSync(join(tmpdir(), 'tabwright-mcpb-'));
  try {
    // What Claude Desktop substitutes: the user's folder and the settings' defaults.
    const values: Record<string, string> = { workspace, toolsets: String(m.user_config.toolsets!.default), headless: String(m.user_config.headless!.default) };
    const fill = (s: string) => s.replace(/\$\{user_config\.(\w+)\}/g, (_, k: string) => values[k]!);
    const probe = addServerOptions(new Command('tabwright mcp')).exitOverride().action(() => undefined);
    probe.parse(m.server.mcp_config.args.slice(3).map(fill), { from: 'user' });
    const env = Object.fromEntries(Object.entries(m.server.mcp_config.env).map(([k, v]) => [k, fill(v)]));
    const config = resolveConfig(probe.opts() as ConfigFlags, env);
    assert.equal(config.output, 'inline');
    assert.equal(config.workspace, workspace);
    assert.deepEqual(config.toolsets, ['core']);
    assert.equal(config.headless, false);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});

test('server.json follows the registry\'s rules: reverse-DNS name equal to package.json mcpName, a short description, a pinned npm package over stdio', () => {
  const s = JSON.parse(read(SERVER_JSON)) as { name: string; description: string; version: string; packages: Array<{ registryType: string; identifier: string; version: string; transport: { type: string } }> };
  assert.match(s.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
  assert.equal(s.name, pkg.mcpName, 'the registry checks package.json mcpName against the name');
  assert.ok(s.description.length >= 1 && s.description.length <= 100, `${s.description.length} characters`);
  assert.equal(s.version, pkg.version);
  assert.deepEqual(s.packages.map(p => [p.registryType, p.identifier, p.version, p.transport.type]), [['npm', pkg.name, pkg.version, 'stdio']]);
});

test('the .mcpb bundle is a ZIP holding manifest.json, the same bytes from the same manifest', { skip: spawnSync('python3', ['--version']).status === 0 ? false : 'needs python3 to read the ZIP with another implementation' }, () => {
  const text = read(MCPB_MANIFEST);
  const bundle = mcpbBundle(text);
  assert.deepEqual(mcpbBundle(text), bundle);
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-mcpb-'));
  try {
    const file = join(dir, 'bundle.mcpb');
    writeFileSync(file, bundle);
    // Python's zipfile checks every CRC (testzip) and inflates the entry.
    const check = spawnSync('python3', ['-c', 'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint(z.namelist())\nsys.stdout.write(z.read("manifest.json").decode())', file], { encoding: 'utf8' });
    assert.equal(check.status, 0, check.stderr);
    assert.equal(check.stdout, `['manifest.json']\n${text}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
