/**
 * `tabwright mcp-config --client http` (docs/clients.md, "HTTP-only clients"): the URL and bearer header it prints
 * reach the daemon's /mcp with the official MCP client over Streamable HTTP, in both protocol eras, and still do
 * after the daemon restarts, because the token is the lasting `<config dir>/daemon-token`; deleting that file
 * rotates it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { cli, cliHome, daemonPid, ok, type CliHome } from '../fixtures/cli.js';

let home: CliHome;

before(async () => {
  home = await cliHome();
});
after(async () => {
  await home?.cleanup();
});

interface HttpEntry { url: string; headers: { Authorization: string }; start: string; config: unknown; text: string }

/** Connects the official client to `entry` (2025-era session when `legacy`), lists the tools and calls list_tabs. */
async function useEntry(entry: HttpEntry, legacy: boolean): Promise<string[]> {
  const transport = new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } });
  const client = new Client({ name: 'http-only-client', version: '0.0.0' }, { versionNegotiation: { mode: legacy ? 'legacy' : 'auto' } });
  await client.connect(transport);
  try {
    assert.equal(client.getProtocolEra(), legacy ? 'legacy' : 'modern');
    const { tools } = await client.listTools();
    const tabs = await client.callTool({ name: 'list_tabs', arguments: {} });
    assert.notEqual(tabs.isError, true, JSON.stringify(tabs.content));
    return tools.map(t => t.name);
  } finally {
    await client.close();
  }
}

test('the printed URL and bearer header work against a started daemon, and again after a restart', async () => {
  const entry = await ok(home, ['mcp-config', '--client', 'http', '--', '--headless']) as HttpEntry;
  assert.equal(entry.url, `http://127.0.0.1:${home.port}/mcp`);
  assert.match(entry.headers.Authorization, /^Bearer [0-9a-f]{64}$/);
  assert.deepEqual(entry.config, { type: 'http', url: entry.url, headers: entry.headers });
  assert.match(entry.start, / daemon start --headless$/);
  // The settings that decide the URL and token go with the command.
  assert.ok(entry.start.startsWith(`TABWRIGHT_CONFIG_DIR=${home.configDir} TABWRIGHT_HTTP_PORT=${home.port} `), entry.start);
  assert.match(entry.text, /daemon start --headless/);
  // Created by mcp-config before any daemon ran: a private file of the config dir.
  const tokenFile = join(home.configDir, 'daemon-token');
  assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
  assert.equal(`Bearer ${readFileSync(tokenFile, 'utf8').trim()}`, entry.headers.Authorization);

  await ok(home, ['daemon', 'start']);
  const first = daemonPid(home);
  for (const legacy of [false, true]) assert.ok((await useEntry(entry, legacy)).includes('navigate'));

  await ok(home, ['daemon', 'stop']);
  await ok(home, ['daemon', 'start']);
  assert.notEqual(daemonPid(home), first, 'a new daemon process');
  for (const legacy of [false, true]) assert.ok((await useEntry(entry, legacy)).includes('navigate'));
  assert.deepEqual(await ok(home, ['mcp-config', '--client', 'http', '--', '--headless']), entry, 'the same entry after a restart');
});

test('deleting daemon-token rotates it: the old header is refused, mcp-config prints the new one', async () => {
  const old = await ok(home, ['mcp-config', '--client', 'http']) as HttpEntry;
  await ok(home, ['daemon', 'stop']);
  rmSync(join(home.configDir, 'daemon-token'));
  await ok(home, ['daemon', 'start']);
  const refused = await fetch(old.url, { method: 'POST', headers: { ...old.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
  assert.equal(refused.status, 401);
  const fresh = await ok(home, ['mcp-config', '--client', 'http']) as HttpEntry;
  assert.notEqual(fresh.headers.Authorization, old.headers.Authorization);
  assert.ok((await useEntry(fresh, true)).includes('navigate'));
});

test('an HTTP entry needs a fixed port: TABWRIGHT_HTTP_PORT=0 is a usage error', async () => {
  const run = await cli(home, ['mcp-config', '--client', 'http'], { env: { TABWRIGHT_HTTP_PORT: '0' } });
  assert.deepEqual([run.code, run.json?.error?.type], [2, 'invalid_arguments']);
});
