/** get_page_context: the compact accessibility snapshot agents read. */
import * as z from 'zod';
import { plural } from '../util/plural.js';
import { DEFAULT_BUDGET, DEFAULT_LIMIT, FILE_BUDGET, takeSnapshot, type Snapshot } from '../session/snapshot.js';
import { pageReadError } from './actionErrors.js';
import { reportFileChooser } from './actionReport.js';
import { INLINE_TEXT_CAP, stamp, writeArtifact } from './artifacts.js';
import { defineTabTool } from './define.js';
import { ToolError } from '../errors.js';
import { outputField, tabIdField } from './schemas.js';

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
    'and paging lines (get_page_context {ref, offset}); selector or ref narrows it.',
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
    output: outputField,
  }),
  async handle(tab, { selector, ref, offset, limit, urls, output }, { session, config }, res) {
    let snap: Snapshot;
    const mode = output ?? config.output;
    try {
      snap = await takeSnapshot(session, tab, { selector, ref, offset, limit, urls, budget: mode === 'file' ? FILE_BUDGET : DEFAULT_BUDGET });
    } catch (error) {
      throw await pageReadError(tab, error, 'take a snapshot', { message: 'Could not take a snapshot within the time limit.', hint: 'The page may be very large or busy; pass a selector to snapshot one part, or try again.' });
    }
    const { url, title } = await tab.urlAndTitle();
    const header = `Tab ${tab.id} · revision ${snap.revision} · ${url}\nTitle: ${title}${selector ? `\nScope: ${ref ? `${ref}, ` : ''}${selector}` : ref ? `\nScope: ${ref}${offset ? `, from child ${offset}` : ''}` : ''}`;
    const bytes = Buffer.byteLength(snap.text);
    res.merge({ tabId: tab.id, url, title, revision: snap.revision, instanceId: snap.instanceId, refCount: snap.refCount, bytes });
    // A chooser that opened after the last action returned (a page that opens it late) is told here if no action told of it.
    await tab.fileChoosers.delivered();
    const chooser = tab.fileChoosers.takeUnreported(tab.instanceId);
    const lateChooser = () => {
      if (chooser) reportFileChooser(res, { multiple: chooser.chooser.isMultiple(), ref: chooser.openedBy, late: true });
    };
    if (mode === 'inline' || (mode === 'auto' && bytes <= INLINE_TEXT_CAP)) {
      res.set('snapshot', snap.text).text(header);
      lateChooser();
      res.text(`\n${snap.text}`, { mirrors: 'snapshot' });
      return;
    }
    const path = writeArtifact(config.workspace, 'context', `tab${tab.id}-r${snap.revision}-${stamp()}.yaml`, `# ${header.replace(/\n/g, '\n# ')}\n${snap.text}\n`);
    res.set('path', path);
    const why = mode === 'file' ? 'as asked (output: file)' : `because it is ${Math.round(bytes / 1024)} KB, over the ${INLINE_TEXT_CAP / 1024} KB inline cap`;
    res.text(`${header}\n\nSnapshot written to ${path} ${why}: ${plural(snap.text.split('\n').length, 'line')}, ${plural(snap.refCount, 'ref')}, ${plural(bytes, 'byte')}.`);
    lateChooser();
    const lines = outline(snap.text);
    if (lines.length) res.text(`Outline (pass a selector to get_page_context to snapshot one part inline):\n${lines.join('\n')}`);
  },
});
