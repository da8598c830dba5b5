#!/usr/bin/env node
/** `tabwright-mcp`: the MCP stdio server under its own name, for IDE configs. Same flags as `tabwright mcp`. */
import './heapTuning.js'; // first: V8 flags before anything big is allocated
import { Command } from 'commander';
import { addServerOptions, serveFromFlags } from './cliOptions.js';
import { VERSION } from './version.js';

const program = addServerOptions(new Command('tabwright-mcp').description('tabwright MCP server on stdio').version(VERSION));
program.action((flags) => serveFromFlags(flags));
program.parseAsync(process.argv).catch(error => {
  process.stderr.write(`tabwright-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
