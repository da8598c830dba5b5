/**
 * `npm run mcpb [-- DIR]`: writes the Claude Desktop bundle `tabwright-<version>.mcpb` (default: the repository
 * root; docs/clients.md "Claude Desktop bundle") from the manifest src/docs/installFiles.ts generates, after checking
 * that the checked-in mcpb/manifest.json is that manifest (run `npm run docs` when it is not).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MCPB_MANIFEST, mcpbBundle, mcpbFileName, mcpbManifest, packageInfo, renderJson } from './installFiles.js';

const text = renderJson(mcpbManifest());
if (readFileSync(MCPB_MANIFEST, 'utf8') !== text) {
  process.stderr.write(`${MCPB_MANIFEST} is out of date: run npm run docs first.\n`);
  process.exit(1);
}
const file = join(process.argv[2] ?? '.', mcpbFileName(packageInfo()));
writeFileSync(file, mcpbBundle(text));
process.stderr.write(`wrote ${file}\n`);
