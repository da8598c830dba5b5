/**
 * The page side of an action's result (docs/snapshot.md, "After an
 * action"): after the action, one whole-page walk of the tab, compared with
 * the tab's last whole-page snapshot of the same document (`Tab.baseline`,
 * kept by takeSnapshot for get_page_context and actions alike) and written
 * as a compact diff when it fits DIFF_BUDGET, else as one line saying how
 * much changed and which get_page_context call reads it. After a
 * navigation, the new document's snapshot when it is small, else a line.
 * Part of an action's report (Tab.act, ./tabAction.ts).
 */
import { isTimeoutError } from '../util/playwrightErrors.js';
import { ancestorRef } from './elementInfo.js';
import { resolveRef } from './refs.js';
import { takeSnapshot, type Snapshot } from './snapshot.js';
import { diffCounts, diffSnapshots, renderDiff, scopeNow, type SnapshotDiff } from './snapshotDiff.js';
import { ancestorsOf, containerLabel, formatLabel, type SnapLine } from './snapshotLines.js';
import type { Session } from './session.js';
import type { SnapshotBaseline, Tab } from './tab.js';
import { plural } from '../util/plural.js';

/** Characters per o200k token of snapshot text in a diff: the median on the corpus pages (scripts/diff-budget.ts). */
const CHARS_PER_TOKEN = 3.5;
/**
 * Characters an action's diff (or the snapshot of a new document) may take
 * in the result: 1,500 o200k tokens at CHARS_PER_TOKEN, so a character count
 * is all the estimate costs (docs/snapshot.md, "After an action", has the
 * measured spread).
 */
export const DIFF_BUDGET = 1_500 * CHARS_PER_TOKEN;
/** Longest wait for the post-action snapshot, in ms (the action itself is done; a slow page only loses its diff). */
const SNAPSHOT_MS = 5_000;

/** What the report needs from before the action. */
export interface PageBefore {
  instanceId: string;
  /** The tab's baseline when the action started (the post-action snapshot replaces it). */
  baseline: SnapshotBaseline | undefined;
}

/** The tab's baseline for its current document, if it has one. */
export function currentBaseline(tab: Tab): SnapshotBaseline | undefined {
  return tab.baseline && tab.baseline.instanceId === tab.instanceId ? tab.baseline : undefined;
}

/** Whether the tab's current document was over the snapshot budget at its last whole-page walk. */
export function knownOverBudget(tab: Tab): boolean {
  return tab.overBudgetDocument === tab.instanceId;
}

/**
 * Takes a baseline before an action when the tab has none for its document
 * (one whole-page walk: the cost is measured in docs/snapshot.md), so the
 * action can report a diff. Skipped on a page known to be over the budget,
 * and while a dialog holds the page. Never throws.
 */
export async function ensureBaseline(session: Session, tab: Tab): Promise<void> {
  if (currentBaseline(tab) || knownOverBudget(tab) || tab.dialogs.current || tab.closed) return;
  await takeSnapshot(session, tab, { wholeOnly: true, timeoutMs: SNAPSHOT_MS }).catch(() => undefined);
}

/** About how many o200k tokens `chars` characters of snapshot text are. */
function tokens(chars: number): number {
  return Math.round(chars / CHARS_PER_TOKEN);
}

/**
 * The ref that scopes get_page_context to the changed part of the page:
 * the scope line's own ref, else one found from a ref inside it (one page
 * evaluation). Undefined when no node of the page holds the whole change.
 */
async function scopeRefOf(session: Session, tab: Tab, diff: SnapshotDiff): Promise<{ ref: string; label: string } | undefined> {
  const lines = diff.after;
  const at = diff.scope;
  if (at < 0) return undefined;
  const scope = lines[at]!;
  let end = at + 1;
  while (end < lines.length && lines[end]!.depth > scope.depth) end++;
  const label = formatLabel(containerLabel(lines, at) ?? { role: scope.role ?? 'generic', name: scope.name });
  if (scope.ref) return { ref: scope.ref, label };
  // A ref inside the scope, in the same document (no iframe line on the way up).
  for (let i = at + 1; i < end; i++) {
    const line = lines[i]!;
    if (!line.ref) continue;
    const path = ancestorsOf(lines, i);
    const upTo = path.indexOf(at);
    if (upTo < 0) continue;
    const between: SnapLine[] = path.slice(0, upTo).map(p => lines[p]!);
    if (between.some(l => l.role === 'iframe') || line.role === 'iframe') continue;
    const skip = between.filter(l => l.role === scope.role && (scope.name === undefined || l.name === scope.name)).length;
    try {
      const resolved = await resolveRef(session, line.ref);
      const ref = await ancestorRef(session, tab, resolved, scope.role ?? 'generic', scope.name, skip);
      return ref ? { ref, label } : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The line for a diff that does not fit: how much changed, and the call that reads it. */
async function summaryLine(session: Session, tab: Tab, diff: SnapshotDiff): Promise<string> {
  const much = diff.tooMany ? 'more than 500 lines changed' : `${diffCounts(diff)} lines`;
  const scope = await scopeRefOf(session, tab, diff);
  const read = scope
    ? `the change is inside ${scope.label}: get_page_context {ref: "${scope.ref}"} reads that part (get_page_context the whole page)`
    : 'get_page_context reads the page';
  return `The page changed too much for a diff here (${much}; refs: ${diff.refsAdded} new, ${diff.refsRemoved} gone, ${diff.refsKept} kept); ${read}.`;
}

/**
 * What the result says about the page after an action: text lines, and the
 * fields that carry the same (`mirrors` names the field a line repeats
 * verbatim, so structured results do not carry it twice: ToolResponse.text).
 */
export interface PageReport {
  lines: Array<{ text: string; mirrors?: string }>;
  fields: Record<string, unknown>;
}

/**
 * Reads the page after the action: a diff against the baseline (fields
 * `diff`, `changes`), the new document's snapshot or a line about it after
 * a navigation, or one line when the page is over the snapshot budget or
 * did not answer. Returns what to add to the result (reportAction adds it
 * last, after the file and download lines Tab.act looks for meanwhile).
 * Never throws.
 */
export async function readPage(session: Session, tab: Tab, before: PageBefore): Promise<PageReport> {
  let navigated = tab.instanceId !== before.instanceId;
  const out: PageReport = { lines: [], fields: {} };
  // What the result says about the page in the same document is also the `diff` field (the CLI prints fields).
  const say = (text: string) => {
    out.lines.push({ text, mirrors: 'diff' });
    out.fields.diff = text;
    return out;
  };
  if (!navigated && knownOverBudget(tab)) return say('No snapshot diff: the page was over the snapshot budget at its last snapshot; get_page_context reads it in pages.');
  let snap: Snapshot;
  try {
    snap = await takeSnapshot(session, tab, { wholeOnly: true, timeoutMs: SNAPSHOT_MS });
  } catch (error) {
    return say(`No snapshot diff: the page ${isTimeoutError(error) ? `did not answer within ${SNAPSHOT_MS / 1000} s` : 'could not be read'}; get_page_context reads it.`);
  }
  if (tab.instanceId !== snap.instanceId) return say('No snapshot diff: the page is loading another document; get_page_context reads it.');
  // takeSnapshot reads a document that replaced the old one during the walk again: that is a navigation too.
  navigated ||= snap.instanceId !== before.instanceId;
  if (navigated) {
    if (snap.cut) out.lines.push({ text: 'The new page is over the snapshot budget: get_page_context reads it in pages.' });
    else if (snap.text.length <= DIFF_BUDGET) {
      out.lines.push({ text: `Snapshot of the new page (${plural(snap.refCount, 'ref')}):` }, { text: snap.text, mirrors: 'snapshot' });
      out.fields.snapshot = snap.text;
    } else out.lines.push({ text: `get_page_context reads the new page (${plural(snap.refCount, 'ref')}, about ${tokens(snap.text.length)} tokens).` });
    return out;
  }
  if (snap.cut) return say('No snapshot diff: the page is now over the snapshot budget; get_page_context reads it in pages.');
  const base = before.baseline;
  if (!base || base.instanceId !== snap.instanceId) return say('No earlier snapshot of this page to compare with; get_page_context reads it.');
  const diff = diffSnapshots(base.text, snap.text);
  out.fields.changes = { added: diff.added, removed: diff.removed, changed: diff.changed, moved: diff.moved, refsAdded: diff.refsAdded, refsRemoved: diff.refsRemoved, refsKept: diff.refsKept, ...(diff.tooMany ? { tooMany: true } : {}) };
  if (!diff.tooMany && !diff.entries?.length) return say(`Snapshot unchanged (${plural(diff.refsKept, 'ref')}).`);
  // The diff, or what reads shorter and says as much: the changed part as it now reads, or the whole page (a search
  // that replaces a result list pairs old and new items line by line, which costs more than the list itself).
  const text = renderDiff(diff);
  const part = scopeNow(diff);
  const refs = `refs: ${diff.refsAdded} new, ${diff.refsRemoved} gone, ${diff.refsKept} kept`;
  const partText = part && `Since last snapshot, ${part.label} changed (${refs}); it now reads:\n${part.text}`;
  const wholeHead = `Since last snapshot, the page changed (${refs}); it now reads:`;
  // `rank`: the size the choice goes by (the diff is preferred unless the other is clearly shorter).
  const options: Array<{ size: number; rank: number; apply: () => PageReport }> = [];
  if (text) options.push({ size: text.length, rank: text.length, apply: () => say(text) });
  if (partText) options.push({ size: partText.length, rank: partText.length / SHORTER, apply: () => say(partText) });
  const wholeSize = wholeHead.length + 1 + snap.text.length;
  options.push({
    size: wholeSize,
    rank: wholeSize / SHORTER,
    apply: () => {
      out.lines.push({ text: wholeHead, mirrors: 'diff' }, { text: snap.text, mirrors: 'snapshot' });
      out.fields.diff = wholeHead;
      out.fields.snapshot = snap.text;
      return out;
    },
  });
  const best = options.filter(o => o.size <= DIFF_BUDGET).sort((a, b) => a.rank - b.rank)[0];
  if (best) return best.apply();
  return say(await summaryLine(session, tab, diff));
}

/**
 * How much shorter than the diff the page as it now reads must be to be
 * sent instead: the diff also says what went and what each line was, so it
 * wins unless the other is clearly shorter.
 */
const SHORTER = 0.8;
