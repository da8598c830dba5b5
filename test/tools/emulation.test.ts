// emulate end to end: a device preset (user agent, scale factor, viewport, touch, mobile) as the page sees it,
// locale and time zone (Intl, navigator.language, Accept-Language), geolocation, color scheme and reduced motion,
// offline and back, extra headers and HTTP credentials against a Basic-auth page of the test site, all holding
// across a navigation and a reload; resize_viewport keeping the device's scale factor; get_bridge_status showing
// it; reset undoing it all; an unknown device refused with close matches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { devices } from 'playwright-core';
import { call, callError, callRaw, evaluate, TEST_CONNECTION } from '../fixtures/mcp.js';

const PAGE = `<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1"><title>Probe</title>
<style>body { background: white } @media (prefers-color-scheme: dark) { body { background: black } }</style><p>probe</p>`;

const tw = useSession({ setup: ({ site }) => {
  site.page('/probe', PAGE);
  site.page('/probe2', PAGE);
  // What the server saw of the request: headers, as JSON.
  site.route('/echo', (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
    ua: req.headers['user-agent'], lang: req.headers['accept-language'], extra: req.headers['x-tabwright-test'] ?? null,
  })));
  site.route('/private', (req, res) => {
    if (req.headers.authorization === `Basic ${Buffer.from('ann:s3cret').toString('base64')}`) res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Private</title><p id="who">welcome ann</p>');
    else res.writeHead(401, { 'www-authenticate': 'Basic realm="test"', 'content-type': 'text/html' }).end('<title>Denied</title><p id="who">denied</p>');
  });
} });

/** What the page sees of the emulated settings. */
const PROBE = `({
  ua: navigator.userAgent, platform: navigator.platform, w: innerWidth, h: innerHeight, dpr: devicePixelRatio,
  touch: 'ontouchstart' in window, maxTouchPoints: navigator.maxTouchPoints,
  tz: Intl.DateTimeFormat().resolvedOptions().timeZone, locale: Intl.DateTimeFormat().resolvedOptions().locale, language: navigator.language,
  dark: matchMedia('(prefers-color-scheme: dark)').matches, reduce: matchMedia('(prefers-reduced-motion: reduce)').matches,
  online: navigator.onLine,
})`;

interface Probe { ua: string; platform: string; w: number; h: number; dpr: number; touch: boolean; maxTouchPoints: number; tz: string; locale: string; language: string; dark: boolean; reduce: boolean; online: boolean }

const IPHONE_UA = devices['iPhone 13']!.userAgent;

test('a device, locale, time zone, media and position hold across navigation and reload; status shows them; reset undoes them', async () => {
  const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/probe` });
  const before = await evaluate<Probe>(tw.client, PROBE);
  const raw = await callRaw(tw.client, 'emulate', {
    device: 'iPhone 13', locale: 'de-DE', timezone: 'Asia/Tokyo', colorScheme: 'dark', reducedMotion: 'reduce',
    geolocation: { latitude: 52.52, longitude: 13.405, accuracy: 10 },
  });
  assert.equal(raw.isError, undefined, JSON.stringify(raw.content));
  const emulation = {
    device: 'iPhone 13', viewport: { width: 390, height: 664 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true, userAgent: IPHONE_UA,
    locale: 'de-DE', timezone: 'Asia/Tokyo', geolocation: { latitude: 52.52, longitude: 13.405, accuracy: 10 }, colorScheme: 'dark', reducedMotion: 'reduce',
  };
  assert.deepEqual((raw.structuredContent as { emulation: unknown }).emulation, emulation);
  const text = raw.content.map(c => c.text).join('\n');
  assert.equal(text, [
    `Tab ${tabId} now emulates: device iPhone 13 (390×664, ×3, mobile, touch), locale de-DE, time zone Asia/Tokyo, geolocation 52.52,13.405 (±10 m), color scheme dark, reduced motion reduce.`,
    'The page reports 390×664 at devicePixelRatio 3.',
    'Note: touch events (ontouchstart) appear in documents loaded from now on: reload_tab to see them in this one.',
  ].join('\n'));
  const expected: Probe = {
    ua: IPHONE_UA, platform: 'iPhone', w: 390, h: 664, dpr: 3, touch: true, maxTouchPoints: 5,
    tz: 'Asia/Tokyo', locale: 'de-DE', language: 'de-DE', dark: true, reduce: true, online: true,
  };
  // The current document at once (but touch handlers, which a document gets when it loads), then a navigation and a reload.
  assert.deepEqual(await evaluate<Probe>(tw.client, PROBE), { ...expected, touch: false });
  await call(tw.client, 'navigate', { url: `${tw.origin}/probe2` });
  assert.deepEqual(await evaluate<Probe>(tw.client, PROBE), expected);
  await call(tw.client, 'reload_tab', {});
  assert.deepEqual(await evaluate<Probe>(tw.client, PROBE), expected);
  // The server sees the user agent and the language.
  await call(tw.client, 'navigate', { url: `${tw.origin}/echo` });
  assert.deepEqual(JSON.parse(await evaluate<string>(tw.client, 'document.body.textContent')), { ua: IPHONE_UA, lang: 'de-DE', extra: null });
  // The position: granted and emulated (the extension cannot grant: the user's browser would ask).
  await call(tw.client, 'navigate', { url: `${tw.origin}/probe` });
  if (TEST_CONNECTION !== 'extension') {
    assert.deepEqual(await evaluate(tw.client, 'new Promise((ok, no) => navigator.geolocation.getCurrentPosition(p => ok([p.coords.latitude, p.coords.longitude, p.coords.accuracy]), e => no(new Error(e.message))))'), [52.52, 13.405, 10]);
  }
  // resize_viewport keeps the device's scale factor and mobile flag.
  const resized = await callRaw(tw.client, 'resize_viewport', { width: 400, height: 700 });
  assert.match(resized.content.map(c => c.text).join('\n'), /It keeps what emulate set for it \(devicePixelRatio 3, mobile\)/);
  assert.deepEqual(await evaluate(tw.client, '[innerWidth, innerHeight, devicePixelRatio]'), [400, 700, 3]);
  // get_bridge_status lists it, text and fields.
  const status = await callRaw(tw.client, 'get_bridge_status');
  assert.deepEqual((status.structuredContent as { emulation: unknown }).emulation, [{ tabId, ...emulation, viewport: { width: 400, height: 700 } }]);
  assert.ok(status.content.map(c => c.text).join('\n').split('\n').includes(`Tab ${tabId} emulates: device iPhone 13 (400×700, ×3, mobile, touch), locale de-DE, time zone Asia/Tokyo, geolocation 52.52,13.405 (±10 m), color scheme dark, reduced motion reduce.`), JSON.stringify(status.content));
  // reset: the browser's own settings again, after a reload too; status no longer lists the tab.
  const reset = await call<{ emulation: unknown }>(tw.client, 'emulate', { reset: true });
  assert.deepEqual(reset.emulation, {});
  await call(tw.client, 'reload_tab', {});
  assert.deepEqual(await evaluate<Probe>(tw.client, PROBE), before);
  assert.equal((await call<{ emulation?: unknown }>(tw.client, 'get_bridge_status')).emulation, undefined);
});

test('offline and back; extra headers and HTTP credentials reach the server; an unknown device names close matches', async () => {
  await call(tw.client, 'navigate', { url: `${tw.origin}/probe` });
  await call(tw.client, 'emulate', { offline: true });
  assert.equal(await evaluate(tw.client, 'navigator.onLine'), false);
  assert.equal(await evaluate(tw.client, 'fetch("/echo").then(() => "loaded", e => e.name)'), 'TypeError');
  const back = await call<{ emulation: unknown }>(tw.client, 'emulate', { offline: false });
  assert.deepEqual(back.emulation, {});
  assert.equal(await evaluate(tw.client, 'navigator.onLine'), true);
  // Headers on every request of the tab (navigation and fetch), and Basic credentials answered.
  await call(tw.client, 'emulate', { extraHeaders: { 'X-Tabwright-Test': 'on' }, locale: 'fr-FR' });
  await call(tw.client, 'navigate', { url: `${tw.origin}/echo` });
  assert.deepEqual(JSON.parse(await evaluate<string>(tw.client, 'document.body.textContent')), { ua: await evaluate<string>(tw.client, 'navigator.userAgent'), lang: 'fr-FR', extra: 'on' });
  assert.equal(await evaluate(tw.client, 'fetch("/echo").then(r => r.json()).then(j => j.extra)'), 'on');
  const withAuth = await callRaw(tw.client, 'emulate', { httpCredentials: { username: 'ann', password: 's3cret' } });
  const authText = withAuth.content.map(c => c.text).join('\n');
  assert.ok(!authText.includes('s3cret') && !JSON.stringify(withAuth.structuredContent).includes('s3cret'), 'the password is never shown');
  assert.deepEqual((withAuth.structuredContent as { emulation: unknown }).emulation, { extraHeaders: { 'X-Tabwright-Test': 'on' }, locale: 'fr-FR', httpCredentials: { username: 'ann' } });
  await call(tw.client, 'navigate', { url: `${tw.origin}/private` });
  assert.equal(await evaluate(tw.client, 'document.getElementById("who").textContent'), 'welcome ann');
  await call(tw.client, 'emulate', { reset: true });
  await call(tw.client, 'navigate', { url: `${tw.origin}/echo` });
  assert.equal(JSON.parse(await evaluate<string>(tw.client, 'document.body.textContent')).extra, null);
  // An unknown device: invalid_arguments with close matches; nothing changed.
  const error = await callError(tw.client, 'emulate', { device: 'iphone13 pro' });
  assert.equal(error.type, 'invalid_arguments');
  assert.match(error.hint, /^Close matches: "iPhone 13 Pro"/);
  const tz = await callError(tw.client, 'emulate', { timezone: 'Mars/Olympus' });
  assert.equal(tz.type, 'invalid_arguments');
  // The browser's reason, without the DevTools protocol's wrapping.
  assert.equal(tz.message, 'The browser does not know time zone "Mars/Olympus" (Invalid timezone id).');
  assert.equal((await call<{ emulation?: unknown }>(tw.client, 'get_bridge_status')).emulation, undefined);
});
