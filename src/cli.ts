#!/usr/bin/env node
/**
 * The `tabwright` command (src/cli/main.ts). `tabwright mcp`
 * serves MCP over stdio exactly as `tabwright-mcp` does; every other verb is
 * a thin client of the daemon.
 */
import './heapTuning.js'; // first: V8 flags before anything big is allocated
import { main } from './cli/main.js';

main(process.argv).catch(error => {
  process.stderr.write(`tabwright: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
