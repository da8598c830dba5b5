// `tabwright webmcp scan` (src/webmcp/scan.ts, docs/webmcp-dev.md "Scan"): the exact inventory of the fixture
// workspace test/fixtures/webmcpApps (React, Vue, Svelte, Angular and plain HTML apps with good and bad tools), the
// scan's bounds on a temporary folder, and the CLI's envelope. No browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../fixtures/mcp.js';
import { cli, cliHome } from '../fixtures/cli.js';
import { MAX_FILE_BYTES, scanWorkspace } from '../../src/webmcp/scan.js';

const APPS = join(ROOT, 'test', 'fixtures', 'webmcpApps');

const EXPECTED_APPS = [
  {
    dir: '.',
    packageJson: null,
    frameworks: [],
    frameworkDeps: {},
    html: [
      { file: 'plain/index.html', scripts: [{ line: 3, src: 'app.js' }, { line: 4 }] },
    ],
    bootstraps: [],
    tools: [
      { file: 'plain/index.html', line: 6, kind: 'registerTool', via: ['navigator.modelContext'], name: 'get_time', description: 'The current time on this page', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true, untrustedContentHint: false }, executeParams: 0, registrationOptions: false, unknown: [], problems: [] },
      { file: 'plain/index.html', line: 14, kind: 'form', name: 'subscribe', description: 'Subscribe to the newsletter', autosubmit: false, unknown: [], problems: [] },
    ],
  },
  {
    dir: 'angular-admin',
    packageJson: 'angular-admin/package.json',
    name: 'angular-admin',
    frameworks: ['angular'],
    frameworkDeps: { '@angular/core': '^17.3.0' },
    html: [
      { file: 'angular-admin/src/index.html', scripts: [] },
    ],
    bootstraps: [
      { file: 'angular-admin/src/main.ts', line: 4, framework: 'angular', call: 'platformBrowserDynamic().bootstrapModule' },
    ],
    tools: [
      { file: 'angular-admin/src/app/tools.service.ts', line: 6, kind: 'registerTool', via: ['document.modelContext'], name: 'delete_user', description: 'Delete a user account and all of its data', inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, annotations: { destructiveHint: true, consequentialHint: true }, executeParams: 1, registrationOptions: false, unknown: [], problems: [] },
      { file: 'angular-admin/src/app/tools.service.ts', line: 14, kind: 'provideContext', via: ['navigator.modelContext'], name: 'old_tool', description: 'An old-style tool', inputSchema: { type: 'object' }, executeParams: 0, unknown: [], problems: ['provideContext is obsolete: register each tool with registerTool'] },
      { file: 'angular-admin/src/index.html', line: 5, kind: 'form', name: 'invite_user', autosubmit: false, unknown: [], problems: ['the form has no tooldescription attribute (the browser leaves it out)'] },
    ],
  },
  {
    dir: 'react-shop',
    packageJson: 'react-shop/package.json',
    name: 'react-shop',
    frameworks: ['react'],
    frameworkDeps: { react: '^18.3.1', 'react-dom': '^18.3.1' },
    html: [
      { file: 'react-shop/index.html', scripts: [{ line: 6, src: '/src/main.tsx', module: true }] },
    ],
    bootstraps: [
      { file: 'react-shop/src/main.tsx', line: 5, framework: 'react', call: 'createRoot' },
    ],
    tools: [
      { file: 'react-shop/src/App.tsx', line: 4, kind: 'form', name: 'search_products', description: 'Search the catalog by keyword', autosubmit: true, unknown: [], problems: [] },
      { file: 'react-shop/src/App.tsx', line: 8, kind: 'form', name: 'filter products', description: '', autosubmit: false, unknown: [], problems: ['name has characters outside ASCII letters, digits, "_", "-" and ".": " "', 'description is empty'] },
      { file: 'react-shop/src/tools.ts', line: 11, kind: 'registerTool', via: ['document.modelContext', 'navigator.modelContext'], name: 'add_to_cart', description: 'Add a product to the shopping cart', inputSchema: { type: 'object', properties: { sku: { type: 'string', description: 'Product SKU' }, quantity: { type: 'integer', minimum: 1 } }, required: ['sku'] }, annotations: { readOnlyHint: false }, executeParams: 2, registrationOptions: true, unknown: [], problems: [] },
      { file: 'react-shop/src/tools.ts', line: 20, kind: 'registerTool', via: ['document.modelContext', 'navigator.modelContext'], name: 'checkout now!', description: '', inputSchema: { type: 'object', properties: {} }, executeParams: 0, registrationOptions: false, unknown: [], problems: ['name has characters outside ASCII letters, digits, "_", "-" and ".": " ", "!"', 'description is empty'] },
    ],
  },
  {
    dir: 'svelte-todo',
    packageJson: 'svelte-todo/package.json',
    name: 'svelte-todo',
    frameworks: ['svelte'],
    frameworkDeps: { svelte: '^4.2.0' },
    html: [],
    bootstraps: [
      { file: 'svelte-todo/src/main.js', line: 3, framework: 'svelte', call: 'new App({target})' },
    ],
    tools: [
      { file: 'svelte-todo/src/App.svelte', line: 7, kind: 'registerTool', via: ['document.modelContext'], name: 'complete_todo', inputSchema: { type: 'string' }, executeParams: 1, registrationOptions: false, unknown: ['description'], problems: ['inputSchema is not an object schema ({"type": "object", ...})'] },
    ],
  },
  {
    dir: 'vue-notes',
    packageJson: 'vue-notes/package.json',
    name: 'vue-notes',
    frameworks: ['vue'],
    frameworkDeps: { vue: '^3.4.0' },
    html: [
      { file: 'vue-notes/index.html', scripts: [{ line: 3, src: '/src/main.ts', module: true }] },
    ],
    bootstraps: [
      { file: 'vue-notes/src/main.ts', line: 6, framework: 'vue', call: 'createApp(...).mount' },
    ],
    tools: [
      { file: 'vue-notes/src/App.vue', line: 3, kind: 'form', name: 'add_note', description: 'Add a note with a title', autosubmit: false, unknown: [], problems: [] },
      { file: 'vue-notes/src/App.vue', line: 11, kind: 'registerTool', via: ['navigator.modelContext'], name: 'list_notes', description: 'List the notes on this page', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true }, executeParams: 0, registrationOptions: false, unknown: [], problems: [] },
    ],
  },
];

test('the fixture workspace: every app, its framework deps, HTML entries, bootstraps and tools, with file and line', async () => {
  const result = await scanWorkspace(APPS);
  assert.deepEqual(result, { root: APPS, apps: EXPECTED_APPS, filesRead: 14, skipped: [], truncated: false });
});

test('bounds: dependencies and build output are not entered, large files are skipped, links stay inside the folder', async () => {
  const outside = mkdtempSync(join(tmpdir(), 'tabwright-scan-outside-'));
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-scan-'));
  try {
    const tool = (name: string) => `document.modelContext.registerTool({ name: '${name}', description: 'd', inputSchema: { type: 'object' }, execute() {} });\n`;
    writeFileSync(join(outside, 'secret.js'), tool('outside_tool'));
    for (const skipped of ['node_modules/lib', 'dist', 'build', '.git']) {
      mkdirSync(join(dir, skipped), { recursive: true });
      writeFileSync(join(dir, skipped, 'index.js'), tool('skipped_tool'));
    }
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'ok.mjs'), tool('kept_tool'));
    writeFileSync(join(dir, 'src', 'big.js'), `${tool('big_tool')}//${'x'.repeat(MAX_FILE_BYTES)}`);
    writeFileSync(join(dir, 'src', 'types.d.ts'), tool('declaration_tool'));
    symlinkSync(outside, join(dir, 'linked-out'));
    symlinkSync(join(outside, 'secret.js'), join(dir, 'src', 'secret.js'));
    symlinkSync(join(dir, 'src'), join(dir, 'loop'));
    const result = await scanWorkspace(dir);
    assert.deepEqual(result.apps.map(a => ({ dir: a.dir, tools: a.tools.map(t => `${t.file}:${t.line} ${t.name}`) })), [
      { dir: '.', tools: ['loop/ok.mjs:1 kept_tool'] },
    ]);
    // `loop` links to `src`, which comes first by name: the real folder is walked once, under the first path to it.
    assert.deepEqual(result.skipped, [
      { file: 'linked-out', reason: 'outside' },
      { file: 'loop/secret.js', reason: 'outside' },
      { file: 'loop/big.js', reason: 'too_large' },
    ]);
    assert.equal(result.filesRead, 1);
    assert.equal(result.truncated, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

test('the CLI prints the inventory in its JSON envelope, and file_not_found for a folder that is not there', async () => {
  const home = await cliHome();
  try {
    const run = await cli(home, ['webmcp', 'scan', join(APPS, 'vue-notes')]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.json?.result.apps.map((a: { dir: string; tools: { name: string }[] }) => [a.dir, a.tools.map(t => t.name)]), [['.', ['add_note', 'list_notes']]]);
    const missing = await cli(home, ['webmcp', 'scan', join(home.root, 'nope')]);
    assert.equal(missing.json?.ok, false);
    assert.equal(missing.json?.error?.type, 'file_not_found');
    assert.equal(missing.json?.error?.message, `${join(home.root, 'nope')} is not a folder.`);
  } finally {
    await home.cleanup();
  }
});
