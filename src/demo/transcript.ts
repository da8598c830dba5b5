/**
 * The demo's transcript on stdout (the demo process's own stdout; the
 * server's stdout carries protocol frames only) and the timed tool call
 * every step goes through.
 */
import type { Client } from '@modelcontextprotocol/client';

/** A step that did not do what the demo expected; `hint` says what to do about it. */
export class StepFailure extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    /** The tool's error type, when the tool itself failed. */
    readonly type?: string,
  ) {
    super(message);
    this.name = 'StepFailure';
  }
}

/** What a tool call returned, and how long it took. */
export interface Called {
  ms: number;
  /** The text content blocks, joined. */
  text: string;
  structured: Record<string, unknown>;
  /** Number of image content blocks. */
  images: number;
}

/**
 * Calls a tool and times it.
 * @throws StepFailure when the call is an error result (its type, message and hint) or fails on the wire.
 */
export async function callTool(client: Client, name: string, args: Record<string, unknown>, timeoutMs = 90_000): Promise<Called> {
  const started = performance.now();
  let result;
  try {
    result = await client.callTool({ name, arguments: args }, { timeout: timeoutMs });
  } catch (error) {
    throw new StepFailure(`the ${name} request failed: ${error instanceof Error ? error.message : String(error)}`, 'The server may have exited; see its log below.');
  }
  const ms = Math.round(performance.now() - started);
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  const text = content.filter(c => c.type === 'text').map(c => c.text ?? '').join('\n');
  const structured = (result.structuredContent ?? {}) as Record<string, unknown>;
  if (result.isError) {
    const error = structured.error as { type?: string; message?: string; hint?: string } | undefined;
    throw new StepFailure(`${error?.type ?? 'error'}: ${error?.message ?? text}`, error?.hint, error?.type);
  }
  return { ms, text, structured, images: content.filter(c => c.type === 'image').length };
}

/** The first `maxLines` lines of `text` (each cut to `width` characters), with a note of how many were left out. */
export function excerpt(text: string, maxLines = 15, width = 120): string[] {
  const lines = text.split('\n');
  const shown = lines.slice(0, maxLines).map(l => (l.length > width ? `${l.slice(0, width - 1)}…` : l));
  if (lines.length > maxLines) shown.push(`… (${lines.length - maxLines} more lines)`);
  return shown;
}

/** Writes one line of the transcript. */
export function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

const INDENT = '        ';

/** Starts a step's line: `[3/10] get_page_context {"output":"inline"}` (finished by `stepDone` or `stepFailed`). */
export function stepStart(index: number, total: number, tool: string, args: Record<string, unknown>): void {
  const shown = JSON.stringify(args);
  const label = `[${String(index).padStart(String(total).length)}/${total}] `.padEnd(INDENT.length);
  process.stdout.write(`${label}${tool}${shown === '{}' ? '' : ` ${shown.length > 100 ? `${shown.slice(0, 99)}…` : shown}`}`);
}

/** Ends a step's line with its time, then prints its result lines indented. */
export function stepDone(ms: number, lines: string[]): void {
  process.stdout.write(`  ✓ ${ms} ms\n`);
  for (const line of lines) say(`${INDENT}${line}`);
}

/** Ends a step's line with the failure. */
export function stepFailed(failure: StepFailure): void {
  process.stdout.write('  ✗ FAILED\n');
  say(`${INDENT}${failure.message}`);
  if (failure.hint) say(`${INDENT}hint: ${failure.hint}`);
}
