/**
 * Hostile pages against tabwright's loopback listeners (docs/reliability.md, "Hostile pages"): a page in the managed
 * headless Chromium, served on 127.0.0.1, fetches (GET, POST JSON, no-cors POST), opens WebSockets to and submits
 * forms at the daemon's HTTP port, the dashboard, the relay and extension bridge of a server on the extension
 * connection, and the userscript broker of a server on the userscript connection; then, through a DNS-rebinding
 * name (`rebind.test` resolved to 127.0.0.1 by the browser's host rules), it loads each port as its own origin and
 * calls it same-origin with a foreign Host. Every attempt must be refused where the page can see it (a network
 * error, an opaque answer, a 4xx status, a close code), no secret may reach the page, and nothing may happen on
 * the server side: the daemon dispatched no call and still runs, the dashboard's saved permission is still there,
 * the extension is not linked and the broker knows no tab.
 */
import { after, before, test } from 'node:test';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { join } from 'node:path';
import { call, connect, evaluate, TEST_BROWSER_ARGS, type Connected } from '../fixtures/mcp.js';
import { startDaemon, type Daemon } from '../fixtures/daemon.js';
import { freePort, until } from '../fixtures/harness.js';
import { startSite, type Site } from '../fixtures/site.js';
import { Attacks, LAUNCH_ONLY } from './hostile.js';

/** An attack the page makes on load (the page's PLANS), outcomes in `window.outcomes`. */
interface Plan { name: string; kind: 'fetch' | 'ws' | 'form'; url: string; init?: RequestInit; send?: string; body?: string }

const ATTACKER = (plans: Plan[]) => `<!doctype html><title>Attacker</title><h1>Attacker</h1>
<script>
  window.outcomes = null;
  const PLANS = ${JSON.stringify(plans).replace(/</g, '\\u003c')};
  const plans = PLANS;
  const timeout = ms => new Promise(resolve => setTimeout(() => resolve('timeout'), ms));
  async function attack(p) {
    try {
      if (p.kind === 'fetch') {
        const r = await fetch(p.url, p.init);
        if (r.type === 'opaque') return 'opaque';
        return 'status ' + r.status + ' ' + (await r.text()).slice(0, 400);
      }
      if (p.kind === 'ws') {
        return await Promise.race([timeout(15000), new Promise(resolve => {
          const ws = new WebSocket(p.url);
          const got = [];
          ws.onopen = () => ws.send(p.send);
          ws.onmessage = e => got.push(String(e.data).slice(0, 400));
          ws.onclose = e => resolve('close ' + e.code + (got.length ? ' got ' + got.join(' | ') : ''));
        })]);
      }
      const frame = document.createElement('iframe');
      frame.name = 'f' + Math.random().toString(36).slice(2);
      document.body.append(frame);
      const form = document.createElement('form');
      form.method = 'POST'; form.action = p.url; form.target = frame.name; form.enctype = 'text/plain';
      const input = document.createElement('input');
      input.name = p.body.slice(0, -2); input.value = p.body.slice(-2);
      form.append(input); document.body.append(form);
      const loaded = new Promise(resolve => frame.addEventListener('load', () => resolve('submitted'), { once: true }));
      form.submit();
      return await Promise.race([loaded, timeout(15000)]);
    } catch (e) {
      return 'network error';
    }
  }
  Promise.all(plans.map(attack)).then(o => { window.outcomes = o; });
</script>`;

/**
 * Outcomes that refuse: nothing readable came back (or a 4xx; a form's frame that never loaded within 15 s), or the
 * socket closed without a session. What the server did is checked on its side after.
 */
const REFUSED = /^(network error|opaque|submitted|timeout|status 4\d\d\b|close (1006|400[0-9]))/;

let site: Site;
let attacker: Connected;
let extension: Connected;
let userscript: Connected;
let daemon: Daemon;
let ports: { daemon: number; dashboard: number; extension: number; userscript: number };
let secrets: string[];
const OVERRIDE = { origin: 'http://keep.test', tool: 'keep', permission: 'deny', created: '2026-01-01T00:00:00.000Z' };

before(async () => {
  if (LAUNCH_ONLY.skip) return;
  site = await startSite();
  const [extPort, usPort] = [await freePort(), await freePort()];
  [daemon, attacker, extension, userscript] = await Promise.all([
    startDaemon(),
    // Its browser resolves rebind.test to 127.0.0.1 (as a rebound name would), and nothing else off loopback.
    connect({ args: ['--browser-arg', `${TEST_BROWSER_ARGS[0]!.replace('=', '=MAP rebind.test 127.0.0.1, ')}`], env: { TABWRIGHT_DASHBOARD_PORT: '0' } }),
    connect({ args: ['--connection', 'extension'], env: { TABWRIGHT_WS_PORT: String(extPort) } }),
    connect({ args: ['--connection', 'userscript'], env: { TABWRIGHT_WS_PORT: String(usPort) } }),
  ]);
  const entry = await until('the dashboard', () => {
    try {
      const [file] = readdirSync(join(attacker.configDir, 'dashboards'));
      return file ? JSON.parse(readFileSync(join(attacker.configDir, 'dashboards', file), 'utf8')) as { port: number } : undefined;
    } catch {
      return undefined;
    }
  });
  ports = { daemon: daemon.endpoint.port, dashboard: entry.port, extension: extPort, userscript: usPort };
  // The relay ports are bound as the servers start: wait until both take connections.
  await Promise.all([extPort, usPort].map(port => until(`the relay on ${port}`, () => new Promise<boolean>(resolve => {
    const socket = connectTcp(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    }).on('error', () => resolve(false));
  }))));
  writeFileSync(join(attacker.configDir, 'permission-overrides.json'), JSON.stringify({ version: 2, overrides: [OVERRIDE] }));
  const read = (dir: string, file: string) => {
    try {
      return readFileSync(join(dir, file), 'utf8').trim();
    } catch {
      return '';
    }
  };
  secrets = [daemon.endpoint.token, read(attacker.configDir, 'dashboard-token'), read(userscript.configDir, 'userscript-token'),
    ...[extension, userscript].map(s => read(s.configDir, 'bridge.json')).filter(Boolean).map(j => String((JSON.parse(j) as { token?: string }).token ?? ''))].filter(s => s.length >= 16);
});

after(async () => {
  await Promise.all([attacker?.close(), extension?.close(), userscript?.close(), daemon?.stop()]);
  await site?.close();
});

/** The page's attacks on each listener from its own origin (127.0.0.1, another port). */
function plans(): Plan[] {
  const d = `http://127.0.0.1:${ports.daemon}`;
  const b = `http://127.0.0.1:${ports.dashboard}`;
  const e = `127.0.0.1:${ports.extension}`;
  const u = `http://127.0.0.1:${ports.userscript}`;
  const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const noCors = (body: unknown): RequestInit => ({ method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(body) });
  const out: Plan[] = [];
  const http = (who: string, base: string, get: string[], post: Array<[string, unknown]>) => {
    for (const path of get) out.push({ name: `fetch GET ${who} ${path}`, kind: 'fetch', url: base + path });
    for (const [path, body] of post) {
      out.push({ name: `fetch POST JSON ${who} ${path}`, kind: 'fetch', url: base + path, init: json(body) });
      out.push({ name: `no-cors POST ${who} ${path}`, kind: 'fetch', url: base + path, init: noCors(body) });
      out.push({ name: `form POST ${who} ${path}`, kind: 'form', url: base + path, body: JSON.stringify(body) });
    }
  };
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'evil', version: '1' } } };
  http('daemon', d, ['/v1/status', '/'], [['/v1/tools/navigate', { url: 'http://127.0.0.1:1/' }], ['/v1/shutdown', {}], ['/mcp', initialize], [`/v1/consent/${'0'.repeat(32)}`, { answer: 'once' }]]);
  http('dashboard', b, ['/api/state', '/api/prompts', '/api/events'], [['/api/permissions/reset', {}], [`/api/prompts/${'0'.repeat(32)}`, { answer: 'once' }]]);
  http('relay', `http://${e}`, ['/', '/extension'], [['/', { t: 'hello', token: 'x' }]]);
  http('userscript broker', u, ['/userscript/tabwright.user.js', '/userscript/'], [[`/userscript/${'0'.repeat(64)}/t/open`, {}], ['/userscript/x/y/open', {}]]);
  const hello = JSON.stringify({ t: 'hello', token: 'guess', version: '0.0.0', relayProtocol: 1, pid: 1 });
  for (const [who, url] of [['daemon', `ws://127.0.0.1:${ports.daemon}/mcp`], ['dashboard', `ws://127.0.0.1:${ports.dashboard}/api/events`], ['relay', `ws://${e}/`], ['extension bridge', `ws://${e}/extension`], ['userscript broker', `ws://127.0.0.1:${ports.userscript}/userscript`]] as const) {
    out.push({ name: `WebSocket ${who} ${url}`, kind: 'ws', url, send: hello });
  }
  return out;
}

test('a page reaches no listener of tabwright: fetch, no-cors, WebSocket, forms and a rebound name are all refused', LAUNCH_ONLY, async () => {
  const attacks = new Attacks({ target: 'hostile-ports', what: 'A page on 127.0.0.1 in the managed browser: fetch GET, POST JSON and no-cors POST, form posts and WebSockets to the daemon, the dashboard, the relay, the extension bridge and the userscript broker, and the same from a DNS-rebound name (foreign Host, same origin): each refused (network error, opaque, 4xx, a close code; forbidden_host for a rebound name), no secret reaches the page, no call dispatched, no permission changed, no extension linked, no tab known' });
  const planned = plans();
  site.page('/attacker', ATTACKER(planned));
  await call(attacker.client, 'navigate', { url: `${site.origin}/attacker` });
  const outcomes = await until('the attacks to end', async () => await evaluate<string[] | null>(attacker.client, 'window.outcomes'), 60_000, { every: 250 });
  planned.forEach((p, i) => {
    const outcome = outcomes[i]!;
    const leaked = secrets.find(s => outcome.includes(s));
    attacks.check(p.name, REFUSED.test(outcome) && !leaked, leaked ? `a secret reached the page: ${outcome}` : outcome.replace(/^(status \d+).*?"type":"([a-z_]+)".*$/s, '$1 $2').slice(0, 60));
  });

  // DNS rebinding: the page's name now resolves to 127.0.0.1, so each port is the page's own origin (its script reads
  // every answer) and the listener sees Host rebind.test:<port>.
  const rebound: Array<[string, number, Array<[string, string, unknown?]>]> = [
    ['daemon', ports.daemon, [['GET', '/v1/status'], ['POST', '/v1/shutdown', {}], ['POST', '/v1/tools/navigate', { url: 'http://127.0.0.1:1/' }], ['POST', '/mcp', {}]]],
    ['dashboard', ports.dashboard, [['GET', '/'], ['GET', '/api/state'], ['POST', '/api/permissions/reset', {}]]],
    ['userscript broker', ports.userscript, [['GET', '/userscript/tabwright.user.js'], ['POST', `/userscript/${'0'.repeat(64)}/t/open`, {}]]],
  ];
  for (const [who, port, requests] of rebound) {
    await call(attacker.client, 'navigate', { url: `http://rebind.test:${port}${who === 'userscript broker' ? '/userscript/tabwright.user.js' : '/'}` });
    const loaded = await evaluate<string>(attacker.client, 'document.body ? document.body.innerText.slice(0, 400) : ""');
    attacks.check(`load ${who} as http://rebind.test:${port}/`, /forbidden_host|Host is not loopback/.test(loaded) && !secrets.some(s => loaded.includes(s)), /forbidden_host/.test(loaded) ? 'forbidden_host' : loaded.slice(0, 60));
    const answers = await evaluate<string[]>(attacker.client, `Promise.all(${JSON.stringify(requests)}.map(([method, path, body]) =>
      fetch(path, body === undefined ? { method } : { method, headers: { 'content-type': 'application/json', 'x-tabwright-token': 'guess' }, body: JSON.stringify(body) })
        .then(async r => r.status + ' ' + (await r.text()).slice(0, 300), () => 'network error')))`);
    requests.forEach(([method, path], i) => {
      const a = answers[i]!;
      attacks.check(`rebound ${method} ${who} ${path}`, /^403 /.test(a) && !secrets.some(s => a.includes(s)), /forbidden_host/.test(a) ? '403 forbidden_host' : a.slice(0, 60));
    });
  }
  // The relay and the bridge are WebSocket only: from the rebound origin too.
  await call(attacker.client, 'navigate', { url: `http://rebind.test:${ports.extension}/` });
  for (const path of ['/', '/extension']) {
    const outcome = await evaluate<string>(attacker.client, `new Promise(resolve => { const ws = new WebSocket('ws://rebind.test:${ports.extension}${path}');
      ws.onopen = () => ws.send('{"t":"hello","token":"guess"}'); ws.onclose = e => resolve('close ' + e.code); setTimeout(() => resolve('timeout'), 8000); })`);
    attacks.check(`rebound WebSocket relay ${path}`, REFUSED.test(outcome), outcome);
  }

  // Nothing happened on the server side.
  const status = await daemon.status();
  attacks.check('daemon: no call dispatched, no /mcp session, no workspace', status.dispatched === 0 && status.sessions === 0 && status.workspaces === 0, `status ${JSON.stringify(status)}`);
  attacks.check('daemon: not shut down', daemon.proc.exitCode === null, daemon.proc.exitCode === null ? 'still running' : `exit ${daemon.proc.exitCode}`);
  const kept = JSON.parse(readFileSync(join(attacker.configDir, 'permission-overrides.json'), 'utf8')) as { overrides: unknown[] };
  attacks.check('dashboard: the saved permission kept', kept.overrides.length === 1, JSON.stringify(kept));
  // (get_bridge_status and list_tabs on these two would wait for an extension or a companion: their logs say instead.)
  const refusedLinks = extension.stderr().match(/refused an extension link upgrade/g)?.length ?? 0;
  attacks.check('extension bridge: the page\'s upgrades refused, no link', refusedLinks >= 1 && !/extension (linked|paired|connected)/i.test(extension.stderr()), `${refusedLinks} refusals logged`);
  attacks.finish({ listeners: 5, secretsWatched: secrets.length });
});
