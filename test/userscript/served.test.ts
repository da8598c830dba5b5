/**
 * The broker as the leading process serves it (docs/userscript-connection.md, "Install"): a tabwright MCP server
 * with `--connection userscript` serves the companion at the install URL that `tabwright userscript` prints, with
 * @updateURL and @downloadURL pointing back to it; `tabwright userscript url` prints the broker URL with the token
 * of a 0600 file, which authenticates the companion's requests; a web page's Origin, a foreign Host or a wrong token
 * is refused; the token never reaches the server's log.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli, cliHome, type CliHome } from '../fixtures/cli.js';
import { connect, type Connected } from '../fixtures/mcp.js';

let home: CliHome;
let server: Connected;

before(async () => {
  home = await cliHome();
  server = await connect({ args: ['--connection', 'userscript'], env: { TABWRIGHT_CONFIG_DIR: home.configDir, TABWRIGHT_WS_PORT: home.env.TABWRIGHT_WS_PORT!, DEBUG: 'userscript' } });
});

after(async () => {
  await server?.close();
  await home?.cleanup();
});

const run = async (args: string[]) => {
  const r = await cli(home, args);
  assert.equal(r.code, 0, r.stderr);
  return r.json!.result as Record<string, unknown>;
};

function raw(url: string, headers: Record<string, string>, method = 'POST'): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method, headers }, res => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

test('`tabwright userscript` prints the install URL; the companion is served there, pointing back to it', async () => {
  const printed = await run(['userscript']);
  assert.equal(printed.installUrl, `http://127.0.0.1:${home.env.TABWRIGHT_WS_PORT}/userscript/tabwright.user.js`);
  assert.equal(printed.serving, true);
  const response = await fetch(printed.installUrl as string);
  assert.equal(response.status, 200);
  const text = await response.text();
  assert.match(text, /^\/\/ ==UserScript==/);
  assert.match(text, new RegExp(`// @updateURL +${printed.installUrl as string}\\n`));
  assert.match(text, new RegExp(`// @downloadURL +${printed.installUrl as string}\\n`));
  for (const grant of ['GM_xmlhttpRequest', 'GM_registerMenuCommand', 'GM_getTab', 'GM_addElement']) assert.match(text, new RegExp(`// @grant +${grant}\\n`));
  assert.doesNotMatch(text, /^\s*(import|export) /m, 'self-contained');
});

test('`tabwright userscript url` prints the broker URL whose token is kept in a 0600 file; it authenticates requests', async () => {
  const { url } = await run(['userscript', 'url']) as { url: string };
  assert.match(url, new RegExp(`^http://127\\.0\\.0\\.1:${home.env.TABWRIGHT_WS_PORT}/userscript/[A-Za-z0-9_-]{43}$`));
  const file = join(home.configDir, 'userscript-token');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal((await run(['userscript', 'url'])).url, url, 'the same token on every call');
  const opened = await fetch(`${url}/tab-1/open`, { method: 'POST' });
  assert.equal(opened.status, 200);
  assert.match(((await opened.json()) as { conn: string }).conn, /^[A-Za-z0-9_-]{22}$/);
  const wrong = url.replace(/[A-Za-z0-9_-]{43}$/, 'x'.repeat(43));
  assert.equal((await fetch(`${wrong}/tab-1/open`, { method: 'POST' })).status, 403);
  assert.equal(await raw(`${url}/tab-1/open`, { origin: 'https://example.com' }), 403);
  assert.equal(await raw(`${url}/tab-1/open`, { host: `attacker.example:${home.env.TABWRIGHT_WS_PORT}` }), 403);
  assert.equal(await raw(`${url}/tab-1/open`, { origin: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop' }), 200);
  assert.equal(await raw(`${url}/tab-1/open`, {}, 'GET'), 405);
  assert.doesNotMatch(server.stderr(), new RegExp(url.split('/').pop()!), 'the token is never logged');
});
