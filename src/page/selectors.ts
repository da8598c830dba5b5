/**
 * What the element picker (./picker.ts) reports of a picked element
 * (docs/picker.md, "Selectors"): CSS selectors in tiers, most stable first,
 * each checked to match exactly the element in the top document (the
 * structural ones from @medv/finder), its ARIA role and name (the snapshot
 * walker's own computation, ./snapshot.ts), its child-index path, text,
 * attributes, opening tag and box. Bundled into the picker's bundle only.
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
export function describeElement(el: Element): PickedElement {
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
