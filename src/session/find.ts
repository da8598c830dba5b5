/**
 * Finding elements (the `find` tool; docs/snapshot.md, "Finding elements"):
 * the in-page runtime (src/page/find.ts) searches each document in one
 * evaluate, same-origin frames inline through their own runtimes; this
 * module searches the cross-origin frames it could not read (in or out of
 * process, at any depth) and puts their matches at their iframe's place, so
 * matches come in document order across frames. Every match described gets a
 * ref (./refs.ts) like a snapshot's, actionable or not (a cell, a status
 * line), which every tool that takes a ref accepts.
 */
import type { ElementHandle, Frame } from 'playwright-core';
import { timeoutError } from '../browser/playwright.js';
import { ToolError } from '../errors.js';
import type { FindItem, FindQuery, FindResult, FoundElement } from '../page/find.js';
import { raceTimeout } from '../util/wait.js';
import { goneError, refScope, rememberFrame } from './refs.js';
import type { Session } from './session.js';
import type { Tab } from './tab.js';

/** What to find and where. */
export interface FindOptions {
  text?: string;
  role?: string;
  name?: string;
  /** CSS selector. */
  selector?: string;
  exact?: boolean;
  /** Search under this element's ref only; an iframe's ref: its document (and the frames in it). */
  ref?: string;
  /** Matches to describe and issue refs for; the rest are counted. */
  limit: number;
  timeoutMs?: number;
}

/** One element found, with its ref. */
export interface Found {
  ref: string;
  /** Its role as a snapshot shows it (`generic` for none). */
  role: string;
  name?: string;
  /** Its text (or a field's value), cut at 100 characters; left out when the same as the name. */
  text?: string;
  /** Its tag name. */
  tag: string;
  /** The ref of the innermost iframe it is in, when not in the tab's top document. */
  frame?: string;
}

/** What `findElements` found. */
export interface FindOutcome {
  /** The first `limit` matches, in document order across frames. */
  matches: Found[];
  /** How many elements match in all (described or not). */
  total: number;
  /** With no match: elements that nearly match (the role alone, a word of the text or name), at most 8. */
  near: Found[];
  /** With no element of the role asked for: the roles present with their counts. */
  roles?: Array<[role: string, count: number]>;
  /** Matching elements that are hidden (a selector query only). */
  hidden: number;
  /** Cross-origin frames in the scope that could not be searched (not loaded yet, or gone meanwhile). */
  unsearched: number;
  revision: number;
  instanceId: string;
}

const NEAR_MAX = 8;

/** One document's search, injecting the runtime into a document that predates it. */
async function searchDocument(session: Session, frame: Frame, q: FindQuery): Promise<FindResult> {
  let result = await frame.evaluate(query => {
    const rt = (globalThis as { __tabwright?: { find?: (q: unknown) => unknown } }).__tabwright;
    return (rt?.find ? rt.find(query) : 'runtime-missing') as FindResult | 'runtime-missing';
  }, q);
  if (result === 'runtime-missing') {
    await session.injectRuntime(frame);
    result = await frame.evaluate(query => {
      const rt = (globalThis as { __tabwright?: { find?: (q: unknown) => unknown } }).__tabwright;
      return (rt?.find ? rt.find(query) : 'runtime-missing') as FindResult | 'runtime-missing';
    }, q);
    if (result === 'runtime-missing') throw new ToolError('capability_unavailable', 'The in-page runtime could not be loaded into this page.', 'Reload the tab and try again.');
  }
  rememberFrame(result.nonce, frame);
  return result;
}

/** A found element of a document, before refs: its snapshot id, and the id of the iframe it is in (in the document that holds that iframe). */
interface Raw {
  found: FoundElement;
  /** Where the element is: the frame whose runtime issued `found.id`. */
  frameId?: string;
}

interface Searched {
  matches: Raw[];
  total: number;
  near: Raw[];
  roles?: Array<[string, number]>;
  hidden: number;
  unsearched: number;
}

/** The descendant frames of `frame` (any depth) that hold a document worth a search of its own. */
function descendantFrames(frame: Frame): Frame[] {
  const out: Frame[] = [];
  const visit = (f: Frame) => {
    for (const child of f.childFrames()) {
      if (!/^(about:|chrome-error:|javascript:)/.test(child.url()) && child.url() !== '') out.push(child);
      visit(child);
    }
  };
  visit(frame);
  return out;
}

/**
 * Searches `frame` (its document, or `rootId`'s element in it), then the
 * cross-origin frames it could not read, and merges them in document order.
 */
async function search(session: Session, frame: Frame, q: FindQuery): Promise<Searched> {
  const result = await searchDocument(session, frame, q);
  if (result.badSelector !== undefined) {
    throw new ToolError('invalid_arguments', `The selector is not valid CSS: ${result.badSelector.slice(0, 300)}`, 'Pass a CSS selector such as "#total" or ".card .digits" (Playwright selectors are not taken here).');
  }
  if (result.gone) throw goneError(q.rootId ?? '');
  const placeholders = new Set(result.items.flatMap(i => ('frame' in i ? [i.frame] : [])));
  const children = new Map<string, Searched>();
  if (placeholders.size) {
    await Promise.all(descendantFrames(frame).map(async child => {
      try {
        const handle = await child.frameElement();
        const id = await (handle as ElementHandle<Element>).evaluate(el => (globalThis as { __tabwright?: { idOf?(el: Element): string | null } }).__tabwright?.idOf?.(el) ?? null);
        void handle.dispose();
        if (!id || !placeholders.has(id)) return;
        children.set(id, await search(session, child, { ...q, rootId: undefined }));
      } catch (error) {
        if (error instanceof ToolError) throw error;
        // detached meanwhile, or not a document we can read: counted as unsearched below
      }
    }));
  }
  const out: Searched = { matches: [], total: result.total, near: (result.near ?? []).map(found => ({ found })), hidden: result.hidden ?? 0, unsearched: 0 };
  if (result.roles) out.roles = result.roles;
  const add = (item: FindItem) => {
    if ('match' in item) {
      if (out.matches.length < q.limit) out.matches.push({ found: item.match });
      return;
    }
    const sub = children.get(item.frame);
    if (!sub) {
      out.unsearched++;
      return;
    }
    out.total += sub.total;
    out.hidden += sub.hidden;
    out.unsearched += sub.unsearched;
    for (const m of sub.matches) if (out.matches.length < q.limit) out.matches.push({ ...m, frameId: m.frameId ?? item.frame });
    for (const n of sub.near) out.near.push({ ...n, frameId: n.frameId ?? item.frame });
    if (sub.roles && !out.roles) out.roles = sub.roles;
  };
  for (const item of result.items) add(item);
  return out;
}

/**
 * Finds the elements of a tab that match a query (every criterion given must
 * hold): in its whole page across frames, under one element (`ref`), or in
 * one iframe's document (`ref` of an iframe). Refs are issued for the matches returned
 * and the near matches, as a snapshot issues them.
 * @throws ToolError invalid_arguments (a bad selector, not a ref), stale_ref (a gone ref or frame), timeout.
 */
export async function findElements(session: Session, tab: Tab, opts: FindOptions): Promise<FindOutcome> {
  const timeout = opts.timeoutMs ?? 15_000;
  const q: FindQuery = { text: opts.text, role: opts.role, name: opts.name, selector: opts.selector, exact: opts.exact, limit: opts.limit };
  // A document replaced during the search (a navigation) would label its elements with the old one: search again.
  for (let attempt = 0; ; attempt++) {
    const instanceId = tab.instanceId;
    const revision = tab.revision;
    let frame: Frame;
    // Matches in an iframe searched by its ref are in that iframe (a match in a frame nested in it names the innermost).
    let scopeFrame: string | undefined;
    q.rootId = undefined;
    if (opts.ref) {
      const scope = await refScope(session, opts.ref);
      if (scope.content) {
        frame = scope.content;
        scopeFrame = opts.ref;
      } else {
        frame = scope.frame;
        q.rootId = scope.id;
      }
    } else frame = tab.page.mainFrame();
    const found = await raceTimeout(search(session, frame, q), { ms: timeout, onTimeout: () => timeoutError(`find: no answer within ${timeout} ms`) });
    if (tab.instanceId !== instanceId && attempt < 2 && !opts.ref) continue;
    const refOf = (raw: Raw): Found => {
      const f = raw.found;
      const out: Found = { ref: session.refs.assign(tab.id, instanceId, f.id), role: f.role, tag: f.tag };
      session.refs.describe(out.ref, f.role, f.name);
      if (f.name) out.name = f.name;
      if (f.text) out.text = f.text;
      const frameId = f.frameId ?? raw.frameId;
      if (frameId) out.frame = session.refs.assign(tab.id, instanceId, frameId);
      else if (scopeFrame) out.frame = scopeFrame;
      return out;
    };
    const outcome: FindOutcome = {
      matches: found.matches.map(refOf),
      total: found.total,
      near: found.total ? [] : found.near.slice(0, NEAR_MAX).map(refOf),
      hidden: found.hidden,
      unsearched: found.unsearched,
      revision,
      instanceId,
    };
    if (found.roles && !found.total) outcome.roles = found.roles;
    return outcome;
  }
}
