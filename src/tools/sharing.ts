/**
 * share_tabs: the human's side of selective attach on the user's own Chrome (docs/own-browser.md, "Sharing
 * tabs"): list the browser's tabs, share some with the agent, stop sharing. A human's command (`humanOnly`):
 * `tabwright share` and the daemon's /v1 run it, MCP never lists it.
 */
import * as z from 'zod';
import type { UserTab } from '../browser/connection.js';
import { ToolError } from '../errors.js';
import { pollUntil } from '../util/wait.js';
import { defineTool } from './define.js';

/** How long a tab may take to show up as a tabwright tab once shared (or to go once unshared), in ms. */
const SHOW_UP_MS = 5_000;

function line(tab: UserTab, index: number): string {
  const scope = tab.scope === 'shared' ? 'shared' : tab.scope === 'agent' ? "agent's" : 'not shared';
  return `${index + 1}. [${scope}] ${tab.title || '(untitled)'} · ${tab.url} · id ${tab.targetId}`;
}

export const shareTabs = defineTool({
  name: 'share_tabs',
  title: 'Share tabs',
  description: "The user's browser tabs (own-chrome): list them, share some with the agent (by number, id or URL/title text), or stop sharing.",
  needs: ['shareTabs'],
  effect: 'sensitive',
  launchesBrowser: true,
  humanOnly: true,
  input: z.object({
    tabs: z.array(z.string()).optional().describe('Tabs to share: list numbers (1-based), target ids, or text found in the URL or title'),
    all: z.boolean().optional().describe('Every tab of the browser'),
    stop: z.boolean().optional().describe('Stop sharing the named tabs instead'),
  }),
  async handle({ tabs: wanted = [], all, stop }, { session }, res) {
    const sharing = session.connection.sharing!;
    // The session first: shared tabs become tabs through its page listener.
    await session.context();
    const before = await sharing.tabs();
    const chosen = new Set<string>();
    for (const want of wanted) {
      const index = /^\d+$/.test(want) ? Number(want) - 1 : -1;
      const hits = index >= 0 ? before.filter((_, i) => i === index) : before.filter(t => t.targetId === want || t.url.includes(want) || t.title.includes(want));
      if (!hits.length) throw new ToolError('tab_not_found', `No tab of the browser matches "${want}".`, 'Run `tabwright share` without arguments to list the tabs with their numbers.');
      for (const hit of hits) chosen.add(hit.targetId);
    }
    if (all) for (const t of before) chosen.add(t.targetId);
    if (chosen.size) {
      const known = session.openTabs().length;
      const changing = before.filter(t => chosen.has(t.targetId) && (stop ? t.scope : !t.scope)).length;
      await (stop ? sharing.unshare([...chosen]) : sharing.share([...chosen]));
      // Tabs come and go in the session through Playwright's page and close events: wait for them.
      await pollUntil(() => (stop ? session.openTabs().length <= known - changing : session.openTabs().length >= known + changing), { ms: SHOW_UP_MS, intervalMs: 50 });
    }
    const after = await sharing.tabs();
    // Numbered as the text lists them: `tabwright share N` takes these numbers.
    res.set('browserTabs', after.map((tab, i) => ({ number: i + 1, ...tab, scope: tab.scope ?? 'not shared' })));
    res.set('tabs', await Promise.all(session.openTabs().map(tab => tab.info(tab.id === session.activeTabId))));
    if (chosen.size) res.text(`${stop ? 'Stopped sharing' : 'Shared'} ${chosen.size} tab${chosen.size === 1 ? '' : 's'}.`);
    const inScope = after.filter(t => t.scope).length;
    res.text(`The browser has ${after.length} tab${after.length === 1 ? '' : 's'}; ${inScope} ${inScope === 1 ? 'is' : 'are'} shared with the agent or opened by it:`);
    after.forEach((tab, i) => res.text(line(tab, i)));
    if (!chosen.size) res.text('Share with `tabwright share N` (or text of its URL), stop with `tabwright share N --stop`.');
  },
});
