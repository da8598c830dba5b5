// The storage tool set end to end: a site of our own signs in with an httpOnly session cookie, a localStorage item and
// an IndexedDB record, and shows "Signed in as X" only with all three. Server A (with --state-encryption) signs in,
// saves the state sealed (0600, no plaintext), and a fresh server B with its own profile loads it and is signed in.
// Cookies (redaction, reveal, set, clear), web storage, the list, bad names and missing states along the way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { useServer, until } from '../fixtures/harness.js';
import { call, callError, callRaw, evaluate, refOf, snapshot, TEST_CONNECTION, type ToolClient } from '../fixtures/mcp.js';

const TOKEN = 'sid-alice-0123456789abcdef';
const PAGES = {
  '/': `<!doctype html><title>Home</title><p id=status>checking</p><script>
(async () => {
  const who = await fetch('/whoami').then(r => r.ok ? r.text() : '');
  const profile = localStorage.getItem('profile');
  const record = await new Promise(resolve => {
    const open = indexedDB.open('app', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('keys', { keyPath: 'id' });
    open.onsuccess = () => { const r = open.result.transaction('keys').objectStore('keys').get('device'); r.onsuccess = () => resolve(r.result); };
  });
  const ok = who && profile === who && record && record.owner === who && record.added instanceof Date;
  document.getElementById('status').textContent = ok ? 'Signed in as ' + who : 'Signed out';
})();
</script>`,
  '/signin': `<!doctype html><title>Sign in</title><form action=/session method=post><input name=user value=alice aria-label=User><button>Sign in</button></form>`,
  '/stored': `<!doctype html><title>Storing</title><p id=status>storing</p><script>
localStorage.setItem('profile', 'alice');
const open = indexedDB.open('app', 1);
open.onupgradeneeded = () => open.result.createObjectStore('keys', { keyPath: 'id' });
open.onsuccess = () => { const tx = open.result.transaction('keys', 'readwrite'); tx.objectStore('keys').put({ id: 'device', owner: 'alice', added: new Date(0) }); tx.oncomplete = () => { document.getElementById('status').textContent = 'stored'; }; };
</script>`,
};

const a = useServer({
  args: ['--state-encryption', '--toolsets', 'all'],
  pages: PAGES,
  setup(t) {
    t.site.route('/session', (req, res) => {
      res.writeHead(303, { location: '/stored', 'set-cookie': `sid=${TOKEN}; HttpOnly; Path=/; SameSite=Lax` });
      res.end();
    });
    t.site.route('/whoami', (req, res) => {
      const ok = (req.headers.cookie ?? '').includes(`sid=${TOKEN}`);
      res.writeHead(ok ? 200 : 401, { 'content-type': 'text/plain' });
      res.end(ok ? 'alice' : '');
    });
  },
});
// A profile of its own, as on another machine: on own-chrome another browser (another --browser-arg set); cdp and
// playwright-server give each server a context of its own, the launch and extension lanes a browser of its own.
const b = useServer({ args: ['--toolsets', 'all', ...(TEST_CONNECTION === 'own-chrome' ? ['--browser-arg', '--no-first-run'] : [])] });

async function status(client: ToolClient): Promise<string> {
  return await until('the page status', async () => {
    const text = await evaluate<string>(client, 'document.getElementById("status")?.textContent ?? ""');
    return text === 'checking' || text === 'storing' ? undefined : text;
  }, 10_000);
}

const text = (raw: { content: Array<{ text?: string }> }) => raw.content.map(c => c.text).join('\n');

test('sign in, save sealed, and a fresh server loads the state and is signed in', async () => {
  const origin = a.origin;
  await call(a.client, 'navigate', { url: `${origin}/` });
  assert.equal(await status(a.client), 'Signed out');
  await call(a.client, 'navigate', { url: `${origin}/signin` });
  await call(a.client, 'click', { ref: refOf((await snapshot(a.client)).snapshot, 'button', 'Sign in') });
  await until('the sign-in stored', async () => (await evaluate<string>(a.client, 'document.getElementById("status")?.textContent ?? ""').catch(() => '')) === 'stored', 10_000);
  await call(a.client, 'navigate', { url: `${origin}/` });
  assert.equal(await status(a.client), 'Signed in as alice');

  // get_cookies: redacted to the length, revealed on request.
  const redacted = await callRaw(a.client, 'get_cookies', { urls: [`${origin}/`] });
  const scope = TEST_CONNECTION === 'extension' ? ' (through the extension: the shared tabs\' origins only)' : TEST_CONNECTION === 'own-chrome' ? ' (the user\'s own Chrome: the origins of the tabs in reach only)' : '';
  assert.equal(text(redacted), `1 cookie for ${origin}/${scope}:\n- sid = ••• (26 chars) (domain 127.0.0.1, path /; httpOnly, sameSite=Lax, session)\nValues are redacted; pass reveal: true to see them.`);
  assert.ok(!JSON.stringify(redacted).includes(TOKEN));
  const revealed = await call<{ cookies: Array<{ name: string; value: string; valueLength: number }>; revealed: boolean }>(a.client, 'get_cookies', { urls: [`${origin}/`], reveal: true });
  assert.deepEqual(revealed.cookies.map(c => [c.name, c.value, c.valueLength]), [['sid', TOKEN, 26]]);

  // Saved sealed: 0600, no value in the clear, the key 0600 too.
  const saved = await callRaw(a.client, 'save_storage_state', { name: 'handoff', origins: [origin] });
  assert.equal(saved.isError, undefined, text(saved));
  const s = saved.structuredContent as { path: string; encrypted: boolean; cookieCount: number; origins: unknown };
  assert.equal(s.path, join(a.dataDir, 'storage-states', 'handoff.json'));
  assert.deepEqual([s.encrypted, s.cookieCount, s.origins], [true, 1, [{ origin, localStorage: 1, indexedDB: 1, via: 'tab' }]]);
  assert.match(text(saved), new RegExp(`^Saved storage state "handoff" to .*handoff\\.json \\(\\d+ bytes, encrypted with AES-256-GCM; mode 0600\\)\\.\\n1 cookie: 127\\.0\\.0\\.1 \\(1\\)\\.\\nWeb storage:\\n- ${origin.replace(/\./g, '\\.')}: 1 localStorage item, 1 IndexedDB record$`));
  assert.equal(statSync(s.path).mode & 0o777, 0o600);
  assert.equal(statSync(join(a.configDir, 'state-key')).mode & 0o777, 0o600);
  const file = readFileSync(s.path, 'utf8');
  for (const secret of [TOKEN, '"alice"', 'profile', 'device']) assert.ok(!file.includes(secret), `the file holds ${secret}`);

  const listed = await call<{ states: Array<Record<string, unknown>> }>(a.client, 'list_storage_states');
  assert.deepEqual(listed.states.map(x => [x.name, x.encrypted, x.cookieCount, x.origins, x.cookieDomains, x.size]), [['handoff', true, 1, [origin], ['127.0.0.1'], statSync(s.path).size]]);

  // Server B: signed out; the sealed file without the key is refused; with it, B is signed in.
  await call(b.client, 'navigate', { url: `${origin}/` });
  assert.equal(await status(b.client), 'Signed out');
  mkdirSync(join(b.dataDir, 'storage-states'), { recursive: true });
  copyFileSync(s.path, join(b.dataDir, 'storage-states', 'handoff.json'));
  const noKey = await callError(b.client, 'load_storage_state', { name: 'handoff' });
  assert.equal(noKey.type, 'file_not_found');
  assert.match(noKey.message, /is encrypted, and the key to open it .*state-key\) is missing/);
  mkdirSync(b.configDir, { recursive: true });
  copyFileSync(join(a.configDir, 'state-key'), join(b.configDir, 'state-key'));
  if (TEST_CONNECTION === 'own-chrome') {
    // The user's own Chrome: only the origins of the tabs in reach; with none showing it, nothing is written.
    await call(b.client, 'navigate', { url: 'about:blank' });
    const out = await callError(b.client, 'load_storage_state', { name: 'handoff' });
    assert.deepEqual([out.type, out.message], ['origin_not_shared', `The storage of ${origin} is out of reach: no tab in reach shows it.`]);
    assert.equal((await callError(b.client, 'get_cookies', { urls: [`${origin}/`] })).type, 'origin_not_shared');
    await call(b.client, 'navigate', { url: `${origin}/` });
  } else if (TEST_CONNECTION !== 'extension') {
    // No tab shows the origin: a scratch page writes it, and is never a tab.
    await call(b.client, 'navigate', { url: 'about:blank' });
  }
  const loaded = await callRaw(b.client, 'load_storage_state', { name: 'handoff' });
  assert.equal(loaded.isError, undefined, text(loaded));
  const via = TEST_CONNECTION === 'extension' || TEST_CONNECTION === 'own-chrome' ? 'tab' : 'scratch';
  assert.deepEqual((loaded.structuredContent as { origins: unknown }).origins, [{ origin, localStorage: 1, indexedDB: 1, via }]);
  assert.match(text(loaded), /^Loaded storage state "handoff" \(saved .*, encrypted\)\.\n1 cookie added: 127\.0\.0\.1 \(1\)\./);
  assert.equal((await call<{ tabs: unknown[] }>(b.client, 'list_tabs')).tabs.length, 1);
  await call(b.client, 'navigate', { url: `${origin}/` });
  assert.equal(await status(b.client), 'Signed in as alice');
});

test('cookies: set, get, clear; web storage: get and set; names and missing states', async () => {
  const origin = a.origin;
  await call(a.client, 'navigate', { url: `${origin}/signin` });
  await call(a.client, 'set_cookies', { cookies: [{ name: 'theme', value: 'dark', url: `${origin}/` }] });
  const got = await call<{ cookies: Array<{ name: string; value: string }> }>(a.client, 'get_cookies', { urls: [`${origin}/`] });
  assert.deepEqual(got.cookies.map(c => [c.name, c.value]).sort(), [['sid', '••• (26 chars)'], ['theme', '••• (4 chars)']]);
  const cleared = await callRaw(a.client, 'clear_cookies', { name: 'theme' });
  assert.equal(text(cleared), 'Cleared 1 cookie matching name theme: theme (127.0.0.1).');
  assert.deepEqual((await call<{ cookies: Array<{ name: string }> }>(a.client, 'get_cookies', {})).cookies.map(c => c.name), ['sid']);

  await call(a.client, 'set_storage', { kind: 'local', items: { extra: 'x', profile: null } });
  await call(a.client, 'set_storage', { kind: 'session', items: { step: '2' } });
  assert.deepEqual((await call<{ items: unknown }>(a.client, 'get_storage', { kind: 'local' })).items, { extra: 'x' });
  const session = await callRaw(a.client, 'get_storage', { kind: 'session', keys: ['step', 'none'] });
  assert.deepEqual((session.structuredContent as { items: unknown }).items, { step: '2', none: null });
  assert.equal(text(session), `sessionStorage of ${origin} (tab ${(session.structuredContent as { tabId: number }).tabId}): 2 items:\n- "step": "2"\n- "none": null (not set)`);

  for (const name of ['', '../x', 'a/b', '.hidden']) assert.equal((await callError(a.client, 'save_storage_state', { name })).type, 'invalid_arguments', name);
  assert.equal((await callError(a.client, 'load_storage_state', { name: 'nobody' })).type, 'file_not_found');
  assert.equal((await callError(a.client, 'delete_storage_state', { name: 'nobody' })).type, 'file_not_found');

  if (TEST_CONNECTION === 'extension' || TEST_CONNECTION === 'own-chrome') {
    assert.equal((await callError(a.client, 'clear_cookies', {})).type, 'invalid_arguments');
  }
  if (TEST_CONNECTION === 'extension') {
    // Out of the shared tabs' reach: refused before anything is done.
    const other = await callError(a.client, 'set_cookies', { cookies: [{ name: 'x', value: 'y', domain: 'example.com', path: '/' }] });
    assert.deepEqual([other.type, other.message], ['extension_denied', 'Cookies of example.com are out of reach: no shared tab shows that domain.']);
    assert.equal((await callError(a.client, 'save_storage_state', { name: 'other', origins: ['http://localhost:9/'] })).type, 'extension_denied');
  } else if (TEST_CONNECTION === 'own-chrome') {
    const other = await callError(a.client, 'set_cookies', { cookies: [{ name: 'x', value: 'y', domain: 'example.com', path: '/' }] });
    assert.deepEqual([other.type, other.message], ['origin_not_shared', 'Cookies of example.com are out of reach: no tab in reach shows that domain.']);
    await call(a.client, 'clear_cookies', { name: 'sid' });
    assert.deepEqual((await call<{ count: number }>(a.client, 'get_cookies', {})).count, 0);
  } else {
    await call(a.client, 'clear_cookies', {});
    assert.deepEqual((await call<{ count: number }>(a.client, 'get_cookies', {})).count, 0);
  }
  await call(a.client, 'delete_storage_state', { name: 'handoff' });
  assert.deepEqual((await call<{ states: unknown[] }>(a.client, 'list_storage_states')).states, []);
});
