// Back and forward with the back-forward cache on: a browser
// tabwright attaches to has bfcache on (playwright-core's own launch turns it
// off). A page restored from it fires no new load; navigate "back" /
// "forward" must still return at once with the restored page, its HTTP
// status and a new revision (src/tools/historyStep.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, connect, type Connected } from '../fixtures/mcp.js';
import { startChromium, type RemoteChromium } from '../fixtures/remote.js';
import { startSite, type Site } from '../fixtures/site.js';

interface Nav { tabId: number; url: string; title: string; status: number; revision: number; instanceId: string }

let site: Site;
let chrome: RemoteChromium;
let server: Connected;

// Each page counts the times it was shown again from the back-forward cache (its JavaScript heap survives there).
const page = (name: string) => `<!doctype html><title>Page ${name}</title><h1>${name}</h1>
<script>window.restores = 0; addEventListener('pageshow', e => { if (e.persisted) window.restores++; });</script>`;

before(async () => {
  site = await startSite();
  site.page('/a', page('A'));
  site.page('/b', page('B'));
  chrome = await startChromium();
  server = await connect({ args: ['--cdp-endpoint', chrome.endpoint, '--new-context'] });
});
after(async () => {
  await server?.close();
  await chrome?.stop();
  await site?.close();
});

test('back and forward through pages restored from the back-forward cache', async () => {
  const a = await call<Nav>(server.client, 'navigate', { url: `${site.origin}/a` });
  const b = await call<Nav>(server.client, 'navigate', { url: `${site.origin}/b` });
  // A generous timeout: without the bfcache handling the call waits for a load that never comes and fails at it.
  const back = await call<Nav>(server.client, 'navigate', { url: 'back', timeoutMs: 20_000 });
  assert.deepEqual([back.url, back.title, back.status], [`${site.origin}/a`, 'Page A', 200]);
  assert.equal(back.revision, b.revision + 1);
  // The same document as before (restored, not reloaded): its loader id and its heap, with one persisted pageshow.
  assert.equal(back.instanceId, a.instanceId);
  assert.equal((await call<{ value: number }>(server.client, 'execute', { code: 'window.restores' })).value, 1);
  const forward = await call<Nav>(server.client, 'navigate', { url: 'forward', timeoutMs: 20_000 });
  assert.deepEqual([forward.url, forward.title, forward.status], [`${site.origin}/b`, 'Page B', 200]);
  assert.equal(forward.revision, b.revision + 2);
  assert.equal(forward.instanceId, b.instanceId);
  assert.equal((await call<{ value: number }>(server.client, 'execute', { code: 'window.restores' })).value, 1);
  // The page is usable afterwards: a snapshot sees it, and a plain navigation still works.
  const snap = await call<{ snapshot: string }>(server.client, 'get_page_context', { output: 'inline' });
  assert.match(snap.snapshot, /heading "B"/);
  const again = await call<Nav>(server.client, 'navigate', { url: `${site.origin}/a` });
  assert.equal(again.title, 'Page A');
  assert.notEqual(again.instanceId, a.instanceId);
});
