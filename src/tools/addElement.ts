/**
 * add_element: one element inserted into a page, GM_addElement's contract as an agent tool (docs/addElement.md):
 * a tag, a parent (a CSS selector of the tab's document, or a ref in any frame), DOM properties set at creation and
 * attribute strings set after them. An inline script or style takes effect past the page's Content-Security-Policy
 * (src/page/addElement.ts says how, and what Chromium 156 allows). It runs code the agent wrote, so it is gated as
 * execute is: effect `sensitive`, destructive, off under `--policy hardened`, and behind the consent gate's code grants.
 */
import * as z from 'zod';
import type { ElementHandle, Frame } from 'playwright-core';
import type { AddElementResult } from '../page/addElement.js';
import type { Session } from '../session/session.js';
import { resolveRef } from '../session/refs.js';
import { defineTabTool } from './define.js';
import { withRefHandle } from './refHandle.js';
import { toToolError, ToolError } from '../errors.js';
import { refField, tabIdField } from './schemas.js';
import { gateCode } from './codeConsent.js';

type Args = [tag: string, attributes: Record<string, string>, properties: Record<string, unknown>];

/** The runtime's `addElementAt` in `frame` (the tab's top document), injecting the runtime into a document that predates it. */
async function addAtSelector(session: Session, frame: Frame, selector: string | null, args: Args): Promise<AddElementResult> {
  const call = ([sel, tag, attributes, properties]: [string | null, ...Args]) => {
    const rt = (globalThis as { __tabwright?: { addElementAt?(...a: [string | null, ...Args]): AddElementResult } }).__tabwright;
    return rt?.addElementAt ? rt.addElementAt(sel, tag, attributes, properties) : 'runtime-missing' as const;
  };
  const first = await frame.evaluate(call, [selector, ...args] as [string | null, ...Args]);
  if (first !== 'runtime-missing') return first;
  await session.injectRuntime(frame);
  const second = await frame.evaluate(call, [selector, ...args] as [string | null, ...Args]);
  if (second === 'runtime-missing') throw new ToolError('evaluation_failed', 'The page runtime could not be injected into the tab\'s document.', 'Reload the tab (navigate to its URL) and try again.');
  return second;
}

/** The runtime's `addElement` under `parent`, in the frame (and main world) of that element. */
async function addUnder(parent: ElementHandle, args: Args): Promise<AddElementResult> {
  const got = await parent.evaluate((el, [tag, attributes, properties]) => {
    const rt = (globalThis as { __tabwright?: { addElement?(...a: [Node, ...Args]): AddElementResult } }).__tabwright;
    return rt?.addElement ? rt.addElement(el, tag, attributes, properties) : 'runtime-missing' as const;
  }, args);
  if (got === 'runtime-missing') throw new ToolError('evaluation_failed', 'The page runtime is missing in the frame of this element.', 'Reload the tab (navigate to its URL), take a fresh get_page_context and try again.');
  return got;
}

/** The tool's error for a result without an element. */
function refusal(error: NonNullable<AddElementResult['error']>, where: string): ToolError {
  switch (error.kind) {
    case 'no_match':
      return new ToolError('invalid_arguments', `The parent selector matches no element in the tab's top document (${where}).`, 'Check the selector with get_page_context or find, or omit parent for <head>/<body>, or pass a ref (works in frames too).');
    case 'bad_selector':
      return new ToolError('invalid_arguments', `The parent selector does not parse: ${error.message}`, 'Pass a CSS selector as document.querySelector takes it.');
    case 'bad_name':
      return new ToolError('invalid_arguments', `A tag or attribute name is not valid: ${error.message}`, 'Use an HTML tag name (e.g. "style", "script", "div") and attribute names without spaces or quotes.');
    default:
      return new ToolError('element_not_added', `The page refused the element: ${error.message}`, 'Set only writable DOM properties (textContent, innerHTML, src, ...; not read-only ones like tagName), under a parent that takes child elements.');
  }
}

export const addElement = defineTabTool({
  name: 'add_element',
  title: 'Add element',
  description:
    'Insert one element into a page (like GM_addElement): tag, parent (CSS selector, or ref in any frame; default <head> for script/style/link/meta, else <body>), ' +
    'properties (DOM, e.g. textContent) then attributes (strings). Inline <script> runs and inline <style> applies despite the page\'s CSP. Returns {tag, id}.',
  needs: ['evaluate'],
  effect: 'sensitive',
  launchesBrowser: true,
  destructive: true,
  target: 'ref',
  check: ({ parent, ref }) => {
    if (parent !== undefined && ref !== undefined) throw new ToolError('invalid_arguments', 'Pass parent (a selector) or ref, not both.', 'Use ref for an element from get_page_context (any frame), parent for a CSS selector of the top document.');
  },
  input: z.object({
    tabId: tabIdField,
    tag: z.string().min(1).max(100).describe('Tag name, e.g. "style", "script", "div"'),
    parent: z.string().min(1).max(2000).optional().describe('CSS selector of the parent in the tab\'s top document (default <head> for script/style/link/meta, else <body>)'),
    ref: refField.optional().describe('Element ref (from get_page_context) to append to instead of parent; works inside frames'),
    attributes: z.record(z.string().max(200), z.string().max(1_000_000)).optional().describe('HTML attributes as strings, set with setAttribute after the properties'),
    properties: z.record(z.string().max(200), z.json()).optional().describe('DOM properties set at creation, e.g. {"textContent": "a{color:red}"} or {"innerHTML": "<b>hi</b>"}'),
  }),
  // The userscript connection: through the userscript manager's GM_addElement (RemoteTabs.addElement), which can
  // pass the page's CSP as it does for userscripts; a parent by selector only (no refs of frames there).
  async remote(tabs, tab, { tag, parent, ref, attributes, properties }, ctx, res) {
    if (ref) throw new ToolError('invalid_arguments', 'On the userscript connection the parent is a CSS selector, not a ref.', 'Pass parent: a CSS selector of the page (the ref\'s element has one: ask get_page_context, or use an id).');
    await gateCode(ctx, tab, 'add_element', { tag, attributes: attributes ?? {}, properties: (properties ?? {}) as Record<string, unknown> });
    let made: { tag: string; id: string | null };
    try {
      made = await tabs.addElement(tab.tabId, { tag, parent, attributes, properties: properties as Record<string, unknown> | undefined }, { timeoutMs: 30_000, maxBytes: 16 * 1024, instanceId: tab.instanceId, signal: ctx.signal });
    } catch (error) {
      // The companion's words for an unmatched parent (userscript/src/companion.ts addElement): the type the other kinds give.
      if (error instanceof ToolError && /no element matches the parent selector/.test(error.message)) {
        throw new ToolError('invalid_arguments', `No element matches the parent selector ${JSON.stringify(parent)} in tab ${tab.tabId}.`, 'Check the selector against get_page_context, or leave parent out (<head> for script, style, link and meta, else <body>).');
      }
      throw error;
    }
    res.merge({ tabId: tab.tabId, tag: made.tag, id: made.id });
    res.text(`Added <${made.tag}${made.id !== null ? ` id="${made.id}"` : ''}> to ${parent ?? (/^(script|style|link|meta)$/i.test(tag) ? '<head>' : '<body>')} in tab ${tab.tabId} through the userscript manager's GM_addElement.`);
    if (made.id === null) res.text('The element has no id: give it one (attributes.id) to find it again with execute.');
  },
  async handle(tab, { tag, parent, ref, attributes, properties }, ctx, res) {
    const args: Args = [tag, attributes ?? {}, (properties ?? {}) as Record<string, unknown>];
    // A ref that cannot be found fails before anyone is asked about the element.
    const resolved = ref ? await resolveRef(ctx.session, ref) : undefined;
    await gateCode(ctx, tab, 'add_element', { tag, attributes: args[1], properties: args[2] });
    let result: AddElementResult;
    try {
      if (resolved) {
        result = await withRefHandle(resolved, ref!, handle => addUnder(handle, args));
      } else {
        result = await addAtSelector(ctx.session, tab.page.mainFrame(), parent ?? null, args);
      }
    } catch (error) {
      const err = toToolError(error);
      if (err.type !== 'internal') throw err;
      throw new ToolError('evaluation_failed', `The page could not insert the element: ${err.message}`, 'Check the tab is showing a page (not a crashed or closed one) and try again.');
    }
    if (!result.ok) throw refusal(result.error!, parent ?? '');
    const { tag: made, id = null, inline, scriptError } = result;
    res.merge({ tabId: tab.id, tag: made, id, ...(inline ? { inline } : {}), ...(scriptError ? { scriptError } : {}) });
    res.text(`Added <${made}${id !== null ? ` id="${id}"` : ''}> to ${ref ? `${ref} ` : ''}${result.parent} in tab ${tab.id}.`);
    if (inline === 'evaluated') res.text('Its inline script ran (through CDP, so the page\'s CSP did not block it).');
    if (inline === 'adopted') res.text('The page\'s CSP refused the inline style, so it applies as an adopted stylesheet; it goes when the element is removed, and later edits of the element\'s text do not apply.');
    if (scriptError) res.text(`The script threw ${scriptError.name}: ${scriptError.message} (the element stays; the page saw the error too).`);
    if (id === null) res.text('The element has no id: give it one (attributes.id) to find it again with execute.');
  },
});
