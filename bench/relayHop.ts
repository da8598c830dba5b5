/**
 * Where a transport's time goes, one CDP round trip at a time (docs/bench.md, "Transports"). Standalone, not part
 * of `npm run bench`:
 *
 *   npx tsx bench/relayHop.ts [--calls 500] [--chromium /usr/bin/chromium]
 *
 * Four browsers with the same switches: one launched by playwright-core (its pipe, as the `launch` transport), three
 * started with `--remote-debugging-port=0` (bench/transports.ts), one reached by connectOverCDP over the browser's
 * DevTools WebSocket (as `cdp`), one through tabwright's own CDP relay (src/browser/cdpRelay/endpoint.ts in front of
 * src/browser/ownChrome/upstream.ts, in this process, as `own-chrome`), one with the companion extension loaded and
 * paired, through the same relay in front of src/browser/extension/upstream.ts and the extension's link (a bridge in
 * this process; as `extension`: the worker relays each command through chrome.debugger; nothing else attaches to
 * that browser). Interleaved, `--calls` times each: a
 * CDPSession `Runtime.evaluate` of `1` (a small frame each way), of a 200 KB string (a large reply, like a
 * screenshot), of a 345 KB expression (a large request, like the injected script Playwright sends every fresh
 * document on its first action), the same again and again (through the extension it crosses the link as an id after
 * the first time: src/browser/extension/frameCache.ts) and a new one each time (always in full), then
 * `page.evaluate` of the first two. Last, what the extension link's string cache did. Prints median and p90 per wire, in ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type CDPSession, type Page } from 'playwright-core';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CdpRelayEndpoint } from '../src/browser/cdpRelay/endpoint.js';
import { ExtensionBridge } from '../src/browser/extension/bridge.js';
import { LINK_PATH } from '../src/browser/extension/protocol.js';
import { ExtensionUpstream } from '../src/browser/extension/upstream.js';
import { TEST_PAIRING_CODE } from '../test/fixtures/extension.js';
import { pollUntil } from '../src/util/wait.js';
import { setLogLevel } from '../src/log.js';
import { findActivePort } from '../src/browser/ownChrome/activePort.js';
import { OwnChromeUpstream } from '../src/browser/ownChrome/upstream.js';
import { TreeSampler } from './procs.js';
import { median, quantile } from './stats.js';
import { relayBrowserArgs, startDebuggableBrowser, withExtension, type LikeManagedOptions } from './transports.js';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '500' }, chromium: { type: 'string', default: '/usr/bin/chromium' } } });
const calls = Number(values.calls);
// The relay's "Chrome is asking…" line is for a user at a real Chrome; this browser asks nothing.
setLogLevel('error');

const launched = await chromium.launch({ executablePath: values.chromium, headless: true, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
// The launched browser's own argv (from /proc), so the other two run with the same switches.
const sampler = new TreeSampler(1000);
sampler.track('self', process.pid);
const argv = sampler.commandLines('self').find(a => a.includes('--remote-debugging-pipe') && !a.some(x => x.startsWith('--type=')));
sampler.untrack('self');
if (!argv) throw new Error('the launched browser\'s command line was not found under /proc');

const started: Array<{ dir: string; stop: () => Promise<void> }> = [];
/** Starts a browser with the launched one's switches, changed by `opts`. */
async function startBrowser(opts: LikeManagedOptions = {}): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'twbench-hop-'));
  await opts.prepareProfile?.(dir);
  const args = [...relayBrowserArgs(argv!, dir).filter(a => !opts.drop?.includes(a)), ...(opts.extraArgs ?? [])];
  started.push({ dir, stop: await startDebuggableBrowser(argv![0]!, args, dir) });
  return dir;
}

// The extension's link: a bridge behind a loopback HTTP server of this process (the relay leader's part in tabwright).
const configDir = mkdtempSync(join(tmpdir(), 'twbench-hop-config-'));
const bridge = new ExtensionBridge({ configDir, env: { TABWRIGHT_PAIRING_KEY: TEST_PAIRING_CODE } });
const linkServer = createServer((_req, res) => res.writeHead(404).end());
linkServer.on('upgrade', (req, socket, head) => (req.url === LINK_PATH ? bridge.handleUpgrade(req, socket, head) : socket.destroy()));
await new Promise<void>(resolve => linkServer.listen(0, '127.0.0.1', resolve));
const linkPort = (linkServer.address() as AddressInfo).port;
await startBrowser(await withExtension(linkPort));
// The pairing browser's own link came and went with it; the measured browser's worker dials as it starts.
const link = await pollUntil(() => bridge.link, { ms: 30_000, intervalMs: 50 });
if (!link) throw new Error('the extension did not connect within 30 s');
const extensionUpstream = new ExtensionUpstream(link);
const extensionRelay = await CdpRelayEndpoint.start(extensionUpstream);
const viaExtension = await chromium.connectOverCDP(extensionRelay.url, { noDefaults: true, isLocal: true });

const direct = await chromium.connectOverCDP(`http://127.0.0.1:${(await findActivePort(await startBrowser())).port}`);
const upstream = await OwnChromeUpstream.connect(await findActivePort(await startBrowser()), 10_000);
const relay = await CdpRelayEndpoint.start(upstream);
const relayed = await chromium.connectOverCDP(relay.url, { noDefaults: true, isLocal: true });

const wires: Array<{ name: string; page: Page; session: CDPSession }> = [];
for (const [name, page] of [['pipe (launch)', await (await launched.newContext()).newPage()], ['WebSocket (cdp)', await direct.contexts()[0]!.newPage()], ['relay (own-chrome)', await relayed.contexts()[0]!.newPage()], ['extension', await viaExtension.contexts()[0]!.newPage()]] as const) {
  wires.push({ name, page, session: await page.context().newCDPSession(page) });
}

const big = `'${'x'.repeat(200_000)}'`;
// Playwright's injected script, which it sends to every fresh document in two worlds on the first action, is ~345 KB.
const bigRequest = `'${'x'.repeat(345_000)}'.length`;
let fresh = 0;
const cases: Array<[string, (w: (typeof wires)[number]) => Promise<unknown>]> = [
  ['CDPSession Runtime.evaluate 1', w => w.session.send('Runtime.evaluate', { expression: '1', returnByValue: true })],
  ['CDPSession Runtime.evaluate, 200 KB reply', w => w.session.send('Runtime.evaluate', { expression: big, returnByValue: true })],
  ['CDPSession Runtime.evaluate, 345 KB request', w => w.session.send('Runtime.evaluate', { expression: bigRequest, returnByValue: true })],
  // A script never sent before (as Playwright's injected script on a link's first fresh document): the extension's
  // link carries it in full, where the case above, the same script again, crosses the link as an id.
  ['CDPSession Runtime.evaluate, 345 KB request, new each time', w => w.session.send('Runtime.evaluate', { expression: `${bigRequest} + ${fresh++}`, returnByValue: true })],
  ['page.evaluate 1', w => w.page.evaluate('1')],
  ['page.evaluate, 200 KB reply', w => w.page.evaluate(big)],
];
try {
  for (const [label, run] of cases) {
    const ms = new Map(wires.map(w => [w.name, [] as number[]]));
    for (let i = 0; i < calls; i++) {
      for (const w of i % 2 ? [...wires].reverse() : wires) {
        const t0 = performance.now();
        await run(w);
        ms.get(w.name)!.push(performance.now() - t0);
      }
    }
    process.stdout.write(`${label} (${calls} calls): ${wires.map(w => `${w.name} ${median(ms.get(w.name)!).toFixed(2)} (p90 ${quantile(ms.get(w.name)!, 0.9).toFixed(2)})`).join(' · ')}\n`);
  }
  const { puts, refs, savedChars, misses } = link.cacheStats;
  process.stdout.write(`extension link's string cache: ${puts} sent in full, ${refs} sent as an id (${(savedChars / 1024 / 1024).toFixed(1)} M chars not sent), ${misses} misses\n`);
} finally {
  await launched.close();
  await direct.close();
  await relayed.close();
  await relay.close();
  upstream.close();
  await viaExtension.close();
  await extensionRelay.close();
  bridge.close();
  linkServer.close();
  rmSync(configDir, { recursive: true, force: true });
  for (const b of started) {
    await b.stop();
    rmSync(b.dir, { recursive: true, force: true });
  }
}
process.exit(0);
