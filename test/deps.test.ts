// The layers of src/ (src/DEPS.list) hold: scripts/checkDeps.mjs finds no import against them in the
// tree, and on a copy of the tree with imports that break them it reports each one with its file, line
// and arrow, and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CHECK = join(ROOT, 'scripts', 'checkDeps.mjs');

function check(root: string): { status: number | null; lines: string[] } {
  const run = spawnSync(process.execPath, [CHECK, root], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.stderr, '');
  return { status: run.status, lines: run.stdout.split('\n').filter(Boolean) };
}

test('every import of src/ follows src/DEPS.list', () => {
  const { status, lines } = check('src');
  assert.deepEqual(lines, []);
  assert.equal(status, 0);
});

test('imports against the layers are reported with file, line and arrow; comments and allowed arrows are not', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'tabwright-deps-'));
  try {
    const src = join(tmp, 'src');
    cpSync(join(ROOT, 'src'), src, { recursive: true });
    const prepend = (file: string, lines: string) => writeFileSync(join(src, file), `${lines}\n${readFileSync(join(src, file), 'utf8')}`);
    // Up a layer, as a value, as a type, as `import()`, and as a re-export.
    prepend('tools/status.ts', "import { RELAY_PROTOCOL } from '../relay/protocol.js';");
    prepend('consent/gate.ts', "// import { buildServer } from '../mcp/server.js';\nimport type { CallContext } from '../tools/context.js';");
    prepend('browser/playwright.ts', "const later = () => import('../session/session.js');");
    prepend('session/refs.ts', "export { ToolResponse } from '../tools/response.js';");
    // Sideways in one layer without an arrow; a value import where the arrow allows types only.
    prepend('webmcp/source.ts', "import { scriptService } from '../userscripts/service.js';");
    prepend('session/session.ts', "import { UserscriptInjector } from '../userscripts/injection.js';");
    // A bottom unit reaching into a layer; the page runtime reaching out of itself.
    prepend('log.ts', "import { Session } from './session/session.js';");
    prepend('page/dom.ts', "import { readFileSync } from 'node:fs';\nimport { firstLine } from '../errors.js';");
    // Allowed: down the layers, and along an arrow.
    prepend('mcp/batch.ts', "import type { Tab } from '../session/tab.js';");
    prepend('relay/errors.ts', "import type { Dispatcher } from '../dispatch/dispatcher.js';");
    // A folder DEPS.list does not place; an arrow no import needs any more.
    mkdirSync(join(src, 'extension'));
    writeFileSync(join(src, 'extension', 'worker.ts'), "import { ToolError } from '../errors.js';\n");
    writeFileSync(join(src, 'cli.ts'), '');
    const arrowLine = readFileSync(join(src, 'DEPS.list'), 'utf8').split('\n').findIndex(line => line.startsWith('cli.ts -> cli/')) + 1;

    const { status, lines } = check(src);
    assert.equal(status, 1);
    assert.deepEqual(lines.map(line => line.slice(tmp.length + 1)).sort(), [
      'src/extension/worker.ts: in no unit of DEPS.list (add its folder to a layer, or to [bottom])',
      'src/tools/status.ts:1: tools/ -> relay/ (../relay/protocol.js): points up, from layer tools to layer dispatch',
      'src/consent/gate.ts:2: consent/ -> tools/ (../tools/context.js): points up, from layer services to layer tools',
      'src/browser/playwright.ts:1: browser/ -> session/ (../session/session.js): points up, from layer browser to layer services',
      'src/session/refs.ts:1: session/ -> tools/ (../tools/response.js): points up, from layer services to layer tools',
      'src/webmcp/source.ts:1: webmcp/ -> userscripts/ (../userscripts/service.js): both are in layer services, and no arrow allows it',
      'src/session/session.ts:1: session/ -> userscripts/ (../userscripts/injection.js): both are in layer services, and no arrow allows it',
      'src/log.ts:1: log.ts -> session/ (./session/session.js): a bottom unit imports only bottom units',
      'src/page/dom.ts:1: page/ -> node:fs: page/ imports no package and no node: module',
      'src/page/dom.ts:2: page/ -> errors.ts (../errors.js): page/ imports only its own files',
      `src/DEPS.list:${arrowLine}: no import needs the arrow cli.ts -> cli/ (remove it)`,
    ].sort());
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
