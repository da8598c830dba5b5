/**
 * The tool declarations as the CLI sees them: name, description and input
 * JSON Schema of every tool, generated at build time into
 * `dist/cli/toolTree.json` (src/docs/genCliTree.ts) so the CLI never
 * loads zod, the tool modules or playwright-core (the target: a warm
 * command under 30 ms; docs/cli.md, "Speed").
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One tool of the tree. */
export interface TreeTool {
  name: string;
  title: string;
  description: string;
  needs: string[];
  /** What a call can do to the page (ToolEffect: observe, interact, sensitive). */
  effect: string;
  inputSchema: JsonSchema;
}

/** The subset of JSON Schema the CLI reads to build per-field options. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  [key: string]: unknown;
}

/** The generated file: `{version, tools}`. */
export interface ToolTree {
  version: string;
  tools: TreeTool[];
}

/** Where the build writes the tree: next to this module in dist/cli. */
export const TREE_FILE = join(dirname(fileURLToPath(import.meta.url)), 'toolTree.json');

let cached: ToolTree | undefined;

/**
 * Uses `tree` instead of the built file from now on: for code that runs from
 * the sources, where no tree is built (the docs generator, src/docs/cliDoc.ts).
 */
export function useToolTree(tree: ToolTree): void {
  cached = tree;
}

/** The tree, read once per process. @throws Error when the build did not write it. */
export function toolTree(): ToolTree {
  cached ??= JSON.parse(readFileSync(TREE_FILE, 'utf8')) as ToolTree;
  return cached;
}

/** The tool of this name in the tree, if any. */
export function treeTool(name: string): TreeTool | undefined {
  return toolTree().tools.find(t => t.name === name);
}
