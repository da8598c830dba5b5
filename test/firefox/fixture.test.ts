// The Firefox fixture (test/fixtures/firefox.ts) against the real thing: Debian's firefox-esr over WebDriver BiDi,
// with an unsigned add-on of the test's own installed for the session. What these tests pin down is what the
// userscript companion's Firefox lane relies on: a temporary add-on's document_start content script runs in every
// page, isolated from the page's world; the page's world is reachable for checks; stop() leaves no process or profile.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firefoxMissing, startFirefox, type Firefox } from '../fixtures/firefox.js';
import { descendants, isAlive } from '../fixtures/processes.js';
import { startSite, type Site } from '../fixtures/site.js';

describe('Firefox fixture', { skip: firefoxMissing() }, () => {
  let site: Site;
  let firefox: Firefox;
  let addon: string;

  before(async () => {
    site = await startSite();
    site.page('/a', '<!doctype html><title>A</title><h1>A</h1><script>window.pageValue = 41;</script>');
    addon = mkdtempSync(join(tmpdir(), 'tabwright-addon-'));
    writeFileSync(join(addon, 'manifest.json'), JSON.stringify({
      manifest_version: 2,
      name: 'tabwright fixture probe',
      version: '1.0',
      browser_specific_settings: { gecko: { id: 'probe@tabwright.test' } },
      content_scripts: [{ matches: ['http://127.0.0.1/*'], js: ['content.js'], run_at: 'document_start' }],
    }));
    // The content script's world: it marks the DOM, which the page shares, and keeps a global the page cannot see.
    writeFileSync(join(addon, 'content.js'), 'window.isolated = true; document.documentElement.dataset.probe = String(typeof browser.runtime.id);');
    firefox = await startFirefox({ extensions: [addon] });
  });

  after(async () => {
    await firefox?.stop();
    await site?.close();
    rmSync(addon, { recursive: true, force: true });
  });

  test('an unsigned add-on is installed for the session; its content script runs at document_start in its own world', async () => {
    assert.match(firefox.version, /^\d+\.\d+/);
    assert.deepEqual(firefox.extensionIds, ['probe@tabwright.test']);
    const tab = await firefox.newTab(`${site.origin}/a`);
    assert.equal(await firefox.evaluate(tab, 'document.title'), 'A');
    assert.equal(await firefox.evaluate(tab, 'document.documentElement.dataset.probe'), 'string', 'the content script ran with the add-on API');
    assert.equal(await firefox.evaluate(tab, 'typeof window.isolated'), 'undefined', 'its globals are not the page\'s');
    assert.deepEqual(await firefox.evaluate(tab, '({ value: window.pageValue, list: [1, "two", null] })'), { value: 41, list: [1, 'two', null] });
    await assert.rejects(firefox.evaluate(tab, 'Promise.reject(new Error("nope"))'), /nope/);
  });

  test('stop() ends Firefox and every process it started, and removes the profile', async () => {
    const { pid, profile } = firefox;
    const children = descendants(pid);
    assert.ok(children.length > 0, 'Firefox runs content processes');
    await firefox.stop();
    assert.deepEqual([pid, ...children].filter(isAlive), []);
    assert.equal(existsSync(profile), false);
  });
});
