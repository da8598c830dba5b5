/**
 * Snapshots and ref resolution (DESIGN.md, "snapshot"; issue #2,
 * `get_page_context`; the format is docs/snapshot.md).
 *
 * The in-page runtime (src/page/snapshot.ts) walks each frame's document in
 * one evaluate and writes the compact lines with placeholder ids; this module
 * splices child frames under their iframe line and turns each placeholder
 * into a tabwright ref that is unique in the process (see refs.ts), so one
 * ref names tab, document, frame and element. Refs resolve through the
 * `tabwright-ref` selector engine, which asks the frame's runtime for the
 * element of an id, so resolving needs no snapshot of its own and a
 * selector- or ref-scoped snapshot never invalidates other refs.
 */
import { readFileSync } from 'node:fs';
import type { ElementHandle, Frame, Locator } from 'playwright-core';
import { isTimeoutError, playwright, timeoutError } from '../browser/playwright.js';
import { firstLine, ToolError } from '../errors.js';
import { adoptClosedRoots } from './closedShadow.js';
import { warmRefActions } from './refWarmup.js';
import type { SnapshotResult } from '../page/snapshot.js';
import type { Session } from './session.js';
import { RUNTIME_PATH } from './session.js';
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
}

export interface SnapshotOptions {
  /** CSS or Playwright selector: snapshot the first match only. */
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
}

const PLACEHOLDER = /\u0001([^\u0001]+)\u0001/g;
/** The selector engine that resolves runtime ids through `__tabwright.byRef`. */
const ENGINE = 'tabwright-ref';
let engineRegistered: Promise<void> | undefined;

/**
 * Registers the `tabwright-ref` selector engine once per process (Playwright
 * adds it to contexts that exist already). It runs in the page's main world,
 * where the runtime lives, and matches only inside the queried root. A
 * context Playwright creates while it registers gets no engine, so a Session
 * awaits this before it opens its context (./session.ts).
 */
export function registerEngine(): Promise<void> {
  engineRegistered ??= playwright().selectors.register(ENGINE, () => {
    const find = (root: Node, id: string): Element | null => {
      const runtime = (globalThis as { __tabwright?: { byRef(id: string): Element | null } }).__tabwright;
      const el = runtime ? runtime.byRef(id) : null;
      for (let n: Node | null = el; n; n = n.parentNode ?? (n as ShadowRoot).host ?? null) if (n === root) return el;
      return null;
    };
    return {
      query: (root: Node, id: string) => find(root, id),
      queryAll: (root: Node, id: string) => {
        const el = find(root, id);
        return el ? [el] : [];
      },
    };
  }).catch(error => {
    if (!/already registered/.test(String(error))) {
      engineRegistered = undefined;
      throw error;
    }
  });
  return engineRegistered;
}

/**
 * Each document's runtime prefixes its ids with a random nonce; refs carry
 * the id, and the nonce finds the frame (learned from the walks, or by
 * asking every frame of the tab when a same-origin frame walked inline by
 * its parent is first acted on).
 */
const framesByNonce = new Map<string, WeakRef<Frame>>();

function nonceOf(id: string): string {
  return id.slice(0, id.indexOf('_'));
}

async function frameOf(tab: Tab, id: string, ref: string): Promise<Frame> {
  const nonce = nonceOf(id);
  let frame = framesByNonce.get(nonce)?.deref();
  if (!frame || frame.isDetached()) {
    await Promise.all(tab.page.frames().map(async f => {
      const n = await f.evaluate(() => (globalThis as { __tabwright?: { nonce?: string } }).__tabwright?.nonce ?? null).catch(() => null);
      if (n) framesByNonce.set(n, new WeakRef(f));
    }));
    frame = framesByNonce.get(nonce)?.deref();
  }
  if (!frame || frame.isDetached()) throw new ToolError('stale_ref', `The frame of ref ${ref} is gone (the iframe was removed or navigated).`, RETAKE);
  return frame;
}

/** Child frames worth a walk of their own: cross-origin documents (same-origin ones are walked inline by their parent). */
function foreignFrames(frame: Frame): Frame[] {
  const out: Frame[] = [];
  const visit = (f: Frame) => {
    for (const child of f.childFrames()) {
      const url = child.url();
      if (!/^(about:|chrome-error:|javascript:)/.test(url) && url !== '') out.push(child);
      visit(child);
    }
  };
  visit(frame);
  return out;
}

let runtimeSource: string | undefined;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(`snapshot: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs the walker in `frame` (on `root` when given), injecting the runtime into a document that predates it. */
async function walk(frame: Frame, opts: PageOptions, root?: ElementHandle): Promise<PageResult> {
  const run = () => root
    ? root.evaluate((el, o) => {
      const rt = (globalThis as { __tabwright?: { snapshot?: (o: unknown) => unknown } }).__tabwright;
      return (rt?.snapshot ? rt.snapshot({ ...o, root: el }) : 'runtime-missing') as PageResult | 'runtime-missing';
    }, opts)
    : frame.evaluate(o => {
      const rt = (globalThis as { __tabwright?: { snapshot?: (o: unknown) => unknown } }).__tabwright;
      return (rt?.snapshot ? rt.snapshot(o) : 'runtime-missing') as PageResult | 'runtime-missing';
    }, opts);
  let result = await run();
  if (result === 'runtime-missing') {
    runtimeSource ??= readFileSync(RUNTIME_PATH, 'utf8');
    await frame.evaluate(runtimeSource);
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
async function expand(session: Session, tab: Tab, instanceId: string, frame: Frame, result: PageResult, opts: PageOptions, timeout: number): Promise<string[]> {
  framesByNonce.set(result.nonce, new WeakRef(frame));
  // Refs of this walk first, so numbers follow reading order.
  let refs = 0;
  const own = result.lines.map(line => line.replace(PLACEHOLDER, (_, id: string) => {
    refs++;
    return session.refs.assign(tab.id, instanceId, id);
  }));
  // Ref actions on this document will follow: get Playwright ready for them meanwhile (./refWarmup.ts).
  if (refs) warmRefActions(frame, result.nonce, () => registerEngine().then(() => ENGINE));
  const inserts = new Map<number, string[]>();
  if (result.frames.length) {
    const wanted = new Set(result.frames);
    const children = await Promise.all(foreignFrames(frame).map(async child => {
      try {
        const handle = await child.frameElement();
        const id = await (handle as ElementHandle<Element>).evaluate(el => (globalThis as { __tabwright?: { idOf?(el: Element): string | null } }).__tabwright?.idOf?.(el) ?? null);
        void handle.dispose();
        if (!id || !wanted.has(id)) return undefined;
        const budget = Math.max(2_000, Math.floor((result.budgetLeft ?? Infinity) / wanted.size));
        const sub = await withTimeout(walk(child, { limit: opts.limit, urls: opts.urls, maxText: opts.maxText, budget }), timeout);
        return { id, lines: await expand(session, tab, instanceId, child, sub, opts, timeout) };
      } catch (error) {
        if (isTimeoutError(error)) throw error;
        return undefined; // detached meanwhile, or not a document we can read
      }
    }));
    for (const c of children) {
      if (!c) continue;
      const at = result.lines.findIndex(l => l.includes(`\u0001${c.id}\u0001`));
      if (at !== -1 && c.lines.length) inserts.set(at, c.lines);
    }
  }
  const out: string[] = [];
  own.forEach((text, i) => {
    const sub = inserts.get(i);
    if (!sub) {
      out.push(text);
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
 * `selector` (a CSS or Playwright selector), or of the element of `ref`
 * (from `offset` on among its children).
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
      if (attempt === 2 || opts.ref || !/Execution context was destroyed|navigat|detached/i.test(String(error)) || error instanceof ToolError) throw error;
      await tab.page.waitForLoadState('domcontentloaded', { timeout }).catch(() => undefined);
      continue;
    }
    if (tab.instanceId === instanceId || attempt === 2 || opts.ref) {
      keepBaseline(tab, snap, opts);
      return snap;
    }
    await tab.page.waitForLoadState('domcontentloaded', { timeout }).catch(() => undefined);
  }
}

/** Whether options ask for the whole page as the walker writes it by default (no scope, paging or URLs). */
function wholePage(opts: SnapshotOptions): boolean {
  return !opts.selector && !opts.ref && opts.offset === undefined && opts.limit === undefined && !opts.urls;
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
  let frame: Frame;
  let root: ElementHandle | undefined;
  let base: PageOptions;
  if (opts.ref) {
    const { target } = await lookup(session, opts.ref);
    const id = target.ariaRef;
    frame = await frameOf(tab, id, opts.ref);
    base = { rootId: id, offset: opts.offset ?? 0, urls, maxText: SCOPED_MAX_TEXT, budget };
  } else if (opts.selector) {
    const locator = tab.page.locator(opts.selector);
    let count: number;
    try {
      count = await locator.count();
    } catch (error) {
      throw new ToolError('invalid_arguments', `The selector is not valid: ${firstLine(String(error))}`, 'Pass a CSS selector such as "main" or "#results", or omit selector for the whole page.');
    }
    if (count === 0) throw new ToolError('invalid_arguments', 'The selector matches no element on the page.', 'Check the selector against the page, or omit it for the whole page.');
    root = (await locator.first().elementHandle({ timeout })) ?? undefined;
    if (!root) throw new ToolError('invalid_arguments', 'The selector matches no element on the page.', 'Check the selector against the page, or omit it for the whole page.');
    frame = (await root.ownerFrame()) ?? tab.page.mainFrame();
    base = { offset: opts.offset ?? 0, urls, maxText: SCOPED_MAX_TEXT, budget };
  } else {
    frame = tab.page.mainFrame();
    base = { urls, maxText: PAGE_MAX_TEXT, budget };
  }
  let pageOpts: PageOptions;
  let result: PageResult;
  let firstCut = false;
  try {
    // Without a limit: every child of every container if it all fits the budget, else pages of DEFAULT_LIMIT.
    pageOpts = { ...base, limit: opts.limit ?? 100_000 };
    result = await withTimeout(walk(frame, pageOpts, root), timeout);
    firstCut = !!result.cut || budget - (result.budgetLeft ?? 0) > DEFAULT_BUDGET;
    if (result.cut && opts.wholeOnly) return { text: '', refCount: 0, revision, instanceId, whole: false, cut: true };
    if (result.cut && opts.limit === undefined && !result.gone) {
      pageOpts = { ...base, limit: DEFAULT_LIMIT };
      result = await withTimeout(walk(frame, pageOpts, root), timeout);
    }
  } finally {
    void root?.dispose();
  }
  if (result.gone) throw goneError(opts.ref ?? opts.selector ?? '');
  const lines = await expand(session, tab, instanceId, frame, result, pageOpts, timeout);
  const text = lines.join('\n');
  const refCount = text.split('[ref=').length - 1;
  return { text, refCount, revision, instanceId, whole: wholePage(opts) && !firstCut };
}

const RETAKE = 'Call get_page_context for a fresh snapshot and use its refs.';

function goneError(ref: string): ToolError {
  return new ToolError('stale_ref', `The element of ref ${ref} is no longer on the page (it was removed or re-rendered).`, RETAKE);
}

/** Looks a ref up and checks its document is still the tab's. */
async function lookup(session: Session, ref: string) {
  const found = session.refs.lookup(ref);
  if (found.status === 'unknown') {
    throw new ToolError('invalid_arguments', `"${ref.slice(0, 40)}" is not a ref tabwright issued.`, `Refs look like e12 and come from get_page_context. ${RETAKE}`);
  }
  if (found.status === 'stale') {
    throw new ToolError('stale_ref', `Ref ${ref} belongs to a document that has since been replaced or closed.`, RETAKE);
  }
  const { tabId, instanceId } = found.target;
  const tab = await session.tab(tabId).catch((error: unknown) => {
    if (error instanceof ToolError && error.type === 'dialog_open') throw error;
    throw new ToolError('stale_ref', `Ref ${ref} belongs to tab ${tabId}, which is closed.`, RETAKE);
  });
  if (tab.instanceId !== instanceId) {
    throw new ToolError('stale_ref', `Ref ${ref} is from an older revision of tab ${tabId} (now revision ${tab.revision}).`, RETAKE);
  }
  return { tab, target: found.target };
}

/** What a ref resolves to. */
export interface ResolvedRef {
  tab: Tab;
  locator: Locator;
  /** The frame the element is in, and its runtime id there. */
  frame: Frame;
  id: string;
}

/**
 * Resolves a ref to its element. Never resolves to an element of another
 * document: a ref from an older revision or a closed tab is `stale_ref`.
 * @throws ToolError stale_ref, invalid_arguments (not a ref), tab_not_found.
 */
export async function resolveRef(session: Session, ref: string): Promise<ResolvedRef> {
  const { tab, target } = await lookup(session, ref);
  const id = target.ariaRef;
  const frame = await frameOf(tab, id, ref);
  await registerEngine();
  const locator = frame.locator(`${ENGINE}=${id}`);
  if ((await locator.count()) === 0) throw goneError(ref);
  return { tab, locator, frame, id };
}

/** The tab a ref belongs to (for get_page_context {ref}). */
export async function tabOfRef(session: Session, ref: string): Promise<Tab> {
  return (await lookup(session, ref)).tab;
}
