/**
 * `npm run docs`: regenerates the generated sections of the docs from the
 * code: the tool reference in docs/tools.md (src/docs/toolsDoc.ts), the verb
 * and exit-code tables in docs/cli.md (src/docs/cliDoc.ts), and the install
 * files mcpb/manifest.json and server.json (src/docs/installFiles.ts).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { updateCliDoc } from './cliDoc.js';
import { MCPB_MANIFEST, mcpbManifest, renderJson, SERVER_JSON, serverJson } from './installFiles.js';
import { updateToolsDoc } from './toolsDoc.js';

const toolsHeader = '# Tool reference\n\nGenerated from the tool declarations in `src/tools/` by `npm run docs`; do not edit by hand between the markers. Errors: [errors.md](errors.md).\n';

async function update(path: string, header: string, render: (doc: string) => Promise<string>): Promise<void> {
  const current = existsSync(path) ? readFileSync(path, 'utf8') : header;
  const next = await render(current);
  mkdirSync(dirname(path), { recursive: true });
  if (next !== current) writeFileSync(path, next);
  process.stderr.write(`${next === current ? 'unchanged' : 'wrote'} ${path}\n`);
}

await update('docs/tools.md', toolsHeader, updateToolsDoc);
await update('docs/cli.md', '# The `tabwright` CLI\n', updateCliDoc);
await update(MCPB_MANIFEST, '', async () => renderJson(mcpbManifest()));
await update(SERVER_JSON, '', async () => renderJson(serverJson()));
