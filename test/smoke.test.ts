import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from './fixtures/harness.js';
import { call } from './fixtures/mcp.js';

const tw = useServer({ pages: { '/': '<title>Hello</title><h1>Hello</h1><a href="/next">Next</a>', '/next': '<title>Next</title><p>next page</p>' } });

test('navigate, snapshot and click a link by ref', async () => {
  const nav = await call<{ status: number; title: string }>(tw.client, 'navigate', { url: `${tw.origin}/` });
  assert.equal(nav.status, 200);
  assert.equal(nav.title, 'Hello');
  const ctx = await call<{ snapshot: string }>(tw.client, 'get_page_context');
  const ref = /link "Next" \[ref=(e\d+)\]/.exec(ctx.snapshot)?.[1];
  assert.ok(ref, ctx.snapshot);
  const clicked = await call<{ navigation: { url: string } }>(tw.client, 'click', { ref });
  assert.equal(clicked.navigation.url, `${tw.origin}/next`);
});
