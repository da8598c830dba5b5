/**
 * Renders the generated sections of docs/cli.md (`npm run docs`;
 * test/docs.test.ts fails when they are stale): the verb table, read from
 * the command tree `tabwright` builds (src/cli/main.ts, the tool verbs of
 * src/cli/verbs.ts over the tool declarations), and the exit-code table of
 * src/cli/exitCodes.ts.
 */
import type { Command } from 'commander';
import { EXIT, EXIT_BY_STATUS, EXIT_BY_TYPE, EXIT_MEANINGS } from '../cli/exitCodes.js';
import { buildProgram } from '../cli/main.js';
import { fieldFlag, verbSpecOf } from '../cli/toolCommand.js';
import { treeTool, useToolTree } from '../cli/toolTree.js';
import { buildToolTree } from './registryTree.js';
import { markers, replaceSection, wrap } from './sections.js';

const VERBS = markers('CLI VERBS');
const EXIT_CODES = markers('CLI EXIT CODES');

/** Commands with more options than this show a pointer to their `--help` instead of the list. */
const MAX_LISTED_OPTIONS = 6;

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function usageOf(cmd: Command): string {
  const args = cmd.registeredArguments.map(a => {
    const name = `${a.name()}${a.variadic ? '...' : ''}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  return [cmd.name(), ...args].join(' ');
}

/** The command's path from the root, without the root's name. */
function pathOf(cmd: Command): string[] {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c === cmd ? usageOf(c) : c.name());
  return names;
}

/** The options a row lists: for a tool verb those of the verb itself (not the tool's fields, nor `--args`). */
function ownOptions(cmd: Command): string[] {
  const spec = verbSpecOf(cmd);
  const fields = new Set(Object.keys(spec ? (treeTool(spec.tool)?.inputSchema.properties ?? {}) : {}).map(fieldFlag));
  return cmd.options
    .filter(o => !o.hidden && !(spec && (o.long === '--args' || (o.long && fields.has(o.long)))))
    .map(o => (o.argChoices ? `${o.flags} ${o.argChoices.join('|')}` : o.flags));
}

/** A verb's description without the "(tool x)" its tool column says. */
function describe(cmd: Command): string {
  const spec = verbSpecOf(cmd);
  const text = cmd.description();
  if (!spec) return text;
  return text.replace(new RegExp(`\\s*\\(tool ${spec.tool}\\)$`), '').replace(new RegExp(`;\\s*tool ${spec.tool}\\)$`), ')');
}

function toolCell(cmd: Command): string {
  const spec = verbSpecOf(cmd);
  if (!spec) return '';
  const fixed = Object.entries(spec.fixed ?? {}).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  return `\`${spec.tool}\`${fixed.length ? ` \`{${fixed.join(', ')}}\`` : ''}`;
}

function optionsCell(cmd: Command): string {
  const options = ownOptions(cmd);
  if (options.length > MAX_LISTED_OPTIONS) return `${options.length} options: \`tabwright ${pathOf(cmd).map(p => p.split(' ')[0]).join(' ')} --help\``;
  return options.map(o => `\`${o}\``).join(', ');
}

/** One row per command that runs (groups are walked); `tool`'s per-tool subcommands are one row. */
function rows(cmd: Command, out: string[][]): void {
  for (const sub of cmd.commands) {
    if (sub.parent === cmd && cmd.parent === null && sub.name() === 'tool') {
      out.push([`\`tabwright tool <name>\``, 'every tool', cell(sub.description()), 'one per input field, `--args`']);
      continue;
    }
    if (sub.commands.length) {
      rows(sub, out);
      continue;
    }
    out.push([`\`tabwright ${pathOf(sub).join(' ')}\``, toolCell(sub), cell(describe(sub)), cell(optionsCell(sub))]);
  }
}

function aliases(cmd: Command, out: string[]): void {
  for (const sub of cmd.commands) {
    for (const alias of sub.aliases()) out.push(`\`${alias}\` = \`${sub.name()}\``);
    aliases(sub, out);
  }
}

/** The program as `tabwright schema` builds it (every command), over the current tool declarations. */
async function fullProgram(): Promise<Command> {
  useToolTree(buildToolTree());
  return buildProgram(['node', 'tabwright', 'schema']);
}

/** The verb table of docs/cli.md, markers included. */
export async function renderVerbsSection(): Promise<string> {
  const program = await fullProgram();
  const table: string[][] = [];
  rows(program, table);
  const lines = ['| command | tool | what it does | its own options |', '| --- | --- | --- | --- |', ...table.map(r => `| ${r.join(' | ')} |`)];
  const alias: string[] = [];
  aliases(program, alias);
  const global = program.options.map(o => `\`${o.flags}\` (${o.description})`).join(', ');
  lines.push('', `Every command also takes ${global}, and \`-h, --help\`.${alias.length ? ` Aliases: ${alias.join(', ')}.` : ''}`);
  return wrap(VERBS, lines.join('\n'));
}

/** The exit-code table of docs/cli.md, markers included. */
export function renderExitCodesSection(): string {
  const lines = ['| code | meaning | error types | HTTP status (refused before dispatch) |', '| --- | --- | --- | --- |'];
  for (const [name, code] of Object.entries(EXIT) as Array<[keyof typeof EXIT, number]>) {
    const types = Object.entries(EXIT_BY_TYPE).filter(([, c]) => c === code).map(([t]) => `\`${t}\``);
    const statuses = Object.entries(EXIT_BY_STATUS).filter(([, c]) => c === code).map(([s]) => s);
    const typeCell = code === EXIT.error ? 'every other type' : types.join(', ');
    lines.push(`| ${code} | ${cell(EXIT_MEANINGS[name])} | ${typeCell} | ${statuses.join(', ')} |`);
  }
  lines.push('', 'The HTTP status of a request the daemon refused before running it decides over the error type.');
  return wrap(EXIT_CODES, lines.join('\n'));
}

/** `doc` (docs/cli.md) with both generated sections rendered anew. */
export async function updateCliDoc(doc: string): Promise<string> {
  return replaceSection(replaceSection(doc, VERBS, await renderVerbsSection()), EXIT_CODES, renderExitCodesSection());
}
