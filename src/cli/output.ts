/**
 * The CLI's output contract (README "CLI"): exactly one JSON
 * document on stdout, `{"ok": true, "result": …}` or
 * `{"ok": false, "error": {type, message, hint, …}}`, compact unless
 * `--pretty`; diagnostics on stderr. The only module that writes to stdout.
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

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise(resolve => stream.write(text, () => resolve()));
}

/** Prints `{ok: true, result}` and exits 0 once stdout has taken it. */
export async function succeed(result: unknown): Promise<never> {
  await write(process.stdout, `${JSON.stringify({ ok: true, result }, null, pretty ? 2 : undefined)}\n`);
  process.exit(EXIT.ok);
}

/** Prints `{ok: false, error}` (and the message + hint on stderr) and exits with the error's code. */
export async function fail(error: CliError): Promise<never> {
  await write(process.stdout, `${JSON.stringify({ ok: false, ...error.extra, error: error.data }, null, pretty ? 2 : undefined)}\n`);
  await write(process.stderr, `tabwright: ${error.data.message}\n${error.data.hint ? `hint: ${error.data.hint}\n` : ''}`);
  process.exit(error.code);
}

/** A diagnostic line on stderr. */
export function note(text: string): void {
  process.stderr.write(`${text}\n`);
}
