/**
 * A compact diff of two whole-page snapshots of one document, written for a
 * model to read (docs/snapshot.md, "After an action").
 *
 * Identity: within one document an element keeps its ref across snapshots
 * (./refs.ts), so a line with `[ref=eN]` is matched by its ref and the
 * nearest named (or ref'd) node it is in (a checkbox that became checked is
 * the same node, changed; a card dropped into another lane moved); any
 * other line by its text. Indentation alone never counts as a change. The line
 * sequences are aligned with Myers' O(ND) algorithm after trimming the
 * common head and tail, bounded by `maxEdits` so a page that changed
 * wholesale costs no more than a small diff. Then:
 *
 * - a ref matched on both sides whose line differs is `changed`;
 * - a ref deleted in one place and inserted in another is `moved`;
 * - in a run of deletions and insertions, a text line replaced by a text
 *   line (or a ref-less node by one of the same role) at the same depth is
 *   `changed`; the rest are `added` and `removed`.
 *
 * The rendered diff groups adjacent lines of one kind into hunks, each
 * headed by where it is (the nearest named ancestor, e.g. `in row "Invoice
 * 2024-03 | €120"`), with the lines as the snapshot writes them, re-indented.
 * No browser, no I/O.
 */
import { ancestorsOf, containerLabel, formatLabel, parseSnapshot, type NodeLabel, type SnapLine } from './snapshotLines.js';
import { plural } from '../util/plural.js';

/** One changed line. `at` indexes the new lines (added, changed, moved) or the old ones (removed); `was` the old line of a changed or moved one. */
export interface DiffEntry {
  kind: 'added' | 'removed' | 'changed' | 'moved';
  at: number;
  was?: number;
}

export interface SnapshotDiff {
  before: SnapLine[];
  after: SnapLine[];
  added: number;
  removed: number;
  changed: number;
  moved: number;
  /** Refs only in the new snapshot, only in the old one, and in both. */
  refsAdded: number;
  refsRemoved: number;
  refsKept: number;
  /** The changed lines in document order; undefined when more than `maxEdits` lines changed (`tooMany`). */
  entries?: DiffEntry[];
  tooMany?: boolean;
  /**
   * Index (in `after`) of the deepest unchanged node whose subtree holds
   * every change on both sides, or -1 when the change is not inside one
   * node (or there is none).
   */
  scope: number;
}

/** Edit distance past which a diff is not worked out (it could not fit a small budget anyway). */
export const MAX_EDITS = 500;

/**
 * The alignment key of every line: a ref line is its ref plus where it is
 * (the nearest ancestor with a ref or a name), so a node that went into
 * another named container is a move, while a wrapper appearing around it is
 * not; any other line is its text.
 */
function keysOf(lines: readonly SnapLine[]): string[] {
  const stack: Array<{ depth: number; place: string }> = [];
  return lines.map(line => {
    while (stack.length && stack[stack.length - 1]!.depth >= line.depth) stack.pop();
    const place = stack.length ? stack[stack.length - 1]!.place : '';
    if (line.kind === 'node') {
      const own = line.ref ? `#${line.ref}` : line.name !== undefined ? `${line.role} ${JSON.stringify(line.name)}` : place;
      stack.push({ depth: line.depth, place: own });
    }
    return line.ref && line.kind === 'node' ? `\u0000${line.ref}@${place}` : line.body;
  });
}

/** A line's text for "did it change": a trailing ':' only says it has children now. */
function content(line: SnapLine): string {
  return line.body.endsWith(':') ? line.body.slice(0, -1) : line.body;
}

type Op = { op: 'eq'; i: number; j: number } | { op: 'del'; i: number } | { op: 'ins'; j: number };

/**
 * Myers' shortest edit script between `a` and `b` (E. W. Myers, "An O(ND)
 * Difference Algorithm and Its Variations", Algorithmica 1986), or
 * undefined when it needs more than `maxD` edits.
 */
export function editScript(a: readonly string[], b: readonly string[], maxD: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(n + m, maxD);
  const off = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  outer: for (let d = 0; d <= limit; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? v[off + k + 1]! : v[off + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break outer;
      }
    }
  }
  if (found < 0) return undefined;
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = found; d >= 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[off + k - 1]! < vd[off + k + 1]!) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : vd[off + prevK]!;
    const prevY = d === 0 ? 0 : prevX - prevK;
    while (x > prevX && y > prevY) ops.push({ op: 'eq', i: --x, j: --y });
    if (d > 0) {
      if (x === prevX) ops.push({ op: 'ins', j: --y });
      else ops.push({ op: 'del', i: --x });
    }
  }
  return ops.reverse();
}

/** Same depth and same kind of line (text, or a node of the same role without refs). */
function replaceable(a: SnapLine, b: SnapLine): boolean {
  if (a.depth !== b.depth || a.kind !== b.kind || a.ref || b.ref) return false;
  return a.kind !== 'node' || a.role === b.role;
}

/**
 * The deepest node of the common head whose subtree holds the changed
 * regions of both sides (`[head, length - tail)`); -1 for none. Such a node
 * is the last line of the head or one of its ancestors.
 */
function scopeOf(before: SnapLine[], after: SnapLine[], head: number, tail: number): number {
  const endA = after.length - tail;
  const endB = before.length - tail;
  if ((head >= endA && head >= endB) || head === 0) return -1;
  for (const c of [head - 1, ...ancestorsOf(after, head - 1)]) {
    const depth = after[c]!.depth;
    if (after[c]!.kind !== 'node') continue;
    let inside = true;
    for (let i = head; i < endA && inside; i++) if (after[i]!.depth <= depth) inside = false;
    for (let i = head; i < endB && inside; i++) if (before[i]!.depth <= depth) inside = false;
    if (inside) return c;
  }
  return -1;
}

/**
 * Diffs two snapshot texts of one document (old, new). Lines beyond
 * `maxEdits` edits make a diff with counts of refs only (`tooMany`).
 */
export function diffSnapshots(beforeText: string, afterText: string, maxEdits = MAX_EDITS): SnapshotDiff {
  const before = parseSnapshot(beforeText);
  const after = parseSnapshot(afterText);
  const oldRefs = new Set(before.flatMap(l => (l.ref ? [l.ref] : [])));
  const newRefs = new Set(after.flatMap(l => (l.ref ? [l.ref] : [])));
  let kept = 0;
  for (const r of newRefs) if (oldRefs.has(r)) kept++;
  const diff: SnapshotDiff = {
    before, after, added: 0, removed: 0, changed: 0, moved: 0,
    refsAdded: newRefs.size - kept, refsRemoved: oldRefs.size - kept, refsKept: kept, scope: -1,
  };
  // The common head and tail, line for line (indentation included).
  const raw = (l: SnapLine) => `${l.depth} ${l.body}`;
  let head = 0;
  while (head < before.length && head < after.length && raw(before[head]!) === raw(after[head]!)) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && raw(before[before.length - 1 - tail]!) === raw(after[after.length - 1 - tail]!)) tail++;
  diff.scope = scopeOf(before, after, head, tail);
  const a = keysOf(before).slice(head, before.length - tail);
  const b = keysOf(after).slice(head, after.length - tail);
  const script = editScript(a, b, maxEdits);
  if (!script) {
    diff.tooMany = true;
    return diff;
  }
  const entries: DiffEntry[] = [];
  // Runs of deletions and insertions between matched lines: pair replaced lines within each.
  let dels: number[] = [];
  let inss: number[] = [];
  const flush = () => {
    const pairs = new Map<number, number>(); // new index -> old index
    const paired = new Set<number>();
    for (let p = 0, q = 0; p < dels.length && q < inss.length;) {
      if (replaceable(before[dels[p]!]!, after[inss[q]!]!)) {
        pairs.set(inss[q]!, dels[p]!);
        paired.add(dels[p]!);
        p++;
        q++;
      } else if (dels.length - p > inss.length - q) p++;
      else q++;
    }
    for (const i of dels) if (!paired.has(i)) entries.push({ kind: 'removed', at: i });
    for (const j of inss) entries.push(pairs.has(j) ? { kind: 'changed', at: j, was: pairs.get(j) } : { kind: 'added', at: j });
    dels = [];
    inss = [];
  };
  for (const op of script) {
    if (op.op === 'del') dels.push(op.i + head);
    else if (op.op === 'ins') inss.push(op.j + head);
    else {
      flush();
      const i = op.i + head;
      const j = op.j + head;
      if (content(before[i]!) !== content(after[j]!)) entries.push({ kind: 'changed', at: j, was: i });
    }
  }
  flush();
  // A ref removed in one place and added in another moved (a re-sorted list).
  const removedRefs = new Map<string, number>();
  for (const e of entries) if (e.kind === 'removed' && before[e.at]!.ref) removedRefs.set(before[e.at]!.ref!, e.at);
  const movedFrom = new Set<number>();
  for (const e of entries) {
    const ref = e.kind === 'added' ? after[e.at]!.ref : undefined;
    const from = ref ? removedRefs.get(ref) : undefined;
    if (from !== undefined) {
      e.kind = 'moved';
      e.was = from;
      movedFrom.add(from);
    }
  }
  // What a moved node holds moves with it: its text and ref-less lines, removed at the old place and added at the new.
  const removedAt = new Map<number, DiffEntry>();
  for (const e of entries) if (e.kind === 'removed') removedAt.set(e.at, e);
  for (const e of entries.filter(x => x.kind === 'moved')) {
    const pool = new Map<string, number[]>();
    for (let i = e.was! + 1; i < before.length && before[i]!.depth > before[e.was!]!.depth; i++) {
      if (removedAt.has(i)) pool.set(before[i]!.body, [...(pool.get(before[i]!.body) ?? []), i]);
    }
    for (const x of entries) {
      if (x.kind !== 'added' || x.at <= e.at) continue;
      let inside = true;
      for (let j = e.at + 1; j <= x.at; j++) if (after[j]!.depth <= after[e.at]!.depth) inside = false;
      const from = inside ? pool.get(after[x.at]!.body)?.shift() : undefined;
      if (from === undefined) continue;
      x.kind = 'moved';
      x.was = from;
      movedFrom.add(from);
    }
  }
  diff.entries = entries.filter(e => !(e.kind === 'removed' && movedFrom.has(e.at)));
  for (const e of diff.entries) diff[e.kind]++;
  return diff;
}

/** Where a line is, for a hunk's heading: the nearest named ancestor, and the unnamed parent in between. */
function placeOf(lines: readonly SnapLine[], at: number): string {
  const anc = ancestorsOf(lines, at);
  if (!anc.length) return '';
  let named: NodeLabel | undefined;
  let namedAt = -1;
  for (const i of anc) {
    const line = lines[i]!;
    named = containerLabel(lines, i) ?? (line.name || line.ref ? { role: line.role!, name: line.name, ref: line.ref } : undefined);
    if (named) {
      namedAt = i;
      break;
    }
  }
  const parts: string[] = [];
  const parent = lines[anc[0]!]!;
  if (anc[0] !== namedAt && parent.role && parent.role !== 'generic') parts.push(parent.role);
  if (named) parts.push(formatLabel(named));
  return parts.join(' in ');
}

/**
 * When a diff removes more than this many lines, the removals are one line
 * (removedSummary): what the page no longer shows needs naming, not its
 * whole text again (a search that replaces a result list would otherwise
 * repeat the old list). Fewer are shown whole, in place.
 */
const REMOVED_IN_FULL = 4;
/** How many removed lines a summary names. */
const REMOVED_NAMED = 8;

/** `20 lines, 20 refs gone: listitem "Anvil" · link "Bell" · … 14 more`: the removed nodes at the top of what went (`tops`, indexes in `before`) that name something, refs left out (they are gone). */
function removedSummary(lines: readonly SnapLine[], tops: readonly number[], before: readonly SnapLine[]): string {
  const refs = lines.filter(l => l.ref).length;
  const clip = (text: string) => (text.length > 50 ? `${text.slice(0, 50)}…` : text);
  const labels = tops.flatMap(at => {
    const l = before[at]!;
    // A list item or row is named by what it shows (its first text, its cells).
    const placed = containerLabel(before, at);
    if (placed?.name) return [formatLabel({ role: placed.role, name: clip(placed.name) })];
    if (l.kind === 'node' && l.name) return [`${l.role ?? ''} ${JSON.stringify(clip(l.name))}`];
    if (l.kind === 'node' && l.value) return [`${l.role ?? ''}: ${clip(l.value)}`];
    if (l.kind === 'text') return [JSON.stringify(clip(l.body))];
    return [];
  });
  const named = labels.slice(0, REMOVED_NAMED).join(' · ');
  const more = labels.length > REMOVED_NAMED ? ` · … ${labels.length - REMOVED_NAMED} more` : '';
  return `${plural(lines.length, 'line')}${refs ? `, ${plural(refs, 'ref')} gone` : ''}${named ? `: ${named}${more}` : ''}`;
}

/** The `[…]` states of a line, its ref left out. */
function statesOf(line: SnapLine): string[] {
  return (line.states ?? '').match(/\[[^\]]*\]/g)?.filter(s => !s.startsWith('[ref=')) ?? [];
}

/**
 * What a changed line was, as little as says it: for the same node (role and
 * ref) only what differs (`"Old name"`, `empty`, `"old value"`, `without
 * [checked]`, `with [expanded]`), else the whole old line.
 */
function wasOf(before: SnapLine, after: SnapLine): string {
  if (before.kind !== 'node' || after.kind !== 'node' || before.role !== after.role || before.ref !== after.ref) return before.body;
  const parts: string[] = [];
  if ((before.name ?? '') !== (after.name ?? '')) parts.push(before.name ? JSON.stringify(before.name) : 'no name');
  if ((before.value ?? '') !== (after.value ?? '')) parts.push(before.value ? `value ${JSON.stringify(before.value)}` : 'empty');
  const [was, now] = [statesOf(before), statesOf(after)];
  const gained = now.filter(s => !was.includes(s));
  const lost = was.filter(s => !now.includes(s));
  if (gained.length) parts.push(`without ${gained.join(' ')}`);
  if (lost.length) parts.push(`with ${lost.join(' ')}`);
  return parts.length ? parts.join(', ') : before.body;
}

const HEAD: Record<DiffEntry['kind'], string> = { added: 'Added', removed: 'Removed', changed: 'Changed', moved: 'Moved' };

/** The first line of a rendered diff, without its period: `Since last snapshot: 2 lines added, 1 removed; 7 refs still valid`. */
export function diffHeader(diff: SnapshotDiff): string {
  return `Since last snapshot: ${diffCounts(diff).replace(/^(\d+) /, (_, n: string) => `${n} line${n === '1' ? '' : 's'} `)}; ${plural(diff.refsKept, 'ref')} still valid`;
}

/**
 * The part of the new snapshot that holds every change (`diff.scope`) as
 * it now reads, indented from its own line, and its label
 * (`list "Products"`); undefined when no one node holds the change.
 */
export function scopeNow(diff: SnapshotDiff): { label: string; text: string } | undefined {
  const lines = diff.after;
  if (diff.scope < 0) return undefined;
  const head = lines[diff.scope]!;
  const out = [head.body];
  for (let i = diff.scope + 1; i < lines.length && lines[i]!.depth > head.depth; i++) out.push(`${'  '.repeat(lines[i]!.depth - head.depth)}${lines[i]!.body}`);
  const label = formatLabel(containerLabel(lines, diff.scope) ?? { role: head.role ?? 'generic', name: head.name, ref: head.ref });
  return { label, text: out.join('\n') };
}

/** Counts as a phrase: `2 added, 1 removed, 1 changed`. */
export function diffCounts(diff: SnapshotDiff): string {
  const parts = (['added', 'removed', 'changed', 'moved'] as const).filter(k => diff[k]).map(k => `${diff[k]} ${k}`);
  return parts.join(', ');
}

/**
 * The diff as text: a line of counts, then hunks such as
 *
 *     Added in dialog "Delete invoice?":
 *       - button "Cancel" [ref=e52]
 *     Removed in row "Invoice 2024-03 | €120":
 *       - button "Delete" [ref=e41]
 *     Changed in form "Order":
 *       - checkbox "Gift wrap" [ref=e5] [checked]  (was: - checkbox "Gift wrap" [ref=e5])
 *
 * Returns undefined when there are no entries (unchanged, or `tooMany`).
 */
export function renderDiff(diff: SnapshotDiff): string | undefined {
  const entries = diff.entries;
  if (!entries?.length) return undefined;
  const out: string[] = [];
  out.push(`${diffHeader(diff)}.`);
  const removedAt = entries.filter(e => e.kind === 'removed').map(e => e.at);
  const removedLines = removedAt.map(at => diff.before[at]!);
  // The removed nodes whose ancestors all stay: a removed region is named, not each line inside it.
  const removedSet = new Set(removedAt);
  const removedTops = removedAt.filter(at => !ancestorsOf(diff.before, at).some(a => removedSet.has(a)));
  const summarizeRemoved = removedLines.length > REMOVED_IN_FULL;
  const removedPlaces = new Set<string>();
  let lastHeading = '';
  let i = 0;
  while (i < entries.length) {
    const first = entries[i]!;
    const lines = first.kind === 'removed' ? diff.before : diff.after;
    const depth0 = lines[first.at]!.depth;
    let j = i + 1;
    while (j < entries.length) {
      const e = entries[j]!;
      if (e.kind !== first.kind || e.at !== entries[j - 1]!.at + 1 || lines[e.at]!.depth < depth0) break;
      j++;
    }
    const place = placeOf(lines, first.at);
    const hunk = entries.slice(i, j);
    if (first.kind === 'removed' && summarizeRemoved) {
      removedPlaces.add(place);
      i = j;
      continue;
    }
    // The next hunk of the same kind and place (a deeper line after a shallower one) goes under the same heading.
    const heading = `${HEAD[first.kind]}${place ? ` in ${place}` : ''}:`;
    if (heading !== lastHeading) out.push(heading);
    lastHeading = heading;
    for (const e of hunk) {
      const line = lines[e.at]!;
      const indent = '  '.repeat(line.depth - depth0 + 1);
      let was = '';
      if (e.kind === 'changed' && e.was !== undefined) was = `  (was: ${wasOf(diff.before[e.was]!, line)})`;
      if (e.kind === 'moved' && e.was !== undefined) {
        const from = placeOf(diff.before, e.was);
        if (from !== placeOf(diff.after, e.at)) was = `  (was in ${from || 'the top level'})`;
      }
      out.push(`${indent}${line.body}${was}`);
    }
    i = j;
  }
  if (summarizeRemoved) {
    const places = [...removedPlaces];
    const named = places.filter(Boolean);
    const where = !named.length ? '' : named.length <= 3 && named.length === places.length ? ` in ${named.join('; ')}` : ` in ${places.length} places`;
    out.push(`${HEAD.removed}${where}: ${removedSummary(removedLines, removedTops, diff.before)}`);
  }
  return out.join('\n');
}
