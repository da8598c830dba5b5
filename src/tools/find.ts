/**
 * find: elements by text, role and accessible name, or CSS selector, in
 * every frame of a tab (src/session/find.ts), each with a ref, so text a
 * snapshot shows without a ref (a cell, a status line) can be scoped to,
 * read with `execute {ref}` or clicked.
 */
import * as z from 'zod';
import { findElements, type Found, type FindOutcome } from '../session/find.js';
import { pageReadError } from './actionErrors.js';
import { defineTabTool } from './define.js';
import { ToolError } from '../errors.js';
import { tabIdField } from './schemas.js';
import { readAcrossNavigation } from '../session/nextDocument.js';

export const FIND_DEFAULT_LIMIT = 10;
export const FIND_MAX_LIMIT = 50;

/** One match as a line: `- role "name" [ref=e4] in iframe e2: text`. */
export function formatFound(f: Found): string {
  return `- ${f.role}${f.name ? ` ${JSON.stringify(f.name)}` : ''} [ref=${f.ref}]${f.frame ? ` in iframe ${f.frame}` : ''}${f.text ? `: ${f.text}` : ''}`;
}

/** The query in words: `text "4242", role row`. */
function queryLabel(q: { text?: string; exact?: boolean; role?: string; name?: string; selector?: string }): string {
  const parts: string[] = [];
  if (q.text !== undefined) parts.push(`${q.exact ? 'exact ' : ''}text ${JSON.stringify(q.text)}`);
  if (q.role !== undefined) parts.push(`role ${q.role}`);
  if (q.name !== undefined) parts.push(`${q.exact ? 'exact ' : ''}name ${JSON.stringify(q.name)}`);
  if (q.selector !== undefined) parts.push(`selector ${JSON.stringify(q.selector)}`);
  return parts.join(', ');
}

/** The lines that say why nothing matched and what nearly did. */
function noMatchLines(found: FindOutcome, q: { text?: string; exact?: boolean; role?: string; name?: string; selector?: string }): string[] {
  const lines: string[] = [];
  if (found.roles) lines.push(`No element has role ${q.role} here; roles present: ${found.roles.map(([r, n]) => `${r} ${n}`).join(', ')}.`);
  if (found.near.length) {
    const what = q.role !== undefined ? `Elements with role ${q.role}` : q.exact ? 'Elements that hold it in another case or with more text' : 'Elements with a word of it';
    lines.push(`${what} (refs usable as they are):`, ...found.near.map(formatFound));
  }
  if (found.hidden) lines.push(`${found.hidden} element${found.hidden > 1 ? 's match' : ' matches'} but ${found.hidden > 1 ? 'are' : 'is'} hidden (display: none); the snapshot does not show ${found.hidden > 1 ? 'them' : 'it'} either.`);
  return lines;
}

export const find = defineTabTool({
  name: 'find',
  title: 'Find elements',
  description:
    'Find elements by text, role and name, or CSS selector, across frames or under a ref (an iframe\'s: inside it). ' +
    'Each match gets a ref, plain text too (a cell, a status line), for execute, click, get_page_context.',
  needs: ['snapshot'],
  effect: 'observe',
  launchesBrowser: true,
  target: 'ref',
  check({ text, role, name, selector }) {
    if (!text && !role && !name && !selector) {
      throw new ToolError('invalid_arguments', 'Say what to find: text, role, name or selector (not empty).', 'E.g. find {text: "ending in 4242"}, find {role: "button", name: "Save"} or find {selector: "#total"}.');
    }
    for (const [field, value] of Object.entries({ text, role, name, selector })) {
      if (value !== undefined && !value.trim()) throw new ToolError('invalid_arguments', `${field} is empty.`, `Leave ${field} out, or pass what to match.`);
    }
  },
  input: z.object({
    tabId: tabIdField,
    text: z.string().max(1000).optional().describe('Text shown (substring, any case)'),
    role: z.string().max(40).optional().describe('Snapshot role: button, cell…'),
    name: z.string().max(1000).optional().describe('Accessible name (substring)'),
    selector: z.string().max(1000).optional().describe('CSS selector'),
    exact: z.boolean().optional().describe('text and name: whole, case-sensitive'),
    ref: z.string().max(64).optional().describe('Search under this ref'),
    limit: z.number().int().min(1).max(FIND_MAX_LIMIT).optional().describe(`Default ${FIND_DEFAULT_LIMIT}`),
  }),
  async handle(tab, input, { session }, res) {
    const { text, role, name, selector, exact, ref } = input;
    const limit = input.limit ?? FIND_DEFAULT_LIMIT;
    let found: FindOutcome;
    try {
      // A navigation that replaces the document mid-search: search the new one (a ref's document is gone for good).
      const search = () => findElements(session, tab, { text, role, name, selector, exact, ref, limit });
      found = ref ? await search() : await readAcrossNavigation(tab, 15_000, 'search the page', search);
    } catch (error) {
      throw await pageReadError(tab, error, 'search the page', { message: 'The search did not finish within the time limit.', hint: 'The page may be very large or busy; narrow it with ref, or try again.' });
    }
    const where = ref ? `under ${ref}` : 'on the page';
    const q = { text, exact, role, name, selector };
    const more = found.total - found.matches.length;
    res.merge({ tabId: tab.id, revision: found.revision, total: found.total, more, matches: found.matches });
    if (found.near.length) res.set('near', found.near);
    if (found.roles) res.set('roles', Object.fromEntries(found.roles));
    if (found.hidden) res.set('hidden', found.hidden);
    if (found.unsearched) res.set('unsearched', found.unsearched);
    const unsearched = found.unsearched
      ? `${found.unsearched} cross-origin frame${found.unsearched > 1 ? 's' : ''} could not be searched (not loaded yet, or gone); try again once loaded.`
      : '';
    if (!found.total) {
      res.text(`No element matches ${queryLabel(q)} ${where} (tab ${tab.id}, revision ${found.revision}).`);
      for (const line of noMatchLines(found, q)) res.text(line);
      if (unsearched) res.text(unsearched);
      return;
    }
    res.text(`${found.total} element${found.total > 1 ? 's match' : ' matches'} ${queryLabel(q)} ${where} (tab ${tab.id}, revision ${found.revision})${more ? `; the first ${found.matches.length}` : ''}:`);
    res.text(found.matches.map(formatFound).join('\n'));
    if (more) res.text(`… ${more} more: narrow the query (role, name, exact, ref) or raise limit (up to ${FIND_MAX_LIMIT}).`);
    if (unsearched) res.text(unsearched);
  },
});
