/**
 * Writes `dist/cli/toolTree.json` (src/cli/toolTree.ts) from the tool
 * declarations: run by scripts/build.mjs after tsc, as `node
 * dist/docs/genCliTree.js [outFile]`. The CLI reads the file instead of
 * importing the registry, so ordinary verbs load no zod and no tool code.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolTree } from '../cli/toolTree.js';
import { inputJsonSchema } from '../mcp/server.js';
import { TOOLS_BY_NAME } from '../tools/registry.js';
import { VERSION } from '../version.js';

/** The tree of every tool the dispatcher can run, in registry order. */
export function buildToolTree(): ToolTree {
  return {
    version: VERSION,
    tools: [...TOOLS_BY_NAME.values()].map(t => ({
      name: t.name,
      title: t.title,
      description: t.description,
      needs: [...t.needs],
      consent: t.consent,
      inputSchema: inputJsonSchema(t) as ToolTree['tools'][number]['inputSchema'],
    })),
  };
}

const out = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'toolTree.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(`${out}.tmp`, `${JSON.stringify(buildToolTree())}\n`);
renameSync(`${out}.tmp`, out);
