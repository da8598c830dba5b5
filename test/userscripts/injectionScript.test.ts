// Unit tests of the init script builder: @require
// code in header order, data: URLs, and the line map that tags uncaught
// errors with their script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildInitScript, dataUrlCode, requiredCode, shippedResources } from '../../src/userscripts/injectionScript.js';
import { parseMetadata } from '../../src/userscripts/metadata.js';
import type { StoredScript } from '../../src/userscripts/types.js';

function stored(id: string, code: string, requireCode?: Array<{ url: string; code: string }>): StoredScript {
  const metadata = parseMetadata(code).metadata!;
  return { id, kind: metadata.kind, name: metadata.name, namespace: metadata.namespace, code, codeHash: '', enabled: true, author: 'agent', metadata: requireCode ? { ...metadata, requireCode } : metadata, createdAt: 0, updatedAt: 0 };
}

test('data: URLs decode as percent-encoded or base64 text; other URLs are not data', () => {
  assert.equal(dataUrlCode('data:text/javascript,window.a%20%3D%201'), 'window.a = 1');
  assert.equal(dataUrlCode(`data:text/javascript;base64,${Buffer.from('window.b = "é";').toString('base64')}`), 'window.b = "é";');
  assert.equal(dataUrlCode('lib/x.js'), undefined);
});

test('@require code comes in header order: stored files and data: URLs', () => {
  const code = ['// ==UserScript==', '// @name R', '// @namespace t', '// @match http://127.0.0.1/*', '// @require lib/a.js', '// @require data:,second()', '// @require lib/c.js', '// ==/UserScript==', 'main();'].join('\n');
  const script = stored('s1', code, [{ url: 'lib/c.js', code: 'third();' }, { url: 'lib/a.js', code: 'first();' }]);
  assert.deepEqual(requiredCode(script), ['first();', 'second()', 'third();']);
});

test('the line map names the script whose code sits on a line; the source ends with the build\'s sourceURL', () => {
  const a = stored('a', ['// ==UserScript==', '// @name A', '// @namespace t', '// @match http://127.0.0.1/*', '// ==/UserScript==', 'lineOfA();'].join('\n'));
  const b = stored('b', ['// ==UserScript==', '// @name B', '// @namespace t', '// @match http://127.0.0.1/*', '// @require lib/x.js', '// ==/UserScript==', 'first();', 'lineOfB();'].join('\n'), [{ url: 'lib/x.js', code: 'fromRequire();' }]);
  const built = buildInitScript([{ script: a, values: {} }, { script: b, values: { k: '1' } }], { engine: '/* engine */', token: 't', binding: 'bind', version: '1' }, 7);
  assert.equal(built.url, 'tabwright-userscripts-7.js');
  assert.ok(built.source.endsWith('//# sourceURL=tabwright-userscripts-7.js'));
  const lines = built.source.split('\n');
  const owner = (needle: string) => {
    const line = lines.findIndex(l => l.includes(needle)) + 1;
    return built.lines.find(r => line >= r.start && line <= r.end)?.id;
  };
  assert.equal(owner('lineOfA();'), 'a');
  assert.equal(owner('lineOfB();'), 'b');
  assert.equal(owner('fromRequire();'), 'b');
  assert.equal(owner('/* engine */'), undefined);
  // The required code is inlined once; the metadata shipped to the page leaves it out.
  assert.equal(built.source.split('fromRequire();').length, 2);
  assert.equal(built.source.includes('"requireCode"'), false);
});

test('@resource data ships, base64 with its type, only in the entry of a script that grants a resource function', () => {
  const head = (name: string, grant: string) => ['// ==UserScript==', `// @name ${name}`, '// @namespace t', '// @match http://127.0.0.1/*', '// @resource css data:,x', `// @grant ${grant}`, '// ==/UserScript==', 'main();'].join('\n');
  const resources = shippedResources([{ name: 'css', url: 'data:,x', mime: 'text/css', sha256: '', bytes: Buffer.from('p { color: red }') }]);
  const b64 = Buffer.from('p { color: red }').toString('base64');
  for (const grant of ['GM_getResourceText', 'GM_getResourceURL', 'GM.getResourceText', 'GM.getResourceUrl']) {
    const built = buildInitScript([{ script: stored('r', head('R', grant)), values: {}, resources }], { engine: '', token: 't', binding: 'b', version: '1' });
    assert.ok(built.source.includes(`resources: [{name: "css", mime: "text/css", data: "${b64}"}]`), grant);
  }
  const other = buildInitScript([{ script: stored('o', head('O', 'GM_addStyle')), values: {}, resources }], { engine: '', token: 't', binding: 'b', version: '1' });
  assert.ok(!other.source.includes(b64));
  assert.ok(!other.source.includes('resources: ['));
});
