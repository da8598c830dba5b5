/**
 * Builds a commander command that calls one tool: positionals
 * bound to fields, one option per other input field (from the tool's JSON
 * Schema in the generated tree: `tabId` → `--tab N`, `fullPage` →
 * `--full-page`), `--args JSON` (or `@file`, or `-` for stdin) for the rest.
 * Precedence: --args, then options, then positionals.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from './commander.js';
import { callTool, textOf, type ToolResult } from './call.js';
import { cliError, fail, succeed, CliError, TextResult } from './output.js';
import { treeTool, type JsonSchema } from './toolTree.js';
import { EXIT } from './exitCodes.js';

/** A positional argument bound to a tool field. */
export interface Positional {
  /** Commander syntax: `<url>` or `[tabId]`. */
  arg: string;
  field: string;
  type?: 'int' | 'string' | 'path';
  description?: string;
}

/** How a verb maps onto its tool. */
export interface ToolVerbSpec {
  tool: string;
  description?: string;
  positionals?: Positional[];
  /** Fields the verb sets itself (not offered as options). */
  fixed?: Record<string, unknown>;
  /** The field `--args` fills (default: the whole input). `call` uses `arguments`. */
  argsField?: string;
  /** Extra options and how they change the args before the call. */
  extend?(cmd: Command): void;
  prepare?(args: Record<string, unknown>, opts: Record<string, unknown>): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Turns the result into what the CLI prints (default: structuredContent, plus `text` when there is no structured field). */
  shape?(result: ToolResult, args: Record<string, unknown>, opts: Record<string, unknown>): unknown;
}

export const kebab = (name: string) => name.replace(/[A-Z]/g, c => `-${c.toLowerCase()}`);
const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Parses a positive integer option or argument; commander turns the throw into a usage error (exit 2). */
export function parseIntArg(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('expected a whole number.');
  return n;
}

function typeOf(schema: JsonSchema): string {
  const t = schema.type ?? schema.anyOf?.find(s => s.type && s.type !== 'null')?.type;
  return Array.isArray(t) ? t.find(x => x !== 'null') ?? 'json' : t ?? 'json';
}

function parseJson(value: string, what: string): unknown {
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`${what} is not valid JSON (${(error as Error).message}).`);
  }
}

/** Reads `--args`: inline JSON, `@file`, or `-` (stdin). Returns the raw text. */
export function argsText(value: string): string {
  if (value === '-') return readFileSync(0, 'utf8');
  if (value.startsWith('@')) {
    try {
      return readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      throw cliError('invalid_arguments', `Cannot read ${value.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`, 'Pass --args JSON, --args @file.json or --args - (stdin).', EXIT.usage);
    }
  }
  return value;
}

/** Adds the options of a tool's input fields (except `skip`) to `cmd`. */
export function addFieldOptions(cmd: Command, schema: JsonSchema, skip: Set<string>): void {
  for (const [field, prop] of Object.entries(schema.properties ?? {})) {
    if (skip.has(field)) continue;
    const type = typeOf(prop);
    const desc = `${prop.description ?? field}${schema.required?.includes(field) ? ' (required)' : ''}`;
    const flag = fieldFlag(field);
    if (type === 'boolean') {
      // `--accept`, `--accept true|false` and `--no-accept` all work: an agent writes any of them.
      cmd.addOption(new Option(`${flag} [true|false]`, desc).argParser(v => {
        if (/^(true|1|yes)$/i.test(v)) return true;
        if (/^(false|0|no)$/i.test(v)) return false;
        throw new InvalidArgumentError('expected true or false.');
      }));
      cmd.addOption(new Option(`--no-${flag.slice(2)}`, `the same as ${flag} false`).hideHelp());
    } else if (type === 'integer' || type === 'number') {
      cmd.addOption(new Option(`${flag} <n>`, desc).argParser(v => {
        const n = Number(v);
        if (v.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('expected a number.');
        return n;
      }));
    } else if (type === 'string') {
      const option = new Option(`${flag} <value>`, desc);
      if (prop.enum) option.choices(prop.enum.map(String));
      cmd.addOption(option);
    } else {
      cmd.addOption(new Option(`${flag} <json>`, `${desc} (JSON)`).argParser(v => parseJson(v, flag)));
    }
  }
}

/** Turns a thrown value into the CliError the CLI prints. */
export function asCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  return cliError('internal', error instanceof Error ? error.message : String(error), 'This is a tabwright bug: report it with the command you ran.', EXIT.error);
}

/** Runs `fn` and prints its result (or its error) by the output contract. */
export async function respond(fn: () => Promise<unknown>): Promise<never> {
  try {
    return await succeed(await fn());
  } catch (error) {
    return fail(asCliError(error));
  }
}

/** The default shape: structuredContent, plus the text when there is nothing structured. */
export function defaultShape(result: ToolResult): unknown {
  const structured = result.structuredContent ?? {};
  return Object.keys(structured).length ? structured : { text: textOf(result) };
}

const verbSpecs = new WeakMap<Command, ToolVerbSpec>();

/** The spec of a command addToolVerb made (undefined for other commands): docs/cli.md's verb table reads it. */
export function verbSpecOf(cmd: Command): ToolVerbSpec | undefined {
  return verbSpecs.get(cmd);
}

/** The option flag of a tool's input field: `tabId` → `--tab`, `fullPage` → `--full-page`. */
export function fieldFlag(field: string): string {
  return field === 'tabId' ? '--tab' : `--${kebab(field)}`;
}

/** Adds `name` under `parent` as a command that calls `spec.tool`. */
export function addToolVerb(parent: Command, name: string, spec: ToolVerbSpec): Command {
  const tool = treeTool(spec.tool);
  const schema: JsonSchema = tool?.inputSchema ?? { properties: {} };
  const cmd = parent.command(name).description(spec.description ?? `${tool?.description ?? ''} (tool ${spec.tool})`);
  verbSpecs.set(cmd, spec);
  for (const p of spec.positionals ?? []) cmd.argument(p.arg, p.description ?? schema.properties?.[p.field]?.description ?? p.field, p.type === 'int' ? parseIntArg : undefined);
  const skip = new Set([...(spec.positionals ?? []).map(p => p.field), ...Object.keys(spec.fixed ?? {}), ...(spec.argsField ? [spec.argsField] : [])]);
  spec.extend?.(cmd);
  addFieldOptions(cmd, schema, skip);
  cmd.option('--args <json>', spec.argsField ? `${spec.argsField} as JSON (or @file, or - for stdin)` : 'the tool\'s arguments as JSON (or @file, or - for stdin); options override it');
  cmd.action(async (...params: unknown[]) => {
    const command = params[params.length - 1] as Command;
    const opts = command.opts() as Record<string, unknown>;
    const positionals = params.slice(0, (spec.positionals ?? []).length);
    await respond(async () => {
      let args: Record<string, unknown> = {};
      let raw: string | undefined;
      if (typeof opts.args === 'string') {
        const text = argsText(opts.args);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (error) {
          throw cliError('invalid_arguments', `--args is not valid JSON (${(error as Error).message}).`, 'Pass a JSON object, e.g. --args \'{"key":"value"}\'.', EXIT.usage);
        }
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw cliError('invalid_arguments', '--args must be a JSON object.', 'Pass e.g. --args \'{"key":"value"}\'.', EXIT.usage);
        if (spec.argsField) args[spec.argsField] = parsed;
        else {
          args = parsed as Record<string, unknown>;
          raw = text;
        }
      }
      for (const field of Object.keys(schema.properties ?? {})) {
        const key = field === 'tabId' ? 'tab' : camel(kebab(field));
        if (opts[key] !== undefined && !skip.has(field)) {
          args[field] = opts[key];
          raw = undefined;
        }
      }
      (spec.positionals ?? []).forEach((p, i) => {
        const value = positionals[i];
        if (value !== undefined) args[p.field] = value;
      });
      if (spec.positionals?.length || spec.fixed) raw = undefined;
      Object.assign(args, spec.fixed);
      if (spec.prepare) {
        args = await spec.prepare(args, opts);
        raw = undefined;
      }
      // An unchanged --args text is sent as given: the daemon's own size limit (413) then applies to it.
      const result = raw !== undefined && raw.length > 1024 * 1024 ? await callTool(spec.tool, args, raw) : await callTool(spec.tool, args);
      if (spec.shape) return spec.shape(result, args, opts);
      // The tool's own text is what --format text prints: what an MCP client's model reads.
      return new TextResult(textOf(result), defaultShape(result));
    });
  });
  return cmd;
}
