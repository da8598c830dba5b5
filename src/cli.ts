#!/usr/bin/env node
/**
 * The `tabwright` command. `tabwright mcp` serves MCP over stdio; more verbs
 * (the CLI of issue #7) are generated from the same tool declarations.
 */
import './heapTuning.js'; // first: V8 flags before anything big is allocated
import { Command } from 'commander';
import { addServerOptions, serveFromFlags } from './cliOptions.js';
import { addPermissionsCommand } from './cliPermissions.js';
import type { ConfigFlags } from './config.js';
import { inputJsonSchema } from './mcp/server.js';
import { TOOLS } from './tools/registry.js';
import { VERSION } from './version.js';

function main(): void {
  const program = new Command('tabwright')
    .description('Gives AI agents hands in a real browser.')
    .version(VERSION);

  addServerOptions(program.command('mcp').description('serve MCP over stdio (what IDEs and agents register)'))
    .action((flags: ConfigFlags & { logFile?: string }) => serveFromFlags(flags));

  program
    .command('schema')
    .description('print every tool with its input JSON Schema, as JSON')
    .action(() => {
      const tools = TOOLS.map(t => ({ name: t.name, title: t.title, description: t.description, needs: t.needs, consent: t.consent, inputSchema: inputJsonSchema(t) }));
      process.stdout.write(`${JSON.stringify({ version: VERSION, tools }, null, 2)}\n`);
    });

  addPermissionsCommand(program);

  program.parseAsync(process.argv).catch(error => {
    process.stderr.write(`tabwright: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

main();
