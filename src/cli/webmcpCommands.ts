/**
 * `tabwright webmcp …` (docs/webmcp-dev.md): tools for developers of web apps that offer WebMCP tools.
 * `webmcp scan DIR` inventories a workspace's browser apps and the tools their sources declare; the parser is
 * loaded only when it runs.
 */
import { ToolError } from '../errors.js';
import type { Command } from './commander.js';
import { cliError } from './output.js';
import { respond } from './toolCommand.js';

/** Adds `webmcp scan` to `program`. */
export function addWebmcpCommands(program: Command): void {
  const webmcp = program.command('webmcp').description('for developers of web apps that offer WebMCP tools (docs/webmcp-dev.md)');
  webmcp.command('scan').description('inventory a workspace\'s browser apps (package.json, HTML entries, React/Vue/Svelte/Angular bootstraps) and the WebMCP tools its sources declare, with file and line; reads, never runs, the code')
    .argument('<dir>', 'the workspace folder')
    .action((dir: string) => respond(async () => {
      const { scanWorkspace } = await import('../webmcp/scan.js');
      try {
        return await scanWorkspace(dir);
      } catch (error) {
        throw error instanceof ToolError ? cliError(error.type, error.message, error.hint) : error;
      }
    }));
}
