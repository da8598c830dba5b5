/** get_page_context: the compact accessibility snapshot agents read. */
import * as z from 'zod';
import { plural } from '../util/plural.js';
import { DEFAULT_BUDGET, DEFAULT_LIMIT, FILE_BUDGET, takeSnapshot, type Snapshot } from '../session/snapshot.js';
import { pageReadError } from './actionErrors.js';
import { reportFileChooser } from './actionReport.js';
import { INLINE_TEXT_CAP, stamp, writeArtifact } from './artifacts.js';
import { takeRemoteSnapshot } from '../session/remoteSnapshot.js';
import type { CallContext } from './context.js';
import { defineTabTool } from './define.js';
import { ToolError } from '../errors.js';
import type { ToolResponse } from './response.js';
import { outputField, tabIdField } from './schemas.js';
import type { ElementCounts } from '../page/snapshot.js';

/**
 * The budget of an `interactive` snapshot (characters, the walker's estimate): half the full level's, so a page
 * whose actionable elements do not fit is paged (DEFAULT_LIMIT per container) and the level stays cheaper than full.
 */
export const INTERACTIVE_BUDGET = DEFAULT_BUDGET / 2;

/** Outline lines a `summary` shows at most (headings and landmarks); the rest are counted on a closing line. */
export const SUMMARY_MAX_LINES = 80;

/** The counts line of a summary: `12 links, 3 buttons, 4 fields, 1 other actionable, 1 form`. */
function countsLine(c: ElementCounts): string {
  return [plural(c.links, 'link'), plural(c.buttons, 'button'), plural(c.fields, 'field'), ...(c.other ? [`${c.other} other actionable`] : []), plural(c.forms, 'form')].join(', ');
}

/** Landmark and heading lines of a snapshot: the outline a file summary shows. */
function outline(snapshot: string, max = 30): string[] {
  const lines = snapshot.split('\n').filter(l => /^\s*- (heading|navigation|main|banner|contentinfo|complementary|form|search|region|dialog|table)\b/.test(l));
  return lines.slice(0, max);
}

export const getPageContext = defineTabTool({
  name: 'get_page_context',
  title: 'Get page context',
  description:
    'Snapshot of a tab: a compact accessibility tree (`- role "name" [ref=e12]` lines), a ref on every actionable element for the element tools. ' +
    'Refs last until the document is replaced (navigation, reload). A page too big for one snapshot shows long containers\' first items ' +
    'and paging lines (get_page_context {ref, offset}); selector or ref narrows it. level "summary" (outline and counts) or "interactive" (actionable elements only) costs fewer tokens.',
  needs: ['snapshot'],
  effect: 'observe',
  launchesBrowser: true,
  target: 'ref',
  check({ ref, selector, offset }) {
    if (offset !== undefined && !ref && !selector) throw new ToolError('invalid_arguments', 'offset pages through the children of one element: pass it with ref (or selector).', 'Copy the get_page_context call from the paging line of a snapshot.');
  },
  input: z.object({
    tabId: tabIdField,
    selector: z.string().min(1).max(1000).optional().describe('CSS selector of the part to snapshot (first match), e.g. "main"; with ref, under it (an iframe: inside)'),
    ref: z.string().min(1).max(64).optional()
      .describe('Snapshot only this element (e.g. a container a paging line names), with its full text'),
    offset: z.number().int().min(0).max(10_000_000).optional()
      .describe('With ref or selector: skip this many children (as a paging line says)'),
    limit: z.number().int().min(1).max(100_000).optional()
      .describe(`Children per container before a paging line (default: all that fit, else ${DEFAULT_LIMIT})`),
    urls: z.boolean().optional().describe('Show link URLs'),
    level: z.enum(['summary', 'interactive', 'full']).optional()
      .describe('summary: outline (headings, landmarks with refs) and counts; interactive: actionable elements with refs and their headings; full (default): everything'),
    output: outputField,
  }),
  async remote(tabs, tab, { selector, ref, offset, limit, urls, level, output }, { session, config, signal }, res) {
    const mode = output ?? config.output;
    const snap = await takeRemoteSnapshot(session, tabs, tab, { selector, ref, offset, limit, urls, level, budget: mode === 'file' ? REMOTE_FILE_BUDGET : level === 'interactive' ? INTERACTIVE_BUDGET : DEFAULT_BUDGET }, signal);
    const header = contextHeader(tab.tabId, snap.revision, tab.url, tab.title, selector, ref, offset);
    if (level === 'summary') {
      summarize(res, header, snap);
      res.merge({ tabId: tab.tabId, url: tab.url, title: tab.title });
      return;
    }
    render(res, header, snap, { tabId: tab.tabId, url: tab.url, title: tab.title, level, mode, workspace: config.workspace });
  },
  async handle(tab, { selector, ref, offset, limit, urls, level, output }, ctx, res) {
    const { session, config } = ctx;
    let snap: Snapshot;
    const mode = output ?? config.output;
    // URL and title come from the browser, not the page (Tab.urlAndTitle): asked while the page snapshots, they cost
    // no round trip of their own (a round trip is most of a snapshot's time through the extension, docs/own-browser.md
    // "Speed"); asked again when the snapshot is of a document that replaced the one they were asked on.
    const asked = tab.instanceId;
    const location = tab.urlAndTitle();
    location.catch(() => undefined); // awaited below, or not at all when the snapshot fails or is of a newer document
    try {
      snap = await takeSnapshot(session, tab, { selector, ref, offset, limit, urls, level, budget: mode === 'file' ? FILE_BUDGET : level === 'interactive' ? INTERACTIVE_BUDGET : DEFAULT_BUDGET });
    } catch (error) {
      throw await pageReadError(tab, error, 'take a snapshot', { message: 'Could not take a snapshot within the time limit.', hint: 'The page may be very large or busy; pass a selector to snapshot one part, or try again.' });
    }
    const { url, title } = snap.instanceId === asked ? await location : await tab.urlAndTitle();
    const header = contextHeader(tab.id, snap.revision, url, title, selector, ref, offset);
    if (level === 'summary') {
      summarize(res, header, snap);
      res.merge({ tabId: tab.id, url, title });
      return;
    }
    // A chooser that opened after the last action returned (a page that opens it late) is told here if no action told of it.
    await tab.fileChoosers.delivered();
    const chooser = tab.fileChoosers.takeUnreported(tab.instanceId);
    render(res, header, snap, {
      tabId: tab.id, url, title, level, mode, workspace: config.workspace,
      late: chooser && (() => reportFileChooser(res, { multiple: chooser.chooser.isMultiple(), ref: chooser.openedBy, late: true })),
    });
    if (startedForThisCall(ctx)) res.set('browserStarted', true).text(config.isolated ? `${FRESH_BROWSER_NOTE} ${ISOLATED_NOTE}` : FRESH_BROWSER_NOTE);
  },
});

/**
 * Said with the snapshot of a browser that started with this very call (docs/clients.md, "One-shot clients"): a
 * client that starts `tabwright mcp` anew for each call gets a new browser each time, so what the last call did is
 * gone; a running daemon keeps one browser that every `tabwright mcp` joins (docs/relay.md).
 */
export const FRESH_BROWSER_NOTE = 'The browser started with this call: nothing from earlier calls is in it. A client that starts tabwright anew for each call (mcporter\'s default mode, the Inspector CLI) gets a new browser every time; run `tabwright daemon start` once so every call works in one browser that stays.';

/** Added for a server with `--isolated`, which never joins a daemon's browser (docs/relay.md). */
export const ISOLATED_NOTE = 'This server runs with --isolated (a temporary profile), which never joins the daemon: leave --isolated out for that.';

/**
 * Whether the call started the managed browser in its own process over MCP stdio (a one-shot client's way; the CLI
 * and HTTP use the daemon's). A call a follower relayed started the leader's (the daemon's) browser: it already
 * works in the browser that stays, and is not told to start the daemon.
 */
function startedForThisCall(ctx: CallContext): boolean {
  return ctx.client.front === 'mcp-stdio' && ctx.relay.role !== 'follower' && ctx.session.connection.kind === 'launch' && ctx.browserStartedByCall?.() === true;
}

/** A remote tab's snapshot budget with output: file (its JSON must stay within execute's 2 MiB). */
const REMOTE_FILE_BUDGET = 1_500_000;

/** The first lines of a snapshot: tab, revision, URL, title, and the scope when there is one. */
function contextHeader(tabId: number, revision: number, url: string, title: string, selector?: string, ref?: string, offset?: number): string {
  return `Tab ${tabId} · revision ${revision} · ${url}\nTitle: ${title}${selector ? `\nScope: ${ref ? `${ref}, ` : ''}${selector}` : ref ? `\nScope: ${ref}${offset ? `, from child ${offset}` : ''}` : ''}`;
}

/**
 * A snapshot's result (levels full and interactive): inline when it fits (or is asked for), else written to the
 * workspace with its outline. `late` tells of a file chooser that opened after the last action, after the header.
 */
function render(res: ToolResponse, header: string, snap: Snapshot, o: { tabId: number; url: string; title: string; level?: string; mode: string; workspace: string; late?: () => void }): void {
  const bytes = Buffer.byteLength(snap.text);
  res.merge({ tabId: o.tabId, url: o.url, title: o.title, revision: snap.revision, instanceId: snap.instanceId, refCount: snap.refCount, bytes });
  if (o.level) res.set('level', o.level);
  if (o.mode === 'inline' || (o.mode === 'auto' && bytes <= INLINE_TEXT_CAP)) {
    res.set('snapshot', snap.text).text(header);
    o.late?.();
    res.text(`\n${snap.text}`, { mirrors: 'snapshot' });
    return;
  }
  const path = writeArtifact(o.workspace, 'context', `tab${o.tabId}-r${snap.revision}-${stamp()}.yaml`, `# ${header.replace(/\n/g, '\n# ')}\n${snap.text}\n`);
  res.set('path', path);
  const why = o.mode === 'file' ? 'as asked (output: file)' : `because it is ${Math.round(bytes / 1024)} KB, over the ${INLINE_TEXT_CAP / 1024} KB inline cap`;
  res.text(`${header}\n\nSnapshot written to ${path} ${why}: ${plural(snap.text.split('\n').length, 'line')}, ${plural(snap.refCount, 'ref')}, ${plural(bytes, 'byte')}.`);
  o.late?.();
  const lines = outline(snap.text);
  if (lines.length) res.text(`Outline (pass a selector to get_page_context to snapshot one part inline):\n${lines.join('\n')}`);
}

/**
 * The `summary` level's result: the header, the counts, and the outline of
 * headings and landmarks cut at SUMMARY_MAX_LINES (always inline: it is small).
 */
function summarize(res: ToolResponse, header: string, snap: Snapshot): void {
  const all = snap.text ? snap.text.split('\n') : [];
  const lines = all.slice(0, SUMMARY_MAX_LINES);
  const counts = snap.counts ?? { links: 0, buttons: 0, fields: 0, other: 0, forms: 0 };
  const outlineText = lines.join('\n');
  res.merge({ revision: snap.revision, instanceId: snap.instanceId, level: 'summary', counts, refCount: outlineText.split('[ref=').length - 1, snapshot: outlineText });
  if (all.length > lines.length) res.set('outlineMore', all.length - lines.length);
  res.text(`${header}\nLevel: summary · ${countsLine(counts)}`);
  res.text(lines.length ? `Outline (headings; landmarks with refs):\n${outlineText}` : 'Outline: no headings or landmarks.');
  if (all.length > lines.length) res.text(`… ${plural(all.length - lines.length, 'more outline line')}: pass a landmark's ref (get_page_context {ref, level: "interactive"}) to read one part.`);
  res.text('Next: get_page_context {level: "interactive"} lists what can be acted on, with refs; {ref, level} reads one landmark.');
}
