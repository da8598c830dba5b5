/**
 * Following tabwright's paging lines: from the default snapshot, call
 * `get_page_context {ref, offset}` for every paging line, and for every
 * paging line those pages show, and collect every ref'd node reached. This
 * is what the report's "coverage following paging lines" is measured from
 * (the target: every visible interactive element reachable by ref; README,
 * "Benchmark").
 *
 * Pure apart from the `fetch` it is given (unit-tested in
 * test/bench/paging.test.ts with canned snapshot texts).
 *
 * A paging line is a snapshot line starting with `…` that names a call
 * (docs/snapshot.md, "Paging and the budget"):
 *   `… items 1–50 of 5000 shown; 4950 more: get_page_context {ref: "e16", offset: 50}`
 *   `… snapshot budget reached after item 611 of 2500; continue: get_page_context {ref: "e3", offset: 611}`
 *   `… items 51–100 of 120 shown; this is the end (earlier ones: get_page_context {ref: "e16", offset: 0})`
 */
import { parseRefs, type RefNode } from './snapshotText.js';
import { countTokens } from './tokens.js';

/** The call a paging line names. */
export const PAGING_CALL = /get_page_context \{ref: "(e\d+)", offset: (\d+)\}/;

/** Most paging calls made for one page; past it the follow stops and says it was capped. */
export const PAGING_CALL_CAP = 400;

/** One container page to fetch. */
export interface PageStep {
  ref: string;
  offset: number;
}

/** What following the paging lines of one snapshot reached. */
export interface PagingFollow {
  /** Ref'd nodes of the default snapshot and every page fetched, one per ref (first seen), in order of first sight. */
  nodes: RefNode[];
  /** Paging calls made (not counting the default snapshot). */
  calls: number;
  /** The calls made, in order, as `ref@offset`. */
  steps: string[];
  /** o200k_base tokens of the default snapshot plus every page fetched. */
  tokens: number;
  /** True when the cap stopped the follow with pages left unfetched. */
  capped: boolean;
}

/** The paging calls named by lines of `text` (lines starting with `…`), in order. */
export function pagingCalls(text: string): PageStep[] {
  const out: PageStep[] = [];
  for (const line of text.split('\n')) {
    if (!/^\s*…/.test(line)) continue;
    const m = PAGING_CALL.exec(line);
    if (m) out.push({ ref: m[1]!, offset: Number(m[2]) });
  }
  return out;
}

/**
 * Follows every paging line of `snapshot` breadth-first: each `ref@offset`
 * is fetched at most once; from a page of container R at offset O only
 * lines for other containers, or for R at an offset greater than O, are
 * followed (so a page's "earlier ones" line never loops back). Stops after
 * `cap` calls (default 400) with `capped` set if pages were left. `fetch`
 * returns the snapshot text the agent would read for `{ref, offset}`; its
 * errors propagate.
 */
export async function followPaging(snapshot: string, fetch: (ref: string, offset: number) => Promise<string>, cap = PAGING_CALL_CAP): Promise<PagingFollow> {
  const nodes = new Map<string, RefNode>();
  const add = (text: string) => {
    for (const n of parseRefs(text)) if (!nodes.has(n.ref)) nodes.set(n.ref, n);
  };
  const seen = new Set<string>();
  const queue: PageStep[] = [];
  const enqueue = (text: string, from?: PageStep) => {
    for (const step of pagingCalls(text)) {
      const key = `${step.ref}@${step.offset}`;
      if (seen.has(key)) continue;
      if (from && step.ref === from.ref && step.offset <= from.offset) continue;
      seen.add(key);
      queue.push(step);
    }
  };
  add(snapshot);
  enqueue(snapshot);
  let tokens = countTokens(snapshot);
  const steps: string[] = [];
  let capped = false;
  while (queue.length) {
    if (steps.length >= cap) {
      capped = true;
      break;
    }
    const step = queue.shift()!;
    steps.push(`${step.ref}@${step.offset}`);
    const text = await fetch(step.ref, step.offset);
    tokens += countTokens(text);
    add(text);
    enqueue(text, step);
  }
  return { nodes: [...nodes.values()], calls: steps.length, steps, tokens, capped };
}
