/**
 * The frame every Harbor Books page shares: header and navigation, the
 * footer with the newsletter sign-up (a declarative WebMCP tool), and the
 * script that registers the imperative one (/app.js).
 */

/** Escapes text for HTML content and attribute values. */
export function esc(text: string | number): string {
  return String(text).replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
}

const NAV: Array<[string, string]> = [
  ['/', 'Home'],
  ['/catalogue', 'Catalogue'],
  ['/journal', 'Journal'],
  ['/visit', 'Visit us'],
];

/**
 * The newsletter form. `toolname` / `tooldescription` make it a declarative
 * WebMCP tool; `toolautosubmit` lets an agent's call submit it without a
 * person pressing the button.
 */
const NEWSLETTER_FORM = `
<form class="newsletter" method="post" action="/newsletter" toolname="join_newsletter"
      tooldescription="Sign a reader up for the Harbor Books monthly newsletter (new arrivals, secondhand finds, events)." toolautosubmit>
  <h2 id="newsletter-heading">The monthly letter</h2>
  <p>One email a month: what came in, what we are reading, what is on at the shop.</p>
  <label for="nl-name">Your name</label>
  <input id="nl-name" name="name" autocomplete="name" required toolparamdescription="The reader's name, as it should appear in the greeting">
  <label for="nl-email">Email address</label>
  <input id="nl-email" name="email" type="email" autocomplete="email" required toolparamdescription="Where the newsletter is sent">
  <label for="nl-interest">Most interested in</label>
  <select id="nl-interest" name="interest" toolparamdescription="Which section of the letter to put first">
    <option value="new">New releases</option>
    <option value="secondhand">Secondhand arrivals</option>
    <option value="events">Readings and events</option>
  </select>
  <button type="submit">Subscribe</button>
</form>`;

/** A complete page: `title` goes in <title> (after the shop name), `main` is trusted HTML. */
export function layout(path: string, title: string, main: string): string {
  const nav = NAV.map(([href, label]) =>
    `<li><a href="${href}"${href === path ? ' aria-current="page"' : ''}>${esc(label)}</a></li>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Harbor Books</title>
<link rel="stylesheet" href="/style.css">
<link rel="icon" href="data:,">
<script src="/app.js" defer></script>
</head>
<body>
<header class="masthead">
  <a class="brand" href="/">Harbor Books</a>
  <nav aria-label="Main"><ul>${nav}</ul></nav>
  <p class="basket" aria-live="polite">Basket: <span id="basket-count">0</span> books</p>
</header>
<main id="content">
${main}
</main>
<footer>
${NEWSLETTER_FORM}
  <address>Harbor Books, 4 Quay Street · Open Tuesday to Sunday, 9:30 to 17:30</address>
</footer>
</body>
</html>`;
}
