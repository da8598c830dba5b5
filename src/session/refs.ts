/**
 * Element refs (docs/snapshot.md): each actionable node in a snapshot
 * carries a ref valid for that document revision. Refs are unique in the
 * process (`e1`, `e2`, ... never reused), so a ref names its tab and document
 * by itself and a ref from an older revision is recognised as stale instead of
 * matching an element of the new document.
 *
 * Within one document an element keeps its ref across snapshots (the
 * in-page runtime keeps one id per element, and we map ids one to one).
 *
 * Resolving a ref (below the registry) asks the frame's runtime for the
 * element of an id (`byRef`), so it needs no snapshot of its own
 * (./snapshot.ts issues the refs) and no selector engine: the element tools
 * act on the ElementHandle `elementOf` gives. The `tabwright-ref` selector
 * engine, which asks the runtime the same way, serves what needs a Locator
 * (drag, and selectors scoped under a ref).
 */
import type { ElementHandle, Frame, Locator } from 'playwright-core';
import { playwright } from '../browser/playwright.js';
import { ToolError } from '../errors.js';
import { classifyPlaywrightError } from '../util/playwrightErrors.js';
import type { Session } from './session.js';
import type { Tab } from './tab.js';

export interface RefTarget {
  tabId: number;
  /** Document the ref was issued for. */
  instanceId: string;
  /** Where the element is in that document: the in-page runtime id (`<document nonce>_<n>`, src/page/snapshot.ts). */
  ariaRef: string;
}

export type RefLookup =
  | { status: 'live'; target: RefTarget }
  | { status: 'stale' }
  | { status: 'unknown' };

/** What a ref named when it was issued (its snapshot line's role and name): what a stale ref's candidates are matched by. */
export interface RefDescription {
  tabId: number;
  role: string;
  name?: string;
}

/** Descriptions kept at most, across documents (the oldest go first). */
const DESCRIPTIONS_MAX = 20_000;

export class RefRegistry {
  private counter = 0;
  /** By ref; kept when the ref's document goes, so a stale ref still says what it named. */
  private readonly descriptions = new Map<string, RefDescription>();
  private readonly byRef = new Map<string, RefTarget>();
  private readonly byDocument = new Map<string, Map<string, string>>();

  /** Returns the ref for `ariaRef` (an element's key) in a document, issuing one if new. */
  assign(tabId: number, instanceId: string, ariaRef: string): string {
    let doc = this.byDocument.get(instanceId);
    if (!doc) this.byDocument.set(instanceId, (doc = new Map()));
    let ref = doc.get(ariaRef);
    if (!ref) {
      ref = `e${++this.counter}`;
      doc.set(ariaRef, ref);
      this.byRef.set(ref, { tabId, instanceId, ariaRef });
    }
    return ref;
  }

  /** Records the role and name a ref's element was shown with (a snapshot line, a find match). */
  describe(ref: string, role: string, name?: string): void {
    const target = this.byRef.get(ref);
    if (!target || !role) return;
    this.descriptions.delete(ref);
    this.descriptions.set(ref, name ? { tabId: target.tabId, role, name } : { tabId: target.tabId, role });
    if (this.descriptions.size > DESCRIPTIONS_MAX) this.descriptions.delete(this.descriptions.keys().next().value!);
  }

  /** The role and name `ref` was last shown with, live or stale; undefined when never described. */
  description(ref: string): RefDescription | undefined {
    return this.descriptions.get(ref);
  }

  /** Looks a ref up: `live`, `stale` (issued earlier for a document now gone), or `unknown`. */
  lookup(ref: string): RefLookup {
    const target = this.byRef.get(ref);
    if (target) return { status: 'live', target };
    const m = /^e(\d+)$/.exec(ref);
    if (m && Number(m[1]) >= 1 && Number(m[1]) <= this.counter) return { status: 'stale' };
    return { status: 'unknown' };
  }

  /** Forgets the refs of a document that was replaced or whose tab closed. */
  dropDocument(instanceId: string): void {
    const doc = this.byDocument.get(instanceId);
    if (!doc) return;
    for (const ref of doc.values()) this.byRef.delete(ref);
    this.byDocument.delete(instanceId);
  }

  /** Number of live refs (all documents). */
  get size(): number {
    return this.byRef.size;
  }
}

/** The selector engine that resolves runtime ids through `__tabwright.byRef`. */
export const REF_ENGINE = 'tabwright-ref';
let engineRegistered: Promise<void> | undefined;

/**
 * Registers the `tabwright-ref` selector engine once per process (Playwright
 * adds it to contexts that exist already). It runs in the page's main world,
 * where the runtime lives, and matches only inside the queried root. A
 * context Playwright creates while it registers gets no engine, so a Session
 * awaits this before it opens its context (./session.ts).
 */
export function registerRefEngine(): Promise<void> {
  engineRegistered ??= playwright().selectors.register(REF_ENGINE, () => {
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
    if (!classifyPlaywrightError(error).has('already_registered')) {
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

/** Records the frame whose runtime uses `nonce` (a snapshot walk learned it). */
export function rememberFrame(nonce: string, frame: Frame): void {
  framesByNonce.set(nonce, new WeakRef(frame));
}

function nonceOf(id: string): string {
  return id.slice(0, id.indexOf('_'));
}

/**
 * The frame of `tab` whose document holds runtime id `id` (of `ref`).
 * @throws ToolError stale_ref when that frame is gone.
 */
export async function frameOf(tab: Tab, id: string, ref: string): Promise<Frame> {
  const nonce = nonceOf(id);
  let frame = framesByNonce.get(nonce)?.deref();
  if (!frame || frame.isDetached()) {
    await Promise.all(tab.page.frames().map(async f => {
      const n = await f.evaluate(() => (globalThis as { __tabwright?: { nonce?: string } }).__tabwright?.nonce ?? null).catch(() => null);
      if (n) framesByNonce.set(n, new WeakRef(f));
    }));
    frame = framesByNonce.get(nonce)?.deref();
  }
  if (!frame || frame.isDetached()) throw new ToolError('stale_ref', `The frame of ref ${ref} is gone (the iframe was removed or navigated).`, RETAKE, { ref });
  return frame;
}

const RETAKE = 'Call get_page_context for a fresh snapshot and use its refs.';

/** The error for a ref whose element left its document. */
export function goneError(ref: string): ToolError {
  return new ToolError('stale_ref', `The element of ref ${ref} is no longer on the page (it was removed or re-rendered).`, RETAKE, ref ? { ref } : undefined);
}

/**
 * Looks a ref up and checks its document is still its tab's.
 * @throws ToolError invalid_arguments (not a ref tabwright issued), stale_ref (an older document, a closed tab),
 *   dialog_open (its tab waits for a dialog, unless `opts.dialogOk`).
 */
export async function lookupRef(session: Session, ref: string, opts: { dialogOk?: boolean } = {}): Promise<{ tab: Tab; target: RefTarget }> {
  const found = session.refs.lookup(ref);
  if (found.status === 'unknown') {
    throw new ToolError('invalid_arguments', `"${ref.slice(0, 40)}" is not a ref tabwright issued.`, `Refs look like e12 and come from get_page_context. ${RETAKE}`);
  }
  if (found.status === 'stale') {
    throw new ToolError('stale_ref', `Ref ${ref} belongs to a document that has since been replaced or closed.`, RETAKE, { ref });
  }
  const { tabId, instanceId } = found.target;
  const tab = await session.tab(tabId, opts).catch((error: unknown) => {
    if (error instanceof ToolError && error.type === 'dialog_open') throw error;
    throw new ToolError('stale_ref', `Ref ${ref} belongs to tab ${tabId}, which is closed.`, RETAKE);
  });
  if (tab.instanceId !== instanceId) {
    throw new ToolError('stale_ref', `Ref ${ref} is from an older revision of tab ${tabId} (now revision ${tab.revision}).`, RETAKE, { ref });
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
 * @throws ToolError stale_ref, invalid_arguments (not a ref), dialog_open.
 */
export async function resolveRef(session: Session, ref: string): Promise<ResolvedRef> {
  const { tab, target } = await lookupRef(session, ref);
  const id = target.ariaRef;
  const frame = await frameOf(tab, id, ref);
  await registerRefEngine();
  const locator = frame.locator(`${REF_ENGINE}=${id}`);
  // Asked of the runtime by id, not through the locator: no frame's selector engines are involved (a document
  // whose injected script was made before the engine was registered cannot fail the lookup).
  const present = await frame.evaluate(runtimeId => !!(globalThis as unknown as RuntimeLookup).__tabwright?.byRef(runtimeId), id).catch(() => false);
  if (!present) throw goneError(ref);
  return { tab, locator, frame, id };
}

/** The page runtime's lookup of an element by its id (src/page/runtime.ts `byRef`). */
interface RuntimeLookup {
  __tabwright?: { byRef(id: string): Element | null };
}

/**
 * The element of a resolved ref as an ElementHandle: one evaluation by the runtime's id, no selector engine. The
 * caller disposes it.
 * @param ref  the ref, for the error.
 * @throws ToolError stale_ref when the element is no longer on the page.
 */
export async function elementOf(resolved: ResolvedRef, ref: string): Promise<ElementHandle<Element>> {
  const found = await resolved.frame.evaluateHandle(id => (globalThis as unknown as RuntimeLookup).__tabwright?.byRef(id) ?? null, resolved.id);
  const handle = found.asElement() as ElementHandle<Element> | null;
  if (!handle) {
    void found.dispose().catch(() => undefined);
    throw goneError(ref);
  }
  return handle;
}

/** The tab a ref belongs to (defineTabTool resolves a ref tool's tab with it). @throws as lookupRef. */
export async function tabOfRef(session: Session, ref: string, opts: { dialogOk?: boolean } = {}): Promise<Tab> {
  return (await lookupRef(session, ref, opts)).tab;
}

/**
 * What a ref names, for the tools that search or snapshot under it
 * (`find`, `get_page_context {ref, selector}`): its element, and when that
 * is an iframe (a `- iframe [ref=…]` line), the frame inside it (same-origin
 * or cross-site), whose document is what lies under it.
 * @throws ToolError stale_ref when the element is gone, or is an iframe that shows no document (yet); as resolveRef.
 */
export async function refScope(session: Session, ref: string): Promise<ResolvedRef & { content?: Frame }> {
  const resolved = await resolveRef(session, ref);
  const handle = await elementOf(resolved, ref);
  try {
    const tag = await handle.evaluate(el => el.localName);
    if (tag !== 'iframe' && tag !== 'frame') return resolved;
    const content = await handle.contentFrame();
    if (!content || content.isDetached()) throw new ToolError('stale_ref', `The iframe of ref ${ref} shows no document (it is loading, or was emptied).`, 'Wait for the frame to load, then try again.');
    return { ...resolved, content };
  } finally {
    void handle.dispose();
  }
}
