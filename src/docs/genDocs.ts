/** `npm run docs`: regenerates the tool reference in docs/tools.md from the registry. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { updateToolsDoc } from './toolsDoc.js';

const path = 'docs/tools.md';
const header = '# Tool reference\n\nGenerated from the tool declarations in `src/tools/` by `npm run docs`; do not edit by hand between the markers. Errors: [errors.md](errors.md).\n';
const current = existsSync(path) ? readFileSync(path, 'utf8') : header;
writeFileSync(path, updateToolsDoc(current));
process.stderr.write(`wrote ${path}\n`);
