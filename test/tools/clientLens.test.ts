// What the model sees, client by client (docs/clients.md): every tool's happy path and its main errors, run over
// stdio against a real browser, read through the client lens (test/fixtures/clientLens.ts) of Claude Code, Codex,
// VS Code, Cursor, Claude Desktop and Gemini CLI. Each case asserts that every lens's model reads what a person
// would need: refs, the acted-on element, navigations, new tabs with URL and title, dialogs, file choosers,
// downloads, hints, and the image of a screenshot. Run twice: with the default results (content only) and with
// --structured-content (structuredContent then must be a superset of the text, and never ride with an image).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until, useServer } from '../fixtures/harness.js';
import { callRaw, type RawResult, refOf, TEST_CONNECTION, unlessConnection } from '../fixtures/mcp.js';
import { LENSES, seenBy, type Lens, type LensInput } from '../fixtures/clientLens.js';

const SHOP = `<!doctype html><title>Lens shop</title>
<h1>Lens shop</h1>
<table><tbody>
  <tr><td>Invoice 2024-01</td><td><button onclick="this.closest('tr').remove()">Delete</button></td></tr>
  <tr><td>Invoice 2024-02</td><td><button onclick="this.closest('tr').remove()">Delete</button></td></tr>
</tbody></table>
<a href="/next">Next page</a>
<button onclick="window.open('/popup', 'pop', 'width=400,height=300')">Open popup</button>
<button onclick="alert('Saved the order')">Save order</button>
<button onclick="console.error('Widget exploded')">Break</button>
<button onclick="document.getElementById('more').hidden = false">Show details</button>
<section id="more" hidden aria-label="Details"><p>Ships in 2 days</p><button>Confirm order</button></section>
<button onclick="document.getElementById('picker').click()">Choose file</button>
<input type="file" id="picker" style="display:none">
<a href="/report.csv" download="report.csv">Get report</a>
<form onsubmit="event.preventDefault(); document.getElementById('done').textContent = 'Thanks ' + this.elements.who.value">
  <label>Your name <input name="who"></label>
  <label><input type="checkbox" name="gift"> Gift wrap</label>
  <label>Size <select name="size"><option value="s">Small</option><option value="l">Large</option></select></label>
  <button>Send</button>
</form>
<p id="done"></p>
<div role="button" draggable="true" id="card" ondragstart="event.dataTransfer.setData('text', 'card')">Card</div>
<div role="button" id="bin" ondragover="event.preventDefault()" ondrop="event.preventDefault(); this.textContent = 'Dropped card'">Bin</div>
<button onmouseenter="this.textContent = 'Hovered!'">Hover me</button>
<script>
  document.modelContext?.registerTool({
    name: 'count_items',
    description: 'Counts the invoices',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
    execute: async () => ({ content: [{ type: 'text', text: 'There are 2 invoices' }] }),
  });
</script>`;

/** The text a model reads in a view: JSON texts are read with their escapes decoded (string leaves), as a model does. */
function readable(texts: string[]): string {
  return texts.map(text => {
    try {
      const leaves: string[] = [];
      const walk = (v: unknown, key?: string): void => {
        if (typeof v === 'string') leaves.push(key ? `${key}: ${v}` : v);
        else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, Array.isArray(v) ? key : k);
        else if (v !== undefined) leaves.push(`${key ?? ''}: ${String(v)}`);
      };
      walk(JSON.parse(text));
      return `${text}\n${leaves.join('\n')}`;
    } catch {
      return text;
    }
  }).join('\n');
}

/** Lenses whose model can see images at all (every one here does, when nothing hides them). */
const IMAGE_LENSES: readonly Lens[] = LENSES;

for (const mode of ['default', 'structured'] as const) {
  describe(`${mode} results`, () => {
    let shopTab: number;
    const tw = useServer({
      pages: {
        '/shop': SHOP,
        '/next': '<!doctype html><title>Second page</title><p>You made it</p>',
        '/popup': '<!doctype html><title>Popup window</title><p>Hi from the popup</p>',
      },
      args: ['--auto-allow', '--toolsets', 'all'],
      env: { TABWRIGHT_STRUCTURED_CONTENT: mode === 'structured' ? '1' : '0' },
      setup: ({ site }) => site.route('/report.csv', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="report.csv"' });
        res.end('a,b\n1,2\n');
      }),
    });

    /** Calls a tool, checks the shape rules of this mode, and asserts every lens reads each of `patterns`. */
    async function seen(name: string, args: Record<string, unknown>, patterns: RegExp[], opts: { error?: string; images?: number } = {}): Promise<RawResult> {
      const raw = await callRaw(tw.client, name, args);
      const label = `${name} ${JSON.stringify(args)}`;
      if (opts.error) {
        assert.equal(raw.isError, true, `${label} should fail: ${JSON.stringify(raw.content)}`);
        assert.equal((raw.structuredContent?.error as { type?: string } | undefined)?.type, opts.error, label);
        assert.match(raw.content[0]!.text!, new RegExp(`^Error \\[${opts.error}\\]: .+\\nHint: .+`, 's'), label);
      } else {
        assert.notEqual(raw.isError, true, `${label} failed: ${JSON.stringify(raw.content)}`);
        const hasImage = raw.content.some(b => b.type === 'image');
        if (mode === 'default' || hasImage) assert.equal(raw.structuredContent, undefined, `${label}: no structuredContent on a ${hasImage ? 'result with an image' : 'default result'}`);
        else assert.equal(typeof raw.structuredContent?.text, 'string', `${label}: structuredContent carries the text`);
      }
      for (const lens of LENSES) {
        const view = seenBy(lens, raw as LensInput);
        const reads = readable(view.texts);
        for (const pattern of patterns) assert.match(reads, pattern, `${lens} (${mode}) does not read ${pattern} from ${label}:\n${reads}`);
        if (opts.images !== undefined && IMAGE_LENSES.includes(lens)) assert.equal(view.images.length, opts.images, `${lens} (${mode}) sees ${view.images.length} images from ${label}`);
      }
      return raw;
    }

    const textOf = (raw: RawResult) => raw.content.filter(b => b.type === 'text').map(b => b.text).join('\n');

    test('tabs, navigation and the snapshot: URLs, titles, status, refs', async () => {
      const nav = await seen('navigate', { url: `${tw.origin}/shop` }, [new RegExp(`${tw.origin}/shop`), /Lens shop/, /200/, /revision 2/]);
      shopTab = Number(/Tab (\d+)/.exec(textOf(nav))![1]);
      await seen('list_tabs', {}, [new RegExp(`\\b${shopTab}\\b`), new RegExp(`${tw.origin}/shop`), /Lens shop/]);
      const snap = await seen('get_page_context', {}, [/button "Delete" \[ref=e\d+\]/, /link "Next page" \[ref=e\d+\]/, /Lens shop/]);
      assert.ok(refOf(textOf(snap), 'button', 'Open popup'));
      await seen('get_bridge_status', {}, [/launch|cdp|playwright-server|own-chrome|extension/, /Chromium|Chrome|HeadlessChrome/i]);
      const opened = await seen('open_tab', { url: `${tw.origin}/next` }, [/Second page/, new RegExp(`${tw.origin}/next`)]);
      const tabId = Number(/Opened tab (\d+)/.exec(textOf(opened))![1]);
      await seen('reload_tab', { tabId }, [/Second page|reloaded/i]);
      await seen('focus_tab', { tabId: shopTab }, [new RegExp(`\\b${shopTab}\\b`)]);
      await seen('close_tab', { tabId }, [new RegExp(`\\b${tabId}\\b`), /closed/i]);
    });

    test('actions: clicks, a navigation, a popup, a dialog, console errors', async () => {
      await callRaw(tw.client, 'navigate', { url: `${tw.origin}/shop` });
      let snap = textOf(await callRaw(tw.client, 'get_page_context', {}));
      const del = [...snap.matchAll(/button "Delete" \[ref=(e\d+)\]/g)].map(m => m[1]!);
      // The element acted on, with the row that places it, and what the click removed.
      await seen('click', { ref: del[1]! }, [new RegExp(`Clicked button "Delete" \\[ref=${del[1]}\\] in row "Invoice 2024-02"`), /removed/i, /Invoice 2024-02/]);
      // A popup: its tab id, URL and title, and that the active tab stays.
      await seen('click', { ref: refOf(snap, 'button', 'Open popup') }, [/New tab/i, new RegExp(`${tw.origin}/popup`), /Popup window/, /popup/, /focus_tab/]);
      await seen('click', { ref: refOf(snap, 'button', 'Save order') }, [/alert/, /Saved the order/, /handle_dialog/]);
      await seen('handle_dialog', { accept: true }, [/Accepted the alert/i]);
      await seen('click', { ref: refOf(snap, 'button', 'Break') }, [/console error/i, /Widget exploded/]);
      // Revealed content shows up as added, with refs the agent can use at once.
      await seen('click', { ref: refOf(snap, 'button', 'Show details') }, [/added/i, /Ships in 2 days/, /button "Confirm order" \[ref=e\d+\]/]);
      // A navigation: URL, title, HTTP status and the new document.
      await seen('click', { ref: refOf(snap, 'link', 'Next page') }, [new RegExp(`Navigated to ${tw.origin}/next`), /Second page/, /200/, /You made it/]);
      await seen('navigate', { url: 'back' }, [/Lens shop|\/shop/]);
      snap = textOf(await callRaw(tw.client, 'get_page_context', {}));
      await seen('hover', { ref: refOf(snap, 'button', 'Hover me') }, [/Hovered button "Hover me" \[ref=e\d+\]/, /Hovered!/]);
      await seen('scroll', { dy: 200 }, [/scroll position/i]);
      await seen('press_key', { key: 'Tab' }, [/Pressed Tab/]);
    });

    test('forms, files, downloads and drag', unlessConnection(['extension'], 'it reads a download\'s file name: through the extension downloads go to the browser\'s own folder (docs/own-browser.md)'), async () => {
      await callRaw(tw.client, 'navigate', { url: `${tw.origin}/shop` });
      const snap = textOf(await callRaw(tw.client, 'get_page_context', {}));
      const name = refOf(snap, 'textbox', 'Your name');
      await seen('type', { ref: name, text: 'Ada' }, [new RegExp(`Typed 3 characters into textbox "Your name" \\[ref=${name}\\]`), /Ada/]);
      await seen('fill_form', { fields: [{ ref: name, value: 'Grace' }, { ref: refOf(snap, 'checkbox', 'Gift wrap'), value: true }] }, [/Filled 2 fields/, /Your name/, /Gift wrap/, /Grace/, /checked/]);
      await seen('select_option', { ref: refOf(snap, 'combobox', 'Size'), values: ['Large'] }, [/combobox "Size"/, /selected: l/i]);
      const chooser = await seen('click', { ref: refOf(snap, 'button', 'Choose file') }, [/file chooser/i, /upload_file/]);
      const upload = join(tw.workspace, 'lens-upload.txt');
      writeFileSync(upload, 'hello');
      await seen('upload_file', { ref: refOf(snap, 'button', 'Choose file'), paths: [upload] }, [/lens-upload\.txt/]);
      assert.ok(chooser);
      // The user's own Chrome saves downloads in its own folder, out of tabwright's sight (docs/own-browser.md).
      await seen('click', { ref: refOf(snap, 'link', 'Get report') }, TEST_CONNECTION === 'own-chrome' ? [/Get report/] : [/report\.csv/, /download/i]);
      if (TEST_CONNECTION !== 'own-chrome') await seen('list_downloads', {}, [/report\.csv/]);
      await seen('drag', { fromRef: refOf(snap, 'button', 'Card'), toRef: refOf(snap, 'button', 'Bin') }, [/Dragged button "Card" \[ref=e\d+\]/, /Bin|Dropped card/]);
    });

    test('screenshot, execute, console and page tools', async () => {
      await callRaw(tw.client, 'navigate', { url: `${tw.origin}/shop` });
      await seen('take_screenshot', {}, [/screenshot|png|jpeg|webp/i], { images: 1 });
      await seen('execute', { code: 'document.title + " / " + (6 * 7)' }, [/Lens shop \/ 42/]);
      await seen('execute', { code: '"x".repeat(20000)', truncate: true }, [/Truncated \(truncate: true\): 16384 of 20002 bytes/, /\$ cut at 16382 of 20000 characters/]);
      await seen('find', { text: 'invoice 2024-01' }, [/1 element matches text "invoice 2024-01"/, /- cell "Invoice 2024-01" \[ref=e\d+\]/]);
      await seen('find', { role: 'button', name: 'Nothing like it' }, [/No element matches role button, name "Nothing like it"/, /Elements with role button/, /button "Delete" \[ref=e\d+\]/]);
      await callRaw(tw.client, 'execute', { code: 'console.warn("Low stock")' });
      await seen('get_console_context', {}, [/Low stock/]);
      await seen('list_webmcp_tools', {}, [/count_items/, /Counts the invoices/]);
      await seen('call_webmcp_tool', { name: 'count_items', arguments: {} }, [/There are 2 invoices/]);
    });

    test('userscripts: save, list, toggle, export, delete', async () => {
      const code = '// ==UserScript==\n// @name Lens banner\n// @namespace lens\n// @match *://*/*\n// ==/UserScript==\ndocument.documentElement.dataset.lens = "1";\n';
      const saved = await seen('export_script', { code }, [/Lens banner/, /Created userscript/, /s_[0-9a-f]+/]);
      const scriptId = /\((s_[0-9a-f]+)\)/.exec(textOf(saved))![1]!;
      await seen('list_scripts', {}, [/Lens banner/]);
      await seen('toggle_script', { scriptId, enabled: false }, [/disabled|enabled: false|off/i]);
      mkdirSync(join(tw.workspace, 'out'), { recursive: true });
      await seen('import_script', { scriptId, path: 'out/lens.user.js' }, [/lens\.user\.js/]);
      await seen('delete_script', { scriptId }, [/deleted|removed/i]);
      await seen('sync_scripts', { directory: 'synced' }, [/synced/, /watching/]);
    });

    test('userscript menu commands: list_tabs names them with their commandId, run_menu_command runs one', async () => {
      const code = '// ==UserScript==\n// @name Lens menu\n// @namespace lens\n// @match http://127.0.0.1/*\n// @grant GM_registerMenuCommand\n// ==/UserScript==\nGM_registerMenuCommand("Say hi", () => { document.title = "Hi from the menu"; });\n';
      await callRaw(tw.client, 'export_script', { code });
      await callRaw(tw.client, 'navigate', { url: `${tw.origin}/shop` });
      // navigate returns at DOMContentLoaded; the script runs at document-idle, a task later, and registers then.
      await until('the menu command', async () => textOf(await callRaw(tw.client, 'list_tabs', {})).includes('Say hi'));
      const tabs = await seen('list_tabs', {}, [/Lens menu › Say hi \(commandId [^)]+\)/, /run_menu_command/]);
      const commandId = /Say hi \(commandId ([^)]+)\)/.exec(textOf(tabs))![1]!;
      await seen('run_menu_command', { commandId }, [/Ran menu command "Say hi"/]);
      await seen('execute', { code: 'document.title' }, [/Hi from the menu/]);
    });

    test('errors carry type, message and a hint that names the next step', async () => {
      await callRaw(tw.client, 'navigate', { url: `${tw.origin}/shop` });
      const snap = textOf(await callRaw(tw.client, 'get_page_context', {}));
      const ref = refOf(snap, 'link', 'Next page');
      await callRaw(tw.client, 'navigate', { url: `${tw.origin}/next` });
      await seen('click', { ref }, [/stale_ref/, /get_page_context/], { error: 'stale_ref' });
      await seen('navigate', { url: 'not a url' }, [/invalid_arguments/, /url/i], { error: 'invalid_arguments' });
      await seen('focus_tab', { tabId: 999 }, [/tab_not_found/, /list_tabs/], { error: 'tab_not_found' });
      await seen('call_webmcp_tool', { name: 'no_such_tool', arguments: {} }, [/webmcp_tool_not_found/, /list_webmcp_tools/], { error: 'webmcp_tool_not_found' });
      await callRaw(tw.client, 'navigate', { url: `${tw.origin}/shop` });
      const fresh = textOf(await callRaw(tw.client, 'get_page_context', {}));
      await callRaw(tw.client, 'click', { ref: refOf(fresh, 'button', 'Save order') });
      await seen('get_page_context', {}, [/dialog_open/, /handle_dialog/], { error: 'dialog_open' });
      await callRaw(tw.client, 'handle_dialog', { accept: true });
    });

    test('the element picker without a person at the browser: what it says (picks themselves: test/tools/picker.test.ts)', async () => {
      await callRaw(tw.client, 'navigate', { url: `${tw.origin}/shop` });
      await seen('get_selected_elements', {}, [/Nothing was picked/, /pick_elements/]);
      await seen('toggle_ui', {}, [/pick_not_running/, /pick_elements/], { error: 'pick_not_running' });
      await seen('pick_elements', { timeoutSec: 1 }, [/pick_timeout/, /within 1 s/, /pick_elements again/], { error: 'pick_timeout' });
    });
  });
}
