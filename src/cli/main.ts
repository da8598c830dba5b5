/**
 * The `tabwright` command tree (README "CLI"). Ordinary verbs load
 * commander, node:* modules and the generated tool tree only; `mcp`,
 * `permissions` and the daemon itself are loaded when asked for.
 */
import { Command, CommanderError, Option } from './commander.js';
import { addServerOptions, serveFromFlags } from '../cliOptions.js';
import type { ConfigFlags } from '../config.js';
import { VERSION } from '../version.js';
import { addDaemonCommands } from './daemonCommands.js';
import { addDashboardCommands } from './dashboard.js';
import { doctor } from './doctor.js';
import { addExtensionCommands } from './extensionCommands.js';
import { addUserscriptCommands } from './userscriptCommands.js';
import { addWebmcpCommands } from './webmcpCommands.js';
import { EXIT } from './exitCodes.js';
import { writeAgentsSection } from './init.js';
import { CLIENTS, mcpConfig, type McpClient } from './mcpConfig.js';
import { CliError, cliError, fail, OUTPUT_FORMATS, setFormat, setPretty, TextResult } from './output.js';
import { respond } from './toolCommand.js';
import { toolTree } from './toolTree.js';
import { addToolVerbs } from './verbs.js';

/** The command tree as JSON (for `tabwright schema`): every command with its arguments and options. */
export function describeCommands(cmd: Command): Record<string, unknown> {
  return {
    name: cmd.name(),
    ...(cmd.aliases().length ? { aliases: cmd.aliases() } : {}),
    description: cmd.description(),
    arguments: cmd.registeredArguments.map(a => ({ name: a.name(), required: a.required, variadic: a.variadic, description: a.description })),
    options: cmd.options.map(o => ({ flags: o.flags, description: o.description, ...(o.argChoices ? { choices: o.argChoices } : {}) })),
    ...(cmd.commands.length ? { commands: cmd.commands.map(describeCommands) } : {}),
  };
}

/**
 * Parses `flags` as `tabwright mcp` would and checks their values as it does at start (resolveConfig, with no
 * environment of its own: the client's may differ), without running anything.
 * @throws CliError invalid_arguments (exit 2) naming what the server would refuse.
 */
async function checkServerFlags(flags: string[]): Promise<void> {
  const probe = addServerOptions(new Command('tabwright mcp')).exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined }).action(() => undefined);
  const refuse = (message: string) => cliError('invalid_arguments', `The server flags after -- ${message}`, 'Pass flags of `tabwright mcp --help`, e.g. `tabwright mcp-config --client cursor -- --toolsets all`.', EXIT.usage);
  try {
    probe.parse(flags, { from: 'user' });
  } catch (error) {
    throw refuse(`do not parse: ${error instanceof CommanderError ? error.message.replace(/^error:\s*/i, '') : String(error)}`);
  }
  const { resolveConfig } = await import('../config.js');
  try {
    resolveConfig(probe.opts() as ConfigFlags, {});
  } catch (error) {
    throw refuse(`would stop the server at start: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Builds the program. `lazy` adds the commands whose modules are heavy (permissions) only when they may run. */
export async function buildProgram(argv: string[]): Promise<Command> {
  const program = new Command('tabwright')
    .description('Gives AI agents hands in a real browser. Every command prints one JSON object on stdout (or plain text with --format text); see README "CLI".')
    .version(VERSION)
    .option('--pretty', 'indent the JSON output')
    .addOption(new Option('--format <format>', 'what stdout carries: one JSON object, or plain text (a tool\'s text as an MCP client\'s model reads it); default TABWRIGHT_CLI_FORMAT, else json').choices([...OUTPUT_FORMATS]))
    .showHelpAfterError(false);

  addServerOptions(program.command('mcp').description('serve MCP over stdio (what IDEs and agents register)'))
    .action((flags: ConfigFlags & { logFile?: string }) => serveFromFlags(flags));

  // The first word that is not an option (nor the value of --format).
  const first = argv.slice(2).find((a, i, all) => !a.startsWith('-') && all[i - 1] !== '--format');
  const everything = first === 'schema' || first === 'help' || (first === undefined && !argv.includes('-V') && !argv.includes('--version'));
  addToolVerbs(program, everything || first === 'tool');

  program.command('schema').description('the whole command tree and every tool\'s input JSON Schema, as JSON')
    .action(() => respond(async () => ({ version: VERSION, commands: describeCommands(program), tools: toolTree().tools })));

  program.command('mcp-config').description('the MCP server entry of this install for a client, with absolute paths; server flags after -- go into the entry (-- --toolsets all); --client http: the daemon\'s /mcp URL and bearer header')
    .addOption(new Option('--client <client>', 'which client').choices([...CLIENTS]).default('generic'))
    .option('--json', 'print the JSON envelope on a terminal too (default there: the snippet itself)')
    .argument('[flags...]', 'server flags for the entry, after -- (those of `tabwright mcp`)')
    .action((flags: string[], opts: { client: McpClient; json?: boolean }, cmd: Command) => respond(async () => {
      await checkServerFlags(flags);
      const config = mcpConfig(opts.client, flags);
      // On a terminal a person reads it: the snippet itself, unless --json or an output format was chosen.
      const chosen = opts.json || cmd.parent?.opts().format !== undefined || Boolean(process.env.TABWRIGHT_CLI_FORMAT);
      if (!chosen && process.stdout.isTTY) setFormat('text');
      return new TextResult(String(config.text), config);
    }));

  program.command('init').description('write (or update) the tabwright section of ./AGENTS.md for the next agent')
    .action(() => respond(async () => writeAgentsSection(process.cwd())));

  program.command('doctor').description('check Node, the browser, the config and data dirs, the daemon, the ports (and who holds them), and whether --own-chrome finds Chrome')
    .option('--launch', 'also start the browser, check native WebMCP and the polyfill, and load the SQLite addon')
    .action((opts: { launch?: boolean }) => respond(() => doctor(opts)));

  addDaemonCommands(program);
  addExtensionCommands(program);
  addUserscriptCommands(program);
  addDashboardCommands(program);
  addWebmcpCommands(program);

  if (everything || first === 'permissions') {
    const { addPermissionsCommand } = await import('../cliPermissions.js');
    addPermissionsCommand(program);
  }

  // Usage errors print the JSON envelope and exit 2; help and --version keep commander's own output.
  // `mcp` keeps commander's message on stderr and exits 2, exactly as `tabwright-mcp` (addServerOptions): its stdout is protocol only.
  const configure = (cmd: Command) => {
    if (cmd.name() === 'mcp' && cmd.parent === program) return;
    cmd.exitOverride().configureOutput({ writeErr: text => { if (!/^error:/i.test(text)) process.stderr.write(text); } });
    for (const sub of cmd.commands) configure(sub);
  };
  configure(program);
  program.hook('preAction', (root) => {
    setPretty(Boolean(root.opts().pretty));
    setFormat(root.opts().format as string | undefined);
  });
  return program;
}

/** Runs the CLI on `argv`. */
export async function main(argv: string[]): Promise<void> {
  if (argv.includes('--pretty')) setPretty(true);
  // Read before parsing, so that a usage error already prints in the chosen format.
  const formatAt = argv.indexOf('--format');
  const formatArg = formatAt >= 0 ? argv[formatAt + 1] : argv.find(a => a.startsWith('--format='))?.slice('--format='.length);
  try {
    setFormat(formatArg !== undefined && (OUTPUT_FORMATS as readonly string[]).includes(formatArg) ? formatArg : undefined);
  } catch (error) {
    setFormat('json');
    await fail(error as CliError);
  }
  const program = await buildProgram(argv);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') process.exit(0);
      const message = error.message.replace(/^error:\s*/i, '');
      await fail(cliError('invalid_arguments', message, 'Run the command with --help for its usage; `tabwright schema` lists every command.', EXIT.usage));
    }
    throw error;
  }
}
