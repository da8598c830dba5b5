/**
 * The Harbor Books pages (demo site). Each function returns a complete HTML
 * document built with `layout`; everything user-supplied goes through `esc`.
 */
import { ARTICLES, type Article } from './journal.js';
import { BOOKS, formatPrice, searchBooks, type Book } from './catalogue.js';
import { esc, layout } from './layout.js';

const INTERESTS: Record<string, string> = { new: 'new releases', secondhand: 'secondhand arrivals', events: 'readings and events' };

function searchForm(query = ''): string {
  return `<form role="search" class="search" action="/search" method="get">
  <label for="q">Search the catalogue</label>
  <input id="q" name="q" type="search" value="${esc(query)}" placeholder="Title, author or subject">
  <button type="submit">Search</button>
</form>`;
}

function bookTable(books: readonly Book[], caption: string): string {
  const rows = books.map(b => `<tr>
  <td><a href="/books/${esc(b.code)}">${esc(b.title)}</a></td><td>${esc(b.author)}</td><td>${esc(b.subject)}</td>
  <td>${formatPrice(b.price)}</td><td>${b.stock ? `${b.stock} on the shelf` : 'On order'}</td>
  <td><button type="button" class="add" data-code="${esc(b.code)}" aria-label="Add ${esc(b.title)} to basket">Add to basket</button></td>
</tr>`).join('\n');
  return `<table class="books"><caption>${esc(caption)}</caption>
<thead><tr><th scope="col">Title</th><th scope="col">Author</th><th scope="col">Subject</th><th scope="col">Price</th><th scope="col">Availability</th><th scope="col"><span class="sr">Basket</span></th></tr></thead>
<tbody>
${rows}
</tbody></table>`;
}

/** `/`: welcome, search, new arrivals and the latest journal entries. */
export function homePage(): string {
  const fresh = [...BOOKS].sort((a, b) => b.year - a.year).slice(0, 3);
  const journal = ARTICLES.map(a => `<li><a href="/journal/${esc(a.slug)}">${esc(a.title)}</a> — ${esc(a.summary)}</li>`).join('');
  return layout('/', 'Home', `
<h1>Books for people who live by the sea</h1>
<p class="lead">New and secondhand books on the harbour since 1987: maritime history, nature, fiction and cookery, shelved by hand and found in seconds.</p>
${searchForm()}
<section aria-labelledby="new-heading">
  <h2 id="new-heading">New on the shelves</h2>
  <ul class="cards">${fresh.map(b => `<li><a href="/books/${esc(b.code)}">${esc(b.title)}</a><br>${esc(b.author)} · ${formatPrice(b.price)}</li>`).join('')}</ul>
  <p><a href="/catalogue">Browse the whole catalogue</a></p>
</section>
<section aria-labelledby="journal-heading">
  <h2 id="journal-heading">From the journal</h2>
  <ul>${journal}</ul>
</section>`);
}

/** `/catalogue`: every book in a table. */
export function cataloguePage(): string {
  return layout('/catalogue', 'Catalogue', `
<h1>Catalogue</h1>
<p>${BOOKS.length} titles, ${BOOKS.filter(b => b.stock > 0).length} of them on the shelf today. Books on order arrive within the week.</p>
${searchForm()}
${bookTable(BOOKS, 'All titles')}`);
}

/** `/books/<code>`: one book, or undefined for an unknown code. */
export function bookPage(code: string): string | undefined {
  const book = BOOKS.find(b => b.code === code);
  if (!book) return undefined;
  return layout(`/books/${book.code}`, book.title, `
<article class="book">
  <h1>${esc(book.title)}</h1>
  <p class="byline">${esc(book.author)} · ${book.year} · ${esc(book.subject)}</p>
  <p>${esc(book.blurb)}</p>
  <p><strong>${formatPrice(book.price)}</strong> — ${book.stock ? `${book.stock} on the shelf` : 'on order, in the shop within the week'}. Stock code ${esc(book.code)}.</p>
  <button type="button" class="add" data-code="${esc(book.code)}">Add to basket</button>
</article>
<p><a href="/catalogue">Back to the catalogue</a></p>`);
}

/** `/journal`: the list of articles. */
export function journalPage(): string {
  const items = ARTICLES.map(a => `<li><h2><a href="/journal/${esc(a.slug)}">${esc(a.title)}</a></h2><p>${esc(a.summary)}</p><p class="byline">${esc(a.author)}, ${esc(a.date)}</p></li>`).join('');
  return layout('/journal', 'Journal', `<h1>The Harbor Books journal</h1><ul class="journal">${items}</ul>`);
}

/** `/journal/<slug>`: one article, or undefined. */
export function articlePage(slug: string): string | undefined {
  const article: Article | undefined = ARTICLES.find(a => a.slug === slug);
  if (!article) return undefined;
  return layout(`/journal/${slug}`, article.title, `
<article>
  <h1>${esc(article.title)}</h1>
  <p class="byline">${esc(article.author)} · <time datetime="${esc(article.date)}">${esc(article.date)}</time></p>
  ${article.paragraphs.map(p => `<p>${esc(p)}</p>`).join('\n  ')}
</article>
<p><a href="/journal">More from the journal</a></p>`);
}

/** `/visit`: address and opening hours. */
export function visitPage(): string {
  return layout('/visit', 'Visit us', `
<h1>Visit us</h1>
<p>We are at 4 Quay Street, opposite the ferry steps. The harbour-side door is closed for repairs this month; please use the Quay Street entrance.</p>
<table><caption>Opening hours</caption><tbody>
<tr><th scope="row">Monday</th><td>Closed</td></tr>
<tr><th scope="row">Tuesday to Saturday</th><td>9:30 to 17:30</td></tr>
<tr><th scope="row">Sunday</th><td>11:00 to 16:00</td></tr>
</tbody></table>`);
}

/** `/search?q=`: the books matching `query`; the page repeats the query so a caller can check it. */
export function searchPage(query: string): string {
  const found = searchBooks(query);
  const count = `${found.length} book${found.length === 1 ? '' : 's'}`;
  return layout('/search', `Search: ${query}`, `
<h1>Search results</h1>
<p id="query-echo">You searched for “${esc(query)}”: ${count}.</p>
${searchForm(query)}
${found.length ? bookTable(found, `Books matching “${query}”`) : '<p>Nothing matches; try a shorter word, or ask at the counter.</p>'}`);
}

/** The page after a newsletter sign-up (POST /newsletter), repeating what was submitted. */
export function newsletterThanksPage(fields: URLSearchParams): string {
  const name = fields.get('name')?.trim() || 'reader';
  const email = fields.get('email')?.trim() ?? '';
  const interest = INTERESTS[fields.get('interest') ?? ''] ?? INTERESTS.new!;
  return layout('/newsletter', 'Subscribed', `
<h1>Welcome aboard, ${esc(name)}</h1>
<p id="signup-echo">The monthly letter will go to ${esc(email)}, with ${esc(interest)} first.</p>
<p><a href="/">Back to the shop</a></p>`);
}

/** The 404 page. */
export function notFoundPage(path: string): string {
  return layout(path, 'Not found', `<h1>Not on our shelves</h1><p>There is no page at ${esc(path)}. Try the <a href="/catalogue">catalogue</a>.</p>`);
}
