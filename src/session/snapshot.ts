/**
 * Snapshots and ref resolution (DESIGN.md, "snapshot"; issue #2,
 * `get_page_context`).
 *
 * The snapshot is Playwright's AI-mode aria snapshot (YAML-like lines, one
 * node each, iframe content nested under its iframe). Playwright's per-frame
 * refs (`e5`, `f1e3`) are rewritten to tabwright refs that are unique in the
 * process (see refs.ts), so one ref names tab, document and element.
 *
 * Supplementary pass: Playwright gives refs only to nodes with a box of
 * their own that receive pointer events. A visible link around a float or an
 * absolutely positioned box (its own box is empty) and an element with
 * `pointer-events: none` get none, so an agent could see them but not act on
 * them. After a whole-page snapshot, the in-page runtime lists such elements
 * (`__tabwright.unreffed()`), and they are appended under a comment line with
 * refs of their own, resolved through the `tabwright-ref` selector engine
 * (see `supplementaryLines` and `resolveRef`).
 */
import { selectors, type Locator } from 'playwright-core';
import { firstLine, ToolError } from '../tools/errors.js';
import type { Session } from './session.js';
import type { Tab } from './tab.js';

export interface Snapshot {
  /** The snapshot text with tabwright refs. */
  text: string;
  /** Number of refs in it. */
  refCount: number;
  /** Document revision it was taken on. */
  revision: number;
  instanceId: string;
}

const REF_PATTERN = /\[ref=([a-z0-9]+)\]/g;

/** Prefix of the aria-ref slot of a supplementary ref (RefTarget.ariaRef = `tw:s3`). */
const SUPPLEMENTARY = 'tw:';
/** The selector engine that resolves supplementary ids through `__tabwright.byRef`. */
const ENGINE = 'tabwright-ref';
let engineRegistered: Promise<void> | undefined;

/**
 * Registers the `tabwright-ref` selector engine once per process (Playwright
 * adds it to contexts that exist already). It runs in the page's main world,
 * where the runtime lives, and matches only inside the queried root.
 */
function registerEngine(): Promise<void> {
  engineRegistered ??= selectors.register(ENGINE, () => {
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

/** What `__tabwright.unreffed()` reports (src/page/runtime.ts). */
interface Unreffed {
  id: string;
  role: string;
  name: string;
  url?: string;
  reason: 'no-box' | 'no-pointer-events';
}

function yamlValue(text: string): string {
  return /^[\s\-&*!|>%@`'"#,[\]{}?]|[:#]\s|:$|\s$|[\n\r]/.test(text) || text === '' ? JSON.stringify(text) : text;
}

/**
 * The supplementary lines of a whole-page snapshot (see the file comment):
 * one node per visible link, button or control the snapshot left without a
 * ref, with a ref of its own; empty when there is none (or the page has no
 * runtime).
 */
async function supplementaryLines(session: Session, tab: Tab, instanceId: string): Promise<string[]> {
  let extra: Unreffed[];
  try {
    extra = await tab.page.evaluate(() => {
      const runtime = (globalThis as { __tabwright?: { unreffed?: () => unknown } }).__tabwright;
      return (runtime?.unreffed ? runtime.unreffed() : []) as Unreffed[];
    });
  } catch {
    return [];
  }
  if (!extra.length) return [];
  const lines = ['# Visible, but without a ref above (no box of their own, or pointer-events: none); use these refs:'];
  for (const e of extra) {
    const ref = session.refs.assign(tab.id, instanceId, SUPPLEMENTARY + e.id);
    const key = `- ${e.role}${e.name ? ` ${JSON.stringify(e.name)}` : ''} [ref=${ref}]`;
    lines.push(e.url === undefined ? key : `${key}:\n  - /url: ${yamlValue(e.url)}`);
  }
  return lines;
}

/**
 * Takes a snapshot of the whole page, or of the first element matching
 * `selector` (a CSS or Playwright selector).
 * @throws ToolError invalid_arguments when `selector` is malformed or matches nothing.
 */
export async function takeSnapshot(session: Session, tab: Tab, opts: { selector?: string; timeoutMs?: number } = {}): Promise<Snapshot> {
  const timeout = opts.timeoutMs ?? 15_000;
  // A document that replaces the one being read (a navigation committing meanwhile)
  // would get the old document's label and refs: read again, at most twice more.
  for (let attempt = 0; ; attempt++) {
    const instanceId = tab.instanceId;
    const snap = await snapshotOnce(session, tab, instanceId, opts.selector, timeout);
    if (tab.instanceId === instanceId || attempt === 2) return snap;
    await tab.page.waitForLoadState('domcontentloaded', { timeout }).catch(() => undefined);
  }
}

async function snapshotOnce(session: Session, tab: Tab, instanceId: string, selector: string | undefined, timeout: number): Promise<Snapshot> {
  const opts = { selector };
  const revision = tab.revision;
  let raw: string;
  if (opts.selector) {
    const locator = tab.page.locator(opts.selector);
    let count: number;
    try {
      count = await locator.count();
    } catch (error) {
      throw new ToolError('invalid_arguments', `The selector is not valid: ${firstLine(String(error))}`, 'Pass a CSS selector such as "main" or "#results", or omit selector for the whole page.');
    }
    if (count === 0) throw new ToolError('invalid_arguments', 'The selector matches no element on the page.', 'Check the selector against the page, or omit it for the whole page.');
    raw = await locator.first().ariaSnapshot({ mode: 'ai', timeout });
    tab.lastSnapshotScoped = true;
  } else {
    raw = await tab.page.ariaSnapshot({ mode: 'ai', timeout });
    tab.lastSnapshotScoped = false;
  }
  let refCount = 0;
  let text = raw.replace(REF_PATTERN, (_, ariaRef: string) => {
    refCount++;
    return `[ref=${session.refs.assign(tab.id, instanceId, ariaRef)}]`;
  });
  if (!opts.selector) {
    const extra = await supplementaryLines(session, tab, instanceId);
    if (extra.length) {
      refCount += extra.length - 1;
      text += `\n${extra.join('\n')}`;
    }
  }
  return { text, refCount, revision, instanceId };
}

/** What a ref resolves to. */
export interface ResolvedRef {
  tab: Tab;
  locator: Locator;
}

/**
 * Resolves a ref to its element. Never resolves to an element of another
 * document: a ref from an older revision or a closed tab is `stale_ref`.
 * @throws ToolError stale_ref, invalid_arguments (not a ref), tab_not_found.
 */
export async function resolveRef(session: Session, ref: string): Promise<ResolvedRef> {
  const found = session.refs.lookup(ref);
  const retake = 'Call get_page_context for a fresh snapshot and use its refs.';
  if (found.status === 'unknown') {
    throw new ToolError('invalid_arguments', `"${ref.slice(0, 40)}" is not a ref tabwright issued.`, `Refs look like e12 and come from get_page_context. ${retake}`);
  }
  if (found.status === 'stale') {
    throw new ToolError('stale_ref', `Ref ${ref} belongs to a document that has since been replaced or closed.`, retake);
  }
  const { tabId, instanceId, ariaRef } = found.target;
  const tab = await session.tab(tabId).catch(() => {
    throw new ToolError('stale_ref', `Ref ${ref} belongs to tab ${tabId}, which is closed.`, retake);
  });
  if (tab.instanceId !== instanceId) {
    throw new ToolError('stale_ref', `Ref ${ref} is from an older revision of tab ${tabId} (now revision ${tab.revision}).`, retake);
  }
  if (ariaRef.startsWith(SUPPLEMENTARY)) {
    await registerEngine();
    const locator = tab.page.locator(`${ENGINE}=${ariaRef.slice(SUPPLEMENTARY.length)}`);
    if ((await locator.count()) === 0) {
      throw new ToolError('stale_ref', `The element of ref ${ref} is no longer on the page (it was removed or re-rendered).`, retake);
    }
    return { tab, locator };
  }
  if (tab.lastSnapshotScoped) {
    // Playwright resolves refs against the newest snapshot of the frame; after a
    // selector-scoped snapshot, refresh the whole page so refs outside it resolve.
    await tab.page.ariaSnapshot({ mode: 'ai', timeout: 15_000 });
    tab.lastSnapshotScoped = false;
  }
  const locator = tab.page.getByRef(ariaRef);
  if ((await locator.count()) === 0) {
    throw new ToolError('stale_ref', `The element of ref ${ref} is no longer on the page (it was removed or re-rendered).`, retake);
  }
  return { tab, locator };
}
