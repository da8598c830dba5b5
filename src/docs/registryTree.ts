/**
 * The tool tree the CLI reads (src/cli/toolTree.ts), built from the tool
 * declarations: the build writes it to dist/cli/toolTree.json
 * (src/docs/genCliTree.ts), and the docs generator builds the CLI's
 * command tree from it (src/docs/cliDoc.ts).
 */
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
      effect: t.effect,
      inputSchema: inputJsonSchema(t) as ToolTree['tools'][number]['inputSchema'],
    })),
  };
}
