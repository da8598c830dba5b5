/**
 * handle_dialog: answer the alert, confirm, prompt or
 * beforeunload dialog a page waits for. Dialogs stay open until answered;
 * the call that opened one reports it, and other page calls on that tab fail
 * with `dialog_open` meanwhile (src/session/dialogs.ts).
 */
import * as z from 'zod';
import { noDialog, type DialogAnswer } from '../session/dialogs.js';
import { leavingClause } from '../session/leaving.js';
import { reportAction } from './actionReport.js';
import { defineTabTool } from './define.js';
import { tabIdRequired } from './schemas.js';
import { pollUntil } from '../util/wait.js';

/** After Leave on a beforeunload dialog: how long the answer waits for the document the navigation brings, ms. */
const LEAVE_MS = 5_000;

export const handleDialog = defineTabTool({
  name: 'handle_dialog',
  title: 'Handle dialog',
  description: 'Answer a tab\'s open alert, confirm, prompt or beforeunload dialog: accept (OK, Leave) or dismiss (Cancel, Stay). Reports what the page did next (a navigation, the next dialog, a diff of the page snapshot).',
  needs: [],
  effect: 'interact',
  launchesBrowser: false,
  // The tab: tabId, else the active tab when it has an open dialog, else the only tab with one.
  target: 'dialog',
  dialogOk: true,
  input: z.object({
    tabId: tabIdRequired.optional().describe('Tab with the dialog (default: the active tab, else the only tab with one)'),
    accept: z.boolean().describe('true: OK / Leave; false: Cancel / Stay'),
    promptText: z.string().max(100_000).optional().describe('Answer to a prompt (default: its default value)'),
  }),
  async handle(tab, { accept, promptText }, _ctx, res) {
    const open = await tab.dialogs.settle();
    if (!open) throw noDialog(tab.id);
    // What a beforeunload dialog holds (src/session/leaving.ts), read before the answer changes it.
    const leaving = open.type === 'beforeunload' ? await tab.leaving.seen() : undefined;
    let answered: DialogAnswer | undefined;
    const sent = accept && open.type === 'prompt' ? ` with ${JSON.stringify(promptText ?? open.defaultValue ?? '')}${promptText === undefined ? ' (its default value)' : ''}` : '';
    const revision = tab.revision;
    const report = await tab.act(async () => {
      answered = await tab.dialogs.answer(accept, promptText, tab.id);
      // Leave on a navigation, reload or history step: the browser starts it only now, so the action waits (at most
      // LEAVE_MS) for the document it brings; a slow machine would else report it as not having happened yet.
      if (accept && leaving && leaving.kind !== 'close') {
        await pollUntil(() => tab.revision !== revision || tab.closed || tab.dialogs.current !== undefined || undefined, { ms: LEAVE_MS, intervalMs: 25 });
      }
      // One round trip to the page: it returns once the page's handler has run on,
      // unless the handler opens the next dialog first (the report says so).
      await tab.responsive(1000);
    }, { diff: true });
    const label = `${accept ? 'Accepted' : 'Dismissed'} the ${open.type} dialog of tab ${tab.id}${sent}`;
    if (open.type !== 'beforeunload') {
      reportAction(res, report, `${label}.`);
    } else if (accept) {
      reportAction(res, report, `${label} (Leave): ${leavingClause(leaving)} goes on.`);
      if (!report.tabClosed && !report.navigation) {
        const { url, title } = await tab.urlAndTitle();
        res.text(`Tab ${tab.id} is still ${leaving?.kind === 'close' ? 'open ' : ''}at ${url} ${JSON.stringify(title)}: ${leavingClause(leaving)} has not happened yet (list_tabs shows where the tab is).`);
      }
    } else {
      const { url, title } = await tab.urlAndTitle();
      reportAction(res, report, `${label} (Stay): ${leavingClause(leaving)} was cancelled; tab ${tab.id} stays ${leaving?.kind === 'close' ? 'open ' : ''}at ${url} ${JSON.stringify(title)}, with what was entered.`);
      res.set('stayedAt', { url, title });
    }
    if (leaving) res.set('leaving', leaving);
    res.set('answered', answered ?? { ...open, accepted: accept });
  },
});

export const dialogTools = [handleDialog];
