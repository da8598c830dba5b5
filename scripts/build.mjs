// Builds dist/: TypeScript for Node (tsc), the in-page runtime (esbuild, one IIFE) and the companion extension.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, chmodSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const require = createRequire(import.meta.url);
rmSync('dist', { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], { stdio: 'inherit' });
dropUnloadedPageFiles();
mkdirSync('dist/page', { recursive: true });
await build({
  entryPoints: ['src/page/runtime.ts'],
  outfile: 'dist/page/runtime.js',
  bundle: true,
  format: 'iife',
  target: 'chrome110',
  minify: true,
  legalComments: 'none',
});
// The element picker overlay (src/page/picker.ts, docs/picker.md): evaluated in an isolated world of its own only
// while a pick runs, with @medv/finder inlined.
await build({
  entryPoints: ['src/page/picker.ts'],
  outfile: 'dist/page/picker.js',
  bundle: true,
  format: 'iife',
  target: 'chrome110',
  minify: true,
  legalComments: 'none',
});
// The userscript engine: its own bundle, injected only when scripts are enabled. Two builds: with the
// Public Suffix List (tldts, ~130 KB) for when an enabled script has a `.tld` glob, and without it
// (src/userscripts/publicSuffixStub.ts in its place) for every other set of scripts.
const withoutPublicSuffixList = {
  name: 'public-suffix-stub',
  setup(b) {
    b.onResolve({ filter: /\/publicSuffix\.js$/ }, () => ({ path: resolve('src/userscripts/publicSuffixStub.ts') }));
  },
};
for (const [outfile, plugins] of [['dist/page/userscripts.js', [withoutPublicSuffixList]], ['dist/page/userscripts-psl.js', []]]) {
  await build({
    entryPoints: ['src/userscripts/pageEntry.ts'],
    outfile,
    bundle: true,
    format: 'iife',
    target: 'chrome110',
    minify: true,
    legalComments: 'none',
    plugins,
  });
}
// The companion extension (extension/): a load-unpacked folder, dist/extension (`tabwright extension path`).
mkdirSync('dist/extension', { recursive: true });
await build({
  entryPoints: ['worker', 'popup', 'pair', 'consent'].map(name => `extension/src/${name}.ts`),
  outdir: 'dist/extension',
  bundle: true,
  format: 'iife',
  target: 'chrome120',
  legalComments: 'none',
});
const manifest = JSON.parse(readFileSync('extension/manifest.json', 'utf8'));
manifest.version = JSON.parse(readFileSync('package.json', 'utf8')).version.replace(/[^0-9.].*$/, '');
writeFileSync('dist/extension/manifest.json', `${JSON.stringify(manifest, null, 2)}\n`);
for (const page of ['popup.html', 'pair.html', 'consent.html']) cpSync(`extension/${page}`, `dist/extension/${page}`);
// The companion userscript (userscript/, docs/userscript-connection.md): one self-contained file with its header;
// the broker fills in its own URL (@updateURL, @downloadURL) when it serves it.
mkdirSync('dist/userscript', { recursive: true });
await build({
  entryPoints: ['userscript/src/companion.ts'],
  outfile: 'dist/userscript/tabwright.user.js',
  bundle: true,
  format: 'iife',
  target: ['chrome110', 'firefox115', 'safari16'],
  legalComments: 'none',
  // The in-page runtime, which the companion installs at document start in allowed tabs (WebMCP's polyfill).
  define: { __TABWRIGHT_RUNTIME__: JSON.stringify(readFileSync('dist/page/runtime.js', 'utf8')) },
  banner: { js: readFileSync('userscript/header.txt', 'utf8').replace('__VERSION__', JSON.parse(readFileSync('package.json', 'utf8')).version) },
});
// The agents' handbooks (src/userscripts/handbooks.ts reads them beside itself).
cpSync('src/userscripts/handbooks', 'dist/userscripts/handbooks', { recursive: true });
// The app developers' WebMCP handbook (src/webmcp/handbook.ts reads it beside itself).
cpSync('src/webmcp/handbooks', 'dist/webmcp/handbooks', { recursive: true });
// The dashboard's page: plain HTML, CSS and one module, served as they are (src/dashboard/server.ts).
cpSync('src/dashboard/static', 'dist/dashboard/static', { recursive: true });
for (const bin of ['dist/cli.js', 'dist/mcpMain.js']) chmodSync(bin, 0o755);
// The CLI's command tree, generated from the tool declarations (src/docs/genCliTree.ts).
execFileSync(process.execPath, ['dist/docs/genCliTree.js'], { stdio: 'inherit' });

/**
 * tsc also compiles the page files that Node code imports only for their types (src/page is bundled by esbuild):
 * keeps the dist/page/*.js that emitted Node code loads (and what they load), removes the rest and their maps.
 */
function dropUnloadedPageFiles() {
  const files = dir => readdirSync(dir, { withFileTypes: true }).flatMap(e => e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : []);
  const page = resolve('dist/page');
  const loads = file => [...readFileSync(file, 'utf8').matchAll(/\bfrom\s*['"](\.[^'"]+)['"]|\bimport\s*\(?\s*['"](\.[^'"]+)['"]/g)].map(m => resolve(dirname(file), m[1] ?? m[2]));
  const keep = new Set();
  const visit = file => {
    for (const target of loads(file)) {
      if (target.startsWith(page + '/') && !keep.has(target)) {
        keep.add(target);
        visit(target);
      }
    }
  };
  for (const file of files('dist')) if (!resolve(file).startsWith(page + '/')) visit(file);
  for (const file of files('dist/page')) {
    if (!keep.has(resolve(file))) for (const f of [file, `${file}.map`]) rmSync(f, { force: true });
  }
}
