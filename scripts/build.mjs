// Builds dist/: TypeScript for Node (tsc) and the in-page runtime (esbuild, one IIFE).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, chmodSync } from 'node:fs';
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
// The userscript engine: its own bundle, injected only when scripts are enabled.
await build({
  entryPoints: ['src/userscripts/pageEntry.ts'],
  outfile: 'dist/page/userscripts.js',
  bundle: true,
  format: 'iife',
  target: 'chrome110',
  minify: true,
  legalComments: 'none',
});
// The agents' handbooks (src/userscripts/handbooks.ts reads them beside itself).
cpSync('src/userscripts/handbooks', 'dist/userscripts/handbooks', { recursive: true });
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
