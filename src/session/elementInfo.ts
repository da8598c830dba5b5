/**
 * Which element an action acts on, as its report names it (docs/snapshot.md,
 * "After an action"): role, accessible name, ref, and the nearest container
 * that places it (`button "Delete" [ref=e41] in row "Invoice 2024-03 |
 * €120"`).
 *
 * Read from the tab's last whole-page snapshot (`Tab.baseline`, no page
 * round trip) when the ref is in it; otherwise one evaluation in the
 * element's frame by the runtime's `describeRef` (src/page/describe.ts,
 * which uses the snapshot walker's own role and name computation).
 */
import type { Frame } from 'playwright-core';
import type { Session } from './session.js';
import { describeFromSnapshot, formatLabel, parseSnapshot, type NodeLabel, type SnapLine } from './snapshotLines.js';
import type { ResolvedRef } from './refs.js';
import type { Tab } from './tab.js';
import { raceTimeout } from '../util/wait.js';

/** An element as an action report names it. */
export interface ElementInfo {
  ref: string;
  /** ARIA role as the snapshot writes it; absent when the page could not be asked. */
  role?: string;
  name?: string;
  /** The nearest container that places it: a row (named by its cells), list item, dialog, named form or region, landmark. */
  container?: NodeLabel;
}

/** Longest wait for the page to describe an element, in ms (a busy page must not hold the action). */
const DESCRIBE_MS = 2_000;

/** `button "Delete" [ref=e41] in row "Invoice 2024-03 | €120"`; just the ref when nothing else is known. */
export function formatElement(info: ElementInfo): string {
  const head = info.role ? formatLabel({ role: info.role, name: info.name, ref: info.ref }) : info.ref;
  return info.container ? `${head} in ${formatLabel(info.container)}` : head;
}

interface PageDescription {
  role: string;
  name?: string;
  id?: string;
  container?: { role: string; name?: string };
}

type Runtime = {
  __tabwright?: {
    describeRef?(id: string): PageDescription | null;
    focused?(): PageDescription | null;
    ancestorId?(id: string, role: string, name: string | undefined, skip: number): string | null;
  };
};

/** The baseline's parsed lines when it belongs to the tab's current document. */
export function baselineLines(tab: Tab): SnapLine[] | undefined {
  const base = tab.baseline;
  return base && base.instanceId === tab.instanceId ? parseSnapshot(base.text) : undefined;
}

async function askFrame<T>(frame: Frame, fn: (arg: string) => T | null, arg: string): Promise<T | undefined> {
  const value = await raceTimeout(frame.evaluate(fn, arg).catch(() => null), { ms: DESCRIBE_MS, onTimeout: 'undefined' });
  return value ?? undefined;
}

function fromPage(ref: string, d: PageDescription | undefined): ElementInfo {
  if (!d) return { ref };
  return { ref, role: d.role, ...(d.name ? { name: d.name } : {}), ...(d.container ? { container: d.container } : {}) };
}

/**
 * Describes the elements of resolved refs: from the tab's baseline snapshot
 * when it has the ref's line, else one page evaluation per element (in
 * parallel). Never throws: an element the page cannot describe is named by
 * its ref alone.
 */
export async function describeRefs(tab: Tab, targets: ReadonlyArray<{ ref: string; resolved: ResolvedRef }>): Promise<ElementInfo[]> {
  let lines: SnapLine[] | undefined;
  return await Promise.all(targets.map(async ({ ref, resolved }) => {
    lines ??= baselineLines(tab) ?? [];
    const known = describeFromSnapshot(lines, ref);
    if (known) return { ref, role: known.role, ...(known.name ? { name: known.name } : {}), ...(known.container ? { container: known.container } : {}) };
    const d = await askFrame(resolved.frame, id => (globalThis as Runtime).__tabwright?.describeRef?.(id) ?? null, resolved.id);
    return fromPage(ref, d);
  }));
}

/**
 * The focused element of a tab (through shadow roots and same-origin
 * frames), with a ref (issued now if it had none); undefined when only the
 * body has focus or the page does not answer. One evaluation.
 */
export async function describeFocused(session: Session, tab: Tab): Promise<ElementInfo | undefined> {
  const d = await askFrame(tab.page.mainFrame(), () => (globalThis as Runtime).__tabwright?.focused?.() ?? null, '');
  if (!d?.id) return undefined;
  const ref = session.refs.assign(tab.id, tab.instanceId, d.id);
  const lines = baselineLines(tab);
  const known = lines && describeFromSnapshot(lines, ref);
  return known ? { ref, role: known.role, ...(known.name ? { name: known.name } : {}), ...(known.container ? { container: known.container } : {}) } : fromPage(ref, d);
}

/**
 * A ref for the element of a snapshot line that has none (a list, a
 * region), found from the element of `descendant` (a ref inside it): its
 * `skip`+1-th ancestor with `role` (and `name`, when given). One evaluation
 * in the descendant's frame; undefined when not found.
 */
export async function ancestorRef(session: Session, tab: Tab, descendant: ResolvedRef, role: string, name: string | undefined, skip: number): Promise<string | undefined> {
  const id = await raceTimeout(descendant.frame.evaluate(([i, r, n, s]) => (globalThis as Runtime).__tabwright?.ancestorId?.(i, r, n ?? undefined, s) ?? null, [descendant.id, role, name ?? null, skip] as [string, string, string | null, number]).catch(() => null), { ms: DESCRIBE_MS, onTimeout: 'undefined' });
  return id ? session.refs.assign(tab.id, tab.instanceId, id) : undefined;
}

/**
 * Several elements in one phrase; a container they all share is named once:
 * `textbox "Name" [ref=e4], checkbox "Gift wrap" [ref=e5] in form "Order"`.
 */
export function formatElements(infos: readonly ElementInfo[]): string {
  const containers = new Set(infos.map(i => (i.container ? formatLabel(i.container) : '')));
  if (containers.size === 1 && infos.length > 1 && infos[0]!.container) {
    return `${infos.map(i => formatElement({ ...i, container: undefined })).join(', ')} in ${[...containers][0]}`;
  }
  return infos.map(formatElement).join('; ');
}
