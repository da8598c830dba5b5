/**
 * The rules of `lint_webmcp_tools` and `tabwright webmcp lint` (docs/webmcp-dev.md, "Lint"): what a page's WebMCP
 * tools should look like by the WebMCP spec and Chromium's checks, and the conventions of
 * `tabwright://webmcp-conventions`. Pure functions over what the listing, the page's forms and the probes found;
 * src/tools/webmcpLint.ts gathers those.
 */

/** A rule's id: stable, listed in docs/webmcp-dev.md. */
export type LintRule =
  | 'name-invalid' | 'name-duplicate' | 'description-empty' | 'schema-not-object'
  | 'readonly-mutates' | 'consequential-missing' | 'debugging-misused' | 'debugging-missing'
  | 'form-param-undescribed' | 'form-autosubmit-consequential' | 'route-lingering' | 'abort-ignored';

/** One finding: the rule, the tool (its name as declared), why it fired and how to fix it, each complete on its own. */
export interface LintFinding {
  rule: LintRule;
  tool: string;
  /** Frame URL when the tool lives in a child frame. */
  frameUrl?: string;
  severity: 'error' | 'warning';
  why: string;
  fix: string;
}

/** What the rules read of a listed tool. */
export interface LintTool {
  name: string;
  description: string;
  frameUrl?: string;
  inputSchema?: unknown;
  annotations?: { readOnlyHint?: true; consequentialHint?: true; untrustedContentHint?: true; debugging?: true };
  form?: { autosubmit: boolean };
}

/** A declaration the browser refused (src/webmcp/declarations.ts). */
export interface LintRejected {
  name: string;
  kind: 'form' | 'registerTool';
  reason: string;
  frameUrl?: string;
}

/** A declarative form's fields that have neither a label nor toolparamdescription. */
export interface FormFields {
  tool: string;
  undescribed: string[];
}

const IRREVERSIBLE_VERBS = new Set(['delete', 'remove', 'destroy', 'erase', 'purge', 'wipe', 'drop', 'cancel', 'pay', 'purchase', 'buy',
  'checkout', 'book', 'reserve', 'transfer', 'send', 'publish', 'charge', 'refund', 'place', 'submit', 'revoke', 'terminate', 'deactivate', 'unsubscribe']);
const IRREVERSIBLE_TEXT = /\b(irreversibl\w*|permanently|cannot be undone|charges?\b|payment|purchases?\b|transfers? (funds|money)|places? an order|deletes?\b)/i;
const DEVELOPER = /\b(debug\w*|diagnos\w*|inspect\w*|dumps?|devtools?|developers?|internal state|test hooks?|traces?)\b/i;

/** The words of a tool name: `place_order`, `placeOrder`, `place-order.v2` → place, order, v2. */
export function nameWords(name: string): string[] {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
}

/** Whether a tool looks high-stakes or irreversible by its name's first word or its description. */
export function looksIrreversible(tool: Pick<LintTool, 'name' | 'description'>): boolean {
  return IRREVERSIBLE_VERBS.has(nameWords(tool.name)[0] ?? '') || IRREVERSIBLE_TEXT.test(tool.description);
}

/** Whether a tool looks like a developer tool (inspection, diagnostics, testing) by its name or description. */
export function looksDeveloper(tool: Pick<LintTool, 'name' | 'description'>): boolean {
  return DEVELOPER.test(nameWords(tool.name).join(' ')) || DEVELOPER.test(tool.description);
}

/**
 * The findings that need no probe: the browser's refusals (names, descriptions, duplicate forms), tools of one
 * name in several frames, whitespace-only descriptions, schemas that are not objects, the consequential and
 * debugging hints against the name and description, forms' fields and toolautosubmit.
 */
export function staticFindings(tools: LintTool[], rejected: LintRejected[], forms: FormFields[]): LintFinding[] {
  const out: LintFinding[] = [];
  const where = (frameUrl?: string) => (frameUrl ? { frameUrl } : {});
  for (const r of rejected) {
    const shown = JSON.stringify(r.name.length > 80 ? `${r.name.slice(0, 80)}…` : r.name);
    if (/^name /.test(r.reason)) {
      out.push({ rule: 'name-invalid', tool: r.name, ...where(r.frameUrl), severity: 'error', why: `The browser refused ${r.kind === 'form' ? 'the form' : 'registerTool'} ${shown}: ${r.reason}.`, fix: 'Use 1–128 characters of ASCII letters, digits, "_", "-" and ".", e.g. a snake_case verb like add_to_cart.' });
    } else if (/same (toolname|name)/.test(r.reason)) {
      out.push({ rule: 'name-duplicate', tool: r.name, ...where(r.frameUrl), severity: 'error', why: `The form ${shown} is not a tool: ${r.reason}.`, fix: 'Give every tool of the page its own name; remove the second declaration or rename it.' });
    } else if (/description|tooldescription/.test(r.reason)) {
      out.push({ rule: 'description-empty', tool: r.name, ...where(r.frameUrl), severity: 'error', why: `The browser refused ${r.kind === 'form' ? 'the form' : 'registerTool'} ${shown}: ${r.reason}.`, fix: r.kind === 'form' ? 'Add a tooldescription attribute saying what submitting the form does.' : 'Give the tool a description saying what it does and returns.' });
    }
  }
  const frames = new Map<string, Set<string>>();
  for (const t of tools) frames.set(t.name, (frames.get(t.name) ?? new Set()).add(t.frameUrl ?? ''));
  for (const [name, seen] of frames) {
    if (seen.size > 1) out.push({ rule: 'name-duplicate', tool: name, severity: 'warning', why: `${seen.size} frames of the tab register a tool named "${name}"; an agent cannot tell them apart by name.`, fix: 'Register the tool in one frame only, or give each frame\'s tool its own name.' });
  }
  for (const t of tools) {
    const at = where(t.frameUrl);
    if (!t.form && t.description.trim() === '') out.push({ rule: 'description-empty', tool: t.name, ...at, severity: 'error', why: 'The description is only whitespace: the agent picks tools by their description.', fix: 'Say what the tool does and what it returns, in positive words.' });
    if (t.inputSchema !== undefined) {
      const schema = t.inputSchema as { type?: unknown } | null;
      if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || schema.type !== 'object') {
        out.push({ rule: 'schema-not-object', tool: t.name, ...at, severity: 'error', why: `The inputSchema is ${JSON.stringify(t.inputSchema).slice(0, 80)}, not an object schema: tool arguments are a JSON object.`, fix: 'Use {"type": "object", "properties": {...}, "required": [...]} with a description on every property.' });
      }
    }
    const irreversible = looksIrreversible(t);
    if (t.form) {
      if (t.form.autosubmit && irreversible) out.push({ rule: 'form-autosubmit-consequential', tool: t.name, ...at, severity: 'warning', why: 'The form has toolautosubmit, and its name or description says it does something irreversible: an agent\'s call submits it without the person seeing it.', fix: 'Remove toolautosubmit so that the person at the browser submits it, or make the form\'s effect undoable.' });
    } else if (irreversible && !t.annotations?.consequentialHint) {
      out.push({ rule: 'consequential-missing', tool: t.name, ...at, severity: 'warning', why: 'Its name or description says it does something high-stakes or irreversible (deletes, pays, books, sends), but it does not declare consequentialHint.', fix: 'Add annotations: { consequentialHint: true } so agents ask their user first, and keep the app\'s own confirmation.' });
    }
    const developer = looksDeveloper(t);
    if (t.annotations?.debugging && !developer) out.push({ rule: 'debugging-misused', tool: t.name, ...at, severity: 'warning', why: 'It declares debugging, but its name and description read like a tool for users: agents for end users leave debugging tools out.', fix: 'Drop debugging: true, or say in the description that it is for developers (inspection, diagnostics, testing).' });
    if (!t.annotations?.debugging && developer && !t.form) out.push({ rule: 'debugging-missing', tool: t.name, ...at, severity: 'warning', why: 'Its name or description reads like a developer tool (debug, dump, inspect, diagnostics), but it does not declare debugging.', fix: 'Add annotations: { debugging: true } so agents for end users can leave it out.' });
  }
  for (const f of forms) {
    if (f.undescribed.length) out.push({ rule: 'form-param-undescribed', tool: f.tool, severity: 'warning', why: `Field${f.undescribed.length > 1 ? 's' : ''} ${f.undescribed.map(n => JSON.stringify(n)).join(', ')} of the form ha${f.undescribed.length > 1 ? 've' : 's'} neither a <label> nor toolparamdescription: the agent sees only the field's name.`, fix: 'Give every field a <label> (for= its id, or around it) or a toolparamdescription attribute.' });
  }
  return out;
}

/** A readOnlyHint tool whose probe call changed the page. */
export function mutationFinding(tool: string, changes: string[]): LintFinding {
  return { rule: 'readonly-mutates', tool, severity: 'error', why: `It declares readOnlyHint, but calling it in a throwaway context changed ${changes.join(', ')}. Agents and consent rules run read-only tools without asking.`, fix: 'Remove readOnlyHint, or make the tool change nothing (no DOM, storage or cookie writes).' };
}

/** A tool that stayed after the app's route changed, which a fresh load of the new route does not register. */
export function lingeringFinding(tool: string, from: string, to: string): LintFinding {
  return { rule: 'route-lingering', tool, severity: 'warning', why: `It stays registered after the app moves from ${from} to ${to} in the page (a link click), though loading ${to} afresh does not register it: it belongs to the route it was registered on.`, fix: 'Pass registerTool a { signal } of an AbortController and abort it when the route is left (and call unregisterTool?.(name) for older builds).' };
}

/** A tool whose execute went on after its call was cancelled. */
export function abortFinding(tool: string, ranMs: number): LintFinding {
  return { rule: 'abort-ignored', tool, severity: 'warning', why: `Its call was cancelled after ${ranMs} ms and its execute had still not finished 0.5 s later: it ignores the signal execute gets.`, fix: 'Take execute(input, { signal }) and pass the signal to fetch() and your own waits (reject with signal.reason when it aborts).' };
}
