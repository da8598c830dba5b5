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
import { EXIT } from './exitCodes.js';
import { writeAgentsSection } from './init.js';
import { CLIENTS, mcpConfig, type McpClient } from './mcpConfig.js';
import { cliError, fail, setPretty } from './output.js';
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

/** Builds the program. `lazy` adds the commands whose modules are heavy (permissions) only when they may run. */
export async function buildProgram(argv: string[]): Promise<Command> {
  const program = new Command('tabwright')
    .description('Gives AI agents hands in a real browser. Every command prints one JSON object on stdout; see README "CLI".')
    .version(VERSION)
    .option('--pretty', 'indent the JSON output')
    .showHelpAfterError(false);

  addServerOptions(program.command('mcp').description('serve MCP over stdio (what IDEs and agents register)'))
    .action((flags: ConfigFlags & { logFile?: string }) => serveFromFlags(flags));

  const first = argv.slice(2).find(a => !a.startsWith('-'));
  const everything = first === 'schema' || first === 'help' || (first === undefined && !argv.includes('-V') && !argv.includes('--version'));
  addToolVerbs(program, everything || first === 'tool');

  program.command('schema').description('the whole command tree and every tool\'s input JSON Schema, as JSON')
    .action(() => respond(async () => ({ version: VERSION, commands: describeCommands(program), tools: toolTree().tools })));

  program.command('mcp-config').description('the MCP server entry of this install for a client, with absolute paths')
    .addOption(new Option('--client <client>', 'which client').choices([...CLIENTS]).default('generic'))
    .action((opts: { client: McpClient }) => respond(async () => mcpConfig(opts.client)));

  program.command('init').description('write (or update) the tabwright section of ./AGENTS.md for the next agent')
    .action(() => respond(async () => writeAgentsSection(process.cwd())));

  program.command('doctor').description('check Node, the browser, the config and data dirs, the daemon, the ports, and whether --own-chrome finds Chrome')
    .action(() => respond(doctor));

  addDaemonCommands(program);
  addExtensionCommands(program);
  addUserscriptCommands(program);
  addDashboardCommands(program);

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
  program.hook('preAction', (root) => setPretty(Boolean(root.opts().pretty)));
  return program;
}

/** Runs the CLI on `argv`. */
export async function main(argv: string[]): Promise<void> {
  if (argv.includes('--pretty')) setPretty(true);
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
