/**
 * `tabwright webmcp …` (docs/webmcp-dev.md): tools for developers of web apps that offer WebMCP tools.
 * `webmcp scan DIR` inventories a workspace's browser apps and the tools their sources declare (the parser is
 * loaded only when it runs); `webmcp lint URL` opens URL in a new tab of the daemon's browser, runs
 * lint_webmcp_tools on it and closes the tab.
 */
import { ToolError } from '../errors.js';
import type { Command } from './commander.js';
import { callTool, textOf } from './call.js';
import { cliError, TextResult } from './output.js';
import { respond } from './toolCommand.js';

/** Adds `webmcp scan` and `webmcp lint` to `program`. */
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
  webmcp.command('lint').description('open URL in a new tab (through the daemon), check the WebMCP tools it registers (tool lint_webmcp_tools) and close the tab')
    .argument('<url>', 'the page to check')
    .action((url: string) => respond(async () => {
      const opened = await callTool('open_tab', { url });
      const tabId = opened.structuredContent?.tabId as number;
      try {
        const result = await callTool('lint_webmcp_tools', { tabId });
        const { text: _text, ...fields } = result.structuredContent ?? {};
        return new TextResult(textOf(result), fields);
      } finally {
        await callTool('close_tab', { tabId }).catch(() => undefined);
      }
    }));
}
