// The direct element actions of relayed connections (docs/actions.md, "Direct actions on relayed connections"), one
// layer below MCP: a Session over a launched Chromium that says it is relayed (the own-chrome and extension kinds do;
// their lanes run the whole tool suite this way), pages from the loopback site. What each test checks: when the
// direct way acts, what it did to the page; when it declines, that it did nothing, so Playwright's way can follow.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The built modules (npm test builds first): the session finds the bundled runtime next to them in dist/.
import { LaunchConnection } from '../../dist/browser/launch/launchConnection.js';
import { resolveConfig } from '../../dist/config.js';
import { Session } from '../../dist/session/session.js';
import { takeSnapshot } from '../../dist/session/snapshot.js';
import { resolveRef } from '../../dist/session/refs.js';
import { directClick, directFill, takesDirectWay } from '../../dist/tools/directInput.js';
import { clickResolved } from '../../dist/tools/input.js';
import { directWalk } from '../../dist/session/directWalk.js';
import type { Tab } from '../../src/session/tab.js';
import { startSite, type Site } from '../fixtures/site.js';

/** A launched browser that takes the relayed connections' ways. */
class RelayedLaunch extends LaunchConnection {
  readonly relayed = true;
}

let site: Site;
let dir: string;
let session: Session;

const CLICKS = `<script>
  window.log = [];
  for (const type of ['click', 'dblclick', 'auxclick']) document.addEventListener(type, e => log.push([type, e.target.id, e.isTrusted, e.button, e.detail]), true);
</script>`;

before(async () => {
  site = await startSite();
  dir = mkdtempSync(join(tmpdir(), 'tabwright-direct-'));
  const config = resolveConfig({ headless: true, isolated: true, workspace: dir }, { XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data'), PATH: process.env.PATH ?? '' });
  session = new Session(new RelayedLaunch(config), config);
  site.page('/buttons', `<!doctype html>${CLICKS}<style>
    @keyframes slide { from { transform: translateX(0) } to { transform: translateX(200px) } }
    #moving { animation: slide 1s linear infinite }
    #settling { transition: transform 300ms; }
  </style>
  <button id=ready>Ready</button>
  <button id=disabled disabled>Disabled</button>
  <button id=ariaoff aria-disabled=true>Aria off</button>
  <div style="position: relative"><button id=covered>Covered</button><div id=cover style="position: absolute; inset: 0; background: #eee">cover</div></div>
  <p style="margin-top: 300px"><button id=moving>Moving</button></p>
  <p><button id=settling>Settling</button></p>
  <p style="margin-top: 2500px"><button id=far>Far</button></p>
  <iframe id=child srcdoc="<button id=inner onclick=&quot;parent.log.push(['click', 'inner', event.isTrusted])&quot;>Inner</button>"></iframe>`);
  site.page('/fields', `<!doctype html>
  <label for=name>Name</label> <input id=name value="old">
  <label id=mail-label>Mail <input id=mail type=email></label>
  <input id=num type=number aria-label=Number>
  <input id=ro readonly value=fixed aria-label=Read-only>
  <textarea id=notes aria-label=Notes>one
two</textarea>
  <input id=masked aria-label=Masked oninput="this.value = this.value.toUpperCase()">
  <script>window.inputs = []; document.addEventListener('input', e => inputs.push([e.target.id, e.isTrusted, e.inputType]));</script>`);
});

after(async () => {
  await session?.close();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The tab at `path`, snapshotted: its refs by the name of their line. */
async function open(path: string): Promise<{ tab: Tab; ref: (name: string) => string }> {
  const tab = await session.openTab(undefined, true);
  await tab.page.goto(`${site.origin}${path}`, { waitUntil: 'load' });
  const snap = await takeSnapshot(session, tab, {});
  const ref = (name: string) => {
    const line = snap.text.split('\n').find(l => l.includes(`"${name}"`) && l.includes('[ref='));
    assert.ok(line, `a line for ${name} in:\n${snap.text}`);
    return /\[ref=([^\]]+)\]/.exec(line)![1]!;
  };
  return { tab, ref };
}

const clickLog = (tab: Tab) => tab.page.evaluate(() => (window as unknown as { log: unknown[] }).log.splice(0));
const click = async (ref: string, opts: { button?: 'left' | 'right' | 'middle'; clickCount?: number } = {}) =>
  directClick(await resolveRef(session, ref), ref, { button: opts.button ?? 'left', clickCount: opts.clickCount ?? 1, timeout: 5_000 });

test('a ready button gets one trusted click, a double click its dblclick, a right click its auxclick', async () => {
  const { tab, ref } = await open('/buttons');
  assert.equal(takesDirectWay(await resolveRef(session, ref('Ready'))), true);
  assert.equal(await click(ref('Ready')), true);
  assert.deepEqual(await clickLog(tab), [['click', 'ready', true, 0, 1]]);
  assert.equal(await click(ref('Ready'), { clickCount: 2 }), true);
  assert.deepEqual(await clickLog(tab), [['click', 'ready', true, 0, 1], ['click', 'ready', true, 0, 2], ['dblclick', 'ready', true, 0, 2]]);
  assert.equal(await click(ref('Ready'), { button: 'right' }), true);
  assert.deepEqual(await clickLog(tab), [['auxclick', 'ready', true, 2, 1]]);
  await tab.page.close();
});

test('a button below the fold is scrolled into view, then clicked', async () => {
  const { tab, ref } = await open('/buttons');
  assert.equal(await tab.page.evaluate(() => scrollY), 0);
  assert.equal(await click(ref('Far')), true);
  assert.deepEqual(await clickLog(tab), [['click', 'far', true, 0, 1]]);
  assert.ok(await tab.page.evaluate(() => scrollY) > 2000);
  await tab.page.close();
});

test('disabled, covered, moving and child-frame elements are declined and left untouched', async () => {
  const { tab, ref } = await open('/buttons');
  for (const name of ['Disabled', 'Aria off', 'Covered', 'Moving', 'Inner']) {
    assert.equal(await click(ref(name)), false, name);
  }
  assert.deepEqual(await clickLog(tab), []);
  assert.equal(takesDirectWay(await resolveRef(session, ref('Inner'))), false);
  // What each said, from the page's side.
  const reasons = await tab.page.evaluate(ids => Promise.all(ids.map(id => {
    const rt = (globalThis as unknown as { __tabwright: { idOf(el: Element): string; directClick(id: string): Promise<{ reason?: string }> } }).__tabwright;
    return rt.directClick(rt.idOf(document.getElementById(id)!)).then(r => r.reason);
  })), ['disabled', 'ariaoff', 'covered', 'moving']);
  assert.deepEqual(reasons, ['disabled', 'disabled', 'covered', 'moving']);
  await tab.page.close();
});

test('the click tool\'s way falls back to Playwright for an element that settles, and clicks it once', async () => {
  const { tab, ref } = await open('/buttons');
  const settling = ref('Settling');
  await tab.page.evaluate(() => { document.getElementById('settling')!.style.transform = 'translateX(150px)'; });
  await clickResolved(await resolveRef(session, settling), settling, { timeout: 5_000 });
  assert.deepEqual(await clickLog(tab), [['click', 'settling', true, 0, 1]]);
  await tab.page.close();
});

test('an element that left the page is stale_ref, not a click elsewhere', async () => {
  const { tab, ref } = await open('/buttons');
  const ready = await resolveRef(session, ref('Ready'));
  await tab.page.evaluate(() => document.getElementById('ready')!.remove());
  await assert.rejects(directClick(ready, ref('Ready'), { button: 'left', clickCount: 1, timeout: 5_000 }), (e: { type?: string }) => e.type === 'stale_ref');
  assert.deepEqual(await clickLog(tab), []);
  await tab.page.close();
});

test('a fill replaces a text field\'s content through trusted input, a label stands for its control, and is read back', async () => {
  const { tab, ref } = await open('/fields');
  const fill = async (name: string, text: string) => directFill(await resolveRef(session, ref(name)), ref(name), text, { timeout: 5_000 });
  assert.equal(await fill('Name', 'Ada Lovelace'), true);
  assert.equal(await fill('Notes', 'line 1\nline 2'), true);
  assert.equal(await fill('Mail', 'ada@example.org'), true);
  const values = await tab.page.evaluate(() => ['name', 'notes', 'mail'].map(id => (document.getElementById(id) as HTMLInputElement).value));
  assert.deepEqual(values, ['Ada Lovelace', 'line 1\nline 2', 'ada@example.org']);
  assert.deepEqual(await tab.page.evaluate(() => (window as unknown as { inputs: unknown[] }).inputs.splice(0)),
    // Chromium inserts a text with a line break as three insertions (as Playwright's fill does).
    [['name', true, 'insertText'], ['notes', true, 'insertText'], ['notes', true, 'insertText'], ['notes', true, 'insertText'], ['mail', true, 'insertText']]);
  // No text: the selection is deleted.
  assert.equal(await fill('Name', ''), true);
  assert.equal(await tab.page.evaluate(() => (document.getElementById('name') as HTMLInputElement).value), '');
  // A page that changes the value: input_not_applied naming both.
  await assert.rejects(fill('Masked', 'abc'), (e: { type?: string; message: string }) => e.type === 'input_not_applied' && e.message.includes('"ABC"'));
  await tab.page.close();
});

test('number and read-only fields are declined and keep their values', async () => {
  const { tab, ref } = await open('/fields');
  for (const name of ['Number', 'Read-only']) {
    assert.equal(await directFill(await resolveRef(session, ref(name)), ref(name), '12', { timeout: 5_000 }), false, name);
  }
  assert.deepEqual(await tab.page.evaluate(() => [(document.getElementById('num') as HTMLInputElement).value, (document.getElementById('ro') as HTMLInputElement).value]), ['', 'fixed']);
  await tab.page.close();
});

test('the direct walk answers what the walk through Playwright answers', async () => {
  const { tab } = await open('/fields');
  const quick = await directWalk(tab.cdp!, { limit: 100_000 });
  const slow = await tab.page.mainFrame().evaluate(o => (globalThis as unknown as { __tabwright: { snapshot(o: unknown): { lines: string[] } } }).__tabwright.snapshot(o), { limit: 100_000 });
  assert.ok(quick && quick !== 'runtime-missing');
  assert.deepEqual(quick.lines, slow.lines);
  assert.ok(quick.lines.some(l => l.includes('textbox "Name"')));
  await tab.page.close();
});
