/**
 * What pick_elements makes of the elements the human confirmed
 * (docs/picker.md, "What is written"): the overlay's CSS selectors plus an
 * ARIA role selector checked with Playwright, the ref of an element the
 * tab's runtime already knows, a cropped PNG of each element, and per
 * element `<workspace>/.tabwright/dom-context/<name>/<element>.dom.md` and
 * `<element>.png`, each written atomically (./artifacts.ts).
 */
import { join } from 'node:path';
import type { PickOutcome } from '../page/picker.js';
import type { PickedBox, PickedElement, PickedSelector } from '../page/selectors.js';
import type { Session } from '../session/session.js';
import type { Tab } from '../session/tab.js';
import { logger } from '../log.js';
import { raceTimeout } from '../util/wait.js';
import { writeArtifact } from './artifacts.js';
import { inFront } from './screenshot.js';
import { captureClip, insideViewport, pageMetrics, type Rect } from './screenshotCapture.js';

const log = logger('picker');

/** One saved selection, as pick_elements and get_selected_elements return it. */
export interface Selection {
  /** 1-based, in the order the human selected the elements. */
  index: number;
  /** The file stem of its two files (`1-button-save`). */
  element: string;
  tag: string;
  role: string;
  /** Accessible name, if any. */
  name?: string;
  /** The element's ref, when the tab's runtime knew the element (a snapshot or find showed it); valid for `revision`. */
  ref?: string;
  /** Most stable first; each matched exactly this element when it was picked. */
  selectors: PickedSelector[];
  text: string;
  attributes: Record<string, string>;
  /** The opening tag. */
  html: string;
  /** CSS px, page coordinates. */
  box: PickedBox;
  /** Absolute paths of its files; `png` is absent when no screenshot could be taken (an element without area). */
  files: { dom: string; png?: string };
  /** The PNG's size in pixels. */
  screenshot?: { width: number; height: number };
}

/** One confirmed pick: its elements and where they were written. */
export interface PickSet {
  /** The set's folder name under `.tabwright/dom-context/`. */
  name: string;
  dir: string;
  tabId: number;
  url: string;
  revision: number;
  prompt?: string;
  comment: string;
  /** ISO 8601. */
  pickedAt: string;
  selections: Selection[];
}

/** Longest side of an element screenshot, in pixels (a whole-page element is cut down to it). */
const SHOT_MAX_SIDE = 4_000;
const STEP_MS = 5_000;

/** `1-button-save-draft`: index, tag and a slug of the id, test id or text (at most 48 characters). */
function fileStem(index: number, el: PickedElement): string {
  const word = el.attributes.id ?? el.attributes['data-testid'] ?? el.name ?? el.text;
  const slug = (word ?? '').toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 30).replace(/-+$/, '');
  return [String(index), el.tag.replace(/[^a-z0-9-]/g, '').slice(0, 16), slug].filter(Boolean).join('-');
}

/** Runs in the main world: the element at each child-index path, as the runtime's snapshot id (null: none yet). */
function runtimeIds(paths: number[][]): Array<string | null> {
  const runtime = (globalThis as { __tabwright?: { idOf?(el: Element): string | null } }).__tabwright;
  return paths.map(path => {
    let el: Element | undefined = document.documentElement;
    for (const i of path) el = el?.children[i];
    return el && runtime?.idOf ? runtime.idOf(el) : null;
  });
}

/**
 * Runs in the page (through Playwright, in the main world): the child-index path of each element, as the overlay's
 * own `pathOf` (src/page/selectors.ts) computes it in its isolated world, where Playwright cannot reach.
 */
function pathsOf(els: Element[]): number[][] {
  return els.map(el => {
    const path: number[] = [];
    for (let e: Element = el; e !== document.documentElement && e.parentElement; e = e.parentElement) path.unshift([...e.parentElement.children].indexOf(e));
    return path;
  });
}

/** Playwright's exact role selector for a role and name, when Playwright finds exactly the element of `path` by it. */
async function roleSelector(tab: Tab, el: PickedElement): Promise<string | undefined> {
  if (el.role === 'generic' || !el.name || el.name.length >= 100) return undefined;
  const selector = `role=${el.role}[name=${JSON.stringify(el.name)}s]`;
  const paths = await raceTimeout(tab.page.locator(selector).evaluateAll(pathsOf).catch(() => undefined), { ms: STEP_MS, onTimeout: 'undefined' });
  return paths?.length === 1 && paths[0]!.join('/') === el.path.join('/') ? selector : undefined;
}

/** The selectors with the role selector (tier `aria`) after the id and test attribute tiers. */
function withAria(selectors: PickedSelector[], aria: string | undefined): PickedSelector[] {
  if (!aria) return selectors;
  const at = selectors.findIndex(s => s.tier !== 'id' && s.tier !== 'test');
  const out = [...selectors];
  out.splice(at < 0 ? out.length : at, 0, { tier: 'aria', selector: aria });
  return out;
}

/** The element's box within the page, or undefined when it has no area there. */
function clipOf(box: PickedBox, page: { width: number; height: number }): Rect | undefined {
  const x = Math.max(0, box.x);
  const y = Math.max(0, box.y);
  const width = Math.min(box.x + box.width, page.width) - x;
  const height = Math.min(box.y + box.height, page.height) - y;
  return width >= 1 && height >= 1 ? { x, y, width, height } : undefined;
}

/** A PNG of the element's box at the page's device pixel ratio (at most SHOT_MAX_SIDE a side); undefined when it cannot be taken. */
async function screenshotOf(session: Session, tab: Tab, box: PickedBox, dpr: number): Promise<{ image: Buffer; width: number; height: number } | undefined> {
  try {
    const metrics = await pageMetrics(tab, STEP_MS);
    const clip = clipOf(box, metrics.page);
    if (!clip) return undefined;
    const width = Math.max(1, Math.round(Math.min(clip.width * dpr, SHOT_MAX_SIDE, SHOT_MAX_SIDE * clip.width / clip.height)));
    const shot = await inFront(session, tab, () => captureClip(tab, clip, { width, beyondViewport: !insideViewport(clip, metrics.viewport), format: 'png', timeoutMs: STEP_MS }));
    return { image: shot.image, width: shot.width, height: shot.height };
  } catch (error) {
    log.debug(`element screenshot failed: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** The `.dom.md` of one selection: what an agent or a person reads to target the element. */
function domMarkdown(set: Omit<PickSet, 'selections'>, s: Selection): string {
  const label = `${s.role}${s.name ? ` "${s.name}"` : ''}`;
  const lines = [
    `# ${s.index}. ${label} \`<${s.tag}>\``,
    '',
    `Picked in tab ${set.tabId} · revision ${set.revision} · ${set.url} · ${set.pickedAt}`,
  ];
  if (set.prompt) lines.push(`Prompt: ${set.prompt}`);
  if (set.comment) lines.push(`Comment: ${set.comment}`);
  lines.push('', '## Selectors (most stable first; each matched exactly this element)', '');
  for (const sel of s.selectors) lines.push(`- ${sel.tier}: \`${sel.selector}\``);
  lines.push('', '## Element', '');
  if (s.ref) lines.push(`- ref: ${s.ref} (tabwright, for revision ${set.revision} of tab ${set.tabId})`);
  lines.push(`- box: x ${round(s.box.x)}, y ${round(s.box.y)}, ${round(s.box.width)}×${round(s.box.height)} (CSS px, page coordinates)`);
  if (s.text) lines.push(`- text: ${s.text}`);
  lines.push(`- html: \`${s.html.replace(/`/g, "'")}\``);
  if (s.files.png) lines.push(`- screenshot: ${s.element}.png${s.screenshot ? ` (${s.screenshot.width}×${s.screenshot.height} px)` : ''}`);
  const attributes = Object.entries(s.attributes);
  if (attributes.length) {
    lines.push('', '## Attributes', '');
    for (const [name, value] of attributes) lines.push(`- ${name}: ${JSON.stringify(value)}`);
  }
  return `${lines.join('\n')}\n`;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

/**
 * Makes the confirmed outcome a PickSet: role selectors checked, refs looked up, screenshots taken, and the files
 * written under `<workspace>/.tabwright/dom-context/<name>/`.
 * @throws ToolError workspace_unwritable when a file cannot be written.
 */
export async function savePick(session: Session, tab: Tab, workspace: string, outcome: Extract<PickOutcome, { status: 'confirmed' }>, meta: { name: string; prompt?: string }): Promise<PickSet> {
  const { url } = await tab.urlAndTitle();
  const ids = await raceTimeout(tab.page.mainFrame().evaluate(runtimeIds, outcome.elements.map(e => e.path)).catch(() => undefined), { ms: STEP_MS, onTimeout: 'undefined' });
  const kind = `dom-context/${meta.name}`;
  const set: PickSet = {
    name: meta.name, dir: join(workspace, '.tabwright', 'dom-context', meta.name), tabId: tab.id, url, revision: tab.revision, ...(meta.prompt ? { prompt: meta.prompt } : {}),
    comment: outcome.comment, pickedAt: new Date().toISOString(), selections: [],
  };
  for (const [i, el] of outcome.elements.entries()) {
    const element = fileStem(i + 1, el); // unique: it starts with the index
    const id = ids?.[i];
    const shot = await screenshotOf(session, tab, el.box, outcome.devicePixelRatio || 1);
    const selection: Selection = {
      index: i + 1, element, tag: el.tag, role: el.role, ...(el.name ? { name: el.name } : {}),
      ...(id ? { ref: session.refs.assign(tab.id, tab.instanceId, id) } : {}),
      selectors: withAria(el.selectors, await roleSelector(tab, el)),
      text: el.text, attributes: el.attributes, html: el.html, box: el.box,
      files: { dom: '' },
      ...(shot ? { screenshot: { width: shot.width, height: shot.height } } : {}),
    };
    if (shot) selection.files.png = writeArtifact(workspace, kind, `${element}.png`, shot.image);
    selection.files.dom = writeArtifact(workspace, kind, `${element}.dom.md`, domMarkdown(set, selection));
    set.selections.push(selection);
  }
  return set;
}
