/**
 * get_text: the visible text of a tab, or of one element by ref or CSS
 * selector, for reading without refs (docs/snapshot.md, "Reading text").
 */
import * as z from 'zod';
import { readText } from '../session/pageText.js';
import type { TextResult } from '../page/text.js';
import { plural } from '../util/plural.js';
import { pageReadError } from './actionErrors.js';
import { defineTabTool } from './define.js';
import { ToolError } from '../errors.js';
import { tabIdField } from './schemas.js';
import { readAcrossNavigation } from '../session/nextDocument.js';

/** Characters get_text returns by default. */
const TEXT_DEFAULT_MAX = 20_000;
/** Characters get_text returns at most per call. */
const TEXT_MAX_MAX = 200_000;

export const getText = defineTabTool({
  name: 'get_text',
  title: 'Get visible text',
  description:
    'The visible text of a tab, or of one element (ref, or CSS selector\'s first match), in reading order: one line per block, ' +
    `whitespace collapsed, no field values, same-origin iframes inline. At most maxChars (default ${TEXT_DEFAULT_MAX.toLocaleString('en-US')}); offset reads on.`,
  needs: ['snapshot'],
  effect: 'observe',
  launchesBrowser: true,
  target: 'ref',
  check({ ref, selector }) {
    if (ref && selector) throw new ToolError('invalid_arguments', 'Pass ref or selector, not both.', 'ref names an element from a snapshot; selector is a CSS selector matched in the top document.');
  },
  input: z.object({
    tabId: tabIdField,
    ref: z.string().min(1).max(64).optional().describe('Read this element only (an iframe\'s ref: its document)'),
    selector: z.string().min(1).max(1000).optional().describe('CSS selector: read its first match in the top document'),
    offset: z.number().int().min(0).max(10_000_000).optional().describe('First character to return (as a truncation line says)'),
    maxChars: z.number().int().min(1).max(TEXT_MAX_MAX).optional().describe(`Characters to return at most (default ${TEXT_DEFAULT_MAX})`),
  }),
  async handle(tab, { ref, selector, offset, maxChars }, { session }, res) {
    const max = maxChars ?? TEXT_DEFAULT_MAX;
    const from = offset ?? 0;
    let result: TextResult;
    try {
      // A navigation that replaces the document mid-read: read the new one (a ref's document is gone for good: stale_ref).
      const read = () => readText(session, tab, { ref, selector, offset: from, maxChars: max });
      result = ref ? await read() : await readAcrossNavigation(tab, 15_000, 'read the text', read);
    } catch (error) {
      throw await pageReadError(tab, error, 'read the text', { message: 'Could not read the text within the time limit.', hint: 'The page may be very large or busy; pass a ref or selector to read one part, or try again.' });
    }
    const { url } = await tab.urlAndTitle();
    const end = from + result.text.length;
    const left = Math.max(0, result.total - end);
    const scope = ref ?? (selector ? JSON.stringify(selector) : undefined);
    res.merge({ tabId: tab.id, url, revision: tab.revision, pageText: result.text, offset: from, chars: result.text.length, total: result.total, more: left });
    if (result.crossOrigin) res.set('crossOriginFrames', result.crossOrigin);
    if (result.capped) res.set('capped', true);
    const range = from || left ? ` (characters ${from}–${end} of ${result.total})` : '';
    res.text(`Text of tab ${tab.id}${scope ? `, ${scope}` : ''} · revision ${tab.revision} · ${url}${range}:`);
    res.text(result.text || (from >= result.total && result.total ? `(nothing past character ${result.total})` : '(no visible text)'), { mirrors: 'pageText' });
    if (left) {
      const args = [ref ? `ref: "${ref}"` : '', selector ? `selector: ${JSON.stringify(selector)}` : '', `offset: ${end}`, maxChars ? `maxChars: ${maxChars}` : ''].filter(Boolean).join(', ');
      res.text(`… truncated: ${plural(left, 'more character')}; continue: get_text {${args}}`);
    }
    if (result.crossOrigin) res.text(`${plural(result.crossOrigin, 'cross-origin iframe')} not read: pass its ref (get_page_context shows it) to get_text.`);
    if (result.capped) res.text('The page holds more text than get_text collects (5,000,000 characters); pass a ref or selector to read a later part.');
  },
});
