// The server policy end to end (docs/policy.md): host rules on navigation tools and on the requests pages make
// (two hosts without the internet: 127.0.0.1 and localhost name the same loopback site), and --policy hardened
// (execute and script saves off, only http(s) and about:blank load, uploads only from --allow-root, downloads
// refused). Each denial has its own error type naming the rule; get_bridge_status shows the policy.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until, useSession } from '../fixtures/harness.js';
import { call, callError, callRaw, evaluate, refOf, snapshot, unlessConnection } from '../fixtures/mcp.js';

/** The extension cannot have a policy: the server refuses to start with one there (docs/policy.md, "Connections"). */
const NOT_EXTENSION = unlessConnection(['extension'], 'the extension connection refuses policy flags at start (docs/policy.md)');

type ErrorResult = { error: { type: string; message: string; hint: string }; rule?: string; host?: string; scheme?: string; tool?: string; path?: string };

/** The structuredContent of a call that must fail (error and details). */
async function denied(client: Parameters<typeof callRaw>[0], name: string, args: Record<string, unknown>): Promise<ErrorResult> {
  const result = await callRaw(client, name, args);
  assert.equal(result.isError, true, `${name} should fail: ${JSON.stringify(result.content)}`);
  const text = result.content[0]!.text!;
  const sc = result.structuredContent as unknown as ErrorResult;
  // The text carries the facts too (clients that show only content).
  assert.ok(text.startsWith(`Error [${sc.error.type}]: `), text);
  return sc;
}

/** Hosts (Host headers) the site saw, per path. */
const seen: Array<{ host: string; path: string }> = [];
const hostsOf = (path: string) => seen.filter(s => s.path === path).map(s => s.host.replace(/:\d+$/, ''));

function recordingSite(tw: ReturnType<typeof useSession>): void {
  for (const path of ['/data', '/frame', '/pixel', '/landing']) {
    tw.site.route(path, (req, res) => {
      seen.push({ host: req.headers.host ?? '', path });
      res.writeHead(200, { 'content-type': path === '/data' ? 'application/json' : 'text/html', 'access-control-allow-origin': '*' });
      res.end(path === '/data' ? '{"ok":true}' : '<!doctype html><title>Landing</title><p>landed</p>');
    });
  }
  tw.site.route('/redirect', (req, res) => {
    const port = (req.headers.host ?? '').split(':')[1];
    res.writeHead(302, { location: `http://localhost:${port}/landing` });
    res.end();
  });
}

describe('host rules: --deny-host', { concurrency: false, ...NOT_EXTENSION }, () => {
  const tw = useSession({
    args: ['--deny-host', 'localhost', '--deny-host', '*.evil.test'],
    context: 'file',
    pages: { '/start': '<!doctype html><title>Start</title><h1>Start</h1>' },
    setup: tw => recordingSite(tw),
  });
  const port = () => new URL(tw.origin).port;

  test('navigate and open_tab to a denied host fail before dispatch, naming the rule', NOT_EXTENSION, async () => {
    await call(tw.client, 'navigate', { url: `${tw.origin}/start` });
    const nav = await denied(tw.client, 'navigate', { url: `http://localhost:${port()}/landing` });
    assert.equal(nav.error.type, 'policy_denied_host');
    assert.equal(nav.rule, '--deny-host localhost');
    assert.equal(nav.host, `localhost:${port()}`);
    const sub = await denied(tw.client, 'open_tab', { url: 'https://a.b.evil.test/x' });
    assert.equal(sub.error.type, 'policy_denied_host');
    assert.deepEqual([sub.rule, sub.host], ['--deny-host *.evil.test', 'a.b.evil.test']);
    // The tab stayed where it was, no tab was opened, and the site never saw the request.
    const tabs = await call<{ tabs: Array<{ url: string }> }>(tw.client, 'list_tabs');
    assert.deepEqual(tabs.tabs.map(t => t.url), [`${tw.origin}/start`]);
    assert.deepEqual(hostsOf('/landing'), []);
    // evil.test itself is not a subdomain of evil.test: *.evil.test does not deny it (it simply does not resolve).
    assert.notEqual((await callError(tw.client, 'navigate', { url: 'http://evil.test/', timeoutMs: 5000 })).type, 'policy_denied_host');
  });

  test('a page\'s fetch, iframe and image to a denied host fail as a network error and are logged with the rule', NOT_EXTENSION, async () => {
    await call(tw.client, 'navigate', { url: `${tw.origin}/start` });
    const before = await call<{ lastId: number }>(tw.client, 'list_network_requests');
    const outcome = await evaluate<string>(tw.client, `fetch('http://localhost:${port()}/data').then(r => 'ok ' + r.status, e => e.name + ': ' + e.message)`);
    assert.equal(outcome, 'TypeError: Failed to fetch');
    // The allowed host still answers.
    assert.equal(await evaluate<string>(tw.client, `fetch('${tw.origin}/data').then(r => r.json()).then(j => String(j.ok))`), 'true');
    await evaluate(tw.client, `new Promise(done => {
      const img = new Image(); img.onerror = img.onload = done; img.src = 'http://localhost:${port()}/pixel';
      const frame = document.createElement('iframe'); frame.src = 'http://localhost:${port()}/frame'; document.body.append(frame);
    })`);
    type Entry = { url: string; state: string; failure?: string; blockedBy?: string; resourceType: string };
    // The iframe's request fails on its own time: wait until the log holds all three.
    const blocked = await until('three blocked requests in the network log', async () => {
      const log = await call<{ requests: Entry[] }>(tw.client, 'list_network_requests', { since: before.lastId, failedOnly: true });
      const mine = log.requests.filter(r => r.url.startsWith(`http://localhost:${port()}/`));
      return mine.length >= 3 && mine;
    }, 10_000);
    assert.deepEqual(hostsOf('/data'), ['127.0.0.1']);
    assert.deepEqual(hostsOf('/pixel'), []);
    assert.deepEqual(hostsOf('/frame'), []);
    assert.deepEqual(blocked.map(r => [new URL(r.url).pathname, r.state, r.failure, r.blockedBy]).sort(), [
      ['/data', 'failed', 'net::ERR_BLOCKED_BY_CLIENT', '--deny-host localhost'],
      ['/frame', 'failed', 'net::ERR_BLOCKED_BY_CLIENT', '--deny-host localhost'],
      ['/pixel', 'failed', 'net::ERR_BLOCKED_BY_CLIENT', '--deny-host localhost'],
    ]);
    const raw = await callRaw(tw.client, 'list_network_requests', { since: before.lastId, failedOnly: true });
    assert.match(raw.content[0]!.text!, /localhost:\d+\/data → failed: net::ERR_BLOCKED_BY_CLIENT \(blocked by the server policy: --deny-host localhost\)/);
    // The server log names each blocked request and its rule.
    assert.match(tw.stderr(), /blocked GET http:\/\/localhost:\d+\/data \(fetch\): --deny-host localhost denies localhost:\d+/);
  });

  test('a redirect to a denied host is not routed (a known gap) and is logged as a policy breach', NOT_EXTENSION, async () => {
    // Playwright continues a redirect's target without asking the route; the test browser resolves no host but
    // 127.0.0.1, so the request dies on name resolution instead, and the server log says what happened.
    const error = await callError(tw.client, 'navigate', { url: `${tw.origin}/redirect` });
    assert.equal(error.type, 'navigation_failed');
    assert.match(tw.stderr(), /policy breach: a redirect led GET http:\/\/localhost:\d+\/landing to localhost:\d+, which --deny-host localhost denies/);
    const status = await call<{ policy: { requestGaps: string[] } }>(tw.client, 'get_bridge_status');
    assert.deepEqual(status.policy.requestGaps, ['redirect targets (logged, not stopped)', 'WebSocket connections']);
  });

  test('get_bridge_status shows the host rules; execute is not off without hardened', NOT_EXTENSION, async () => {
    const status = await call<{ policy: unknown }>(tw.client, 'get_bridge_status');
    assert.deepEqual(status.policy, {
      mode: 'default', allowHosts: [], denyHosts: ['localhost', '*.evil.test'], requestsRouted: true,
      requestGaps: ['redirect targets (logged, not stopped)', 'WebSocket connections'], off: [],
    });
    const raw = await callRaw(tw.client, 'get_bridge_status');
    assert.match(raw.content[0]!.text!, /Policy: never hosts localhost, \*\.evil\.test \(navigation tools and page requests, except redirect targets \(logged, not stopped\) and WebSocket connections\)\./);
    // A document of its own: the tab of the test before may still be on its way through a redirect.
    await call(tw.client, 'navigate', { url: 'about:blank' });
    assert.equal(await evaluate(tw.client, '1 + 1'), 2);
  });
});

describe('--policy hardened with --allow-host', { concurrency: false, ...NOT_EXTENSION }, () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tabwright-policy-root-')));
  writeFileSync(join(root, 'allowed.txt'), 'from the root\n');
  const tw = useSession({
    args: ['--policy', 'hardened', '--allow-host', '127.0.0.1', '--allow-root', root, '--toolsets', 'core,scripts,network,storage'],
    context: 'file',
    pages: {
      '/form': '<!doctype html><title>Form</title><input type="file" aria-label="Attachment">',
      '/files': '<!doctype html><title>Files</title><a href="/attachment">Get report</a>',
    },
    setup: tw => {
      recordingSite(tw);
      tw.site.route('/attachment', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="report.pdf"' });
        res.end('%PDF-1.4 report');
      });
      tw.site.page('/images', `<!doctype html><title>Images</title><img alt="remote" src="http://localhost:${new URL(tw.origin).port}/pixel"><img alt="local" src="/pixel">`);
    },
  });

  test('execute, add_element, export_script, sync_scripts, route_from_har, route fulfill and revealed cookies are off', NOT_EXTENSION, async () => {
    for (const [tool, args] of [['execute', { code: '1' }], ['add_element', { tag: 'script', properties: { textContent: '1' } }], ['export_script', { code: '// ==UserScript==\n// @name x\n// ==/UserScript==\n' }], ['sync_scripts', { directory: 'scripts' }], ['route_from_har', { path: 'x.har' }], ['route', { pattern: '**/form', action: 'fulfill', body: '<script>1</script>' }], ['get_cookies', { reveal: true }]] as const) {
      const sc = await denied(tw.client, tool, args);
      assert.equal(sc.error.type, 'policy_denied_execute', tool);
      assert.deepEqual([sc.rule, sc.tool], ['--policy hardened', tool]);
    }
    assert.match((await denied(tw.client, 'route', { pattern: '**/form', action: 'fulfill', body: 'x' })).error.message, /turns route with action fulfill off: it serves a body the agent wrote/);
    // Blocking a request stays on: it runs nothing of the agent's.
    const blocked = await call<{ routeId: string }>(tw.client, 'route', { pattern: '**/nothing-here', action: 'abort' });
    await call(tw.client, 'unroute', { routeId: blocked.routeId });
    // Cookies stay listed, their values redacted.
    await call(tw.client, 'get_cookies', {});
    // A batch's steps pass the policy one by one.
    const batch = await callError(tw.client, 'batch', { mode: 'chain', steps: [{ tool: 'list_tabs' }, { tool: 'execute', args: { code: '1' } }] });
    assert.equal(batch.type, 'policy_denied_execute');
    const hosts = await callError(tw.client, 'batch', { mode: 'chain', steps: [{ tool: 'navigate', args: { url: 'http://localhost:1/' } }] });
    assert.equal(hosts.type, 'policy_denied_host');
  });

  test('only http(s) and about:blank load', NOT_EXTENSION, async () => {
    const cases: Array<[string, string]> = [
      ['file:///etc/hosts', 'file:'], ['javascript:alert(1)', 'javascript:'], ['view-source:http://127.0.0.1/', 'view-source:'],
      ['chrome://version', 'chrome:'], ['about:version', 'about:'], ['data:text/html,<p>hi', 'data:'],
    ];
    for (const [url, scheme] of cases) {
      const sc = await denied(tw.client, 'navigate', { url });
      assert.equal(sc.error.type, 'policy_denied_scheme', url);
      assert.deepEqual([sc.rule, sc.scheme], ['--policy hardened', scheme]);
    }
    assert.equal((await denied(tw.client, 'open_tab', { url: 'file:///etc/passwd' })).error.type, 'policy_denied_scheme');
    assert.equal((await call<{ url: string }>(tw.client, 'navigate', { url: 'about:blank' })).url, 'about:blank');
    assert.equal((await call<{ status: number }>(tw.client, 'navigate', { url: `${tw.origin}/form` })).status, 200);
  });

  test('a host no --allow-host matches is denied, for navigation and page requests', NOT_EXTENSION, async () => {
    const port = new URL(tw.origin).port;
    const sc = await denied(tw.client, 'navigate', { url: `http://localhost:${port}/landing` });
    assert.equal(sc.error.type, 'policy_denied_host');
    assert.deepEqual([sc.rule, sc.host], ['--allow-host', `localhost:${port}`]);
    assert.match(sc.error.message, /matches none of --allow-host 127\.0\.0\.1/);
    await call(tw.client, 'navigate', { url: `${tw.origin}/images`, waitUntil: 'load' });
    assert.deepEqual(hostsOf('/pixel'), ['127.0.0.1']);
    const log = await call<{ requests: Array<{ url: string; failure?: string; blockedBy?: string }> }>(tw.client, 'list_network_requests', { failedOnly: true });
    assert.deepEqual(log.requests.map(r => [r.url, r.failure, r.blockedBy]), [[`http://localhost:${port}/pixel`, 'net::ERR_BLOCKED_BY_CLIENT', '--allow-host']]);
  });

  test('uploads only from --allow-root, never from the workspace', NOT_EXTENSION, async () => {
    mkdirSync(tw.workspace, { recursive: true });
    writeFileSync(join(tw.workspace, 'secret.txt'), 'workspace file\n');
    await call(tw.client, 'navigate', { url: `${tw.origin}/form` });
    const ref = refOf((await snapshot(tw.client)).snapshot, 'button', 'Attachment');
    const sc = await denied(tw.client, 'upload_file', { ref, paths: ['secret.txt'] });
    assert.equal(sc.error.type, 'policy_denied_upload');
    assert.deepEqual([sc.rule, sc.path], ['--policy hardened', 'secret.txt']);
    const ok = await call<{ files: string[] }>(tw.client, 'upload_file', { ref, paths: [join(root, 'allowed.txt')] });
    assert.deepEqual(ok.files, [join(root, 'allowed.txt')]);
  });

  test('downloads are refused and reported', NOT_EXTENSION, async () => {
    await call(tw.client, 'navigate', { url: `${tw.origin}/files` });
    const ref = refOf((await snapshot(tw.client)).snapshot, 'link', 'Get report');
    const raw = await callRaw(tw.client, 'click', { ref });
    assert.equal(raw.isError, undefined, JSON.stringify(raw.content));
    const downloads = (raw.structuredContent as { downloads?: Array<{ state: string; refused?: unknown; path: string | null }> }).downloads;
    assert.deepEqual(downloads?.map(d => [d.state, d.refused, d.path]), [['failed', { type: 'policy_denied_download', rule: '--policy hardened' }, null]]);
    assert.match(raw.content[0]!.text!, /Download "report\.pdf" was refused \[policy_denied_download\]/);
    const dir = join(tw.workspace, '.tabwright', 'downloads');
    assert.deepEqual(existsSync(dir) ? readdirSync(dir) : [], []);
  });

  test('get_bridge_status shows the hardened policy', NOT_EXTENSION, async () => {
    const status = await call<{ policy: unknown; budget: unknown }>(tw.client, 'get_bridge_status');
    assert.deepEqual(status.policy, {
      mode: 'hardened', allowHosts: ['127.0.0.1'], denyHosts: [], requestsRouted: true,
      requestGaps: ['redirect targets (logged, not stopped)', 'WebSocket connections'], off: ['execute', 'add_element', 'export_script', 'sync_scripts', 'route_from_har', 'route with action fulfill', 'get_cookies with reveal', 'non-http(s) navigation', 'uploads outside --allow-root', 'downloads'],
    });
    assert.equal(status.budget, null);
  });
});

describe('policy parsing and matching', () => {
  test('host patterns: hosts, subdomains, ports; deny wins; allow denies the rest', async () => {
    const { parsePolicy, hostDenial } = await import('../../src/consent/policy.js');
    const policy = parsePolicy(undefined, ['example.com', '*.example.org', '127.0.0.1:8080'], ['bad.example.org', 'EXAMPLE.com:9999']);
    const rule = (url: string) => hostDenial(policy, url)?.rule ?? 'allowed';
    assert.equal(rule('https://example.com/x'), 'allowed');
    assert.equal(rule('https://Example.COM./x'), 'allowed');
    assert.equal(rule('https://www.example.com/'), '--allow-host');
    assert.equal(rule('https://a.b.example.org/'), 'allowed');
    assert.equal(rule('https://example.org/'), '--allow-host');
    assert.equal(rule('https://bad.example.org/'), '--deny-host bad.example.org');
    assert.equal(rule('http://example.com:9999/'), '--deny-host EXAMPLE.com:9999');
    assert.equal(rule('http://127.0.0.1:8080/'), 'allowed');
    assert.equal(rule('http://127.0.0.1:8081/'), '--allow-host');
    assert.equal(rule('wss://example.com/socket'), 'allowed');
    for (const url of ['about:blank', 'data:text/plain,x', 'file:///etc/hosts']) assert.equal(rule(url), 'allowed', url);
    const port = parsePolicy(undefined, [], ['example.com:80']);
    assert.equal(hostDenial(port, 'http://example.com/')?.rule, '--deny-host example.com:80');
    assert.equal(hostDenial(port, 'https://example.com/'), undefined);
    for (const bad of ['', 'http://example.com', 'example.com/path', 'a.*.example.com', 'ex*ample.com']) {
      assert.throws(() => parsePolicy(undefined, [bad], []), (e: { type: string }) => e.type === 'invalid_arguments', bad);
    }
    assert.throws(() => parsePolicy('lenient', [], []), (e: { type: string }) => e.type === 'invalid_arguments');
  });

  test('flags and environment add up; the extension connection refuses a policy at start', async () => {
    const { resolveConfig } = await import('../../src/config.js');
    const config = resolveConfig({ policy: 'hardened', denyHost: ['b.test'] }, { TABWRIGHT_DENY_HOSTS: 'a.test, *.c.test', TABWRIGHT_ALLOW_HOSTS: 'ok.test' });
    assert.equal(config.policy.mode, 'hardened');
    assert.deepEqual(config.policy.denyHosts.map(p => p.text), ['a.test', '*.c.test', 'b.test']);
    assert.deepEqual(config.policy.allowHosts.map(p => p.text), ['ok.test']);
    assert.equal(resolveConfig({}, { TABWRIGHT_POLICY: 'hardened' }).policy.mode, 'hardened');
    assert.throws(() => resolveConfig({ connection: 'extension', denyHost: ['a.test'] }, {}), (e: { type: string; message: string }) => e.type === 'invalid_arguments' && /cannot be enforced on the extension/.test(e.message));
    assert.throws(() => resolveConfig({ connection: 'extension', policy: 'hardened' }, {}), (e: { type: string }) => e.type === 'invalid_arguments');
  });
});
