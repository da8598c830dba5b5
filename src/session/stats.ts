/**
 * Counts of what a Session holds, for the debug stats hook (src/dispatch/debugStats.ts, docs/reliability.md
 * "Soak"): a long run compares them after warm-up and at the end, and they must not grow with the calls made.
 * Reads only; never opens the browser.
 */
import type { EventEmitter } from 'node:events';
import type { BrowserContext } from 'playwright-core';
import type { Session } from './session.js';

/** What one Session holds (see sessionStats). */
export interface SessionStats {
  /** Open tabs. */
  tabs: number;
  /** Tabs whose own CDP session is attached (Tab.cdp). */
  tabCdpSessions: number;
  /** Listeners on the session's browser context (Playwright's BrowserContext), summed over its events; 0 without a browser. */
  contextListeners: number;
  /** Listeners on the open tabs' pages, summed over tabs and events. */
  pageListeners: number;
  /** pageListeners by event name (`console`, `close`, `framenavigated`, ...). */
  pageEvents: Record<string, number>;
  /** Listeners on the open tabs' own CDP sessions, summed. */
  tabCdpListeners: number;
  /** Refs the session's registry holds, over all documents. */
  refs: number;
}

/**
 * Adds `emitter`'s listeners by event name to `counts`; returns `counts`. Playwright's objects are emitters of its
 * own with Node's `eventNames` and `listenerCount`, which its types do not declare; an object without them adds none.
 */
function addListeners(counts: Record<string, number>, emitter: object): Record<string, number> {
  const e = emitter as Partial<Pick<EventEmitter, 'eventNames' | 'listenerCount'>>;
  if (typeof e.eventNames !== 'function' || typeof e.listenerCount !== 'function') return counts;
  for (const name of e.eventNames()) counts[String(name)] = (counts[String(name)] ?? 0) + e.listenerCount(name);
  return counts;
}

/** Listeners on `emitter`, summed over its event names (see addListeners). */
export function listenerTotal(emitter: object): number {
  return Object.values(addListeners({}, emitter)).reduce((n, v) => n + v, 0);
}

/** The counts of `session` (synchronous: what is in memory now). */
export function sessionStats(session: Session): SessionStats {
  const tabs = session.openTabs();
  const contexts = new Set<BrowserContext>(tabs.map(tab => tab.page.context()));
  return {
    tabs: tabs.length,
    tabCdpSessions: tabs.filter(tab => tab.cdp).length,
    contextListeners: [...contexts].reduce((n, ctx) => n + listenerTotal(ctx), 0),
    pageListeners: tabs.reduce((n, tab) => n + listenerTotal(tab.page), 0),
    pageEvents: tabs.reduce<Record<string, number>>((counts, tab) => addListeners(counts, tab.page), {}),
    tabCdpListeners: tabs.reduce((n, tab) => n + (tab.cdp ? listenerTotal(tab.cdp) : 0), 0),
    refs: session.refs.size,
  };
}

/**
 * Playwright's client-side objects alive in this process, by type (`Page`, `Frame`, `CDPSession`, `JSHandle`,
 * `ElementHandle`, `Request`, `Response`, ...), read from the connection the browser context `ctx` belongs to.
 * Every CDP session a tool opens (`newCDPSession`) is one `CDPSession` here until it is detached or its target goes;
 * a handle nobody disposes stays a `JSHandle` or `ElementHandle` until its document goes.
 * Reads a private field of playwright-core (`_connection._objects`, a Map of guid to object with a `_type`):
 * undefined when that field is not there (another playwright-core version).
 */
export function playwrightObjects(ctx: BrowserContext): Record<string, number> | undefined {
  const objects = (ctx as unknown as { _connection?: { _objects?: unknown } })._connection?._objects;
  if (!(objects instanceof Map)) return undefined;
  const counts: Record<string, number> = {};
  for (const object of objects.values() as Iterable<{ _type?: unknown }>) {
    const type = typeof object?._type === 'string' ? object._type : '?';
    counts[type] = (counts[type] ?? 0) + 1;
  }
  return counts;
}
