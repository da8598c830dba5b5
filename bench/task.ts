/**
 * The scripted task, end to end on the shop page (bench/pages.ts shopPage):
 * open the catalogue, search for the item, add it to the order, fill the
 * order form, submit, and see the confirmation. What is measured is what
 * the model reads on the way (tokens under each lens, bench/lens.ts) and
 * how many calls it takes.
 *
 * Each server is driven as a competent agent drives it with its default
 * settings. The agent acts on refs it has read, and reads no more than it
 * needs: after each call it looks for what the next step needs (a ref, the
 * confirmation) in what the server has shown since the page was opened,
 * newest first; if it is not there and the last result points to a
 * snapshot file (Playwright MCP writes the page state after navigate and
 * click to a file), it reads that file; if it is still not there, it takes
 * a snapshot with the server's snapshot tool. So the sequences are:
 *
 * - tabwright: navigate, get_page_context (the search box), type, then
 *   get_page_context unless type's result shows the matching items with
 *   refs, click "Add", get_page_context unless click's result shows the
 *   form, fill_form, click "Place order", get_page_context unless click's
 *   result shows the confirmation.
 * - Playwright MCP: browser_navigate + read its snapshot file, browser_type
 *   + browser_snapshot (type returns no page state), browser_click + read
 *   its snapshot file, browser_fill_form, browser_click + read its file.
 * - Chrome DevTools MCP: navigate_page + take_snapshot, fill +
 *   take_snapshot, click + take_snapshot, fill_form, click + take_snapshot
 *   (its actions answer one sentence; `includeSnapshot: true` on an action
 *   would fold the snapshot into it: the same tokens, one call fewer).
 *
 * The decisions are taken on the content-only view; the task then counts
 * as done under a lens only if, under that lens too, every ref the agent
 * used was visible before it was used and the confirmation was visible
 * after the submit. The bench also checks the order in the page itself
 * (body[data-order], through the server's evaluate tool, not counted).
 */
import { readFileSync } from 'node:fs';
import type { LensInput } from '../test/fixtures/clientLens.js';
import { BENCH_LENSES, lensCosts, viewOf, type BenchLens } from './lens.js';
import { SHOP_ORDER } from './pages.js';
import type { AdapterState, Call, FormField, ServerSpec } from './servers.js';
import type { CallOutcome } from './session.js';
import { parseRefs, type RefNode } from './snapshotText.js';
import { countTokens } from './tokens.js';

/** One thing the model read: a tool result, or a file a result pointed to. */
export type Read =
  | { kind: 'result'; name: string; raw: LensInput; /** content-only text */ text: string; /** snapshot file it points to */ file?: string; fileRead?: boolean }
  | { kind: 'file'; text: string };

/** A ref the agent passed to a call, and the index in `reads` of that call's result. */
export interface RefUse {
  ref: string;
  at: number;
}

/** Element wanted by role (any of) and a part of its accessible name. */
export interface Want {
  roles: readonly string[];
  name: string;
}

export const SEARCH_BOX: Want = { roles: ['searchbox', 'textbox'], name: 'Search products' };
export const ADD_BUTTON: Want = { roles: ['button'], name: `Add ${SHOP_ORDER.item} to order` };
/** The order form's fields, in fill order, and its submit button. */
export const FORM: ReadonlyArray<Want & { kind: FormField['kind']; label: string; value: string | boolean }> = [
  { roles: ['spinbutton', 'textbox'], name: 'Quantity', kind: 'text', label: 'Quantity', value: SHOP_ORDER.quantity },
  { roles: ['textbox'], name: 'Full name', kind: 'text', label: 'Full name', value: SHOP_ORDER.name },
  { roles: ['textbox'], name: 'Email', kind: 'text', label: 'Email', value: SHOP_ORDER.email },
  { roles: ['combobox'], name: 'Delivery', kind: 'select', label: 'Delivery', value: SHOP_ORDER.delivery },
  { roles: ['checkbox'], name: 'I accept the terms', kind: 'checkbox', label: 'I accept the terms', value: true },
];
export const SUBMIT: Want = { roles: ['button'], name: 'Place order' };

/** The confirmation as the page writes it, with the order's values: the sign that the task is done. */
export const CONFIRMATION = new RegExp(`Order TW-\\d+ confirmed: ${SHOP_ORDER.quantity} × ${SHOP_ORDER.item}, ${SHOP_ORDER.delivery} delivery, for ${SHOP_ORDER.name}`);

/** A hunk header of an action result's snapshot diff (tabwright: `Added in list "Products":`, docs/snapshot.md). */
const HUNK = /^(Added|Removed|Changed|Moved)\b.*:$/;

/**
 * `text` without the lines a snapshot diff lists as removed (a `Removed …:` hunk, up to the next hunk or the next
 * unindented line): their refs are gone from the page, so the agent does not act on them.
 */
export function withoutRemoved(text: string): string {
  let removed = false;
  return text
    .split('\n')
    .filter(line => {
      if (HUNK.test(line)) removed = line.startsWith('Removed');
      else if (!/^\s/.test(line)) removed = false;
      return !removed;
    })
    .join('\n');
}

/** The refs of all `wants` in `text` (first match of each, not counting removed lines), or undefined when one is missing. */
export function findAll(text: string, wants: readonly Want[]): string[] | undefined {
  const nodes = parseRefs(withoutRemoved(text));
  const refs = wants.map(w => findNode(nodes, w)?.ref);
  return refs.every((r): r is string => r !== undefined) ? refs : undefined;
}

function findNode(nodes: readonly RefNode[], want: Want): RefNode | undefined {
  const name = want.name.toLowerCase();
  return nodes.find(n => want.roles.includes(n.role) && (n.name ?? '').toLowerCase().includes(name));
}

/** Whether `ref` occurs in `text` as a whole token (`e4` not inside `e41`, `1_5` not inside `11_5`). */
export function mentionsRef(text: string, ref: string): boolean {
  const escaped = ref.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w-])${escaped}(?![\\w])`).test(text);
}

/** Text of a read as `lens`'s model receives it (a file reads the same under every lens). */
export function readText(read: Read, lens: BenchLens): string {
  return read.kind === 'file' ? read.text : viewOf(lens, read.raw).text;
}

/** Per lens: the tokens the model read over the task, and whether the task counts as done under it. */
export interface LensTask {
  tokens: number;
  verified: boolean;
  /** Why it does not count, when it does not. */
  failure?: string;
}

/**
 * The task's cost and verdict under every lens: the tokens of every read
 * (results as the lens shows them, files as they are), and done when every
 * ref in `uses` was visible under the lens in a read before the call that
 * used it, and the confirmation is visible in a read at or after `submitAt`.
 * `submitAt` undefined (the task stopped before the submit) fails every lens.
 */
export function taskCosts(reads: readonly Read[], uses: readonly RefUse[], submitAt: number | undefined): Record<BenchLens, LensTask> {
  const out = {} as Record<BenchLens, LensTask>;
  const costs = reads.map(r => (r.kind === 'file' ? countTokens(r.text) : lensCosts(r.raw)));
  for (const lens of BENCH_LENSES) {
    const texts = reads.map(r => readText(r, lens));
    const tokens = costs.reduce<number>((sum, c) => sum + (typeof c === 'number' ? c : c[lens].tokens), 0);
    const hidden = uses.find(u => !texts.slice(0, u.at).some(t => mentionsRef(t, u.ref)));
    let failure: string | undefined;
    if (hidden) failure = `ref ${hidden.ref} used by call ${hidden.at + 1} was not visible before it`;
    else if (submitAt === undefined) failure = 'the task stopped before the submit';
    else if (!texts.slice(submitAt).some(t => CONFIRMATION.test(t))) failure = 'the confirmation was not visible after the submit';
    out[lens] = { tokens, verified: !failure, ...(failure ? { failure } : {}) };
  }
  return out;
}

/** The outcome of one run of the task. */
export interface TaskRun {
  reads: Read[];
  uses: RefUse[];
  /** Calls in order: tool names, and "read file" for each file read. */
  sequence: string[];
  fileReads: number;
  submitAt?: number;
  /** Why the agent could not go on (then the task failed under every lens). */
  failure?: string;
}

/** The task could not go on: what was missing. */
class TaskStop extends Error {}

/** What runTask needs from the bench: the server, its workspace, and one call. */
export interface TaskDriver {
  spec: ServerSpec;
  workspace: string;
  /** The adapter's state (Chrome DevTools MCP's pageId). */
  state: AdapterState;
  call(call: Call): Promise<CallOutcome>;
  /** Evaluates `() => <expr>` through the server (the bench's own check, not counted) and returns the text. */
  probe(expr: string): Promise<string>;
}

/** Runs the task once with a fresh page at `url` (the shop page). Throws only when a call fails outright. */
export async function runTask(d: TaskDriver, url: string): Promise<TaskRun> {
  const { spec } = d;
  const s = d.state;
  const run: TaskRun = { reads: [], uses: [], sequence: [], fileReads: 0 };
  const call = async (c: Call, refs: readonly string[] = []): Promise<number> => {
    const out = await d.call(c);
    run.sequence.push(c.name);
    const at = run.reads.length;
    for (const ref of refs) run.uses.push({ ref, at });
    const file = spec.snapshotFile(out.text, out.structured, d.workspace);
    run.reads.push({ kind: 'result', name: c.name, raw: out.raw, text: viewOf('content-only', out.raw).text, ...(file ? { file } : {}) });
    return at;
  };
  /** Finds what `extract` wants in the reads since `since`, newest first; else reads the last result's file; else takes one snapshot. */
  const need = async <T>(what: string, extract: (text: string) => T | undefined, since: number): Promise<T> => {
    let looked = false;
    for (;;) {
      for (let i = run.reads.length - 1; i >= since; i--) {
        const found = extract(run.reads[i]!.text);
        if (found !== undefined) return found;
      }
      const last = run.reads[run.reads.length - 1];
      if (last?.kind === 'result' && last.file && !last.fileRead) {
        last.fileRead = true;
        let text: string;
        try {
          text = readFileSync(last.file, 'utf8');
        } catch {
          throw new TaskStop(`${last.name} pointed to ${last.file}, which could not be read`);
        }
        run.reads.push({ kind: 'file', text });
        run.sequence.push('read file');
        run.fileReads++;
        continue;
      }
      if (looked) throw new TaskStop(`${what} not found, even in a fresh snapshot`);
      looked = true;
      await call(spec.snapshot(s));
    }
  };
  try {
    const opened = await call(spec.navigate(url, s));
    const [search] = await need('the search box', t => findAll(t, [SEARCH_BOX]), opened);
    await call(spec.type(search!, 'Search products searchbox', SHOP_ORDER.search, s), [search!]);
    const [add] = await need(`the "${ADD_BUTTON.name}" button`, t => findAll(t, [ADD_BUTTON]), opened);
    await call(spec.click(add!, `${ADD_BUTTON.name} button`, s), [add!]);
    const refs = await need('the order form', t => findAll(t, [...FORM, SUBMIT]), opened);
    const fields: FormField[] = FORM.map((f, i) => ({ ref: refs[i]!, kind: f.kind, label: f.label, value: f.value }));
    await call(spec.fillForm(fields, s), fields.map(f => f.ref));
    const submit = refs[FORM.length]!;
    run.submitAt = await call(spec.click(submit, 'Place order button', s), [submit]);
    await need('the confirmation', t => (CONFIRMATION.test(t) ? true : undefined), run.submitAt);
  } catch (error) {
    if (!(error instanceof TaskStop)) throw error;
    run.failure = error.message;
    return run;
  }
  const order = JSON.stringify({ item: SHOP_ORDER.item, quantity: Number(SHOP_ORDER.quantity), name: SHOP_ORDER.name, email: SHOP_ORDER.email, delivery: SHOP_ORDER.delivery, terms: true });
  const check = await d.probe(`(() => { const o = JSON.parse(document.body.dataset.order || '{}'); const want = ${order}; return 'TWO:' + (Object.keys(want).every(k => o[k] === want[k]) ? 'ok' : 'bad'); })()`);
  if (!check.includes('TWO:ok')) run.failure = 'the page did not record the expected order (body[data-order])';
  return run;
}

/** Per lens, the run's tokens and verdict; a run that stopped or failed the page check fails every lens. */
export function runCosts(run: TaskRun): Record<BenchLens, LensTask> {
  const costs = taskCosts(run.reads, run.uses, run.submitAt);
  if (!run.failure) return costs;
  for (const lens of BENCH_LENSES) costs[lens] = { tokens: costs[lens].tokens, verified: false, failure: run.failure };
  return costs;
}
