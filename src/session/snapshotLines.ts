/**
 * Reading tabwright's snapshot text back (the grammar of docs/snapshot.md,
 * "Grammar"): one line per node, nested by two spaces,
 * `- role "name" [ref=e12] [state]…: value`, text lines, note lines
 * (`options: …`, `- /url: …`) and paging lines (`… …`).
 *
 * Used by the action report: which element a ref names and its nearest
 * named container (read from the tab's last whole-page snapshot, so it
 * costs no page round trip), and the context lines of a snapshot diff
 * (./snapshotDiff.ts). No browser, no I/O.
 */
import { CONTAINER_ROLES, LABEL_MAX, PLACED_BY_ROLE } from '../page/roles.js';

export { CONTAINER_ROLES, LABEL_MAX };

/** One parsed snapshot line. */
export interface SnapLine {
  /** Nesting level: leading spaces / 2. */
  depth: number;
  /** `node`: `- role …`; `text`: page text; `note`: `options:` / `- /url:` lines; `more`: a paging line. */
  kind: 'node' | 'text' | 'note' | 'more';
  /** The line without its indentation. */
  body: string;
  role?: string;
  /** The accessible name (JSON-decoded), when the line has one. */
  name?: string;
  /** `e12` when the line carries `[ref=e12]`. */
  ref?: string;
  /** Everything between the name and the value: `[ref=e12] [checked]`. */
  states?: string;
  /** The text after `: ` (a field's value, a row's cells). */
  value?: string;
}

const NODE = /^- ([a-z][a-z-]*)(?: ("(?:[^"\\]|\\.)*"))?((?: \[[^\]]*\])*)(?::(?: (.*))?)?$/;
const REF = /\[ref=(e\d+)\]/;

/** Parses one line of snapshot text. */
export function parseLine(line: string): SnapLine {
  const indent = /^ */.exec(line)![0].length;
  const body = line.slice(indent);
  const depth = Math.floor(indent / 2);
  if (body.startsWith('…')) return { depth, kind: 'more', body };
  if (body.startsWith('- /url:') || body.startsWith('options: ')) return { depth, kind: 'note', body };
  const m = NODE.exec(body);
  if (!m) return { depth, kind: 'text', body };
  const out: SnapLine = { depth, kind: 'node', body, role: m[1] };
  if (m[2] !== undefined) {
    try {
      out.name = JSON.parse(m[2]) as string;
    } catch {
      out.name = m[2].slice(1, -1);
    }
  }
  if (m[3]) {
    out.states = m[3].trim();
    const ref = REF.exec(m[3]);
    if (ref) out.ref = ref[1];
  }
  if (m[4] !== undefined) out.value = m[4];
  return out;
}

/** Parses every line of a snapshot. */
export function parseSnapshot(text: string): SnapLine[] {
  return text ? text.split('\n').map(parseLine) : [];
}

/** The index of the line that carries `[ref=<ref>]`, or -1. */
export function lineOfRef(lines: readonly SnapLine[], ref: string): number {
  for (let i = 0; i < lines.length; i++) if (lines[i]!.ref === ref) return i;
  return -1;
}

/** Indexes of the ancestors of line `at`, nearest first (the node lines it is nested under). */
export function ancestorsOf(lines: readonly SnapLine[], at: number): number[] {
  const out: number[] = [];
  let depth = lines[at]?.depth ?? 0;
  for (let i = at - 1; i >= 0 && depth > 0; i--) {
    const line = lines[i]!;
    if (line.depth < depth) {
      if (line.kind === 'node') out.push(i);
      depth = line.depth;
    }
  }
  return out;
}

/** A node as a short phrase: `button "Delete" [ref=e41]`, `row "Invoice 2024-03 | €120"`. */
export interface NodeLabel {
  role: string;
  name?: string;
  ref?: string;
}

/** `role "name" [ref=eN]` (name and ref when present). */
export function formatLabel(label: NodeLabel): string {
  return `${label.role}${label.name ? ` ${JSON.stringify(label.name)}` : ''}${label.ref ? ` [ref=${label.ref}]` : ''}`;
}

export function cutLabel(text: string, max = LABEL_MAX): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** What names a list item in the snapshot: its first text line, or its first child's name. */
function leadingText(lines: readonly SnapLine[], at: number): string | undefined {
  const depth = lines[at]!.depth;
  for (let i = at + 1; i < lines.length && lines[i]!.depth > depth; i++) {
    const line = lines[i]!;
    if (line.kind === 'text') return line.body.startsWith('"') ? safeJson(line.body) : line.body;
    if (line.kind === 'node' && line.name) return line.name;
  }
  return undefined;
}

function safeJson(text: string): string {
  try {
    return String(JSON.parse(text));
  } catch {
    return text;
  }
}

/**
 * The label of a container line, or undefined when the line does not place
 * anything (an unnamed list, table or main): a named container; a row by its
 * cells; a list or tree item by its first text; an unnamed dialog,
 * navigation or other landmark by its role.
 */
export function containerLabel(lines: readonly SnapLine[], at: number): NodeLabel | undefined {
  const line = lines[at]!;
  const role = line.role;
  if (line.kind !== 'node' || !role || !CONTAINER_ROLES.has(role)) return undefined;
  if (line.name) return { role, name: cutLabel(line.name), ref: line.ref };
  if (role === 'row' && line.value) return { role, name: cutLabel(line.value), ref: line.ref };
  if (role === 'listitem' || role === 'treeitem') {
    const text = leadingText(lines, at);
    if (text) return { role, name: cutLabel(text), ref: line.ref };
  }
  if (PLACED_BY_ROLE.has(role)) return { role, ref: line.ref };
  return undefined;
}

/** The nearest container of line `at` that places it (see containerLabel), if any. */
export function nearestContainer(lines: readonly SnapLine[], at: number): NodeLabel | undefined {
  for (const i of ancestorsOf(lines, at)) {
    const label = containerLabel(lines, i);
    if (label) return label;
  }
  return undefined;
}

/** What the snapshot says about the element of `ref`: role, name and nearest container; undefined when the ref is not in it. */
export function describeFromSnapshot(lines: readonly SnapLine[], ref: string): (NodeLabel & { container?: NodeLabel }) | undefined {
  const at = lineOfRef(lines, ref);
  if (at < 0) return undefined;
  const line = lines[at]!;
  const container = nearestContainer(lines, at);
  return { role: line.role ?? 'generic', name: line.name, ref, ...(container ? { container } : {}) };
}
