// A one-shot client's trap (docs/clients.md, "One-shot clients"): each call of a client that starts `tabwright mcp`
// anew gets a new browser. The snapshot of a browser that started with that very call says so, once; a snapshot
// of a browser an earlier call started does not.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { callRaw, connect, type Connected } from '../fixtures/mcp.js';
import { killLeftovers } from '../fixtures/processes.js';
import { machine, startServer } from '../fixtures/relay.js';
import { startSite, type Site } from '../fixtures/site.js';

let site: Site;
const servers: Connected[] = [];

before(async () => {
  site = await startSite();
  site.page('/page', '<!doctype html><title>A page</title><h1>Hello</h1>');
});

after(async () => {
  for (const server of servers) await server.close().catch(() => undefined);
  await site?.close();
});

const NOTE = /The browser started with this call: nothing from earlier calls is in it\. .*`tabwright daemon start`/;
const text = (r: { content: Array<{ text?: string }> }) => r.content.map(c => c.text ?? '').join('\n');

test('the first call of a process snapshots a browser it started: the result says so, the next one does not', async () => {
  const server = await connect();
  servers.push(server);
  const first = await callRaw(server.client, 'get_page_context');
  assert.equal(first.isError, undefined);
  assert.match(text(first), NOTE);
  assert.equal(first.structuredContent?.browserStarted, true);
  const second = await callRaw(server.client, 'get_page_context');
  assert.doesNotMatch(text(second), NOTE);
  assert.equal(second.structuredContent?.browserStarted, undefined);
});

test('a snapshot after a navigate that started the browser has no note', async () => {
  const server = await connect();
  servers.push(server);
  await callRaw(server.client, 'navigate', { url: `${site.origin}/page` });
  const snap = await callRaw(server.client, 'get_page_context');
  assert.match(text(snap), /heading "Hello"/);
  assert.doesNotMatch(text(snap), NOTE);
});

test('with --isolated the note says that such a server never joins the daemon', async () => {
  const server = await connect({ args: ['--isolated'] });
  servers.push(server);
  const first = await callRaw(server.client, 'get_page_context');
  assert.match(text(first), NOTE);
  assert.match(text(first), /This server runs with --isolated \(a temporary profile\), which never joins the daemon/);
});

test('a call a follower relays starts the leader\'s browser, which stays: no note', async () => {
  const m = await machine();
  const leader = await startServer(m);
  const follower = await startServer(m);
  try {
    const snap = await callRaw(follower.client, 'get_page_context');
    assert.equal(snap.isError, undefined);
    assert.doesNotMatch(text(snap), NOTE);
  } finally {
    await follower.close();
    await leader.close();
    killLeftovers(m.profile);
    m.remove();
  }
});

