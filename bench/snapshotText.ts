/**
 * Reading refs out of the three servers' snapshot text:
 *
 * - tabwright and Playwright MCP (Playwright's aria snapshot):
 *   `  - button "Sign in" [ref=e8]`
 * - Chrome DevTools MCP: `  uid=1_7 button "Sign in"`
 *
 * `interactiveCoverage` turns the ref'd nodes into the coverage measure:
 * ref'd nodes with an interactive role, matched by kind against the count
 * of visible links, buttons and form controls in the page.
 */
import type { Census } from './types.js';

/** One snapshot line that carries a ref. */
export interface RefNode {
  role: string;
  name?: string;
  ref: string;
}

const NAME = String.raw`"((?:[^"\\]|\\.)*)"`;
/** YAML single-quotes a line whose text has ": " in it (`- 'link "a: b" [ref=e1]':`), hence the optional quote. */
const ARIA_LINE = new RegExp(String.raw`^\s*-\s+'?([A-Za-z][\w-]*)(?:\s+${NAME})?.*?\[ref=([^\]\s]+)\]`);
const UID_LINE = new RegExp(String.raw`^\s*uid=(\S+)(?:\s+([A-Za-z][\w-]*))?(?:\s+${NAME})?`);

/** Every line of `text` that has a ref, with its role and accessible name. */
export function parseRefs(text: string): RefNode[] {
  const out: RefNode[] = [];
  for (const line of text.split('\n')) {
    let m = ARIA_LINE.exec(line);
    if (m) {
      const yamlQuoted = /^\s*-\s+'/.test(line);
      const name = unquote(yamlQuoted ? m[2]?.replace(/''/g, "'") : m[2]);
      out.push({ role: m[1]!.toLowerCase(), name, ref: m[3]! });
      continue;
    }
    m = UID_LINE.exec(line);
    if (m) out.push({ role: (m[2] ?? '').toLowerCase(), name: unquote(m[3]), ref: m[1]! });
  }
  return out;
}

function unquote(s: string | undefined): string | undefined {
  return s === undefined ? undefined : s.replace(/\\(.)/g, '$1');
}

/** The ref of the first node with this role whose name contains `name` (case-insensitive). */
export function findRef(nodes: readonly RefNode[], role: string, name: string): string | undefined {
  const want = name.toLowerCase();
  return nodes.find(n => n.role === role && (n.name ?? '').toLowerCase().includes(want))?.ref;
}

const CONTROL_ROLES = new Set(['textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'slider', 'spinbutton', 'switch']);
/** Roles an element the census counts as a link or button may declare and show in a snapshot (`<a href role=menu>`, `<button role=tab>`). */
const OTHER_ROLES = new Set(['menu', 'menubar', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem']);

/** Ref'd nodes by kind: the census kinds plus other interactive roles. */
export function refKinds(nodes: readonly RefNode[]): Census & { other: number } {
  const k = { links: 0, buttons: 0, controls: 0, other: 0 };
  for (const n of nodes) {
    if (n.role === 'link') k.links++;
    else if (n.role === 'button') k.buttons++;
    else if (CONTROL_ROLES.has(n.role)) k.controls++;
    else if (OTHER_ROLES.has(n.role)) k.other++;
  }
  return k;
}

/**
 * Coverage in [0, 1]: for each kind, ref'd nodes of that kind count up to the
 * census of that kind; refs with other interactive roles fill what is still
 * missing. 1 when the census is empty. A count, not an element-by-element
 * match (tabwright's test/corpus.test.ts does that for tabwright).
 */
export function interactiveCoverage(nodes: readonly RefNode[], census: Census): number {
  const total = census.links + census.buttons + census.controls;
  if (!total) return 1;
  const k = refKinds(nodes);
  const matched = Math.min(k.links, census.links) + Math.min(k.buttons, census.buttons) + Math.min(k.controls, census.controls);
  return Math.min(total, matched + k.other) / total;
}

/** Number of ref'd nodes with an interactive role. */
export function interactiveRefCount(nodes: readonly RefNode[]): number {
  const k = refKinds(nodes);
  return k.links + k.buttons + k.controls + k.other;
}

/** A paging line (tabwright: `… items 1–50 of 5000 shown; 4950 more: get_page_context {ref: "e16", offset: 50}`). */
export function isPaged(text: string): boolean {
  return /^\s*…\s*items\s+\d+\s*[–-]\s*\d+\s+of\s+\d+/m.test(text);
}
