import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, call, type Connected } from './fixtures/mcp.js';
import { startSite, type Site } from './fixtures/site.js';

let site: Site;
let server: Connected;

before(async () => {
  site = await startSite();
  site.page('/', '<title>Hello</title><h1>Hello</h1><a href="/next">Next</a>');
  site.page('/next', '<title>Next</title><p>next page</p>');
  server = await connect();
});
after(async () => {
  await server?.close();
  await site?.close();
});

test('navigate, snapshot and click a link by ref', async () => {
  const nav = await call<{ status: number; title: string }>(server.client, 'navigate', { url: `${site.origin}/` });
  assert.equal(nav.status, 200);
  assert.equal(nav.title, 'Hello');
  const ctx = await call<{ snapshot: string }>(server.client, 'get_page_context');
  const ref = /link "Next" \[ref=(e\d+)\]/.exec(ctx.snapshot)?.[1];
  assert.ok(ref, ctx.snapshot);
  const clicked = await call<{ navigation: { url: string } }>(server.client, 'click', { ref });
  assert.equal(clicked.navigation.url, `${site.origin}/next`);
});
