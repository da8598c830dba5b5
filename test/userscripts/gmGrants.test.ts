// The GM grants that reach past the page (docs/userscripts.md, "GM API"): GM_xmlhttpRequest / GM.xmlHttpRequest with
// @connect and the consent gate, GM_download, GM_openInTab, GM_notification, GM_addValueChangeListener. A Session
// with an in-memory ScriptSource against a real Chromium, as injectionEngine.test.ts; the request target is the same
// loopback site (127.0.0.1 and, as another host, localhost). The consent questions are answered through the real
// consent hub, as the dashboard answers them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LaunchConnection } from '../../dist/browser/launch/launchConnection.js';
import { resolveConfig } from '../../dist/config.js';
import { consentHub } from '../../dist/consent/hub.js';
import { readOverrides } from '../../dist/consent/overrides.js';
import { Session } from '../../dist/session/session.js';
import { UserscriptInjector } from '../../dist/userscripts/injection.js';
import type { Tab } from '../../src/session/tab.js';
import { until } from '../fixtures/harness.js';
import { startSite, type Site } from '../fixtures/site.js';
import { MemorySource } from './memorySource.js';

let site: Site;
let dir: string;
let source: MemorySource;
let session: Session;
let configDir: string;
/** The same site under another host name: a host outside `@connect self`. */
let otherOrigin: string;
/** How many /api/slow requests the server side cut off before the answer (timeout, abort). */
let slowCut = 0;

type W = Record<string, (...a: unknown[]) => Promise<unknown>>;

function header(name: string, lines: string[]): string {
  return ['// ==UserScript==', `// @name ${name}`, '// @namespace test', ...lines.map(l => `// ${l}`), '// ==/UserScript==', ''].join('\n');
}

async function open(path: string): Promise<Tab> {
  const tab = await session.openTab(undefined, true);
  await tab.page.goto(`${site.origin}${path}`, { waitUntil: 'load' });
  return tab;
}

/** Waits until the page has `window[name]` (the script ran), then calls it with `args`. */
async function call(tab: Tab, name: string, ...args: unknown[]): Promise<unknown> {
  await until(`window.${name}`, () => tab.page.evaluate(n => typeof (window as unknown as W)[n] === 'function', name));
  return tab.page.evaluate(([n, a]) => (window as unknown as W)[n as string]!(...(a as unknown[])), [name, args] as const);
}

/** Answers the next consent question of the hub with `answer`; returns the question. */
async function answerNext(answer: 'once' | 'always' | 'deny') {
  const prompt = await until('a consent question', () => consentHub.list()[0]);
  assert.ok(consentHub.answer(prompt.id, answer, 'dashboard'));
  return prompt.question;
}

/** The script's `req(details)`: GM_xmlhttpRequest settled as {kind, ...} whichever callback ran. */
const REQ = `window.req = (d) => new Promise(resolve => {
  const seen = [];
  GM_xmlhttpRequest({...d,
    onloadstart: () => seen.push('loadstart'),
    onreadystatechange: r => seen.push('readystate' + r.readyState),
    onload: r => resolve({kind: 'load', seen, status: r.status, text: r.responseText, type: r.response && r.response.constructor.name,
      bytes: r.response instanceof ArrayBuffer ? [...new Uint8Array(r.response)] : undefined, json: d.responseType === 'json' ? r.response : undefined,
      ctype: /content-type: (.*)/.exec(r.responseHeaders)?.[1]?.trim(), finalUrl: r.finalUrl, context: r.context}),
    onerror: r => resolve({kind: 'error', error: r.error}),
    ontimeout: r => resolve({kind: 'timeout', error: r.error}),
    onabort: () => resolve({kind: 'abort'}),
  });
});
window.reqPromise = (d) => { const p = GM.xmlHttpRequest(d); if (d.abortNow) p.abort(); if (d.abortAfter) setTimeout(() => p.abort(), d.abortAfter); return p.then(r => 'load ' + r.status, e => 'rejected ' + (e.error || '')); };`;

before(async () => {
  site = await startSite();
  otherOrigin = site.origin.replace('127.0.0.1', 'localhost');
  dir = mkdtempSync(join(tmpdir(), 'tabwright-gmgrants-'));
  configDir = join(dir, 'config', 'tabwright');
  // A host rule (docs/policy.md) that the server-side requests must keep to as well.
  const config = resolveConfig({ headless: true, isolated: true, workspace: dir, denyHost: ['denied.test'] }, { XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data'), TABWRIGHT_CONSENT_TTY: '0', PATH: process.env.PATH ?? '' });
  assert.equal(config.configDir, configDir);
  session = new Session(new LaunchConnection(config), config);
  source = new MemorySource();
  session.userscripts = new UserscriptInjector(source, '0.0.0-test');
  site.page('/plain', '<!doctype html><p>plain</p>');
  site.route('/api/echo', (req, res) => {
    let body = '';
    req.on('data', c => (body += c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, cookie: req.headers.cookie ?? null, ua: req.headers['user-agent'], ctype: req.headers['content-type'] ?? null, body }));
    });
  });
  site.route('/api/bytes', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.end(Buffer.from([0, 1, 2, 255]));
  });
  site.route('/api/slow', (_req, res) => {
    const timer = setTimeout(() => res.end('late'), 3000);
    res.on('close', () => {
      if (res.writableEnded) return;
      clearTimeout(timer);
      slowCut++;
    });
  });
  site.route('/api/away', (_req, res) => {
    res.writeHead(302, { location: `${otherOrigin}/api/echo` });
    res.end();
  });
  site.route('/files/report.csv', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/csv' });
    res.end('a,b\n1,2\n');
  });
});

after(async () => {
  await session?.close();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('GM_xmlhttpRequest: @connect refuses other hosts (redirects too); a new host asks once per script and host; the answer is kept', async () => {
  const id = source.add(header('Fetcher', ['@match http://127.0.0.1/plain?xhr', '@grant GM_xmlhttpRequest', '@grant GM.xmlHttpRequest', '@connect self']) + REQ);
  await session.userscripts!.refresh();
  const tab = await open('/plain?xhr');
  await (await session.context()).addCookies([{ name: 'sid', value: 'abc', url: site.origin }]);
  const detach = consentHub.attach({ url: 'http://127.0.0.1:1/' });
  try {
    // Outside @connect: refused before anything is asked or sent.
    const refused = await call(tab, 'req', { url: `${otherOrigin}/api/echo` }) as { kind: string; error: string };
    assert.equal(refused.kind, 'error');
    assert.equal(refused.error, 'GM_xmlhttpRequest: localhost is not in the script\'s @connect list (self); add "// @connect localhost" to its header.');
    assert.equal(consentHub.list().length, 0);

    // The first request to 127.0.0.1 asks; "always" lets it through and is saved for this script and host.
    const first = call(tab, 'req', { url: '/api/echo', context: 7 });
    const question = await answerNext('always');
    assert.equal(question.tool, '@connect 127.0.0.1');
    assert.equal(question.source, 'userscript');
    assert.equal(question.scriptId, id);
    assert.equal(question.origin, site.origin);
    const waitNote = tab.console.query({}).entries.find(e => e.text.includes('waits for the user\'s approval'));
    assert.equal(waitNote?.text, '[Fetcher] GM_xmlhttpRequest to 127.0.0.1 waits for the user\'s approval (asked in: dashboard; answer in the tabwright dashboard: http://127.0.0.1:1/).');
    const loaded = await first as { kind: string; seen: string[]; status: number; text: string; finalUrl: string; context: number };
    assert.equal(loaded.kind, 'load');
    assert.deepEqual(loaded.seen, ['loadstart', 'readystate4']);
    assert.equal(loaded.status, 200);
    assert.equal(loaded.finalUrl, `${site.origin}/api/echo`);
    assert.equal(loaded.context, 7);
    const echo = JSON.parse(loaded.text) as { method: string; cookie: string; ua: string };
    assert.equal(echo.cookie, 'sid=abc');
    assert.match(echo.ua, /Chrome\//);
    assert.deepEqual(readOverrides(configDir).map(o => ({ tool: o.tool, scriptId: o.scriptId, permission: o.permission })), [{ tool: '@connect 127.0.0.1', scriptId: id, permission: 'allow' }]);

    // Later requests do not ask again: a POST body, JSON, bytes, anonymous (no cookies).
    const posted = await call(tab, 'req', { url: '/api/echo', method: 'post', data: { n: 1 }, responseType: 'json', anonymous: true }) as { json: Record<string, unknown> };
    assert.deepEqual([posted.json.method, posted.json.cookie, posted.json.ctype, posted.json.body], ['POST', null, 'application/json', '{"n":1}']);
    const bytes = await call(tab, 'req', { url: '/api/bytes', responseType: 'arraybuffer' }) as { type: string; bytes: number[]; ctype: string };
    assert.deepEqual([bytes.type, bytes.bytes, bytes.ctype], ['ArrayBuffer', [0, 1, 2, 255], 'application/octet-stream']);
    assert.equal(consentHub.list().length, 0);

    // A redirect to a host outside @connect is refused too; timeout and abort end the request.
    const away = await call(tab, 'req', { url: '/api/away' }) as { kind: string; error: string };
    assert.deepEqual([away.kind, away.error], ['error', 'GM_xmlhttpRequest: localhost is not in the script\'s @connect list (self); add "// @connect localhost" to its header.']);
    const slow = await call(tab, 'req', { url: '/api/slow', timeout: 200 }) as { kind: string };
    assert.equal(slow.kind, 'timeout');
    assert.equal(await call(tab, 'reqPromise', { url: '/api/slow', abortNow: true }), 'rejected aborted');
    const started = Date.now();
    assert.equal(await call(tab, 'reqPromise', { url: '/api/slow', abortAfter: 300 }), 'rejected aborted');
    assert.ok(Date.now() - started < 2500);
    // The timeout and the abort in flight cut the server's requests off; the one aborted at once never went out.
    assert.equal(await until('the cut requests', () => slowCut === 2 && slowCut), 2);
    assert.equal(await call(tab, 'reqPromise', { url: '/api/echo' }), 'load 200');
  } finally {
    detach();
  }
});

test('GM_xmlhttpRequest: a host nobody can approve fails with the gate\'s error; the policy\'s host rules hold; "deny" refuses; concurrent requests share one question', async () => {
  source.add(header('Asker', ['@match http://127.0.0.1/plain?ask', '@grant GM_xmlhttpRequest', '@connect *']) + REQ);
  await session.userscripts!.refresh();
  const tab = await open('/plain?ask');
  // No surface attached, no terminal: the gate's consent_unavailable, in onerror.
  const unavailable = await call(tab, 'req', { url: `${otherOrigin}/api/echo` }) as { kind: string; error: string };
  assert.equal(unavailable.kind, 'error');
  assert.match(unavailable.error, /^GM_xmlhttpRequest: localhost needs the user's approval for "Asker" and did not get it \(consent_unavailable\)/);
  // The server policy's host rules come before the question: nothing is asked about a denied host.
  const denied = await call(tab, 'req', { url: 'http://denied.test/x' }) as { kind: string; error: string };
  assert.deepEqual([denied.kind, denied.error], ['error', 'GM_xmlhttpRequest: The server\'s policy denies host denied.test: it matches --deny-host denied.test.']);
  const detach = consentHub.attach({ url: 'http://127.0.0.1:1/' });
  try {
    const both = tab.page.evaluate(u => Promise.all([(window as unknown as W).req!({ url: u }), (window as unknown as W).req!({ url: u })]), `${otherOrigin}/api/echo`);
    await answerNext('deny');
    const results = await both as Array<{ kind: string; error: string }>;
    assert.deepEqual(results.map(r => r.kind), ['error', 'error']);
    assert.match(results[0]!.error, /did not get it \(consent_denied\)/);
    assert.equal(consentHub.list().length, 0);
    // "once" lets that request through and asks again next time.
    const once = call(tab, 'req', { url: `${otherOrigin}/api/echo` });
    await answerNext('once');
    assert.equal((await once as { status: number }).status, 200);
    const again = call(tab, 'req', { url: `${otherOrigin}/api/echo` });
    await answerNext('once');
    assert.equal((await again as { status: number }).status, 200);
  } finally {
    detach();
  }
});

test('GM_download: saves into the downloads folder under a safe name; a blob: URL needs no @connect; list_downloads has it', async () => {
  source.add(header('Saver', ['@match http://127.0.0.1/plain?dl', '@grant GM_download', '@grant GM.download', '@connect self']) +
    `window.save = (url, name) => new Promise(resolve => GM_download({url, name, onload: r => resolve('ok ' + r.name), onerror: e => resolve('error ' + e.error + ': ' + e.details)}));
window.saveBlob = () => GM.download(URL.createObjectURL(new Blob(['made here'], {type: 'text/plain'})), 'made.txt').then(r => 'ok ' + r.name);`);
  await session.userscripts!.refresh();
  const tab = await open('/plain?dl');
  const downloads = join(dir, '.tabwright', 'downloads');
  assert.equal(await call(tab, 'saveBlob'), 'ok made.txt');
  assert.equal(readFileSync(join(downloads, 'made.txt'), 'utf8'), 'made here');
  const detach = consentHub.attach({ url: 'http://127.0.0.1:1/' });
  try {
    const saved = call(tab, 'save', '/files/report.csv', '../../escape/report.csv');
    await answerNext('once');
    assert.equal(await saved, 'ok .._.._escape_report.csv');
  } finally {
    detach();
  }
  assert.equal(readFileSync(join(downloads, '.._.._escape_report.csv'), 'utf8'), 'a,b\n1,2\n');
  assert.equal(existsSync(join(dir, 'escape')), false);
  assert.deepEqual(readdirSync(downloads).sort(), ['.._.._escape_report.csv', 'made.txt']);
  assert.equal(await call(tab, 'save', `${otherOrigin}/files/report.csv`, 'x.csv'), 'error not_whitelisted: GM_download: localhost is not in the script\'s @connect list (self); add "// @connect localhost" to its header.');
  const listed = session.downloads.list().filter(d => d.tabId === tab.id).map(d => [d.state, d.name]);
  assert.deepEqual(listed, [['completed', 'made.txt'], ['completed', '.._.._escape_report.csv'], ['failed', 'x.csv']]);
});

test('GM_openInTab opens a tab of the session (its opener the script\'s tab); close() closes it and `closed` follows', async () => {
  source.add(header('Opener', ['@match http://127.0.0.1/plain?open', '@grant GM_openInTab']) +
    `window.openIt = (url) => { window.handle = GM_openInTab(url, {active: false}); window.handle.onclose = () => { window.onCloseRan = true; }; return 'opened'; };
window.closeIt = () => { window.handle.close(); return 'asked'; };
window.state = () => ({closed: window.handle.closed, onclose: !!window.onCloseRan});
window.openBad = () => { GM_openInTab('file:///etc/passwd'); return 'asked'; };`);
  await session.userscripts!.refresh();
  const tab = await open('/plain?open');
  const before = new Set(session.openTabs().map(t => t.id));
  assert.equal(await call(tab, 'openIt', '/plain?opened'), 'opened');
  const opened = await until('the new tab', () => session.openTabs().find(t => !before.has(t.id) && t.page.url().endsWith('/plain?opened')));
  assert.equal(opened.openerTabId, tab.id);
  assert.notEqual(session.activeTabId, opened.id);
  assert.deepEqual(await call(tab, 'state'), { closed: false, onclose: false });
  await call(tab, 'closeIt');
  await until('the tab to close', () => !session.openTabs().includes(opened));
  assert.deepEqual(await until('closed', async () => {
    const s = await tab.page.evaluate(() => (window as unknown as { state(): { closed: boolean; onclose: boolean } }).state());
    return s.closed && s.onclose ? s : undefined;
  }), { closed: true, onclose: true });
  await call(tab, 'openBad');
  const entry = await until('the refusal in the console', () => tab.console.query({}).entries.find(e => e.text.includes('GM_openInTab(file:///etc/passwd)')));
  assert.equal(entry.text.split('\n')[0], '[Opener] Error: GM_openInTab(file:///etc/passwd): only http(s) URLs open in a tab, not file:');
});

test('GM_notification goes to the console context; value change listeners hear own sets (remote=false) and other tabs\' (remote=true)', async () => {
  source.add(header('Watcher', ['@match http://127.0.0.1/plain?watch', '@grant GM_notification', '@grant GM.notification', '@grant GM_setValue', '@grant GM_addValueChangeListener', '@grant GM_removeValueChangeListener', '@noframes']) +
    `window.heard = [];
const lid = GM_addValueChangeListener('color', (key, oldValue, newValue, remote) => window.heard.push([key, oldValue ?? null, newValue ?? null, remote]));
GM_addValueChangeListener('other', () => window.heard.push(['other']));
window.paint = (c) => { GM_setValue('color', c); return 'set'; };
window.stop = () => { GM_removeValueChangeListener(lid); return 'stopped'; };
window.notify = () => GM.notification({title: 'Price drop', text: 'Now 9.99', image: 'https://example.com/i.png'}).then(() => 'done');
window.heardNow = () => window.heard;`);
  await session.userscripts!.refresh();
  const a = await open('/plain?watch');
  const b = await open('/plain?watch');
  assert.equal(await call(a, 'notify'), 'done');
  const note = a.console.query({}).entries.find(e => e.text.includes('Notification'))!;
  assert.equal(note.text, '[Watcher] Notification: Price drop: Now 9.99 (image https://example.com/i.png)');
  assert.equal(note.level, 'info');
  assert.equal(note.script?.name, 'Watcher');
  await call(b, 'heardNow');
  await call(a, 'paint', 'red');
  await call(a, 'paint', 'red'); // the same value: no change, no call
  assert.deepEqual(await until('a\'s listener', async () => {
    const h = await call(a, 'heardNow') as unknown[];
    return h.length ? h : undefined;
  }), [['color', null, 'red', false]]);
  assert.deepEqual(await until('b\'s listener', async () => {
    const h = await call(b, 'heardNow') as unknown[];
    return h.length ? h : undefined;
  }), [['color', null, 'red', true]]);
  await call(b, 'paint', 'blue');
  assert.deepEqual(await until('a hears b', async () => {
    const h = await call(a, 'heardNow') as unknown[];
    return h.length === 2 ? h : undefined;
  }), [['color', null, 'red', false], ['color', 'red', 'blue', true]]);
  await call(a, 'stop');
  await call(b, 'paint', 'green');
  assert.deepEqual(await until('b hears itself', async () => {
    const h = await call(b, 'heardNow') as unknown[];
    return h.length === 3 ? h : undefined;
  }), [['color', null, 'red', true], ['color', 'red', 'blue', false], ['color', 'blue', 'green', false]]);
  assert.equal((await call(a, 'heardNow') as unknown[]).length, 2);
});

test('a page that replaced Function.prototype.apply, Array.prototype.map, Object.freeze or put setters on the prototypes before a document-idle script runs does not receive its GM functions', async () => {
  site.page('/patched', `<!doctype html><script>
    window.stolen = [];
    const own = Object.prototype.hasOwnProperty;
    const steal = v => { if (typeof v === 'function' || (v && typeof v === 'object' && own.call(v, 'xmlHttpRequest'))) window.stolen.push(typeof v === 'function' ? v.name : 'GM'); };
    const map = Array.prototype.map;
    Array.prototype.map = function (fn, self) { return map.call(this, (...a) => { const r = fn.apply(self, a); steal(r); return r; }); };
    const freeze = Object.freeze;
    Object.freeze = v => { steal(v); return freeze(v); };
    for (const name of ['GM_xmlhttpRequest', 'xmlHttpRequest']) Object.defineProperty(Object.prototype, name, { set(v) { steal(v); Object.defineProperty(this, name, { value: v, writable: true, enumerable: true, configurable: true }); }, configurable: true });
    Object.defineProperty(Array.prototype, '10', { set(v) { steal(v); Object.defineProperty(this, '10', { value: v, writable: true, enumerable: true, configurable: true }); }, configurable: true });
    const original = Function.prototype.apply;
    Function.prototype.apply = function (self, args) {
      for (const a of args || []) steal(a);
      return original.call(Reflect.apply, Reflect, [this, self, args || []]);
    };
  </script><p>patched</p>`);
  source.add(header('Guarded', ['@match http://127.0.0.1/patched', '@grant GM_xmlhttpRequest', '@connect self']) + 'document.body.dataset.guarded = typeof GM_xmlhttpRequest;');
  await session.userscripts!.refresh();
  const tab = await open('/patched');
  assert.equal(await until('the script', () => tab.page.evaluate(() => document.body.dataset.guarded)), 'function');
  assert.deepEqual(await tab.page.evaluate(() => (window as unknown as { stolen: string[] }).stolen), []);
});
