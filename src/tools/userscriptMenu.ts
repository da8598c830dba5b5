/**
 * run_menu_command: runs a command a userscript
 * registered with GM_registerMenuCommand, in the frame that registered it.
 * list_tabs lists each tab's `menuCommands` (structuredContent). In the
 * opt-in `scripts` toolset.
 */
import * as z from 'zod';
import { reportAction } from './actionReport.js';
import { defineTabTool } from './define.js';
import { ToolError } from '../errors.js';
import { tabIdField } from './schemas.js';

export const runMenuCommand = defineTabTool({
  name: 'run_menu_command',
  title: 'Run a userscript menu command',
  description: 'Run a command a userscript registered with GM_registerMenuCommand (commandId from list_tabs menuCommands).',
  needs: [],
  effect: 'interact',
  launchesBrowser: false,
  toolset: 'scripts',
  target: 'tab',
  input: z.object({
    tabId: tabIdField,
    commandId: z.string().min(1).max(200).describe('commandId from list_tabs menuCommands'),
  }),
  check(_input, { session }) {
    if (!session.userscripts) throw new ToolError('capability_unavailable', 'Userscripts are not injected in this process.', 'Run the call in the process that owns the browser (the relay leader or the daemon).');
  },
  async handle(tab, { commandId }, { session }, res) {
    const injector = session.userscripts!;
    const caption = tab.userscripts.menuCommands().find(c => c.commandId === commandId)?.caption;
    reportAction(res, await tab.act(() => injector.runMenuCommand(tab, commandId)));
    res.set('tabId', tab.id).set('commandId', commandId);
    res.text(`Ran menu command "${caption ?? commandId}" in tab ${tab.id}.`);
  },
});
