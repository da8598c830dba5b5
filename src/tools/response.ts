/**
 * ToolResponse collects what a tool returns: text lines and images for the
 * model, structured fields for programs, and an error; `build()` makes the
 * ToolResult every front receives (docs/clients.md, "How a result is built").
 *
 * The text is the model's and complete on its own: every fact a model needs
 * goes into a text line, never only into a field (docs/clients.md). Fields
 * reach the CLI and the daemon's HTTP API always, MCP clients only with
 * `--structured-content` (src/mcp/clientResult.ts).
 */
import type { ToolError, ToolErrorData } from '../errors.js';
import type { Tab } from '../session/tab.js';

export interface TextBlock { type: 'text'; text: string }
export interface ImageBlock { type: 'image'; data: string; mimeType: string }
export type ContentBlock = TextBlock | ImageBlock;

/**
 * The result every front receives from a dispatcher: MCP's CallToolResult
 * shape with the tool's fields in `structuredContent` (always, also on
 * success), which the MCP front then shapes for the client
 * (src/mcp/clientResult.ts). It crosses the relay as JSON.
 */
export interface ToolResult {
  [key: string]: unknown;
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  /**
   * The text lines no field mirrors (a line added with `mirrors`, such as a
   * snapshot also kept as the `snapshot` field, is left out), joined by
   * newlines: `structuredContent.text` under `--structured-content`.
   * Absent when it equals the content's text.
   */
  structuredText?: string;
}

export class ToolResponse {
  private readonly lines: string[] = [];
  /** Indexes of `lines` that render a field verbatim (`text(line, {mirrors})`). */
  private readonly mirrored = new Set<number>();
  private readonly images: ImageBlock[] = [];
  private readonly fields: Record<string, unknown> = {};
  private error: ToolErrorData | undefined;
  private errorDetails: Record<string, unknown> | undefined;
  private keepOnFail = false;
  /** The tab a tab tool acted on (set by defineTabTool): where invokeTool checks the call's postconditions. */
  actedOn: Tab | undefined;
  /** The revision of `actedOn` when the call resolved it: what a failed action's recovery compares with (./recovery.ts). */
  revisionBefore = 0;

  /**
   * Appends a line of text for the model.
   * @param opts.mirrors  the field this line renders verbatim (e.g. `snapshot`):
   *   structured mode then leaves the line out of `structuredContent.text`,
   *   so the JSON does not carry it twice.
   */
  text(line: string, opts?: { mirrors?: string }): this {
    if (opts?.mirrors) this.mirrored.add(this.lines.length);
    this.lines.push(line);
    return this;
  }

  /** Sets one structured field (`structuredContent[key]`). */
  set(key: string, value: unknown): this {
    if (value !== undefined) this.fields[key] = value;
    return this;
  }

  /** Sets several structured fields at once. */
  merge(values: Record<string, unknown>): this {
    for (const [k, v] of Object.entries(values)) this.set(k, v);
    return this;
  }

  /** Adds an image content block; `data` is base64. */
  image(data: string, mimeType: string): this {
    this.images.push({ type: 'image', data, mimeType });
    return this;
  }

  /**
   * Marks the response as failed. Text, images and fields collected so far are dropped, unless `opts.keep`: then
   * the text lines come before the error's line and the fields stay beside `error` (a batch keeps its done steps).
   */
  fail(error: ToolError, opts: { keep?: boolean } = {}): this {
    this.error = error.toData();
    this.errorDetails = error.details;
    this.keepOnFail = opts.keep ?? false;
    return this;
  }

  /** The text lines collected so far, joined by newlines. */
  get textContent(): string {
    return this.lines.join('\n');
  }

  /** Replaces every text line with `text` (src/tools/resultSize.ts cuts an oversized result this way). */
  replaceText(text: string): this {
    this.lines.splice(0, this.lines.length, text);
    this.mirrored.clear();
    return this;
  }

  get failed(): ToolErrorData | undefined {
    return this.error;
  }

  /** The structured fields collected so far (a copy). */
  get structured(): Record<string, unknown> {
    return { ...this.fields };
  }

  build(): ToolResult {
    if (this.error) {
      const { type, message, hint } = this.error;
      const line = `Error [${type}]: ${message}\nHint: ${hint}`;
      if (this.keepOnFail) {
        return {
          isError: true,
          content: [{ type: 'text', text: [...this.lines, line].join('\n') }, ...this.images],
          structuredContent: { ...this.fields, ...this.errorDetails, error: this.error },
        };
      }
      return {
        isError: true,
        content: [{ type: 'text', text: line }],
        structuredContent: { ...this.errorDetails, error: this.error },
      };
    }
    const content: ContentBlock[] = [];
    const text = this.lines.join('\n');
    if (this.lines.length) content.push({ type: 'text', text });
    content.push(...this.images);
    if (!content.length) content.push({ type: 'text', text: 'Done.' });
    const result: ToolResult = { content, structuredContent: { ...this.fields } };
    if (this.mirrored.size) result.structuredText = this.lines.filter((_, i) => !this.mirrored.has(i)).join('\n').trim();
    return result;
  }
}
