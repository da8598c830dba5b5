/**
 * The companion userscript under the GM shim (test/fixtures/userscriptBrowser.ts) in each browser it is tested in,
 * headless Chromium and Firefox, against the broker (docs/userscript-connection.md): nothing reaches the broker before "Allow"; the grant is per
 * tab and survives reloads and navigation until "Disconnect"; the indicators stay out of the reported title; code
 * runs in the page's own world (async body, errors, size limit); navigate mode completes on a new document and on a
 * same-document navigation; add_element answers {tag, id}; a revoked tab disappears within a second.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { UserscriptBroker } from '../../src/browser/userscript/broker.js';
import { ToolError } from '../../src/errors.js';
import { until } from '../fixtures/harness.js';
import { startSite, type Site } from '../fixtures/site.js';
import { MENU, startUserscriptBrowser, USERSCRIPT_BROWSERS, userscriptBrowserMissing, type UserscriptBrowser, type UserscriptBrowserKind, type UserscriptTab } from '../fixtures/userscriptBrowser.js';

const TOKEN = 'tok'.repeat(14) + 'x';
for (const kind of USERSCRIPT_BROWSERS) describe(`in ${kind}`, { skip: userscriptBrowserMissing(kind) }, () => suite(kind));

/** The whole file in browser `kind`: its own broker, site and browser. */
function suite(kind: UserscriptBrowserKind): void {
  let server: Server;
  let broker: UserscriptBroker;
  let brokerUrl: string;
  let brokerRequests = 0;
  let site: Site;
  let browser: UserscriptBrowser;

  before(async () => {
    broker = new UserscriptBroker(() => TOKEN);
    server = createServer((req, res) => {
      brokerRequests += 1;
      if (!broker.handle(req, res)) res.writeHead(404).end();
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    brokerUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/userscript/${TOKEN}`;
    site = await startSite();
    site.page('/page', '<title>Fixture page</title><h1>Hello</h1><script>window.answer = 42</script>');
    site.page('/other', '<title>Other page</title><p>Other</p>');
    site.route('/strict', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "script-src 'self'" }).end('<title>Strict page</title><p>Strict</p>'));
    browser = await startUserscriptBrowser(kind);
  });

  after(async () => {
    await browser?.close();
    broker.close();
    server.closeAllConnections();
    await new Promise(resolve => server.close(resolve));
    await site?.close();
  });

  const limits = { timeoutMs: 10_000, maxBytes: 16 * 1024 };
  const tabAt = (url: string) => broker.tabs().find(t => t.url.startsWith(url));

  async function rejects(promise: Promise<unknown>, type: string): Promise<ToolError> {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ToolError, `expected a ToolError ${type}, got ${String(error)}`);
    assert.equal(error.type, type, error.message);
    return error;
  }

  /** Opens `path` and lets the user allow it, pasting the broker URL when the companion asks for it. */
  async function allowed(path: string): Promise<{ page: UserscriptTab; target: string }> {
    const page = await browser.open(`${site.origin}${path}`, { prompt: brokerUrl });
    await until('the companion menu', async () => (await browser.menu(`${site.origin}${path}`)).length > 0);
    await browser.click(`${site.origin}${path}`, MENU.allow);
    const tab = await until('the tab to connect', () => tabAt(`${site.origin}${path}`), 15_000);
    return { page, target: tab.target };
  }

  describe('opt-in', () => {
    test('an unapproved tab offers only "Allow" and sends the broker nothing', async () => {
      const before = brokerRequests;
      const page = await browser.open(`${site.origin}/other`);
      await until('the companion menu', async () => (await browser.menu(`${site.origin}/other`)).length > 0);
      await new Promise(resolve => setTimeout(resolve, 1000));
      assert.deepEqual(await browser.menu(`${site.origin}/other`), [MENU.allow]);
      assert.equal(brokerRequests, before);
      assert.equal(broker.tabs().length, 0);
      assert.equal(await page.title(), 'Other page');
      await page.close();
    });

    test('"Allow" connects the tab: indicators in the page, none in the reported title; the grant survives a reload', async () => {
      const { page, target } = await allowed('/page');
      const tab = tabAt(`${site.origin}/page`)!;
      assert.equal(tab.title, 'Fixture page');
      assert.equal(tab.revision, 1);
      await until('the connected prefix', async () => (await page.title()) === '[●TW] Fixture page');
      assert.equal(await page.evaluate('document.querySelectorAll("tabwright-toast").length'), 1);
      assert.deepEqual((await browser.menu(`${site.origin}/page`))[0], MENU.disconnect);
      await page.reload();
      await until('the reloaded document', () => tabAt(`${site.origin}/page`)?.revision === 2 && tabAt(`${site.origin}/page`));
      assert.equal(tabAt(`${site.origin}/page`)!.target, target);
      await page.close();
    });
  });

  describe('calls on an allowed tab', () => {
    let page: UserscriptTab;
    let target: string;
    before(async () => ({ page, target } = await allowed('/page?calls')));
    after(async () => await page?.close());

    test('execute runs an async body in the page world: expression, braced body, await', async () => {
      assert.equal(await broker.call(target, 'execute', { code: 'window.answer' }, limits), 42);
      assert.deepEqual(await broker.call(target, 'execute', { code: '{ const h = document.querySelector("h1"); return { text: h.textContent }; }' }, limits), { text: 'Hello' });
      assert.equal(await broker.call(target, 'execute', { code: 'await new Promise(r => setTimeout(() => r("later"), 50))' }, limits), 'later');
      assert.equal(await broker.call(target, 'execute', { code: 'undefined' }, limits), null);
    });

    test('a throw, a syntax error and an oversized result are errors, never cut', async () => {
      assert.match((await rejects(broker.call(target, 'execute', { code: '{ throw new TypeError("nope"); }' }, limits), 'evaluation_failed')).message, /TypeError: nope/);
      assert.match((await rejects(broker.call(target, 'execute', { code: '{ let = ; }' }, limits), 'evaluation_failed')).message, /SyntaxError|Unexpected/);
      await rejects(broker.call(target, 'execute', { code: '"x".repeat(5000)' }, { ...limits, maxBytes: 1024 }), 'result_too_large');
      assert.equal(((await broker.call(target, 'execute', { code: '"x".repeat(5000)' }, { ...limits, maxBytes: 8192 })) as string).length, 5000);
    });

    test('a call guarded by the old instance id fails after the document was replaced', async () => {
      const before = tabAt(`${site.origin}/page?calls`)!;
      await page.reload();
      await until('the new document', () => tabAt(`${site.origin}/page?calls`)?.revision === before.revision + 1);
      await rejects(broker.call(target, 'execute', { code: '1' }, { ...limits, instanceId: before.instanceId }), 'revision_mismatch');
      assert.equal(await broker.call(target, 'execute', { code: '1' }, { ...limits, instanceId: tabAt(`${site.origin}/page?calls`)!.instanceId }), 1);
    });

    test('navigate mode: same-document by the history API, then a new document', async () => {
      const same = await broker.navigate(target, 'history.pushState(null, "", "#section")', limits);
      assert.equal(same.navigation, 'same-document');
      assert.match(same.url, /#section$/);
      const rev = tabAt(`${site.origin}/page?calls`)!.revision;
      const next = await broker.navigate(target, `location.href = ${JSON.stringify(`${site.origin}/other?calls`)}`, limits);
      assert.equal(next.navigation, 'document');
      assert.equal(next.revision, rev + 1);
      assert.equal(next.title, 'Other page');
      assert.equal(next.url, `${site.origin}/other?calls`);
    });

    test('add_element answers {tag, id}; the element is in the page', async () => {
      const result = await broker.call(target, 'add_element', { tag: 'div', parent: 'body', attributes: { id: 'tw-added', 'data-x': '1' }, properties: { textContent: 'added' } }, limits);
      assert.deepEqual(result, { tag: 'div', id: 'tw-added' });
      assert.equal(await page.evaluate('document.getElementById("tw-added").textContent'), 'added');
      await rejects(broker.call(target, 'add_element', { tag: 'div', parent: '#nowhere' }, limits), 'evaluation_failed');
    });

    test('"Disconnect": the tab disappears within a second, the menu offers only "Allow", the prefix goes', async () => {
      const url = await page.url();
      await browser.click(url, MENU.disconnect);
      const started = Date.now();
      await until('the tab to leave', () => !broker.tabs().some(t => t.target === target), 1000, { every: 20 });
      assert.ok(Date.now() - started < 1000);
      assert.deepEqual(await browser.menu(url), [MENU.allow]);
      assert.equal(await page.title(), 'Other page');
    });
  });

  describe('a page whose CSP blocks inline scripts', () => {
    test('execute runs where the manager\'s script element is not held to the page\'s CSP (Chromium\'s USER_SCRIPT world), else fails naming the CSP (a Firefox content script)', async () => {
      const { page, target } = await allowed('/strict');
      const ran = broker.call(target, 'execute', { code: 'document.querySelector("p").textContent' }, limits);
      if (kind === 'chromium') assert.equal(await ran, 'Strict');
      else assert.match((await rejects(ran, 'evaluation_failed')).message, /Content Security Policy/);
      await page.close();
    });
  });
}
