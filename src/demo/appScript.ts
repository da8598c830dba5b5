/**
 * /app.js of the demo site: the shop's own page script. It logs a little to
 * the console (so get_console_context has something real to show), runs
 * the basket buttons, and registers the imperative WebMCP tool
 * `search_catalog`, which answers from the shop's JSON API (/api/books).
 */
import { BOOKS } from './catalogue.js';

/** Name of the imperative WebMCP tool /app.js registers. */
export const SEARCH_TOOL = 'search_catalog';

/** The page script, as served. */
export function appScript(): string {
  const onShelf = BOOKS.filter(b => b.stock > 0).length;
  return `'use strict';
(() => {
  console.info('Harbor Books: catalogue ready, ${BOOKS.length} titles, ${onShelf} on the shelf today.');
  console.warn('Harbor Books: the harbour-side door is closed for repairs; the Quay Street entrance is open.');

  const counter = document.getElementById('basket-count');
  const show = () => { if (counter) counter.textContent = sessionStorage.getItem('basket') || '0'; };
  show();
  for (const button of document.querySelectorAll('button.add')) {
    button.addEventListener('click', () => {
      sessionStorage.setItem('basket', String(Number(sessionStorage.getItem('basket') || 0) + 1));
      show();
      console.log('Harbor Books: added ' + button.dataset.code + ' to the basket.');
    });
  }

  const modelContext = document.modelContext || navigator.modelContext;
  if (!modelContext || typeof modelContext.registerTool !== 'function') {
    console.info('Harbor Books: this browser has no WebMCP, so ${SEARCH_TOOL} is not offered.');
    return;
  }
  modelContext.registerTool({
    name: '${SEARCH_TOOL}',
    description: 'Search the Harbor Books catalogue by title, author or subject. Returns the matching books with author, price, stock code and availability.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 200, description: 'Words to look for in titles, authors and subjects, e.g. "tides" or "maritime history"' },
        maxResults: { type: 'integer', minimum: 1, maximum: 10, description: 'At most this many books (default 5)' },
        inStockOnly: { type: 'boolean', description: 'Only books on the shelf today (default false)' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    async execute({ query, maxResults = 5, inStockOnly = false }) {
      console.info('Harbor Books: ${SEARCH_TOOL} was called through WebMCP.');
      const response = await fetch('/api/books?q=' + encodeURIComponent(query));
      let books = await response.json();
      if (inStockOnly) books = books.filter(b => b.stock > 0);
      const shown = books.slice(0, maxResults);
      if (!shown.length) return { content: [{ type: 'text', text: 'No books match "' + query + '".' }] };
      const lines = shown.map(b => '- ' + b.title + ' by ' + b.author + ' (' + b.year + '), £' + b.price.toFixed(2) + ', ' +
        (b.stock ? b.stock + ' on the shelf' : 'on order') + ' [' + b.code + ']');
      const more = books.length > shown.length ? '\\n(' + (books.length - shown.length) + ' more; raise maxResults)' : '';
      return { content: [{ type: 'text', text: books.length + ' book' + (books.length === 1 ? '' : 's') + ' match "' + query + '":\\n' + lines.join('\\n') + more }] };
    },
  });
})();
`;
}
