/**
 * The pages the bench drives, generated here (deterministic: the same bytes
 * every run), and the loopback server that serves them on 127.0.0.1 along
 * with the real pages of `--corpus DIR` (read from DIR at request time,
 * never copied).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';

/** A page the bench visits. */
export interface BenchPage {
  id: string;
  kind: 'generated' | 'corpus';
  description: string;
  path: string;
}

/** A tiny deterministic PRNG (mulberry32), so generated pages are identical across runs. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'harbor ledger quartz meadow signal copper lantern orbit willow summit ember delta falcon prism canyon atlas cobalt maple nova river'.split(' ');

function words(next: () => number, n: number): string {
  return Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
}

const HEAD = (title: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body{font:14px system-ui,sans-serif;margin:0}nav,main,footer{padding:8px 16px}nav a{margin-right:12px}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}label{display:block;margin:6px 0}</style></head><body>`;

/** Login form: two text fields, a checkbox, a button (counts its clicks into body[data-clicks]) and a link. */
export function loginPage(): string {
  return `${HEAD('Sign in · Bench')}
<main><h1>Sign in</h1>
<form id="login" onsubmit="event.preventDefault()">
<label for="user">Username</label><input id="user" name="user" autocomplete="username">
<label for="pass">Password</label><input id="pass" name="pass" type="password" autocomplete="current-password">
<label><input id="remember" type="checkbox"> Remember me</label>
<button id="signin" type="button">Sign in</button>
</form>
<p id="status" role="status"></p>
<p><a href="/gen/help">Forgot your password?</a></p></main>
<script>
let clicks = 0;
document.getElementById('signin').addEventListener('click', () => {
  clicks++;
  document.body.dataset.clicks = String(clicks);
  document.getElementById('status').textContent = 'Signing in as ' + document.getElementById('user').value;
});
</script></body></html>`;
}

/** Medium app page: a nav, 50 links, a search form and a 200-row table with a button per row. */
export function appPage(): string {
  const next = rng(42);
  const nav = ['Dashboard', 'Orders', 'Customers', 'Products', 'Reports', 'Settings', 'Help', 'Sign out']
    .map(n => `<a href="/app/${n.toLowerCase().replace(/ /g, '-')}">${n}</a>`).join('');
  const links = Array.from({ length: 50 }, (_, i) => `<li><a href="/app/articles/${1000 + i}?ref=sidebar&amp;utm_source=bench">${words(next, 3)}</a></li>`).join('');
  const rows = Array.from({ length: 200 }, (_, i) => {
    const status = ['Open', 'Shipped', 'Held', 'Closed'][i % 4];
    return `<tr><td>#${5000 + i}</td><td>${words(next, 2)}</td><td>${status}</td><td>$${(next() * 900 + 10).toFixed(2)}</td><td><button type="button" data-order="${5000 + i}">Open order ${5000 + i}</button></td></tr>`;
  }).join('\n');
  return `${HEAD('Orders · Bench App')}
<nav aria-label="Main">${nav}</nav>
<main><h1>Orders</h1>
<form role="search" onsubmit="event.preventDefault()"><label>Search orders <input type="search" name="q"></label><button>Search</button></form>
<table><thead><tr><th>Order</th><th>Customer</th><th>Status</th><th>Total</th><th></th></tr></thead><tbody>
${rows}
</tbody></table></main>
<aside><h2>Articles</h2><ul>${links}</ul></aside>
<footer>Bench App · generated page</footer></body></html>`;
}

/** Large page: a 5,000 × 5 table of text and 2,000 links. */
export function largePage(): string {
  const next = rng(7);
  const rows: string[] = [];
  for (let i = 0; i < 5000; i++) {
    rows.push(`<tr><td>${i + 1}</td><td>${words(next, 2)}</td><td>${words(next, 1)}</td><td>${Math.floor(next() * 100000)}</td><td>${words(next, 3)}</td></tr>`);
  }
  const links: string[] = [];
  for (let i = 0; i < 2000; i++) links.push(`<li><a href="/large/item/${i}?list=all&amp;page=${Math.floor(i / 50) + 1}">${words(next, 2)} ${i}</a></li>`);
  return `${HEAD('Inventory · 5,000 rows')}
<main><h1>Inventory</h1>
<table><thead><tr><th>#</th><th>Name</th><th>Category</th><th>Stock</th><th>Notes</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>
<h2>All items</h2><ul>
${links.join('\n')}
</ul></main></body></html>`;
}

/** A page that registers one trivial WebMCP tool (`echo`) through document.modelContext.registerTool. */
export function webmcpPage(): string {
  return `${HEAD('WebMCP · Bench')}<h1>WebMCP echo</h1>
<script>
if (document.modelContext && typeof document.modelContext.registerTool === 'function') {
  document.modelContext.registerTool({
    name: 'echo',
    description: 'Echo the text back',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { readOnlyHint: true },
    execute: async ({ text }) => ({ content: [{ type: 'text', text }] }),
  });
}
</script></body></html>`;
}

/** What the scripted task (bench/task.ts) orders on the shop page, and what it fills in. */
export const SHOP_ORDER = {
  search: 'teapot',
  item: 'Quartz Teapot',
  quantity: '2',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  delivery: 'Express',
} as const;

const SHOP_ADJECTIVES = 'Harbor Ledger Quartz Meadow Signal Copper Lantern Orbit Willow Summit Ember Delta'.split(' ');
const SHOP_NOUNS = 'Teapot Kettle Mug Bowl Vase Lamp Clock Stool Basket Candle'.split(' ');

/** The shop's 120 products: every adjective × noun, in a fixed shuffled order, with a price. */
export function shopProducts(): Array<{ sku: string; name: string; price: string }> {
  const next = rng(1013);
  const all = SHOP_ADJECTIVES.flatMap(a => SHOP_NOUNS.map(n => `${a} ${n}`));
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all.map((name, i) => ({ sku: `P-${String(101 + i)}`, name, price: (next() * 90 + 5).toFixed(2) }));
}

/**
 * Shop page of the scripted task: a catalogue of 120 products of which the
 * first 12 show, a live search over all of them (input event, up to 12
 * matches), an "Add <name> to order" button per product that opens the
 * order form (quantity, full name, email, delivery, terms), and a submit
 * that checks the form and replaces it with a confirmation in a status
 * region, `Order TW-<n> confirmed: <qty> × <item>, <delivery> delivery, for
 * <name> (<email>).`, also kept as JSON in body[data-order] for the bench's
 * own check. An incomplete form shows an alert instead.
 */
export function shopPage(): string {
  const products = shopProducts();
  return `${HEAD('Catalogue · Bench Shop')}
<nav aria-label="Main"><a href="/gen/shop">Catalogue</a><a href="/gen/help">Help</a><a href="/gen/help">Contact</a></nav>
<main><h1>Catalogue</h1>
<form role="search" onsubmit="event.preventDefault()"><label for="q">Search products</label><input id="q" type="search" autocomplete="off"></form>
<p id="count"></p>
<ul id="results" aria-label="Products"></ul>
<section id="order" aria-labelledby="order-title" hidden>
<h2 id="order-title">Your order</h2>
<p id="chosen"></p>
<form id="order-form" novalidate>
<label for="qty">Quantity</label><input id="qty" type="number" min="1" max="9" value="1">
<label for="name">Full name</label><input id="name" autocomplete="name">
<label for="email">Email</label><input id="email" type="email" autocomplete="email">
<label for="delivery">Delivery</label><select id="delivery"><option>Standard</option><option>Express</option></select>
<label><input id="terms" type="checkbox"> I accept the terms</label>
<button type="submit">Place order</button>
</form>
<p id="problem" role="alert"></p>
</section>
<p id="confirmation" role="status"></p>
</main>
<footer>Bench Shop · generated page</footer>
<script>
const products = ${JSON.stringify(products)};
let chosen = null;
const list = document.getElementById('results');
function show(query) {
  const q = query.trim().toLowerCase();
  const hits = products.filter(p => p.name.toLowerCase().includes(q));
  list.replaceChildren(...hits.slice(0, 12).map(p => {
    const li = document.createElement('li');
    li.innerHTML = '<h3></h3><p></p><button type="button">Add to order</button>';
    li.querySelector('h3').textContent = p.name;
    li.querySelector('p').textContent = '$' + p.price + ' · in stock';
    const button = li.querySelector('button');
    button.setAttribute('aria-label', 'Add ' + p.name + ' to order');
    button.addEventListener('click', () => choose(p));
    return li;
  }));
  document.getElementById('count').textContent = q ? hits.length + ' products match "' + query.trim() + '"' : 'Showing 12 of ' + products.length + ' products. Search to find more.';
}
function choose(p) {
  chosen = p;
  document.getElementById('order').hidden = false;
  document.getElementById('chosen').textContent = 'Item: ' + p.name + ' ($' + p.price + ')';
}
document.getElementById('q').addEventListener('input', e => show(e.target.value));
document.getElementById('order-form').addEventListener('submit', e => {
  e.preventDefault();
  const v = id => document.getElementById(id);
  const order = { sku: chosen.sku, item: chosen.name, quantity: Number(v('qty').value), name: v('name').value.trim(), email: v('email').value.trim(), delivery: v('delivery').value, terms: v('terms').checked };
  const missing = [!(order.quantity >= 1) && 'a quantity', !order.name && 'your name', !order.email.includes('@') && 'an email address', !order.terms && 'the terms'].filter(Boolean);
  if (missing.length) {
    v('problem').textContent = 'Please give ' + missing.join(', ') + '.';
    return;
  }
  document.body.dataset.order = JSON.stringify(order);
  v('order').hidden = true;
  v('confirmation').textContent = 'Order TW-' + (4000 + products.indexOf(chosen)) + ' confirmed: ' + order.quantity + ' × ' + order.item + ', ' + order.delivery + ' delivery, for ' + order.name + ' (' + order.email + ').';
});
show('');
</script></body></html>`;
}

/** The generated pages measured per server (the WebMCP page is used by the tabwright-only step). */
export const GENERATED: readonly BenchPage[] = [
  { id: 'login', kind: 'generated', description: 'login form: 2 text fields, a checkbox, a button, a link', path: '/gen/login' },
  { id: 'app', kind: 'generated', description: 'app page: nav, 50 links, search form, 200-row table with a button per row', path: '/gen/app' },
  { id: 'large', kind: 'generated', description: 'large page: 5,000 × 5 table and 2,000 links', path: '/gen/large' },
];

/** The corpus pages of DIR (every *.html), sorted by name. */
export function corpusPages(dir: string): BenchPage[] {
  return readdirSync(dir)
    .filter(f => f.endsWith('.html'))
    .sort()
    .map(f => ({ id: f.replace(/\.html$/, ''), kind: 'corpus', description: `corpus: ${f}`, path: `/corpus/${encodeURIComponent(f)}` }));
}

export interface Site {
  origin: string;
  /** Bytes of HTML a page path serves. */
  htmlBytes(path: string): number;
  close(): Promise<void>;
}

/** Serves the generated pages, and DIR's files under /corpus/ when `corpus` is given, on 127.0.0.1. */
export async function startSite(corpus?: string): Promise<Site> {
  const generated = new Map<string, string>([
    ['/gen/login', loginPage()],
    ['/gen/app', appPage()],
    ['/gen/large', largePage()],
    ['/gen/webmcp', webmcpPage()],
    ['/gen/shop', shopPage()],
    ['/gen/help', `${HEAD('Help')}<h1>Help</h1></body></html>`],
  ]);
  const readCorpus = (path: string): Buffer | undefined => {
    if (!corpus || !path.startsWith('/corpus/')) return undefined;
    const root = normalize(corpus);
    const file = normalize(join(root, decodeURIComponent(path.slice('/corpus/'.length))));
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) return undefined;
    return readFileSync(file);
  };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const body = generated.get(path) ?? readCorpus(path);
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title><h1>404</h1>');
      return;
    }
    res.writeHead(200, { 'content-type': path.startsWith('/corpus/') && !path.endsWith('.html') ? 'application/octet-stream' : 'text/html; charset=utf-8' });
    res.end(body);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    htmlBytes: path => Buffer.byteLength(generated.get(path) ?? readCorpus(path) ?? ''),
    close: () => new Promise<void>(resolve => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
