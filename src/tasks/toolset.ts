/**
 * Which of tabwright's tools a run's model sees (docs/tasks.md, "Tools per mode"), and which of its steps are
 * consequential: asked of the human through the consent gate before they are dispatched (act mode).
 */
import * as z from 'zod';
import type { AnyTool } from '../tools/define.js';
import type { Session } from '../session/session.js';
import { elementOf, resolveRef } from '../session/refs.js';
import type { ModelTool } from './model.js';

/**
 * Read tools (`effect: 'observe'`, tool set `core`) a run never gets: they write files (save_pdf), show server
 * internals (get_bridge_status), read what a person picked or downloaded (get_selected_elements, list_downloads),
 * or hand over request and response bodies and headers (get_network_request).
 */
const NOT_IN_ASK = new Set(['save_pdf', 'get_bridge_status', 'get_selected_elements', 'list_downloads', 'get_network_request']);

/**
 * The action tools of act mode, besides the read tools. Never: code (execute, add_element), closing tabs or the
 * browser, viewport, leases, pickers, batches, cookies and storage, scripts.
 */
export const ACT_TOOLS: readonly string[] = ['navigate', 'open_tab', 'reload_tab', 'click', 'type', 'fill_form', 'select_option', 'press_key', 'hover', 'drag', 'dismiss_consent_banner', 'handle_dialog', 'call_webmcp_tool', 'upload_file'];

/** The tools a run of `mode` may call, from the registry (`all`). */
export function toolsFor(mode: 'ask' | 'act', all: readonly AnyTool[]): AnyTool[] {
  const reads = all.filter(t => t.effect === 'observe' && (t.toolset ?? 'core') === 'core' && !t.humanOnly && !NOT_IN_ASK.has(t.name));
  if (mode === 'ask') return reads;
  return [...reads, ...ACT_TOOLS.map(name => all.find(t => t.name === name)).filter((t): t is AnyTool => t !== undefined)];
}

/** A tool as the model gets it: its description and the JSON Schema of its input. */
export function modelTool(tool: AnyTool): ModelTool {
  const parameters = z.toJSONSchema(tool.input, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete parameters.$schema;
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
}

/** Why a step is consequential, in words for the human; undefined when it is not. */
export type Consequence = string | undefined;

/** The origin of `url`, or undefined for a URL that has none (about:blank, back, forward). */
export function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * Whether an act-mode step must be approved first (docs/tasks.md, "Consent"): an upload; a navigation (navigate,
 * open_tab) to another origin than the task's; `type` with `submit`; press_key of Enter; a click on a submit control
 * (a submit or image input, a button of type submit, a button without a type inside a form). A click on an element that
 * cannot be examined counts as a submit (fail closed). call_webmcp_tool is judged by the gate inside the call itself.
 */
export async function consequence(tool: string, args: Record<string, unknown>, taskOrigin: string | undefined, session: Session): Promise<Consequence> {
  switch (tool) {
    case 'upload_file':
      return 'uploads files from this computer to the page';
    case 'navigate':
    case 'open_tab': {
      const target = originOf(typeof args.url === 'string' ? args.url : undefined);
      if (target && taskOrigin && target !== taskOrigin) return `leaves the task's site (${taskOrigin}) for ${target}`;
      return undefined;
    }
    case 'type':
      return args.submit === true ? 'presses Enter after typing, which submits the form' : undefined;
    case 'press_key':
      return typeof args.key === 'string' && /(^|\+)Enter$/i.test(args.key) ? 'presses Enter, which may submit a form' : undefined;
    case 'click': {
      if (typeof args.ref !== 'string') return undefined;
      // The userscript connection reaches its tabs from inside their pages: tabwright cannot examine the element first.
      if (session.connection.remoteTabs) return 'clicks an element tabwright cannot examine on this connection (it may submit a form or follow a link)';
      const seen = await examine(session, args.ref);
      if (!seen) return undefined;
      if (seen.submit) return 'clicks a submit button';
      // A link is a navigation too: one that leaves the task's site asks, as navigate to another origin does.
      const target = originOf(seen.link ?? undefined);
      if (target && taskOrigin && target !== taskOrigin) return `follows a link that leaves the task's site (${taskOrigin}) for ${target}`;
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * What clicking the element of `ref` does beyond the page: whether it submits a form, and the URL of the link it is in
 * (`a[href]`, `area[href]`), if any. A ref that does not resolve (stale, unknown) is not asked about (undefined): the
 * click fails the same way without acting (refs never fall back to another element). An element that resolves but
 * cannot be examined counts as a submit.
 */
async function examine(session: Session, ref: string): Promise<{ submit: boolean; link: string | null } | undefined> {
  let handle: Awaited<ReturnType<typeof elementOf>>;
  try {
    handle = await elementOf(await resolveRef(session, ref), ref);
  } catch {
    return undefined;
  }
  try {
    return await handle.evaluate(el => {
      const anchor = el.closest('a[href], area[href]') as HTMLAnchorElement | HTMLAreaElement | null;
      const link = anchor ? anchor.href : null;
      const control = el.closest('button, input');
      if (!control) return { submit: false, link };
      if (control instanceof HTMLInputElement) return { submit: control.type === 'submit' || control.type === 'image', link };
      const type = (control.getAttribute('type') ?? '').toLowerCase();
      return { submit: type === 'submit' || (type === '' && (control as HTMLButtonElement).form !== null), link };
    });
  } catch {
    return { submit: true, link: null };
  } finally {
    void handle.dispose().catch(() => undefined);
  }
}
