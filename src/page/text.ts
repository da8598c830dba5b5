/**
 * The `get_text` tool's in-page half (docs/snapshot.md, "Reading text"): the
 * visible text of a document or of one element, in reading (flat-tree)
 * order, as a person reads it off the screen.
 *
 * Visible is judged as the snapshot walker judges it (./snapshot.ts): a
 * `display: none` subtree is skipped, and so is an `aria-hidden="true"` one
 * (the snapshot writes no text of it either); text whose element has
 * `visibility` other than `visible` is left out (a visible child of it is
 * kept), and so is the content of a closed `<details>` (all but its summary)
 * and of a `content-visibility: hidden` element. Off-screen text counts as
 * visible, as in snapshots. Form fields give nothing (their values are not
 * text on the page) except button inputs, whose label is. Same-origin
 * iframes are read inline, their text between `[iframe]` and `[/iframe]`
 * lines; a cross-origin one is a `[iframe: cross-origin, not read]` line.
 */
import { styleOf } from './dom.js';
import { flatChildren, SKIP } from './snapshot.js';

/** What `text()` returns. */
export interface TextResult {
  /** `text` from `offset`, at most `maxChars` characters. */
  text: string;
  /** Characters of the whole text (after whitespace is collapsed). */
  total: number;
  /** The whole text reached the in-page cap (TEXT_CAP) and was cut there. */
  capped?: boolean;
  /** Cross-origin iframes whose text is not included. */
  crossOrigin: number;
}

/** Characters the page collects at most (a bound on the walk's memory; get_text pages within it). */
export const TEXT_CAP = 5_000_000;

const NEWLINE = '\n';
const INPUT_LABELS = new Set(['button', 'submit', 'reset']);

interface Walk {
  parts: string[];
  size: number;
  crossOrigin: number;
}

function add(w: Walk, s: string): void {
  w.parts.push(s);
  w.size += s.length;
}

function visitChildren(el: Element, w: Walk): void {
  const kids = flatChildren(el);
  if (el.localName === 'details' && !(el as HTMLDetailsElement).open) {
    for (let i = 0; i < kids.length; i++) {
      const k = kids[i]!;
      if (k.nodeType === 1 && (k as Element).localName === 'summary') visit(k, w);
    }
    return;
  }
  for (let i = 0; i < kids.length && w.size < TEXT_CAP; i++) visit(kids[i]!, w);
}

function visit(node: Node, w: Walk): void {
  if (node.nodeType === 3) {
    const parent = (node as Text).parentElement;
    const style = parent ? styleOf(parent) : null;
    // Line breaks in the source are spaces, except where CSS keeps them (`white-space: pre*`, `<pre>`).
    const data = (node as Text).data;
    if (!style || style.visibility === 'visible') add(w, style && /^(pre|break-spaces)/.test(style.whiteSpace) ? data : data.replace(/\s+/g, ' '));
    return;
  }
  if (node.nodeType !== 1) return;
  const el = node as Element;
  const tag = el.localName;
  if (SKIP.has(tag) || tag === 'select' || tag === 'textarea' || tag === 'svg') return;
  if ((el.getAttribute('aria-hidden') ?? '').toLowerCase() === 'true') return;
  const style = styleOf(el);
  if (!style || style.display === 'none') return;
  if (tag === 'br') {
    add(w, NEWLINE);
    return;
  }
  if (tag === 'input') {
    const type = (el.getAttribute('type') ?? '').toLowerCase();
    if (INPUT_LABELS.has(type) && style.visibility === 'visible') add(w, ` ${(el as HTMLInputElement).value} `);
    return;
  }
  const display = style.display;
  const block = !(display.startsWith('inline') || display === 'contents');
  const cell = display === 'table-cell';
  if (cell) add(w, ' | ');
  else if (block) add(w, NEWLINE);
  if (tag === 'iframe' || tag === 'frame') {
    let doc: Document | null = null;
    try {
      doc = (el as HTMLIFrameElement).contentDocument;
    } catch {
      doc = null;
    }
    const body = doc?.body ?? doc?.documentElement;
    if (body) {
      add(w, `${NEWLINE}[iframe]${NEWLINE}`);
      visitChildren(body, w);
      add(w, `${NEWLINE}[/iframe]${NEWLINE}`);
    } else if (!doc) {
      w.crossOrigin++;
      add(w, `${NEWLINE}[iframe: cross-origin, not read]${NEWLINE}`);
    }
    return;
  }
  if (style.contentVisibility !== 'hidden') visitChildren(el, w);
  if (block && !cell) add(w, NEWLINE);
}

/**
 * The visible text of this document's body, or of `root`: whitespace
 * collapsed within lines, one line per block, table cells on one line
 * separated by ` | `, blank lines dropped. Returns `maxChars` characters from
 * `offset` on, and the whole text's length.
 */
export function text(opts: { root?: Element; offset?: number; maxChars: number }): TextResult {
  const w: Walk = { parts: [], size: 0, crossOrigin: 0 };
  const root = opts.root ?? document.body ?? document.documentElement;
  if (root) {
    if (opts.root) visit(root, w);
    else visitChildren(root, w);
  }
  const lines = w.parts.join('').split(NEWLINE)
    .map(line => line.replace(/[\s\u0000-\u001f]+/g, ' ').trim().replace(/^\| ?/, '').replace(/ ?\|$/, '').replace(/( \| ){2,}/g, ' | ').trim())
    .filter(line => line && line !== '|');
  let all = lines.join(NEWLINE);
  const capped = all.length > TEXT_CAP;
  if (capped) all = all.slice(0, TEXT_CAP);
  const offset = Math.max(0, opts.offset ?? 0);
  const result: TextResult = { text: all.slice(offset, offset + opts.maxChars), total: all.length, crossOrigin: w.crossOrigin };
  if (capped) result.capped = true;
  return result;
}
