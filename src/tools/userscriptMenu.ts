/**
 * run_menu_command (issue #6, "GM API"): runs a command a userscript
 * registered with GM_registerMenuCommand, in the frame that registered it.
 * list_tabs lists each tab's `menuCommands` (structuredContent). In the
 * opt-in `scripts` toolset.
 */
import * as z from 'zod';
import { runAction } from './actionResult.js';
import { defineTool } from './define.js';
import { ToolError } from '../errors.js';
import { tabIdField } from './schemas.js';

export const runMenuCommand = defineTool({
  name: 'run_menu_command',
  title: 'Run a userscript menu command',
  description: 'Run a command a userscript registered with GM_registerMenuCommand (commandId from list_tabs menuCommands).',
  needs: [],
  consent: 'interact',
  launchesBrowser: false,
  toolset: 'scripts',
  input: z.object({
    tabId: tabIdField,
    commandId: z.string().min(1).max(200).describe('commandId from list_tabs menuCommands'),
  }),
  async handle({ tabId, commandId }, ctx, res) {
    const { session } = ctx;
    const injector = session.userscripts;
    if (!injector) throw new ToolError('capability_unavailable', 'Userscripts are not injected in this process.', 'Run the call in the process that owns the browser (the relay leader or the daemon).');
    const tab = await session.tab(tabId);
    const caption = tab.userscripts.menuCommands().find(c => c.commandId === commandId)?.caption;
    await runAction(session, tab, '', res, {}, () => injector.runMenuCommand(tab, commandId));
    res.set('tabId', tab.id).set('commandId', commandId);
    res.text(`Ran menu command "${caption ?? commandId}" in tab ${tab.id}.`);
  },
});
