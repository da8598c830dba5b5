/**
 * What a WebMCP listing tells beyond the tools (docs/webmcp.md, "What a
 * listing tells"): which tools are declarative forms and whether they submit
 * themselves (`toolautosubmit`), and which forms and registerTool calls the
 * browser's validation refused, with the reason. Built from the runtime
 * bridge's `declarations()` (src/page/webmcp.ts) and the frame's tools.
 *
 * The rules are Chromium 156's (checked against /usr/bin/chromium
 * 156.0.8078.108): a tool name is 1–128 of ASCII letters, digits, `_`, `-`
 * and `.`, else registerTool rejects with InvalidStateError "Invalid tool
 * name" and a form is left out without a word (no console message, no
 * DevTools issue); an imperative tool needs a non-empty description, a form
 * only a `tooldescription` attribute (empty counts; a form without one is
 * left out, with the DevTools issue FormModelContextMissingToolDescription);
 * of two forms with one name the first is the tool, and a tool registered
 * with registerTool hides a form of the same name, whichever came first.
 */
import type { BridgeDeclarations, BridgeForm } from '../page/webmcp.js';
import type { SourceTool } from './source.js';

/** A tool the page declared that the browser did not take, and why. */
export interface RejectedTool {
  /** The name as the page gave it (cut to 300 characters; `nameLength` then tells the whole length). */
  name: string;
  nameLength?: number;
  /** How the page declared it. */
  kind: 'form' | 'registerTool';
  /** Why it is not a tool, in words (e.g. `name has characters outside ASCII letters, digits, "_", "-" and ".": " "`). */
  reason: string;
}

/** The longest valid tool name (WebMCP, Chromium's validation). */
export const NAME_MAX = 128;
const NAME_CHAR = /[A-Za-z0-9_.-]/;

/**
 * What is wrong with tool name `name` (whose whole length is `length` when
 * it was cut), by Chromium's rule; undefined for a valid name.
 */
export function nameProblem(name: string, length = name.length): string | undefined {
  if (length === 0) return 'name is empty';
  const problems: string[] = [];
  if (length > NAME_MAX) problems.push(`name is ${length} characters long, over the limit of ${NAME_MAX}`);
  const bad = [...new Set([...name].filter(c => !NAME_CHAR.test(c)))];
  if (bad.length) {
    const shown = bad.slice(0, 5).map(c => JSON.stringify(c)).join(', ');
    problems.push(`name has characters outside ASCII letters, digits, "_", "-" and ".": ${shown}${bad.length > 5 ? ` and ${bad.length - 5} more` : ''}`);
  }
  return problems.length ? problems.join('; ') : undefined;
}

function rejected(name: string, nameLength: number, kind: RejectedTool['kind'], reason: string): RejectedTool {
  return nameLength > name.length ? { name, nameLength, kind, reason } : { name, kind, reason };
}

/** Whether native tool `tool` is `form`'s (a listed tool does not say): same name, description and title. */
function isFormTool(tool: SourceTool, form: BridgeForm): boolean {
  return tool.name === form.name && tool.description === form.description && (tool.title ?? '') === form.title;
}

/**
 * Marks the declarative tools among `tools` (their `form`), and returns what
 * the page declared that is not a tool: refused registerTool calls, forms
 * with an invalid name or no `tooldescription`, a form behind an earlier
 * form of the same name or behind a registerTool tool of that name.
 * `tools` from the polyfill already carry `form`; native tools are matched
 * to the document's forms by name, description and title.
 */
export function applyDeclarations(tools: SourceTool[], declared: BridgeDeclarations, native: boolean): RejectedTool[] {
  const out: RejectedTool[] = [];
  for (const r of declared.refusals) {
    const reason = r.message === 'Description is required' ? 'description is empty' : (nameProblem(r.name, r.nameLength) ?? r.message);
    out.push(rejected(r.name, r.nameLength, 'registerTool', reason));
  }
  const byName = new Map(tools.map(t => [t.name, t]));
  const seen = new Set<string>();
  for (const form of declared.forms) {
    const problem = nameProblem(form.name, form.nameLength) ?? (form.description === null ? 'the form has no tooldescription attribute' : undefined);
    if (problem) {
      out.push(rejected(form.name, form.nameLength, 'form', problem));
      continue;
    }
    if (seen.has(form.name)) {
      out.push(rejected(form.name, form.nameLength, 'form', 'an earlier form has the same toolname; that one is the tool'));
      continue;
    }
    seen.add(form.name);
    const tool = byName.get(form.name);
    if (!tool) continue; // added since the list was read
    if (native && !tool.form && isFormTool(tool, form)) tool.form = { autosubmit: form.autosubmit };
    if (!tool.form) out.push(rejected(form.name, form.nameLength, 'form', 'a tool registered with registerTool has the same name and hides the form'));
  }
  return out;
}
