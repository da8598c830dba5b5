/**
 * The element picker overlay (docs/picker.md), bundled by esbuild into
 * dist/page/picker.js with @medv/finder inlined. src/session/picker.ts
 * evaluates it in an isolated world of its own (`Page.createIsolatedWorld`),
 * never in the page's main world, so page scripts see neither its global
 * (`__tabwrightPicker`) nor its closure, and its UI sits in a closed shadow
 * root they cannot open.
 *
 * While it runs, a full-viewport "glass" in that shadow root takes every
 * pointer event, so the element under the mouse is never hovered, pressed or
 * clicked: the human's clicks select elements (toggle) and never reach the
 * page. Listeners in the capture phase on `window` stop every event aimed at
 * the overlay before the page's own listeners on the document or its elements
 * see it (a page's capture listener on `window`, registered before the pick
 * started, still sees them, aimed at the overlay's host, never at the element
 * under it), and act only on trusted events (`isTrusted`), so a page that
 * dispatches synthetic events cannot pick, confirm or cancel. When the pick
 * ends, everything it added is removed and focus goes back where it was.
 *
 * What it collects per element (PickedElement): tiered CSS selectors, each
 * checked here to match exactly that element; the element's ARIA role and
 * name (the snapshot walker's own computation, ./snapshot.ts), which the
 * server turns into a role selector and checks with Playwright; the child
 * index path from the root, by which the server recognises the element;
 * text, attributes, the opening tag and the box.
 */
import { finder } from '@medv/finder';
import { interactiveKind } from './dom.js';
import { cut, nameOf, roleOf, squash } from './snapshot.js';

/** The tiers of a picked element's selectors, most stable first (docs/picker.md, "Selectors"). */
export type SelectorTier = 'id' | 'test' | 'aria' | 'class' | 'css' | 'structural';

/** One selector of a picked element. CSS, except tier `aria` (Playwright's `role=` selector). */
export interface PickedSelector {
  tier: SelectorTier;
  selector: string;
}

/** A rectangle in CSS pixels, in page (document) coordinates. */
export interface PickedBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What the overlay collects of one selected element, in the order the human selected them. */
export interface PickedElement {
  tag: string;
  /** ARIA role as the snapshot writes it ('generic' when none). */
  role: string;
  /** Accessible name (at most 100 characters), if any. */
  name?: string;
  /** CSS selectors, most stable first, each matching exactly this element in the top document. */
  selectors: PickedSelector[];
  /** Child indexes from `document.documentElement` down to the element: how the server recognises it. */
  path: number[];
  /** Visible text, whitespace collapsed, at most 300 characters. */
  text: string;
  /** Attributes (at most 40), values cut at 200 characters. */
  attributes: Record<string, string>;
  /** The opening tag, at most 300 characters. */
  html: string;
  box: PickedBox;
}

/** How a pick ended: confirmed by the human, or not (`cancelled` by the human; `stopped` by the server). */
export type PickOutcome =
  | { status: 'confirmed'; comment: string; elements: PickedElement[]; devicePixelRatio: number }
  | { status: 'cancelled' }
  | { status: 'stopped' };

/** What `start` takes. */
export interface PickerOptions {
  /** What the agent asks the human to pick (shown in the panel). */
  prompt?: string;
  /** The tab, as the panel names it. */
  tabId: number;
}

/** The picker's global in its isolated world. */
export interface PickerApi {
  /** Shows the overlay. False when a pick already runs in this world. */
  start(opts: PickerOptions): boolean;
  /** Settles once the latest pick ends (at once when it has ended already). */
  outcome(): Promise<PickOutcome>;
  /** Shows (true) or hides (false) the overlay, or flips it; returns whether it is shown now. */
  toggle(visible?: boolean): boolean;
  /** Ends the pick from the server (timeout, cancellation): removes the overlay; `outcome` is `stopped`. */
  stop(): void;
}

const TEST_ATTRIBUTES = ['data-testid', 'data-test-id', 'data-test', 'data-cy', 'data-qa', 'data-test-subj', 'data-automation-id'];
const STATE_CLASSES = new Set(['active', 'hover', 'focus', 'focused', 'selected', 'open', 'opened', 'closed', 'disabled', 'enabled', 'hidden', 'visible', 'show', 'shown', 'collapsed', 'expanded', 'checked', 'current', 'loading', 'loaded', 'in', 'fade']);
const TEXT_MAX = 300;
const ATTRIBUTES_MAX = 40;
const ATTRIBUTE_VALUE_MAX = 200;

/** A hex run of 6+ characters with digits and letters: a hash (`a3f9c2`), not a word. */
function hasHash(s: string): boolean {
  return (s.match(/[0-9a-f]{6,}/gi) ?? []).some(run => /\d/.test(run) && /[a-f]/i.test(run));
}

/** Whether an id looks written by a person (kept across page loads), not generated (`:r3:`, `ember412`, `a3f9c2e1`). */
function stableId(id: string): boolean {
  if (!/^[A-Za-z][\w-]{0,63}$/.test(id)) return false;
  if (/\d{3,}/.test(id) || hasHash(id)) return false;
  return !/^(?:ember|react|radix|headlessui|mui|rc|jsx|css|sc|svelte|ng|vue|yui|ext|gwt|uid|id|el|x)[-_]?\d/i.test(id);
}

/** Whether a class names what an element is (`price`, `card__title`), not a state (`active`) or a generated hash (`css-1x2y3z`). */
function semanticClass(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z_-]{2,40}$/.test(name)) return false;
  if (/^(?:css|sc|jsx|emotion|svelte|styled|tw|ng)-/i.test(name) || /[bcdfghjklmnpqrstvwxz]{5,}/i.test(name)) return false;
  return !STATE_CLASSES.has(name.toLowerCase()) && !/^(?:is|has)-/.test(name);
}

/** `"value"` as a CSS string. */
function cssString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\a ')}"`;
}

/** True when `selector` is valid CSS matching exactly `el` in the top document. */
function matchesOnly(selector: string, el: Element): boolean {
  try {
    const found = document.querySelectorAll(selector);
    return found.length === 1 && found[0] === el;
  } catch {
    return false;
  }
}

/** The first of `candidates` that matches exactly `el`. */
function firstUnique(candidates: string[], el: Element): string | undefined {
  return candidates.find(c => matchesOnly(c, el));
}

/** `html > body > div:nth-child(2) > button:nth-child(1)`: always unique, the last resort. */
function fullPath(el: Element): string {
  const parts: string[] = [];
  for (let e: Element | null = el; e && e !== document.documentElement; e = e.parentElement) {
    const index = e.parentElement ? [...e.parentElement.children].indexOf(e) + 1 : 1;
    parts.unshift(`${CSS.escape(e.localName)}:nth-child(${index})`);
  }
  return ['html', ...parts].join(' > ');
}

/** finder's shortest unique selector with these naming rules, or undefined when it gives up. */
function finderSelector(el: Element, naming: { idName(n: string): boolean; className(n: string): boolean; attr(n: string, v: string): boolean }): string | undefined {
  try {
    return finder(el, { root: document.documentElement, ...naming, tagName: () => true, timeoutMs: 500 });
  } catch {
    return undefined;
  }
}

/** The selectors of `el`, most stable first, each checked to match exactly it; no selector twice. */
function selectorsOf(el: Element): PickedSelector[] {
  const out: PickedSelector[] = [];
  const add = (tier: SelectorTier, selector: string | undefined) => {
    if (selector && !out.some(s => s.selector === selector) && matchesOnly(selector, el)) out.push({ tier, selector });
  };
  const tag = CSS.escape(el.localName);
  if (el.id && stableId(el.id)) add('id', `#${CSS.escape(el.id)}`);
  for (const name of TEST_ATTRIBUTES) {
    const value = el.getAttribute(name);
    if (!value || value.length > 100) continue;
    add('test', firstUnique([`[${name}=${cssString(value)}]`, `${tag}[${name}=${cssString(value)}]`], el));
  }
  const classes = [...el.classList].filter(semanticClass).slice(0, 8);
  if (classes.length) {
    const escaped = classes.map(c => `.${CSS.escape(c)}`);
    add('class', firstUnique([...escaped.map(c => `${tag}${c}`), `${tag}${escaped.join('')}`], el));
  }
  add('css', finderSelector(el, { idName: stableId, className: semanticClass, attr: name => TEST_ATTRIBUTES.includes(name) }));
  add('structural', finderSelector(el, { idName: () => false, className: () => false, attr: () => false }) ?? fullPath(el));
  if (!out.some(s => s.tier === 'structural')) add('structural', fullPath(el));
  return out;
}

/** Child indexes from the document element down to `el`. */
function pathOf(el: Element): number[] {
  const path: number[] = [];
  for (let e: Element = el; e !== document.documentElement && e.parentElement; e = e.parentElement) path.unshift([...e.parentElement.children].indexOf(e));
  return path;
}

function attributesOf(el: Element): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of [...el.attributes].slice(0, ATTRIBUTES_MAX)) out[a.name] = cut(a.value, ATTRIBUTE_VALUE_MAX);
  return out;
}

function openingTag(el: Element): string {
  const attrs = [...el.attributes].map(a => (a.value === '' ? ` ${a.name}` : ` ${a.name}="${a.value.replace(/"/g, '&quot;')}"`)).join('');
  return cut(`<${el.localName}${attrs}>`, 300);
}

/** Everything the overlay reports of one element (read after the overlay is gone, so it measures the page as it is). */
function describeElement(el: Element): PickedElement {
  const role = roleOf(el, interactiveKind(el)) || 'generic';
  const name = nameOf(el, role);
  const rect = el.getBoundingClientRect();
  const text = cut(squash((el as HTMLElement).innerText ?? el.textContent), TEXT_MAX);
  return {
    tag: el.localName,
    role,
    ...(name ? { name: cut(name, 100) } : {}),
    selectors: selectorsOf(el),
    path: pathOf(el),
    text,
    attributes: attributesOf(el),
    html: openingTag(el),
    box: { x: rect.left + scrollX, y: rect.top + scrollY, width: rect.width, height: rect.height },
  };
}

const STYLE = `
:host { all: initial; }
* { box-sizing: border-box; font: 13px/1.4 system-ui, sans-serif; }
.glass { position: fixed; inset: 0; cursor: crosshair; background: transparent; }
.box { position: fixed; pointer-events: none; border: 2px solid #1a73e8; background: rgba(26,115,232,.12); }
.box.picked { border-color: #d93025; background: rgba(217,48,37,.12); }
.tag { position: absolute; left: -2px; top: -22px; padding: 1px 6px; color: #fff; background: #1a73e8; white-space: nowrap; font-size: 12px; }
.picked .tag { background: #d93025; }
.panel { position: fixed; right: 16px; bottom: 16px; width: 320px; padding: 12px; color: #202124; background: #fff;
  border: 1px solid #dadce0; border-radius: 8px; box-shadow: 0 4px 16px rgba(0,0,0,.25); cursor: default; }
.title { font-weight: 600; margin-bottom: 4px; }
.prompt { margin-bottom: 6px; white-space: pre-wrap; }
.count { color: #5f6368; margin-bottom: 6px; }
textarea { width: 100%; height: 56px; resize: vertical; padding: 4px; border: 1px solid #dadce0; border-radius: 4px; }
.buttons { display: flex; justify-content: flex-end; gap: 8px; margin-top: 8px; }
button { padding: 4px 12px; border: 1px solid #dadce0; border-radius: 4px; background: #fff; cursor: pointer; }
button.confirm { color: #fff; background: #1a73e8; border-color: #1a73e8; }
.keys { margin-top: 6px; color: #5f6368; font-size: 11px; }
`;

/** Every event type the overlay keeps from the page while it is shown (docs/picker.md, "What the page sees"). */
const EVENTS = ['pointerdown', 'pointerup', 'pointermove', 'pointerover', 'pointerout', 'pointercancel', 'mousedown', 'mouseup', 'mousemove',
  'mouseover', 'mouseout', 'click', 'dblclick', 'auxclick', 'contextmenu', 'wheel', 'touchstart', 'touchmove', 'touchend', 'keydown', 'keyup',
  'keypress', 'beforeinput', 'input', 'focusin', 'focusout', 'selectstart', 'dragstart', 'paste', 'copy', 'cut'];

/** One pick: the overlay, its listeners, the selection. */
class Pick {
  private readonly host = document.createElement('tabwright-picker');
  private readonly root = this.host.attachShadow({ mode: 'closed' });
  private readonly hoverBox: HTMLElement;
  private readonly marks: HTMLElement;
  private readonly count: HTMLElement;
  private readonly comment: HTMLTextAreaElement;
  private readonly selected: Element[] = [];
  private readonly focusBefore = document.activeElement;
  private hovered: Element | undefined;
  private visible = true;
  private frame = 0;
  private settle!: (outcome: PickOutcome) => void;
  readonly outcome = new Promise<PickOutcome>(resolve => (this.settle = resolve));

  constructor(opts: PickerOptions) {
    const el = <K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, parent: Node, text?: string) => {
      const e = document.createElement(tag);
      e.className = cls;
      if (text !== undefined) e.textContent = text;
      parent.appendChild(e);
      return e;
    };
    // A constructed style sheet: a page's Content-Security-Policy (style-src) does not apply to it, as it would to a <style>.
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLE);
    this.root.adoptedStyleSheets = [sheet];
    el('div', 'glass', this.root);
    this.marks = el('div', 'marks', this.root);
    this.hoverBox = el('div', 'box', this.root);
    this.hoverBox.style.display = 'none';
    el('div', 'tag', this.hoverBox);
    const panel = el('div', 'panel', this.root);
    el('div', 'title', panel, `tabwright · pick elements in tab ${opts.tabId}`);
    if (opts.prompt) el('div', 'prompt', panel, opts.prompt);
    this.count = el('div', 'count', panel);
    this.comment = el('textarea', '', panel);
    this.comment.placeholder = 'Comment for the agent (optional)';
    const buttons = el('div', 'buttons', panel);
    el('button', 'cancel', buttons, 'Cancel');
    el('button', 'confirm', buttons, 'Confirm');
    el('div', 'keys', panel, 'Click elements to select them, again to unselect · Esc cancels · Ctrl+Enter confirms');
    this.updateCount();
    // Inline and important: the page's style sheets cannot move or hide the host. The top layer (a manual popover)
    // puts it above every z-index of the page.
    this.host.style.cssText = 'all: initial !important; position: fixed !important; inset: 0 !important; width: 100vw !important; height: 100vh !important; ' +
      'max-width: none !important; max-height: none !important; margin: 0 !important; padding: 0 !important; border: 0 !important; ' +
      'background: transparent !important; overflow: visible !important; z-index: 2147483647 !important; display: block !important;';
    // While a modal <dialog> is open everything outside it is inert (HTML, "blocking modal dialog"): the host goes
    // inside the topmost one then, so the panel still takes the person's clicks and keys.
    const modal = [...document.querySelectorAll('dialog')].filter(d => d.matches(':modal')).at(-1);
    (modal ?? document.documentElement).appendChild(this.host);
    try {
      this.host.setAttribute('popover', 'manual');
      this.host.showPopover();
    } catch {
      // no popover support: the z-index above stands
    }
    for (const type of EVENTS) window.addEventListener(type, this.onEvent, true);
    window.addEventListener('scroll', this.redraw, true);
    window.addEventListener('resize', this.redraw, true);
  }

  private readonly redraw = () => {
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => this.draw());
  };

  private draw(): void {
    this.place(this.hoverBox, this.hovered, this.hovered ? label(this.hovered) : '');
    while (this.marks.children.length > this.selected.length) this.marks.lastElementChild!.remove();
    this.selected.forEach((target, i) => {
      let box = this.marks.children[i] as HTMLElement | undefined;
      if (!box) {
        box = document.createElement('div');
        box.className = 'box picked';
        box.appendChild(document.createElement('div')).className = 'tag';
        this.marks.appendChild(box);
      }
      this.place(box, target, `${i + 1} · ${label(target)}`);
    });
  }

  private place(box: HTMLElement, target: Element | undefined, text: string): void {
    if (!target || !target.isConnected) {
      box.style.display = 'none';
      return;
    }
    const r = target.getBoundingClientRect();
    Object.assign(box.style, { display: 'block', left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
    (box.firstElementChild as HTMLElement).textContent = text;
  }

  private updateCount(note?: string): void {
    const n = this.selected.length;
    this.count.textContent = note ?? (n ? `${n} element${n === 1 ? '' : 's'} selected` : 'Nothing selected yet');
  }

  /** The page element under a point: the topmost that is not the overlay (light DOM: an open shadow root's host). */
  private elementAt(x: number, y: number): Element | undefined {
    return document.elementsFromPoint(x, y).find(e => e !== this.host && e !== document.documentElement);
  }

  /** What of the overlay is under a point: the panel's control, the panel, or the glass. */
  private partAt(x: number, y: number): 'confirm' | 'cancel' | 'comment' | 'panel' | 'glass' {
    const hit = this.root.elementFromPoint(x, y);
    if (hit?.closest('button.confirm')) return 'confirm';
    if (hit?.closest('button.cancel')) return 'cancel';
    if (hit?.closest('textarea')) return 'comment';
    return hit?.closest('.panel') ? 'panel' : 'glass';
  }

  private readonly onEvent = (event: Event) => {
    if (!this.visible) return;
    const ours = event.target === this.host;
    if (event.isTrusted && event instanceof KeyboardEvent && event.type === 'keydown') {
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopImmediatePropagation();
        this.finish({ status: 'cancelled' });
        return;
      }
      if (ours && event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        this.confirm();
      }
    }
    if (!ours) return;
    // Aimed at the overlay: the page's listeners never see it, trusted or not.
    event.stopImmediatePropagation();
    if (!event.isTrusted || !(event instanceof MouseEvent)) return;
    const part = this.partAt(event.clientX, event.clientY);
    if (part === 'glass') {
      if (event.type === 'pointerdown' || event.type === 'mousedown' || event.type === 'contextmenu') event.preventDefault();
      if (event.type === 'pointermove' || event.type === 'mousemove') this.hover(this.elementAt(event.clientX, event.clientY));
      if (event.type === 'click') this.toggleAt(event.clientX, event.clientY);
    } else {
      if (this.hovered && (event.type === 'pointermove' || event.type === 'mousemove')) this.hover(undefined);
      if (event.type === 'click' && part === 'confirm') this.confirm();
      if (event.type === 'click' && part === 'cancel') this.finish({ status: 'cancelled' });
    }
  };

  private hover(target: Element | undefined): void {
    if (target === this.hovered) return;
    this.hovered = target;
    this.redraw();
  }

  private toggleAt(x: number, y: number): void {
    const target = this.elementAt(x, y);
    if (!target) return;
    const at = this.selected.indexOf(target);
    if (at >= 0) this.selected.splice(at, 1);
    else this.selected.push(target);
    this.updateCount();
    this.redraw();
  }

  private confirm(): void {
    const chosen = this.selected.filter(e => e.isConnected);
    if (!chosen.length) {
      this.updateCount('Select at least one element first (or Cancel)');
      return;
    }
    const comment = this.comment.value.trim().slice(0, 2000);
    this.remove();
    this.settle({ status: 'confirmed', comment, elements: chosen.map(describeElement), devicePixelRatio: devicePixelRatio });
  }

  finish(outcome: PickOutcome): void {
    this.remove();
    this.settle(outcome);
  }

  setVisible(visible: boolean): void {
    this.visible = visible;
    this.host.style.setProperty('display', visible ? 'block' : 'none', 'important');
    if (visible) this.redraw();
  }

  get shown(): boolean {
    return this.visible;
  }

  /** Removes everything the pick added to the page, and gives focus back where it was. */
  private remove(): void {
    for (const type of EVENTS) window.removeEventListener(type, this.onEvent, true);
    window.removeEventListener('scroll', this.redraw, true);
    window.removeEventListener('resize', this.redraw, true);
    cancelAnimationFrame(this.frame);
    const hadFocus = document.activeElement === this.host;
    this.host.remove();
    if (hadFocus && this.focusBefore instanceof HTMLElement && this.focusBefore !== document.body && this.focusBefore.isConnected) {
      this.focusBefore.focus({ preventScroll: true });
    }
  }
}

/** `button#save.primary 80×24`, for the highlight's tag. */
function label(el: Element): string {
  const id = el.id ? `#${el.id}` : '';
  const cls = [...el.classList].slice(0, 2).map(c => `.${c}`).join('');
  const r = el.getBoundingClientRect();
  return `${el.localName}${id}${cls} ${Math.round(r.width)}×${Math.round(r.height)}`;
}

let current: Pick | undefined;
/** The outcome of the latest pick of this world, kept after it ends: the server may ask just after the person confirmed. */
let latest: Promise<PickOutcome> | undefined;

const api: PickerApi = {
  start(opts) {
    if (current) return false;
    const pick = (current = new Pick(opts));
    latest = pick.outcome;
    void pick.outcome.then(() => {
      if (current === pick) current = undefined;
    });
    return true;
  },
  outcome() {
    return latest ?? Promise.resolve({ status: 'stopped' });
  },
  toggle(visible) {
    if (!current) return false;
    current.setVisible(visible ?? !current.shown);
    return current.shown;
  },
  stop() {
    const pick = current;
    current = undefined;
    pick?.finish({ status: 'stopped' });
  },
};

(globalThis as { __tabwrightPicker?: PickerApi }).__tabwrightPicker ??= api;
