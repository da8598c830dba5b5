/**
 * The demo's steps, in order: each names a tabwright tool, builds its
 * arguments (later steps use refs found by earlier ones) and checks the
 * result, returning the lines the transcript shows.
 */
import type { Client } from '@modelcontextprotocol/client';
import { existsSync, readFileSync } from 'node:fs';
import { imageSize } from '../tools/imageSize.js';
import { pollUntil } from '../util/wait.js';
import { NEWSLETTER_TOOL, SEARCH_TOOL, type DemoSite } from './site.js';
import { excerpt, StepFailure, type Called } from './transcript.js';

/** What the steps share. */
export interface DemoState {
  client: Client;
  site: DemoSite;
  searchboxRef?: string;
  searchButtonRef?: string;
  screenshotPath?: string;
}

/** One demo step: a tabwright tool call and the check of its result. */
export interface Step {
  tool: string;
  /** The tool's arguments, computed when the step runs. */
  args(state: DemoState): Record<string, unknown>;
  /** Checks the result and returns the lines to print. @throws StepFailure */
  check(called: Called, state: DemoState): string[] | Promise<string[]>;
}

const QUERY = 'lighthouse';
const READER = { name: 'Ada Lovelace', email: 'ada@example.org', interest: 'events' };

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new StepFailure(message);
}

/** The ref of the snapshot node with this role and accessible name. */
function findRef(snapshot: string, role: string, name: string): string {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const ref = new RegExp(`\\b${role} "${escaped}" \\[ref=(e\\d+)\\]`).exec(snapshot)?.[1];
  expect(ref, `the snapshot has no ${role} named "${name}"`);
  return ref;
}

/** Format, width and height from an image's header. @throws StepFailure when `data` is not a PNG, JPEG or WebP. */
function imageHeader(data: Buffer): { format: string; width: number; height: number } {
  const size = imageSize(data);
  expect(size, 'the screenshot file is not a PNG, JPEG or WebP');
  return size;
}

/** The demo's steps, in order (type and click on the search form; both WebMCP tool kinds called). */
export const STEPS: Step[] = [
  {
    tool: 'list_tabs',
    args: () => ({}),
    check: ({ text, structured }) => {
      expect(Array.isArray(structured.tabs), 'list_tabs returned no tabs array');
      return excerpt(text);
    },
  },
  {
    tool: 'navigate',
    args: ({ site }) => ({ url: `${site.origin}/` }),
    check: ({ text, structured }) => {
      expect(structured.status === 200, `expected HTTP 200, got ${String(structured.status)}`);
      expect(String(structured.title).includes('Harbor Books'), `unexpected title "${String(structured.title)}"`);
      return excerpt(text);
    },
  },
  {
    tool: 'get_page_context',
    args: () => ({ output: 'inline' }),
    check: ({ text, structured }, state) => {
      const snapshot = String(structured.snapshot ?? '');
      state.searchboxRef = findRef(snapshot, 'searchbox', 'Search the catalogue');
      state.searchButtonRef = findRef(snapshot, 'button', 'Search');
      return [
        ...excerpt(text).map(l => `| ${l}`),
        `${structured.refCount} refs; the search form: searchbox "Search the catalogue" = ${state.searchboxRef}, button "Search" = ${state.searchButtonRef}`,
      ];
    },
  },
  {
    tool: 'type',
    args: state => ({ ref: state.searchboxRef, text: QUERY }),
    check: ({ text }) => excerpt(text),
  },
  {
    tool: 'click',
    args: state => ({ ref: state.searchButtonRef, snapshot: true }),
    check: ({ text, structured }, { site }) => {
      const navigation = structured.navigation as { url?: string } | undefined;
      expect(navigation?.url, 'clicking Search did not navigate');
      const url = new URL(navigation.url);
      expect(url.origin === site.origin && url.pathname === '/search' && url.searchParams.get('q') === QUERY,
        `expected ${site.origin}/search?q=${QUERY}, got ${navigation.url}`);
      const snapshot = String(structured.snapshot ?? '');
      const echo = snapshot.split('\n').find(l => l.includes(`You searched for “${QUERY}”`));
      expect(echo, `the results page does not show the query "${QUERY}"`);
      expect(snapshot.includes("The Lighthouse Keeper's Ledger"), 'the results page does not list the expected book');
      return [...excerpt(text.split('\n\n')[0]!), `results page: ${echo.trim().replace(/^- /, '')}`];
    },
  },
  {
    tool: 'list_webmcp_tools',
    args: () => ({}),
    check: ({ text, structured }) => {
      const tools = (structured.tools ?? []) as Array<{ name: string; annotations?: { readOnlyHint?: boolean } }>;
      const search = tools.find(t => t.name === SEARCH_TOOL);
      expect(search, `the page's imperative tool ${SEARCH_TOOL} is not listed`);
      expect(search.annotations?.readOnlyHint === true, `${SEARCH_TOOL} lost its readOnlyHint annotation`);
      expect(tools.some(t => t.name === NEWSLETTER_TOOL), `the page's declarative form ${NEWSLETTER_TOOL} is not listed`);
      return excerpt(text);
    },
  },
  {
    tool: 'call_webmcp_tool',
    args: () => ({ name: SEARCH_TOOL, arguments: { query: 'history', maxResults: 5 } }),
    check: ({ text }) => {
      expect(text.includes('2 books match "history"') && text.includes('Salt Roads'), `unexpected answer from ${SEARCH_TOOL}: ${text.slice(0, 200)}`);
      return excerpt(text);
    },
  },
  {
    tool: 'call_webmcp_tool',
    args: () => ({ name: NEWSLETTER_TOOL, arguments: READER }),
    check: async ({ text }, { site }) => {
      const received = await pollUntil(() => site.signups.find(s => s.email === READER.email), { ms: 10_000, intervalMs: 50 });
      expect(received, `the site never received the ${NEWSLETTER_TOOL} form submission`);
      expect(received.name === READER.name && received.interest === READER.interest, `the site received different values: ${JSON.stringify(received)}`);
      return [...text.split('\n'), `the site received the submitted form: name "${received.name}", email ${received.email}, interest ${received.interest}`];
    },
  },
  {
    tool: 'take_screenshot',
    args: () => ({ output: 'file' }),
    check: ({ text, structured }, state) => {
      const path = structured.path;
      expect(typeof path === 'string' && existsSync(path), `the screenshot file ${String(path)} does not exist`);
      const { format, width, height } = imageHeader(readFileSync(path));
      state.screenshotPath = path;
      return [...excerpt(text, 15, 400), `checked: a ${width}x${height} ${format.toUpperCase()}`];
    },
  },
  {
    tool: 'get_console_context',
    args: () => ({}),
    check: ({ text, structured }) => {
      const entries = (structured.entries ?? []) as Array<{ level: string; text: string }>;
      const has = (level: string, part: string) => entries.some(e => e.level === level && e.text.includes(part));
      expect(has('info', 'catalogue ready'), 'the page\'s console.info is missing');
      expect(has('warning', 'harbour-side door'), 'the page\'s console.warn is missing');
      expect(has('info', `${SEARCH_TOOL} was called`), `the console does not show the ${SEARCH_TOOL} call`);
      return excerpt(text);
    },
  },
];
