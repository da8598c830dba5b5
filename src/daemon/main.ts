#!/usr/bin/env node
/**
 * `node dist/daemon/main.js [server flags]`: the tabwright daemon in the
 * foreground (docs/daemon.md). The CLI starts it detached on first
 * use; it takes the same flags as `tabwright mcp`.
 */
import '../heapTuning.js'; // first: V8 flags before anything big is allocated
import { Command } from 'commander';
import { addServerOptions } from '../cliOptions.js';
import { VERSION } from '../version.js';
import { DAEMON_EXIT, runDaemon } from './run.js';

const program = addServerOptions(new Command('tabwright-daemon').description('tabwright daemon: loopback HTTP API and MCP at /mcp (docs/daemon.md)').version(VERSION));
program.exitOverride(error => process.exit(error.exitCode === 0 ? 0 : DAEMON_EXIT.usage));
program.action(flags => runDaemon(flags));
program.parseAsync(process.argv).catch(error => {
  process.stderr.write(`tabwright daemon: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(DAEMON_EXIT.error);
});
