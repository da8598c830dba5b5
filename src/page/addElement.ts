/**
 * `add_element` in the page (src/tools/addElement.ts; docs/addElement.md): creates one element, sets its DOM
 * properties then its attributes, appends it to a parent, and gets its inline code past the document's
 * Content-Security-Policy the way GM_addElement does in userscript managers:
 *
 * - an inline classic `<script>` is inserted inert (a type no browser runs, then its own type again: an element whose
 *   type was not a script type when it was inserted is not prepared again, HTML "prepare the script element"), and
 *   its text then runs here as global code through indirect eval. This function is called through CDP
 *   (Runtime.callFunctionOn), and code the inspector runs is not held to the page's `script-src` (checked on
 *   Chromium 156: `eval` and a `<script>` element inserted from the same call, the first runs, the second is blocked);
 * - an inline `<style>` whose sheet the CSP refused (`sheet` is null after insertion) gets a constructed stylesheet
 *   of the same text, adopted by the element's root (document or shadow root), which `style-src` does not govern; it
 *   is dropped again when the element leaves the document.
 *
 * External resources (`src`, `href`) load as the page's CSP allows. Runs in the main world of the element's frame.
 */

/** What `addElement` resolves to: the element's tag and id, or why there is none. */
export interface AddElementResult {
  ok: boolean;
  /** Lower-case tag name of the element (ok). */
  tag?: string;
  /** Its `id` attribute, null without one (ok). */
  id?: string | null;
  /** The parent it went into, as `<tag#id.class>` (ok). */
  parent?: string;
  /**
   * How the inline code of a script or style took effect (ok): `evaluated` (a script's text ran through CDP),
   * `element` (a style's own sheet applies), `adopted` (the CSP refused the style's sheet: a constructed one applies).
   */
  inline?: 'evaluated' | 'element' | 'adopted';
  /** What the inline script threw (ok: the element stays inserted); also reported to the page as an error event. */
  scriptError?: { name: string; message: string };
  /** Why nothing was inserted (not ok): `no_match` (the selector matched nothing), `bad_selector`, `bad_name` (tag or attribute name), `refused` (the DOM threw). */
  error?: { kind: 'no_match' | 'bad_selector' | 'bad_name' | 'refused'; message: string };
}

/** Tags that go into `<head>` when no parent is given (as the userscript engine's GM_addElement does, src/userscripts/gmPage.ts). */
const HEAD_TAGS = /^(script|style|link|meta)$/i;

/** JavaScript MIME types a classic script may declare (HTML "JavaScript MIME type essence match", the common ones). */
const CLASSIC_TYPES = /^(|text\/javascript|application\/javascript|text\/ecmascript|application\/ecmascript|application\/x-javascript|text\/jscript)$/i;

/** A type no browser runs: the inline script is inserted with it, so the browser does not prepare it. */
const INERT_TYPE = 'text/x-tabwright-inert';

/** Constructed sheets standing in for CSP-refused `<style>` elements, and the roots that adopted them. */
const adopted = new Map<HTMLStyleElement, { sheet: CSSStyleSheet; root: Document | ShadowRoot }>();
let watcher: MutationObserver | undefined;

function describeNode(node: Node): string {
  if (!(node instanceof Element)) return node.nodeName.toLowerCase();
  const cls = typeof node.className === 'string' && node.className.trim() ? `.${node.className.trim().split(/\s+/).join('.')}` : '';
  return `<${node.localName}${node.id ? `#${node.id}` : ''}${cls}>`;
}

function failure(kind: NonNullable<AddElementResult['error']>['kind'], error: unknown): AddElementResult {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { ok: false, error: { kind, message: message.slice(0, 500) } };
}

/** Drops the constructed sheets of style elements no longer in their root. */
function dropDetached(): void {
  for (const [el, { sheet, root }] of adopted) {
    if (el.isConnected && el.getRootNode() === root) continue;
    root.adoptedStyleSheets = root.adoptedStyleSheets.filter(s => s !== sheet);
    adopted.delete(el);
  }
  if (!adopted.size) {
    watcher?.disconnect();
    watcher = undefined;
  }
}

function adoptStyle(el: HTMLStyleElement): void {
  const root = el.getRootNode();
  if (!(root instanceof Document) && !(root instanceof ShadowRoot)) return;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(el.textContent ?? '');
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  adopted.set(el, { sheet, root });
  watcher ??= new MutationObserver(dropDetached);
  watcher.observe(root, { childList: true, subtree: true });
}

/**
 * Creates `tag` in `parent`'s document, sets `properties` (DOM properties: `textContent`, `innerHTML`, `src`, ...)
 * then `attributes` (strings, with setAttribute), and appends it to `parent`; null parent: `<head>` for script,
 * style, link and meta, else `<body>`, else the root element.
 */
export function addElement(parent: Node | null, tag: string, attributes: Record<string, string>, properties: Record<string, unknown>): AddElementResult {
  const doc = parent?.ownerDocument ?? document;
  let el: HTMLElement;
  try {
    el = doc.createElement(tag);
  } catch (error) {
    return failure('bad_name', error);
  }
  try {
    Object.assign(el, properties);
  } catch (error) {
    return failure('refused', error);
  }
  for (const [name, value] of Object.entries(attributes)) {
    try {
      el.setAttribute(name, value);
    } catch (error) {
      return failure('bad_name', error);
    }
  }
  const target = parent ?? (HEAD_TAGS.test(el.localName) ? doc.head : doc.body) ?? doc.documentElement;
  if (!target) return failure('refused', new Error('the document has no root element'));
  const script = el instanceof HTMLScriptElement && !el.hasAttribute('src') && CLASSIC_TYPES.test((el.getAttribute('type') ?? '').trim()) && el.text !== '' ? el : undefined;
  const ownType = script?.getAttribute('type') ?? null;
  if (script) script.setAttribute('type', INERT_TYPE);
  try {
    target.appendChild(el);
  } catch (error) {
    return failure('refused', error);
  } finally {
    if (script) {
      if (ownType === null) script.removeAttribute('type');
      else script.setAttribute('type', ownType);
    }
  }
  const result: AddElementResult = { ok: true, tag: el.localName, id: el.getAttribute('id'), parent: describeNode(target) };
  if (script) {
    result.inline = 'evaluated';
    try {
      (0, eval)(script.text);
    } catch (error) {
      result.scriptError = error instanceof Error ? { name: error.name, message: error.message.slice(0, 2000) } : { name: 'Error', message: String(error).slice(0, 2000) };
      reportError(error);
    }
  } else if (el instanceof HTMLStyleElement && el.isConnected && (el.textContent ?? '') !== '') {
    if (el.sheet) result.inline = 'element';
    else {
      adoptStyle(el);
      result.inline = 'adopted';
    }
  }
  return result;
}

/** addElement under the first element `selector` matches in this document (null: the default parent). */
export function addElementAt(selector: string | null, tag: string, attributes: Record<string, string>, properties: Record<string, unknown>): AddElementResult {
  let parent: Element | null = null;
  if (selector !== null) {
    try {
      parent = document.querySelector(selector);
    } catch (error) {
      return failure('bad_selector', error);
    }
    if (!parent) return { ok: false, error: { kind: 'no_match', message: `no element matches ${selector.slice(0, 200)}` } };
  }
  return addElement(parent, tag, attributes, properties);
}
