/**
 * Shapes a dispatcher's ToolResult for an MCP client. What reaches the model
 * differs by client (docs/clients.md): Claude Code and Codex show only
 * `JSON.stringify(structuredContent)` when it is present and drop every
 * `content` block, images included; VS Code replaces the text blocks with
 * it; Claude Desktop, Cursor, Gemini CLI, Windsurf and Zed read `content`
 * only. So `content` is the model's and complete on its own, and
 * `structuredContent` goes out only where it cannot hide anything:
 *
 * - errors: `content` (`Error [type]: message` + `Hint:`) and
 *   `structuredContent.error {type, message, hint}` with the error's details,
 *   so clients that prefer structured data still get every part;
 * - successes, by default: `content` only;
 * - successes with `--structured-content`: also `structuredContent`, the
 *   tool's fields plus `text` (the text lines no field mirrors), a superset
 *   of what the text says; never on a result that carries an image, which
 *   those clients would drop. Its fields carry whole values (a whole
 *   `execute` value behind a text cut at the result bound of
 *   src/tools/resultSize.ts): the mode is for programs that read fields,
 *   and its JSON is not held to that bound.
 *
 * No tool declares an `outputSchema` (MCP 2025-06-18 "Output Schema"): a
 * client SDK rejects a success without `structuredContent` for a tool that
 * has one (-32600), and by default no success carries it.
 */
import type { ToolResult } from '../tools/response.js';

/** The CallToolResult an MCP client receives. */
export interface ClientToolResult {
  [key: string]: unknown;
  content: ToolResult['content'];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * The result for the client from the dispatcher's `result`.
 * @param structured  `--structured-content` (Config.structuredContent).
 */
export function clientResult(result: ToolResult, structured: boolean): ClientToolResult {
  const { content, structuredContent, isError, structuredText } = result;
  if (isError) return { isError: true, content, ...(structuredContent ? { structuredContent } : {}) };
  if (!structured || content.some(block => block.type === 'image')) return { content };
  const text = structuredText ?? content.filter(block => block.type === 'text').map(block => block.text).join('\n');
  return { content, structuredContent: { ...structuredContent, ...(text ? { text } : {}) } };
}
