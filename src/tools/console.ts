/** get_console_context: console messages and uncaught errors per tab. */
import * as z from 'zod';
import { defineTabTool } from './define.js';
import { tabIdField } from './schemas.js';

export const getConsoleContext = defineTabTool({
  name: 'get_console_context',
  title: 'Get console messages',
  description:
    'Console messages and uncaught errors of a tab since document start (the newest 1000 kept), with level, source and time. ' +
    'Pass the returned lastSeq as since to read only what is new.',
  needs: ['console'],
  effect: 'observe',
  launchesBrowser: true,
  target: 'tab',
  // The buffer is read without touching the page, so an open dialog does not stand in the way, nor a crash (what the
  // page logged before it crashed is what tells why).
  dialogOk: true,
  crashed: 'as-is',
  input: z.object({
    tabId: tabIdField,
    level: z.enum(['debug', 'log', 'info', 'warning', 'error']).optional().describe('Minimum level (default debug: everything)'),
    since: z.number().int().min(0).optional().describe('Only entries with seq greater than this (lastSeq of an earlier call)'),
    limit: z.number().int().min(1).max(1000).optional().describe('At most this many entries, the newest (default 100)'),
  }),
  async handle(tab, { level, since, limit }, _ctx, res) {
    const { entries, dropped } = tab.console.query({ level, since, limit });
    res.merge({ tabId: tab.id, entries, lastSeq: tab.console.lastSeq, omitted: dropped });
    res.text(`${entries.length} console entr${entries.length === 1 ? 'y' : 'ies'} from tab ${tab.id}${dropped ? ` (${dropped} older ones omitted; raise limit)` : ''}; lastSeq ${tab.console.lastSeq}.`);
    for (const e of entries) {
      const where = e.source ? ` (${e.source.url}:${e.source.line}:${e.source.column})` : '';
      res.text(`#${e.seq} ${new Date(e.timestamp).toISOString()} ${e.level}${e.kind === 'exception' ? ' [uncaught]' : ''}: ${e.text}${where}`);
    }
  },
});
