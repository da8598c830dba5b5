// Builds dist/: TypeScript for Node (tsc) and the in-page runtime (esbuild, one IIFE).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const require = createRequire(import.meta.url);
rmSync('dist', { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], { stdio: 'inherit' });
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
// The agents' handbooks (src/userscripts/handbooks.ts reads them beside itself).
cpSync('src/userscripts/handbooks', 'dist/userscripts/handbooks', { recursive: true });
for (const bin of ['dist/cli.js', 'dist/mcpMain.js']) chmodSync(bin, 0o755);
// The CLI's command tree, generated from the tool declarations (issue #7; src/scripts/genCliTree.ts).
execFileSync(process.execPath, ['dist/scripts/genCliTree.js'], { stdio: 'inherit' });
