/**
 * Harbor Books, the demo web site of `npm run demo`: a small bookshop served
 * by node:http on 127.0.0.1 (a free port). Pages: home with a search form,
 * catalogue table, book pages, journal articles, visit page, search results
 * and the newsletter confirmation. WebMCP: the imperative `search_catalog`
 * tool (/app.js) and the declarative `join_newsletter` form in every footer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appScript } from './appScript.js';
import { searchBooks } from './catalogue.js';
import { articlePage, bookPage, cataloguePage, homePage, journalPage, newsletterThanksPage, notFoundPage, searchPage, visitPage } from './pages.js';
import { STYLE } from './style.js';

export { SEARCH_TOOL } from './appScript.js';
/** Name of the declarative WebMCP tool (the newsletter form). */
export const NEWSLETTER_TOOL = 'join_newsletter';

/** A newsletter sign-up the site received (POST /newsletter). */
export interface Signup {
  name: string;
  email: string;
  interest: string;
}

/** A running demo site. */
export interface DemoSite {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Sign-ups received so far, oldest first (lets the demo check a form really arrived). */
  readonly signups: readonly Signup[];
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

const HTML = 'text/html; charset=utf-8';
const MAX_BODY = 16 * 1024;

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

/** Reads a small urlencoded request body. */
function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > MAX_BODY) req.destroy(new Error('form too large'));
    });
    req.on('end', () => resolve(new URLSearchParams(body)));
    req.on('error', reject);
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, signups: Signup[]): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const path = url.pathname;
  if (req.method === 'POST' && path === '/newsletter') {
    const form = await readForm(req);
    signups.push({ name: form.get('name') ?? '', email: form.get('email') ?? '', interest: form.get('interest') ?? '' });
    return send(res, 200, HTML, newsletterThanksPage(form));
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'Method not allowed');
  if (path === '/') return send(res, 200, HTML, homePage());
  if (path === '/catalogue') return send(res, 200, HTML, cataloguePage());
  if (path === '/journal') return send(res, 200, HTML, journalPage());
  if (path === '/visit') return send(res, 200, HTML, visitPage());
  if (path === '/search') return send(res, 200, HTML, searchPage(url.searchParams.get('q') ?? ''));
  if (path === '/app.js') return send(res, 200, 'text/javascript; charset=utf-8', appScript());
  if (path === '/style.css') return send(res, 200, 'text/css; charset=utf-8', STYLE);
  if (path === '/api/books') return send(res, 200, 'application/json', JSON.stringify(searchBooks(url.searchParams.get('q') ?? '')));
  if (path === '/newsletter') {
    res.writeHead(303, { location: '/' });
    return void res.end();
  }
  const page = path.startsWith('/books/') ? bookPage(path.slice('/books/'.length))
    : path.startsWith('/journal/') ? articlePage(path.slice('/journal/'.length))
    : undefined;
  if (page) return send(res, 200, HTML, page);
  send(res, 404, HTML, notFoundPage(path));
}

/** Starts the site on 127.0.0.1, port chosen by the system (or `port`). */
export async function startDemoSite(port = 0): Promise<DemoSite> {
  const signups: Signup[] = [];
  const server = createServer((req, res) => {
    handle(req, res, signups).catch(error => {
      if (!res.headersSent) send(res, 500, 'text/plain', `Server error: ${error instanceof Error ? error.message : String(error)}`);
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    signups,
    close: () => new Promise<void>(resolve => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
