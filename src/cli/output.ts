/**
 * The CLI's output contract (README "CLI"): exactly one JSON
 * document on stdout, `{"ok": true, "result": …}` or
 * `{"ok": false, "error": {type, message, hint, …}}`, compact unless
 * `--pretty`; diagnostics on stderr. With `--format text` (or
 * `TABWRIGHT_CLI_FORMAT=text`) stdout carries plain text instead: a tool's
 * text as the MCP client's model reads it, other results as `key: value`
 * lines, a failure as `error (type): message` and `hint: …`. The exit codes
 * are the same in both. The only module that writes to stdout.
 */
import { EXIT, exitCodeOf, type ExitCode } from './exitCodes.js';

/** A failure as the CLI prints it; extra fields (diagnostics, outcome) ride along. */
export interface CliErrorData {
  type: string;
  message: string;
  hint: string;
  [key: string]: unknown;
}

/** A failure that ends the command with a given exit code. */
export class CliError extends Error {
  constructor(readonly data: CliErrorData, readonly code: ExitCode = exitCodeOf(data.type), readonly extra: Record<string, unknown> = {}) {
    super(data.message);
    this.name = 'CliError';
  }
}

/** Shorthand for a CliError. */
export function cliError(type: string, message: string, hint: string, code?: ExitCode): CliError {
  return new CliError({ type, message, hint }, code);
}

let pretty = false;

/** `--pretty`: indent the JSON by two spaces. */
export function setPretty(on: boolean): void {
  pretty = on;
}

/** What stdout carries: one JSON document (the default) or plain text. */
export type OutputFormat = 'json' | 'text';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['json', 'text'];
let format: OutputFormat = 'json';

/** `--format`, else `TABWRIGHT_CLI_FORMAT`. @throws CliError invalid_arguments (exit 2) for another value. */
export function setFormat(value: string | undefined): void {
  const chosen = value ?? (process.env.TABWRIGHT_CLI_FORMAT || 'json');
  if (!(OUTPUT_FORMATS as readonly string[]).includes(chosen)) {
    throw cliError('invalid_arguments', `"${chosen.slice(0, 40)}" is not an output format${value === undefined ? ' (TABWRIGHT_CLI_FORMAT)' : ''}.`, 'Use --format json (the default) or --format text.', EXIT.usage);
  }
  format = chosen as OutputFormat;
}

/** True when stdout carries plain text (`--format text`). */
export function textFormat(): boolean {
  return format === 'text';
}

/** A result that is text already (a tool's MCP text): `--format text` prints it as it is; JSON as `{text}`. */
export class TextResult {
  constructor(readonly text: string, readonly json: unknown = { text }) {}
}

/**
 * A JSON value as plain text lines: `key: value` per member, nested objects and arrays indented under their key,
 * array items as `- item`, strings without quotes (a multi-line string indented under its key).
 */
export function plainText(value: unknown, indent = ''): string {
  const scalar = (v: unknown): string | undefined => (v === null || typeof v !== 'object' ? (typeof v === 'string' ? v : JSON.stringify(v) ?? String(v)) : undefined);
  const one = scalar(value);
  if (one !== undefined) return indent + one.replace(/\n/g, `\n${indent}`);
  const lines: string[] = [];
  // Members that JSON leaves out (undefined) are left out here too.
  const entries: Array<[string | undefined, unknown]> = Array.isArray(value) ? value.map(v => [undefined, v]) : Object.entries(value as object).filter(([, v]) => v !== undefined);
  for (const [key, v] of entries) {
    const head = key === undefined ? `${indent}-` : `${indent}${key}:`;
    const flat = scalar(v);
    if (flat !== undefined && !flat.includes('\n')) lines.push(`${head} ${flat}`);
    else if (flat !== undefined || (typeof v === 'object' && v !== null && Object.keys(v).length)) lines.push(head, plainText(v, `${indent}  `));
    else lines.push(`${head} ${Array.isArray(v) ? '[]' : '{}'}`);
  }
  return lines.join('\n');
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise(resolve => stream.write(text, () => resolve()));
}

/** Prints `{ok: true, result}` (or, with `--format text`, the result as text) and exits 0 once stdout has taken it. */
export async function succeed(result: unknown): Promise<never> {
  if (format === 'text') await write(process.stdout, `${result instanceof TextResult ? result.text : plainText(result)}\n`);
  else await write(process.stdout, `${JSON.stringify({ ok: true, result: result instanceof TextResult ? result.json : result }, null, pretty ? 2 : undefined)}\n`);
  process.exit(EXIT.ok);
}

/**
 * Prints `{ok: false, error}` (and the message + hint on stderr) and exits with the error's code. With
 * `--format text`, stdout gets `error (type): message` and `hint: …` and stderr nothing more.
 */
export async function fail(error: CliError): Promise<never> {
  if (format === 'text') {
    const { type, message, hint, ...rest } = error.data;
    const more = { ...error.extra, ...rest };
    await write(process.stdout, `error (${type}): ${message}\n${hint ? `hint: ${hint}\n` : ''}${Object.keys(more).length ? `${plainText(more)}\n` : ''}`);
    process.exit(error.code);
  }
  await write(process.stdout, `${JSON.stringify({ ok: false, ...error.extra, error: error.data }, null, pretty ? 2 : undefined)}\n`);
  await write(process.stderr, `tabwright: ${error.data.message}\n${error.data.hint ? `hint: ${error.data.hint}\n` : ''}`);
  process.exit(error.code);
}

/** A diagnostic line on stderr. */
export function note(text: string): void {
  process.stderr.write(`${text}\n`);
}
