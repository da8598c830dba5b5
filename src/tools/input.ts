/**
 * Element and keyboard tools: click, type, fill_form,
 * select_option, press_key, hover, scroll. Each runs through Tab.act,
 * reports what changed (reportAction, ./actionReport.ts) and takes refs from
 * get_page_context. Issue #4: a covered target fails fast naming the cover
 * (obstruction.ts), text goes in through trusted input and is read back
 * (realInput.ts).
 */
import * as z from 'zod';
import type { ElementHandle, Page } from 'playwright-core';
import { describeFocused, formatElement, formatElements } from '../session/elementInfo.js';
import { resolveRef, type ResolvedRef } from '../session/refs.js';
import { syntheticInput, type SyntheticAction, type SyntheticResult } from '../session/remoteInput.js';
import type { ToolResponse } from './response.js';
import { formatLabel } from '../session/snapshotLines.js';
import { actionError } from './actionErrors.js';
import { blockedSubmit, blockedSubmitLine } from './formValidation.js';
import { playwrightTimeout } from '../browser/playwright.js';
import { plural } from '../util/plural.js';
import { raceTimeout } from '../util/wait.js';
import { reportAction, snapshotFlag } from './actionReport.js';
import type { ElementInfo } from '../session/elementInfo.js';
import { defineTabTool } from './define.js';
import { ToolError } from '../errors.js';
import { assertNotCovered, forceClick } from './obstruction.js';
import { selectOptions, setChecked, typeText } from './realInput.js';
import { withPointerDelivery } from './pointerDelivery.js';
import { withRefHandle } from './refHandle.js';
import { directClick, directFill } from './directInput.js';
import { refField, tabIdField, timeoutMsField } from './schemas.js';

const ACTION_TIMEOUT = 5_000;
const modifiers = z.array(z.enum(['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift'])).max(5).optional()
  .describe('Keys held during the click');

/** Runs a Playwright action, its failure mapped to a ToolError (`what`: "click e12"). */
async function attempt(what: string, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (error) {
    throw actionError(error, what);
  }
}

/** How `clickResolved` clicks. */
export interface ClickOptions {
  button?: 'left' | 'right' | 'middle';
  modifiers?: Array<'Alt' | 'Control' | 'ControlOrMeta' | 'Meta' | 'Shift'>;
  doubleClick?: boolean;
  /** Dispatch the events from script, even on a covered element (untrusted). */
  force?: boolean;
  /** Milliseconds for the element to become actionable. */
  timeout: number;
}

/**
 * The click of the `click` tool, on a resolved ref (run it inside `tab.act`):
 * a covered target fails at once naming what covers it, the trusted click is
 * checked to reach a child frame's document (./pointerDelivery.ts).
 * @throws ToolError element_not_actionable, stale_ref, timeout (actionError).
 */
export async function clickResolved(el: ResolvedRef, ref: string, opts: ClickOptions): Promise<void> {
  const { button, modifiers: mods, doubleClick, force, timeout } = opts;
  await attempt(`click ${ref}`, async () => {
    // On a relayed connection, a plain click of a ready element in two round trips (./directInput.ts).
    if (!force && !mods?.length && await directClick(el, ref, { button: button ?? 'left', clickCount: doubleClick ? 2 : 1, timeout })) return;
    await withRefHandle(el, ref, handle => clickHandle(handle, el, ref, opts));
  });
}

/** The click of `clickResolved` on the element's handle: forced, or checked for a cover and made through Playwright. */
async function clickHandle(handle: ElementHandle<Element>, el: ResolvedRef, ref: string, opts: ClickOptions): Promise<void> {
  const { button, modifiers: mods, doubleClick, force, timeout } = opts;
  const pw = { button, modifiers: mods, timeout };
  if (force) return forceClick(handle, { button: button ?? 'left', clickCount: doubleClick ? 2 : 1, modifiers: mods ?? [] }, timeout);
  await assertNotCovered(handle, ref, `click ${ref}`, true, timeout);
  await withPointerDelivery(handle, el.frame, `click ${ref}`, () => (doubleClick ? handle.dblclick(pw) : handle.click(pw)));
}

export const click = defineTabTool({
  name: 'click',
  title: 'Click',
  description: 'Click an element by ref (scrolled into view; element_not_actionable when hidden, disabled or covered). ' +
    'Answers with the element and its row, list item, dialog or form; what changed (navigation with URL, title and HTTP status, new tabs, a dialog, file chooser or download, console errors); ' +
    'and a diff of the page snapshot (lines added, removed, changed, with refs).',
  // Synthetic events (said so) on the userscript connection's tabs: its remote handler (ToolDef servesRemoteTabs).
  needs: ['trustedInput'],
  effect: 'interact',
  launchesBrowser: true,
  target: 'ref',
  input: z.object({
    ref: refField,
    button: z.enum(['left', 'right', 'middle']).optional().describe('Mouse button (default left)'),
    doubleClick: z.boolean().optional().describe('Double-click instead of a single click'),
    modifiers,
    force: z.boolean().optional().describe('Click even if covered: dispatch the events from script (untrusted)'),
    timeoutMs: timeoutMsField(ACTION_TIMEOUT),
    snapshot: snapshotFlag,
  }),
  async remote(tabs, tab, { ref, button, doubleClick, modifiers: mods, timeoutMs }, { session, signal }, res) {
    if ((button && button !== 'left') || doubleClick || mods?.length) throw syntheticOnly('a left single click without modifiers');
    const element = await syntheticInput(session, tabs, tab, ref, { kind: 'click' }, { timeoutMs: timeoutMs ?? ACTION_TIMEOUT, signal });
    reportSynthetic(res, tab.tabId, `Clicked ${ref} (<${element.tag}>)`, element);
  },
  async handle(tab, { ref, button, doubleClick, modifiers: mods, force, timeoutMs, snapshot }, { session }, res) {
    const el = await resolveRef(session, ref);
    const report = await tab.act(() => clickResolved(el, ref, { button, modifiers: mods, doubleClick, force, timeout: timeoutMs ?? ACTION_TIMEOUT }),
      { snapshot, ref, diff: true, targets: [{ ref, resolved: el }], clicks: true });
    reportAction(res, report, ([e]) => `${doubleClick ? 'Double-clicked' : 'Clicked'} ${e ? formatElement(e) : ref}${force ? ' (force: events dispatched from script)' : ''}.`);
    // A submit the browser's form validation held back changes nothing on the page: say which fields held it.
    // Only when nothing else happened: a popup's dialog can hold the opener's renderer (one read would wait on it).
    const quiet = !report.navigation && !report.dialog && !report.tabClosed && !report.newTabs;
    const blocked = quiet ? await blockedSubmit(el) : undefined;
    if (blocked) res.set('invalidFields', blocked.fields).text(blockedSubmitLine(blocked));
  },
});

export const type = defineTabTool({
  name: 'type',
  title: 'Type text',
  description: 'Type into an input, textarea or contenteditable element by ref, then read it back; submit: true presses Enter afterwards. Reports as click does.',
  needs: ['trustedInput'],
  effect: 'interact',
  launchesBrowser: true,
  target: 'ref',
  input: z.object({
    ref: refField,
    text: z.string().max(100_000).describe('Text to enter'),
    clear: z.boolean().optional().describe('Replace the content (default true); false appends'),
    submit: z.boolean().optional().describe('Press Enter after typing (default false)'),
    timeoutMs: timeoutMsField(ACTION_TIMEOUT),
    snapshot: snapshotFlag,
  }),
  async remote(tabs, tab, { ref, text, clear, submit, timeoutMs }, { session, signal }, res) {
    const element = await syntheticInput(session, tabs, tab, ref, { kind: 'text', text, clear: clear ?? true, submit }, { timeoutMs: timeoutMs ?? ACTION_TIMEOUT, signal });
    reportSynthetic(res, tab.tabId, `Typed ${plural([...text].length, 'character')} into ${ref}${submit ? ' and submitted its form' : ''}`, element);
  },
  async handle(tab, { ref, text, clear, submit, timeoutMs, snapshot }, { session }, res) {
    const el = await resolveRef(session, ref);
    const timeout = timeoutMs ?? ACTION_TIMEOUT;
    const report = await tab.act(async () => {
      // On a relayed connection, replacing a plain text field's content in three round trips (./directInput.ts).
      let direct = false;
      if (clear ?? true) await attempt(`type into ${ref}`, async () => { direct = await directFill(el, ref, text, { timeout }); });
      // The field has the focus after a direct fill: Enter goes to it as Playwright's press would send it.
      if (direct) {
        const keyboard = el.frame.page().keyboard;
        if (submit) await attempt(`press Enter in ${ref}`, () => tab.sendInput(() => raceTimeout(keyboard.press('Enter'), playwrightTimeout(timeout)), timeout));
        return;
      }
      await withRefHandle(el, ref, async handle => {
        await attempt(`type into ${ref}`, () => typeText(tab.page, handle, ref, text, { clear: clear ?? true, timeout }));
        if (submit) await attempt(`press Enter in ${ref}`, () => handle.press('Enter', { timeout }));
      });
    }, { snapshot, diff: true, targets: [{ ref, resolved: el }] });
    reportAction(res, report, ([e]) => `Typed ${plural([...text].length, 'character')} into ${e ? formatElement(e) : ref}${submit ? ' and pressed Enter' : ''}.`);
  },
});

/** Fills one field according to what the element is (keys go to `page`). */
async function fillField(page: Page, handle: ElementHandle<Element>, ref: string, value: string | boolean | string[], timeout: number): Promise<void> {
  const kind = await handle.evaluate(el => {
    const tag = el.tagName.toLowerCase();
    const t = (el.getAttribute('type') ?? '').toLowerCase();
    const role = el.getAttribute('role') ?? '';
    if (tag === 'select') return 'select';
    if ((tag === 'input' && (t === 'checkbox' || t === 'radio')) || ['checkbox', 'radio', 'switch', 'menuitemcheckbox'].includes(role)) return 'check';
    return 'text';
  });
  if (kind === 'select') {
    await attempt(`select options in ${ref}`, () => selectOptions(handle, ref, Array.isArray(value) ? value : [String(value)], timeout));
  } else if (kind === 'check') {
    if (typeof value !== 'boolean' && value !== 'true' && value !== 'false') {
      throw new ToolError('invalid_arguments', `Field ${ref} is a checkbox or radio; its value must be true or false.`, 'Pass value: true to check it, false to uncheck it.');
    }
    await attempt(`check ${ref}`, () => setChecked(handle, ref, value === true || value === 'true', timeout));
  } else {
    if (typeof value !== 'string') {
      throw new ToolError('invalid_arguments', `Field ${ref} takes text; its value must be a string.`, 'Pass the text as a string.');
    }
    await attempt(`fill ${ref}`, () => typeText(page, handle, ref, value, { clear: true, timeout }));
  }
}

export const fillForm = defineTabTool({
  name: 'fill_form',
  title: 'Fill form',
  description: 'Fill several fields at once: text for inputs and textareas, true/false for checkboxes and radios, option values or labels for selects. Reports as click does.',
  needs: ['trustedInput'],
  effect: 'interact',
  launchesBrowser: true,
  target: 'refs',
  refs: ({ fields }) => fields.map(f => f.ref),
  input: z.object({
    fields: z.array(z.object({
      ref: refField,
      value: z.union([z.string().max(100_000), z.boolean(), z.array(z.string())]).describe('Text, true/false for checkboxes and radios, or option value(s) for selects'),
    })).min(1).max(200).describe('Fields to fill, in order'),
    timeoutMs: timeoutMsField(ACTION_TIMEOUT),
    snapshot: snapshotFlag,
  }),
  async remote(tabs, tab, { fields, timeoutMs }, { session, signal }, res) {
    const limits = { timeoutMs: timeoutMs ?? ACTION_TIMEOUT, signal };
    const values: Array<SyntheticResult & { ref: string }> = [];
    for (const { ref, value } of fields) {
      const action: SyntheticAction = typeof value === 'boolean' ? { kind: 'check', checked: value } : Array.isArray(value) ? { kind: 'select', values: value } : { kind: 'text', text: value, clear: true };
      values.push({ ref, ...(await syntheticInput(session, tabs, tab, ref, action, limits)) });
    }
    res.set('fields', values).set('filled', fields.length);
    reportSynthetic(res, tab.tabId, `Filled ${plural(fields.length, 'field')}: ${values.map(v => `${v.ref} = ${v.checked ?? JSON.stringify(v.value ?? '')}`).join(', ')}`);
  },
  async handle(tab, { fields, timeoutMs, snapshot }, { session }, res) {
    const resolved: Array<{ ref: string; value: string | boolean | string[] } & ResolvedRef> = [];
    for (const field of fields) resolved.push({ ...field, ...(await resolveRef(session, field.ref)) });
    if (resolved.some(f => f.tab !== tab)) {
      throw new ToolError('invalid_arguments', 'The fields belong to different tabs.', 'Call fill_form once per tab.');
    }
    // Fields the diff below shows (each with its ref and new value) are not named twice.
    const label = (els: ElementInfo[], shown: ReadonlySet<string>) => {
      const many = `Filled ${fields.length} field${fields.length > 1 ? 's' : ''}`;
      if (!els.every(e => shown.has(e.ref))) return `${many}: ${formatElements(els)}.`;
      const containers = new Set(els.map(e => (e.container ? formatLabel(e.container) : '')));
      return `${many}${containers.size === 1 && els[0]?.container ? ` in ${[...containers][0]}` : ''}; each is in the diff below.`;
    };
    const report = await tab.act(async () => {
      for (const f of resolved) await withRefHandle(f, f.ref, handle => fillField(tab.page, handle, f.ref, f.value, timeoutMs ?? ACTION_TIMEOUT));
    }, { snapshot, diff: true, targets: resolved.map(f => ({ ref: f.ref, resolved: f })) });
    reportAction(res, report, label, { peers: true });
    res.set('filled', fields.length);
  },
});

export const selectOption = defineTabTool({
  name: 'select_option',
  title: 'Select option',
  description: 'Choose options of a <select> by value or visible label (several for a multi-select). Returns the values now selected; reports as click does.',
  needs: ['trustedInput'],
  effect: 'interact',
  launchesBrowser: true,
  target: 'ref',
  input: z.object({
    ref: refField,
    values: z.array(z.string()).min(1).max(500).describe('Option values or labels to select'),
    timeoutMs: timeoutMsField(ACTION_TIMEOUT),
    snapshot: snapshotFlag,
  }),
  async handle(tab, { ref, values, timeoutMs, snapshot }, { session }, res) {
    const el = await resolveRef(session, ref);
    let selected: string[] = [];
    const report = await tab.act(() => attempt(`select options in ${ref}`, async () => {
      selected = await withRefHandle(el, ref, handle => selectOptions(handle, ref, values, timeoutMs ?? ACTION_TIMEOUT));
    }), { snapshot, diff: true, targets: [{ ref, resolved: el }] });
    reportAction(res, report, ([e]) => `Selected options in ${e ? formatElement(e) : ref}.`);
    res.set('selected', selected).text(`Now selected: ${selected.join(', ')}`);
  },
});

export const pressKey = defineTabTool({
  name: 'press_key',
  title: 'Press key',
  description: 'Press a key or chord in a tab (on the focused element): e.g. Enter, Escape, ArrowDown, Control+A, Shift+Tab. Names the focused element (and for Tab where focus went); reports as click does.',
  needs: ['trustedInput'],
  effect: 'interact',
  launchesBrowser: true,
  target: 'tab',
  input: z.object({
    key: z.string().min(1).max(100).describe('Key name (Playwright keyboard names), optionally with modifiers: "Control+Enter"'),
    tabId: tabIdField,
    snapshot: snapshotFlag,
  }),
  async handle(tab, { key, snapshot }, { session }, res) {
    const report = await tab.act(() => attempt(`press ${key}`, () => raceTimeout(tab.page.keyboard.press(key), playwrightTimeout(ACTION_TIMEOUT))), { snapshot, diff: true, focused: true });
    reportAction(res, report, ([el]) => (el ? `Pressed ${key} on ${formatElement(el)}.` : `Pressed ${key} (no element had focus: the page got it).`));
    // Tab moves the focus: say where it went (one more evaluation, for Tab only).
    if (/(^|\+)Tab$/.test(key) && !tab.closed && !tab.dialogs.current) {
      const now = await describeFocused(session, tab);
      if (now) res.set('focused', now).text(`Focus is now on ${formatElement(now)}.`);
    }
  },
});

export const hover = defineTabTool({
  name: 'hover',
  title: 'Hover',
  description: 'Move the mouse over an element by ref (opens hover menus and tooltips). Reports as click does (a menu that opens shows in the diff).',
  needs: ['trustedInput'],
  effect: 'interact',
  launchesBrowser: true,
  target: 'ref',
  input: z.object({ ref: refField, timeoutMs: timeoutMsField(ACTION_TIMEOUT), snapshot: snapshotFlag }),
  async handle(tab, { ref, timeoutMs, snapshot }, { session }, res) {
    const el = await resolveRef(session, ref);
    const timeout = timeoutMs ?? ACTION_TIMEOUT;
    const report = await tab.act(() => attempt(`hover ${ref}`, () => withRefHandle(el, ref, async handle => {
      await assertNotCovered(handle, ref, `hover ${ref}`, false, timeout);
      await withPointerDelivery(handle, el.frame, `hover ${ref}`, () => handle.hover({ timeout }));
    })), { snapshot, diff: true, targets: [{ ref, resolved: el }] });
    reportAction(res, report, ([e]) => `Hovered ${e ? formatElement(e) : ref}.`);
  },
});

export const scroll = defineTabTool({
  name: 'scroll',
  title: 'Scroll',
  description: 'Scroll the page by dx/dy px (default 600 down), an element (ref) into view, or inside it with ref and dx/dy. Returns the scroll position; reports as click does.',
  needs: [],
  effect: 'observe',
  launchesBrowser: true,
  target: 'ref',
  input: z.object({
    tabId: tabIdField,
    ref: refField.optional().describe('Element to scroll into view (or inside, with dx/dy)'),
    dx: z.number().min(-1e6).max(1e6).optional().describe('Horizontal pixels (positive: right)'),
    dy: z.number().min(-1e6).max(1e6).optional().describe('Vertical pixels (positive: down)'),
    snapshot: snapshotFlag,
  }),
  async handle(tab, { ref, dx, dy, snapshot }, { session }, res) {
    const resolved = ref ? await resolveRef(session, ref) : undefined;
    const by = { left: dx ?? 0, top: dy ?? (resolved || dx !== undefined ? 0 : 600) };
    const label = ([el]: ElementInfo[]) => {
      const what = el ? formatElement(el) : ref;
      if (!resolved) return `Scrolled the page by ${by.left},${by.top}.`;
      return dx || dy ? `Scrolled inside ${what} by ${by.left},${by.top}.` : `Scrolled ${what} into view.`;
    };
    const report = await tab.act(async () => {
      if (resolved && dx === undefined && dy === undefined) {
        // Element.scrollIntoView, not scrollIntoViewIfNeeded: that waits for two animation frames, which an
        // off-screen cross-site frame never paints (Chromium throttles it), so a ref in such a frame timed out.
        await attempt(`scroll ${ref} into view`, () => withRefHandle(resolved, ref!, handle => raceTimeout(handle.evaluate(el => el.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' })), playwrightTimeout(ACTION_TIMEOUT))));
      } else if (resolved) {
        await attempt(`scroll inside ${ref}`, () => withRefHandle(resolved, ref!, handle => raceTimeout(handle.evaluate((el, b) => el.scrollBy({ ...b, behavior: 'instant' }), by), playwrightTimeout(ACTION_TIMEOUT))));
      } else {
        await attempt('scroll the page', () => raceTimeout(tab.page.evaluate(b => window.scrollBy({ ...b, behavior: 'instant' }), by), playwrightTimeout(ACTION_TIMEOUT)));
      }
    }, { snapshot, diff: true, targets: resolved && ref ? [{ ref, resolved }] : [] });
    reportAction(res, report, label);
    let pos = { x: 0, y: 0, maxY: 0 };
    await attempt('read the scroll position', async () => {
      pos = await raceTimeout(tab.page.evaluate(() => ({ x: window.scrollX, y: window.scrollY, maxY: document.documentElement.scrollHeight - window.innerHeight })), playwrightTimeout(ACTION_TIMEOUT));
    });
    res.set('scroll', pos).text(`Page scroll position: ${Math.round(pos.x)},${Math.round(pos.y)} of max ${Math.max(0, Math.round(pos.maxY))}.`);
  },
});

export const inputTools = [click, type, fillForm, selectOption, pressKey, hover, scroll];

/** The error for an input option that synthetic events cannot give (the userscript connection). */
function syntheticOnly(what: string): ToolError {
  return new ToolError('capability_unavailable', `The userscript connection dispatches synthetic events only: ${what}.`, 'Drop the option, or use a connection with trusted input (--connection launch, --own-chrome, --connection extension).');
}

/** What a synthetic action on a remote tab did, saying that its events were untrusted. */
function reportSynthetic(res: ToolResponse, tabId: number, done: string, element?: SyntheticResult): void {
  res.merge({ tabId, synthetic: true, ...(element ? { element } : {}) });
  const now = element?.checked !== undefined ? `; checked: ${element.checked}` : element?.value !== undefined ? `; its value is now ${JSON.stringify(element.value.slice(0, 200))}` : '';
  res.text(`${done}${now}. Synthetic events (isTrusted false): a page that checks isTrusted ignores them. Call get_page_context to see what changed.`);
}
