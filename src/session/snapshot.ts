/**
 * Snapshots (`get_page_context`; the format is docs/snapshot.md).
 *
 * The in-page runtime (src/page/snapshot.ts) walks each frame's document in
 * one evaluate and writes the compact lines with placeholder ids; this module
 * splices child frames under their iframe line and turns each placeholder
 * into a tabwright ref that is unique in the process (see refs.ts), so one
 * ref names tab, document, frame and element. Refs resolve without a
 * snapshot of their own (./refs.ts), so a selector- or ref-scoped snapshot
 * never invalidates other refs.
 */
import type { CDPSession, ElementHandle, Frame } from 'playwright-core';
import { timeoutError } from '../browser/playwright.js';
import { classifyPlaywrightError, isTimeoutError } from '../util/playwrightErrors.js';
import { documentReplaced, firstLine, ToolError } from '../errors.js';
import { adoptClosedRoots } from './closedShadow.js';
import { raceTimeout } from '../util/wait.js';
import { DOCUMENT_READS, waitForNextDocument } from './nextDocument.js';
import { frameOf, goneError, lookupRef, refScope, REF_ENGINE, registerRefEngine, rememberFrame } from './refs.js';
import { warmRefActions } from './refWarmup.js';
import { directWalk } from './directWalk.js';
import type { ElementCounts, SnapshotLevel, SnapshotResult } from '../page/snapshot.js';
import type { Session } from './session.js';
import type { Tab } from './tab.js';

export interface Snapshot {
  /** The snapshot text with tabwright refs. */
  text: string;
  /** Number of refs in it (`[ref=` marks). */
  refCount: number;
  /** Document revision it was taken on. */
  revision: number;
  instanceId: string;
  /**
   * The whole page, every child of every container, within DEFAULT_BUDGET
   * (no selector, ref, offset, limit or urls): a snapshot the next action
   * can diff against (kept as `Tab.baseline`).
   */
  whole: boolean;
  /** With `wholeOnly`: the walk reached the budget, so `text` is empty (the page needs paging). */
  cut?: boolean;
  /** Level `summary`: the actionable elements and forms counted (every frame walked; cross-origin ones included when read). */
  counts?: ElementCounts;
}

export interface SnapshotOptions {
  /** CSS or Playwright selector: snapshot the first match only (with `ref`: under that element, or in that iframe's document). */
  selector?: string;
  /** A ref: snapshot that element only (and page through its children with offset). */
  ref?: string;
  /** Skip the first `offset` children of the `ref` element. */
  offset?: number;
  /**
   * Children shown per container before the rest is summarised. Default:
   * every child when the whole snapshot fits `budget`, else DEFAULT_LIMIT.
   */
  limit?: number;
  /** Show links' URLs. */
  urls?: boolean;
  /** Characters the snapshot may take (estimated while walking); default DEFAULT_BUDGET. */
  budget?: number;
  timeoutMs?: number;
  /**
   * Walk the whole page once and stop there: a page over the budget comes
   * back `cut` with no text, instead of being walked again in pages (an
   * action's diff snapshot, docs/snapshot.md "After an action").
   */
  wholeOnly?: boolean;
  /** How much to write (docs/snapshot.md, "Levels"); default `full`. */
  level?: SnapshotLevel;
}

/** Children shown per container, before a paging line, when the whole snapshot does not fit its budget. */
export const DEFAULT_LIMIT = 50;
/** Longest text line of a whole-page snapshot. */
export const PAGE_MAX_TEXT = 300;
/** Longest text line of a snapshot scoped with ref or selector (which reads full texts). */
export const SCOPED_MAX_TEXT = 10_000;
/**
 * Characters a snapshot may take by default (the walker's estimate, counted
 * while walking: about 40–55 KB of output, under the 64 KB inline cap, 12–17k
 * o200k tokens). Issue #4: "snapshots are cut at the budget while collecting".
 */
export const DEFAULT_BUDGET = 48_000;
/** The budget of a snapshot written to a file (output: file). */
export const FILE_BUDGET = 2_000_000;

/** What `__tabwright.snapshot()` returns. */
type PageResult = SnapshotResult;

interface PageOptions {
  rootId?: string;
  offset?: number;
  limit?: number;
  urls?: boolean;
  maxText?: number;
  budget?: number;
  level?: SnapshotLevel;
}

/** The in-page walker's mark of an element id in a line, which the server turns into a ref. */
export const PLACEHOLDER = /\u0001([^\u0001]+)\u0001/g;
/** The role and quoted name of a snapshot line (`- button "Save" [ref=…]`). */
export const LINE_HEAD = /^\s*- ([a-z]+)(?: ("(?:[^"\\]|\\.)*"))? \[ref=\u0001/;
/** Every frame below `frame`, at any depth (the ones the walk lists as cross-origin are among them). */
function descendantFrames(frame: Frame): Frame[] {
  const out: Frame[] = [];
  const visit = (f: Frame) => {
    for (const child of f.childFrames()) {
      out.push(child);
      visit(child);
    }
  };
  visit(frame);
  return out;
}

/** The runtime id of `frame`'s iframe element in its parent's document (null when that runtime has none). */
async function frameElementId(frame: Frame): Promise<string | null> {
  const handle = await frame.frameElement();
  try {
    return await (handle as ElementHandle<Element>).evaluate(el => (globalThis as { __tabwright?: { idOf?(el: Element): string | null } }).__tabwright?.idOf?.(el) ?? null);
  } finally {
    void handle.dispose();
  }
}

/** Whether `frame` holds a document worth a walk of its own (not an error page, about:blank or a javascript: URL). */
function walkable(frame: Frame): boolean {
  const url = frame.url();
  return !/^(about:|chrome-error:|javascript:)/.test(url) && url !== '';
}

/**
 * The state an iframe line shows for a frame whose document is not there to walk (docs/snapshot.md, "Frames"):
 * ` [loading]`, ` [failed=net::ERR_…]` (` [failed]` when the browser gave no error), else ''.
 */
function loadMark(tab: Tab, frame: Frame): string {
  const load = tab.frameLoads.of(frame);
  if (!load) return '';
  return load.state === 'loading' ? ' [loading]' : ` [failed${load.error ? `=${load.error}` : ''}]`;
}

/** The mark of an iframe line whose cross-origin document tabwright cannot read (docs/snapshot.md, "Frames"). */
export const UNREACHABLE_MARK = ' [unreachable]';

/** The walk of one frame, or a TimeoutError after `ms`. */
function walkWithin(ms: number, ...args: Parameters<typeof walk>): Promise<PageResult> {
  return raceTimeout(walk(...args), { ms, onTimeout: () => timeoutError(`snapshot: no answer within ${ms} ms`) });
}

/**
 * Runs the walker in `frame` (on `root` when given), injecting the runtime into a document that predates it. With
 * `direct` (the tab's CDP session, for the top document on a relayed connection) the first try goes through it in
 * one round trip (./directWalk.ts); whatever that cannot answer is asked again through Playwright.
 */
async function walk(session: Session, frame: Frame, opts: PageOptions, root?: ElementHandle, direct?: CDPSession): Promise<PageResult> {
  const viaPlaywright = () => root
    ? root.evaluate((el, o) => {
      const rt = (globalThis as { __tabwright?: { snapshot?: (o: unknown) => unknown } }).__tabwright;
      return (rt?.snapshot ? rt.snapshot({ ...o, root: el }) : 'runtime-missing') as PageResult | 'runtime-missing';
    }, opts)
    : frame.evaluate(o => {
      const rt = (globalThis as { __tabwright?: { snapshot?: (o: unknown) => unknown } }).__tabwright;
      return (rt?.snapshot ? rt.snapshot(o) : 'runtime-missing') as PageResult | 'runtime-missing';
    }, opts);
  const run = async () => (direct && !root ? await directWalk(direct, opts) : undefined) ?? viaPlaywright();
  let result = await run();
  if (result === 'runtime-missing') {
    await session.injectRuntime(frame);
    result = await run();
    if (result === 'runtime-missing') throw new ToolError('capability_unavailable', 'The in-page runtime could not be loaded into this page.', 'Reload the tab and try again.');
  }
  // Custom elements that may hide a declarative closed shadow root: ask CDP once, walk again if it found any.
  if (result.candidates && (await adoptClosedRoots(frame)) > 0) {
    const again = await run();
    if (again !== 'runtime-missing') result = again;
  }
  return result;
}

/**
 * The lines of one frame's walk with cross-origin frames spliced in under
 * their iframe lines and placeholders turned into refs.
 */
async function expand(session: Session, tab: Tab, instanceId: string, frame: Frame, result: PageResult, opts: PageOptions, timeout: number, counts?: ElementCounts): Promise<string[]> {
  if (counts && result.counts) for (const k of Object.keys(counts) as Array<keyof ElementCounts>) counts[k] += result.counts[k];
  rememberFrame(result.nonce, frame);
  // Refs of this walk first, so numbers follow reading order.
  let refs = 0;
  const own = result.lines.map(line => line.replace(PLACEHOLDER, (_, id: string) => {
    refs++;
    const ref = session.refs.assign(tab.id, instanceId, id);
    const shown = LINE_HEAD.exec(line);
    if (shown) session.refs.describe(ref, shown[1]!, shown[2] ? JSON.parse(shown[2]) as string : undefined);
    return ref;
  }));
  // Ref actions on this document will follow: get Playwright ready for them meanwhile (./refWarmup.ts). Not on a
  // relayed connection: its plain actions of the top document go without Playwright's scripts (./directWalk.ts), and
  // there the two 345 KB evaluations are the dearest commands of all, which a click right after would queue behind.
  if (refs && !(session.connection.relayed && !frame.parentFrame())) warmRefActions(frame, result.nonce, () => registerRefEngine().then(() => REF_ENGINE));
  const inserts = new Map<number, string[]>();
  const marks = new Map<number, string>();
  const lineOf = (id: string) => result.lines.findIndex(l => l.includes(`\u0001${id}\u0001`));
  const descendants = descendantFrames(frame);
  if (result.frames.length) {
    const wanted = new Set(result.frames);
    const children = await Promise.all(descendants.filter(walkable).map(async child => {
      try {
        const id = await frameElementId(child);
        if (!id || !wanted.has(id)) return undefined;
        const budget = Math.max(2_000, Math.floor((result.budgetLeft ?? Infinity) / wanted.size));
        const sub = await walkWithin(timeout, session, child, { limit: opts.limit, urls: opts.urls, maxText: opts.maxText, budget, level: opts.level });
        return { id, lines: await expand(session, tab, instanceId, child, sub, opts, timeout, counts) };
      } catch (error) {
        if (isTimeoutError(error)) throw error;
        return undefined; // detached meanwhile, or not a document we can read
      }
    }));
    for (const c of children) {
      if (!c) continue;
      const at = lineOf(c.id);
      if (at !== -1 && c.lines.length) inserts.set(at, c.lines);
    }
  }
  // Frames still loading or failed show it on their iframe line when it has nothing under it: a cross-origin
  // frame not walked, or the empty initial document of a frame whose own document has not come yet (walked inline).
  await Promise.all(descendants.map(async child => {
    const mark = loadMark(tab, child);
    if (!mark) return;
    const id = await frameElementId(child).catch(() => null);
    const at = id ? lineOf(id) : -1;
    if (at !== -1 && !inserts.has(at) && !result.lines[at]!.endsWith(':')) marks.set(at, mark);
  }));
  // A cross-origin frame the walk asked for that tabwright could not read at all (no frame of Playwright's has
  // it, or its walk failed): Playwright loses a page's out-of-process frames when the back-forward cache restores
  // the page (attached browsers keep that cache on). Said on its line rather than shown empty.
  for (const id of result.frames) {
    const at = lineOf(id);
    if (at !== -1 && !inserts.has(at) && !marks.has(at) && !result.lines[at]!.endsWith(':')) marks.set(at, UNREACHABLE_MARK);
  }
  const out: string[] = [];
  own.forEach((text, i) => {
    const sub = inserts.get(i);
    if (!sub) {
      out.push(text + (marks.get(i) ?? ''));
      return;
    }
    const indent = `${/^\s*/.exec(text)![0]}  `;
    out.push(text.endsWith(':') ? text : `${text}:`);
    for (const s of sub) out.push(indent + s);
  });
  return out;
}

/**
 * Takes a snapshot of the whole page, of the first element matching
 * `selector` (a CSS or Playwright selector; with `ref`, under its element or
 * in its iframe's document), or of the element of `ref` (from `offset` on
 * among its children).
 * @throws ToolError invalid_arguments when `selector` is malformed or matches nothing; stale_ref for a gone `ref`.
 */
export async function takeSnapshot(session: Session, tab: Tab, opts: SnapshotOptions = {}): Promise<Snapshot> {
  const timeout = opts.timeoutMs ?? 15_000;
  // A document that replaces the one being read (a navigation committing meanwhile)
  // would get the old document's label and refs: read again, at most twice more.
  for (let attempt = 0; ; attempt++) {
    const instanceId = tab.instanceId;
    let snap: Snapshot;
    try {
      snap = await snapshotOnce(session, tab, instanceId, opts, timeout);
    } catch (error) {
      // The document went away under the walk (a navigation): read the new one.
      if (opts.ref || !classifyPlaywrightError(error).has('document_gone') || error instanceof ToolError || tab.closed) throw error;
      if (attempt === DOCUMENT_READS - 1) throw documentReplaced(tab.id, 'take the snapshot', DOCUMENT_READS);
      await waitForNextDocument(tab, instanceId, timeout);
      continue;
    }
    if (tab.instanceId === instanceId || attempt === DOCUMENT_READS - 1 || opts.ref) {
      keepBaseline(tab, snap, opts);
      return snap;
    }
    await tab.page.waitForLoadState('domcontentloaded', { timeout }).catch(() => undefined);
  }
}

/** Whether options ask for the whole page as the walker writes it by default (no scope, paging or URLs). */
function wholePage(opts: SnapshotOptions): boolean {
  return !opts.selector && !opts.ref && opts.offset === undefined && opts.limit === undefined && !opts.urls && (opts.level ?? 'full') === 'full';
}

/** Records a whole-page snapshot as the tab's diff baseline, or that its document is over the budget. */
function keepBaseline(tab: Tab, snap: Snapshot, opts: SnapshotOptions): void {
  if (!wholePage(opts) || tab.instanceId !== snap.instanceId) return;
  if (snap.whole) {
    tab.baseline = { instanceId: snap.instanceId, revision: snap.revision, text: snap.text };
    if (tab.overBudgetDocument === snap.instanceId) tab.overBudgetDocument = undefined;
  } else {
    tab.baseline = undefined;
    tab.overBudgetDocument = snap.instanceId;
  }
}

async function snapshotOnce(session: Session, tab: Tab, instanceId: string, opts: SnapshotOptions, timeout: number): Promise<Snapshot> {
  const revision = tab.revision;
  const budget = opts.budget ?? DEFAULT_BUDGET;
  const urls = !!opts.urls;
  const level = opts.level ?? 'full';
  let frame: Frame;
  let root: ElementHandle | undefined;
  let base: PageOptions;
  if (opts.ref && !opts.selector) {
    const { target } = await lookupRef(session, opts.ref);
    const id = target.ariaRef;
    frame = await frameOf(tab, id, opts.ref);
    base = { rootId: id, offset: opts.offset ?? 0, urls, maxText: SCOPED_MAX_TEXT, budget, level };
  } else if (opts.selector) {
    const scope = opts.ref ? await refScope(session, opts.ref) : undefined;
    const locator = scope ? (scope.content ?? scope.locator).locator(opts.selector) : tab.page.locator(opts.selector);
    let count: number;
    try {
      count = await locator.count();
    } catch (error) {
      throw new ToolError('invalid_arguments', `The selector is not valid: ${firstLine(String(error))}`, 'Pass a CSS selector such as "main" or "#results", or omit selector for the whole page.');
    }
    const none = () => new ToolError('invalid_arguments', `The selector matches no element ${scope ? `under ${opts.ref}` : 'on the page'}.`,
      `Check the selector against the page${scope ? ` (it is matched ${scope.content ? 'inside that iframe' : 'under that element'} only)` : ' (it does not reach into iframes: pass with it the ref of the iframe)'}; find {selector} searches every frame.`);
    if (count === 0) throw none();
    root = (await locator.first().elementHandle({ timeout })) ?? undefined;
    if (!root) throw none();
    frame = (await root.ownerFrame()) ?? scope?.content ?? tab.page.mainFrame();
    base = { offset: opts.offset ?? 0, urls, maxText: SCOPED_MAX_TEXT, budget, level };
  } else {
    frame = tab.page.mainFrame();
    base = { urls, maxText: PAGE_MAX_TEXT, budget, level };
  }
  // A relayed connection's top document is walked in one round trip (./directWalk.ts).
  const direct = !root && session.connection.relayed && !frame.parentFrame() ? tab.cdp : undefined;
  let pageOpts: PageOptions;
  let result: PageResult;
  let firstCut = false;
  try {
    // Without a limit: every child of every container if it all fits the budget, else pages of DEFAULT_LIMIT.
    pageOpts = { ...base, limit: opts.limit ?? 100_000 };
    result = await walkWithin(timeout, session, frame, pageOpts, root, direct);
    firstCut = !!result.cut || budget - (result.budgetLeft ?? 0) > DEFAULT_BUDGET;
    if (result.cut && opts.wholeOnly) return { text: '', refCount: 0, revision, instanceId, whole: false, cut: true };
    if (result.cut && opts.limit === undefined && !result.gone) {
      pageOpts = { ...base, limit: DEFAULT_LIMIT };
      result = await walkWithin(timeout, session, frame, pageOpts, root, direct);
    }
  } finally {
    void root?.dispose();
  }
  if (result.gone) throw goneError(opts.ref ?? opts.selector ?? '');
  const counts: ElementCounts | undefined = level === 'summary' ? { links: 0, buttons: 0, fields: 0, other: 0, forms: 0 } : undefined;
  const lines = await expand(session, tab, instanceId, frame, result, pageOpts, timeout, counts);
  const text = lines.join('\n');
  const refCount = text.split('[ref=').length - 1;
  return { text, refCount, revision, instanceId, whole: wholePage(opts) && !firstCut, counts };
}
