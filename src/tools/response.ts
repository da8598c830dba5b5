/**
 * ToolResponse collects what a tool returns: text lines, images, structured
 * fields and an error; `build()` makes the MCP CallToolResult. The CLI and
 * the daemon read the same object (STYLE.md, "Responses").
 */
import type { ToolError, ToolErrorData } from './errors.js';

export interface TextBlock { type: 'text'; text: string }
export interface ImageBlock { type: 'image'; data: string; mimeType: string }
export type ContentBlock = TextBlock | ImageBlock;

/** The result shape every front returns: MCP's CallToolResult. */
export interface ToolResult {
  [key: string]: unknown;
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export class ToolResponse {
  private readonly lines: string[] = [];
  private readonly images: ImageBlock[] = [];
  private readonly fields: Record<string, unknown> = {};
  private error: ToolErrorData | undefined;
  private errorDetails: Record<string, unknown> | undefined;

  /** Appends a line of text for the model. */
  text(line: string): this {
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

  /** Marks the response as failed; text and images collected so far are dropped. */
  fail(error: ToolError): this {
    this.error = error.toData();
    this.errorDetails = error.details;
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
      return {
        isError: true,
        content: [{ type: 'text', text: `Error [${type}]: ${message}\nHint: ${hint}` }],
        structuredContent: { ...this.errorDetails, error: this.error },
      };
    }
    const content: ContentBlock[] = [];
    if (this.lines.length) content.push({ type: 'text', text: this.lines.join('\n') });
    content.push(...this.images);
    if (!content.length) content.push({ type: 'text', text: 'Done.' });
    return { content, structuredContent: { ...this.fields } };
  }
}
