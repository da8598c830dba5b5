/**
 * The element picker overlay (docs/picker.md), bundled by esbuild into
 * dist/page/picker.js (with ./selectors.ts and @medv/finder inlined). src/session/picker.ts
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
 * What it reports of each element is ./selectors.ts (`describeElement`),
 * read once the overlay is gone.
 */
import { describeElement, type PickedElement } from './selectors.js';

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
    // A move comes as pointermove and then mousemove: hovering follows the first, the second is only kept from the page.
    if (!event.isTrusted || !(event instanceof MouseEvent) || event.type === 'mousemove') return;
    const part = this.partAt(event.clientX, event.clientY);
    if (part === 'glass') {
      if (event.type === 'pointerdown' || event.type === 'mousedown' || event.type === 'contextmenu') event.preventDefault();
      if (event.type === 'pointermove') this.hover(this.elementAt(event.clientX, event.clientY));
      if (event.type === 'click') this.toggleAt(event.clientX, event.clientY);
    } else {
      if (this.hovered && event.type === 'pointermove') this.hover(undefined);
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
