/**
 * Writes `dist/cli/toolTree.json` (src/cli/toolTree.ts) from the tool
 * declarations: run by scripts/build.mjs after tsc, as `node
 * dist/docs/genCliTree.js [outFile]`. The CLI reads the file instead of
 * importing the registry, so ordinary verbs load no zod and no tool code.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildToolTree } from '../docs/registryTree.js';

const out = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'toolTree.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(`${out}.tmp`, `${JSON.stringify(buildToolTree())}\n`);
renameSync(`${out}.tmp`, out);
