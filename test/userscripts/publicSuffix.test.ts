/**
 * `.tld` in a real page: an `@include` glob with `.tld` is matched against the full public-suffix list (tldts), so the
 * engine that carries the list (dist/page/userscripts-psl.js) runs in a page whose host ends in a public suffix,
 * private ones included (github.io), and not where the part before it differs. Real host names reach the loopback
 * site through --host-resolver-rules. The glob names the port (`.tld:*`): a glob is matched against the whole URL, and
 * the loopback site has one.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, connect, evaluate, type Connected } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';

/** The last --host-resolver-rules switch is the one Chromium reads: these hosts go to 127.0.0.1, the rest nowhere. */
const HOSTS = ['shop.example.co.uk', 'shop.example.github.io', 'shop.example.evil.github.io', 'shop.example.nic.uk'];
const HOST_RULES = `--host-resolver-rules=${HOSTS.map(h => `MAP ${h} 127.0.0.1`).join(', ')}, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1`;

const SCRIPT = `// ==UserScript==
// @name        tld mark
// @namespace   tabwright-test
// @include     *://shop.example.tld:*/*
// @grant       none
// @run-at      document-end
// ==/UserScript==
document.documentElement.dataset.twTld = location.hostname;
`;

let site: Site;
let server: Connected;

before(async () => {
  site = await startSite();
  site.page('/p', '<!doctype html><title>Shop</title><h1>Shop</h1>');
  server = await connect({ args: ['--toolsets', 'all', '--browser-arg', HOST_RULES] });
  const saved = await call<{ enabled: boolean }>(server.client, 'export_script', { code: SCRIPT });
  assert.equal(saved.enabled, true);
});

after(async () => {
  await server?.close();
  await site?.close();
});

test('@include *://shop.example.tld:*/* (the test site has a port) runs on a host under a public suffix of the full list, and nowhere else', async () => {
  const port = new URL(site.origin).port;
  const seen: Record<string, string | null> = {};
  for (const host of HOSTS) {
    const { tabId } = await call<{ tabId: number }>(server.client, 'open_tab', { url: `http://${host}:${port}/p` });
    // document-end: the mark is there once the page has loaded (navigate waits for DOMContentLoaded).
    seen[host] = await evaluate<string | null>(server.client, 'new Promise(r => document.readyState === "complete" ? r() : addEventListener("load", () => r())).then(() => document.documentElement.dataset.twTld ?? null)', tabId);
  }
  assert.deepEqual(seen, {
    'shop.example.co.uk': 'shop.example.co.uk',
    'shop.example.github.io': 'shop.example.github.io',
    // evil.github.io is not a suffix of the list: shop.example.evil is not shop.example.
    'shop.example.evil.github.io': null,
    // nic.uk is a registrable name, not a public suffix.
    'shop.example.nic.uk': null,
  });
});
