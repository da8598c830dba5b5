/**
 * The element picker (docs/picker.md): pick_elements shows an overlay in a
 * tab and waits for the person at the browser to select elements and
 * confirm; get_selected_elements returns the latest selections;
 * toggle_ui hides or shows the overlay of a running pick. The overlay is
 * src/page/picker.ts, run by src/session/picker.ts; what a confirmed pick
 * writes is ./pickedElements.ts.
 */
import * as z from 'zod';
import { ToolError } from '../errors.js';
import { PickerRun } from '../session/picker.js';
import type { Session } from '../session/session.js';
import { plural } from '../util/plural.js';
import { raceTimeout } from '../util/wait.js';
import { stamp } from './artifacts.js';
import { defineTabTool, defineTool } from './define.js';
import { savePick, type PickSet } from './pickedElements.js';
import type { ToolResponse } from './response.js';
import { tabIdField } from './schemas.js';

/** How long a pick waits for the human by default, and at most, in seconds. */
const PICK_DEFAULT_SEC = 300;
const PICK_MAX_SEC = 600;

/** A running pick of a tab. */
interface Running {
  run: PickerRun;
  expiresAt: number;
}

/** What the picker keeps per session: the running picks by tab, and the confirmed sets (the newest last). */
interface PickerState {
  running: Map<number, Running>;
  sets: PickSet[];
}

/** Confirmed sets kept per session (the oldest go first; their files stay). */
const SETS_MAX = 50;
const states = new WeakMap<Session, PickerState>();

function stateOf(session: Session): PickerState {
  let state = states.get(session);
  if (!state) states.set(session, (state = { running: new Map(), sets: [] }));
  return state;
}

function remember(state: PickerState, set: PickSet): void {
  state.sets = state.sets.filter(s => s.name !== set.name);
  state.sets.push(set);
  if (state.sets.length > SETS_MAX) state.sets.shift();
}

/** A selection's selectors as one line: `id \`#save\` · aria \`role=button[name="Save"s]\``. */
function selectorLine(set: PickSet['selections'][number]): string {
  return set.selectors.map(s => `${s.tier} \`${s.selector}\``).join(' · ');
}

/** Writes a confirmed set on the response: every fact in the text, the set as fields. */
function reportSet(res: ToolResponse, set: PickSet, head: string): void {
  res.text(`${head} ${plural(set.selections.length, 'element')} in tab ${set.tabId} (revision ${set.revision}, ${set.url}) as set "${set.name}"; files in ${set.dir}/`);
  if (set.prompt) res.text(`Prompt: ${set.prompt}`);
  res.text(set.comment ? `Comment from the user: ${JSON.stringify(set.comment)}` : 'The user left no comment.');
  for (const s of set.selections) {
    const box = `${Math.round(s.box.width)}×${Math.round(s.box.height)} at x ${Math.round(s.box.x)}, y ${Math.round(s.box.y)}`;
    res.text(`${s.index}. ${s.role}${s.name ? ` ${JSON.stringify(s.name)}` : ''}${s.ref ? ` [ref=${s.ref}]` : ''} <${s.tag}> ${box}`);
    res.text(`   selectors: ${selectorLine(s)}`);
    if (s.text) res.text(`   text: ${JSON.stringify(s.text)}`);
    res.text(`   files: ${s.element}.dom.md${s.files.png ? `, ${s.element}.png${s.screenshot ? ` (${s.screenshot.width}×${s.screenshot.height} px)` : ''}` : ' (no screenshot: the element has no area)'}`);
  }
  res.merge({ ...set });
}

const nameField = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, ".", "_" and "-", at most 64, not starting with "." or "-"');

export const pickElements = defineTabTool({
  name: 'pick_elements',
  title: 'Let the user pick elements',
  description:
    'Shows an overlay in the tab where the person at the browser clicks elements, adds a comment and confirms; waits for them (bounded by timeoutSec). ' +
    'Returns per element tiered selectors (each matches exactly it), ref, text, attributes, box and a cropped screenshot, written to .tabwright/dom-context/<name>/. Needs a headed browser to be seen.',
  needs: ['screenshot'],
  effect: 'interact',
  launchesBrowser: true,
  // The call waits for a person for minutes: it holds no tab lock, so other calls on the tab (toggle_ui) run meanwhile.
  tabLock: false,
  guarded: false,
  verifiable: false,
  target: 'tab',
  input: z.object({
    tabId: tabIdField,
    prompt: z.string().min(1).max(500).optional().describe('What to ask the user to pick (shown in the overlay)'),
    name: nameField.optional().describe('Folder name of the set under .tabwright/dom-context/ (default pick-<timestamp>)'),
    timeoutSec: z.number().int().min(1).max(PICK_MAX_SEC).optional().describe(`How long to wait for the user, in seconds (default ${PICK_DEFAULT_SEC})`),
  }),
  async handle(tab, { prompt, name, timeoutSec }, ctx, res) {
    const { session, signal } = ctx;
    const state = stateOf(session);
    const setName = name ?? `pick-${stamp()}`;
    const seconds = timeoutSec ?? PICK_DEFAULT_SEC;
    // A newer pick on the tab replaces the running one (that call ends with pick_cancelled, reason "replaced").
    await state.running.get(tab.id)?.run.stop();
    const headless = session.connection.kind === 'launch' && ctx.config.headless;
    const run = await PickerRun.start(tab, { tabId: tab.id, ...(prompt ? { prompt } : {}) });
    const running: Running = { run, expiresAt: Date.now() + seconds * 1000 };
    state.running.set(tab.id, running);
    ctx.waiting?.({ kind: 'pick', tabId: tab.id, expiresAt: running.expiresAt, ...(headless ? { headless } : {}) });
    let outcome;
    try {
      outcome = await raceTimeout(run.outcome(), {
        ms: seconds * 1000,
        signal,
        onTimeout: () => new ToolError('pick_timeout', `Nobody confirmed the pick in tab ${tab.id} within ${seconds} s; the overlay was removed.${headless ? ' The browser is headless: nobody could see the overlay.' : ''}`,
          headless ? 'A person picks in a headed browser: restart tabwright with --headed (or attach to a visible browser), then call pick_elements again.' : `Ask the user to be ready at the browser, then call pick_elements again (timeoutSec up to ${PICK_MAX_SEC}).`),
        onAbort: () => new ToolError('cancelled', 'The call was cancelled; the overlay was removed.', 'Send the call again if it is still wanted.'),
      });
    } finally {
      ctx.waiting?.(undefined);
      if (state.running.get(tab.id) === running) state.running.delete(tab.id);
      await run.stop();
    }
    if (outcome.status === 'cancelled') {
      throw new ToolError('pick_cancelled', `The user cancelled the pick in tab ${tab.id} (Cancel or Esc).`, 'Ask the user what they want before calling pick_elements again.', { reason: 'user' });
    }
    if (outcome.status === 'stopped') {
      throw new ToolError('pick_cancelled', `A newer pick_elements call on tab ${tab.id} replaced this pick.`, 'The newer call returns the selections.', { reason: 'replaced' });
    }
    const set = await savePick(session, tab, ctx.config.workspace, outcome, { name: setName, prompt });
    remember(state, set);
    reportSet(res, set, 'The user picked');
  },
});

export const getSelectedElements = defineTool({
  name: 'get_selected_elements',
  title: 'Get the picked elements',
  description: 'The latest elements the user picked with pick_elements (of a tab, or the set with this name): selectors, ref, text, box and file paths.',
  needs: [],
  effect: 'observe',
  launchesBrowser: false,
  input: z.object({
    tabId: tabIdField.describe('Only picks made in this tab (default: the latest pick of any tab)'),
    name: nameField.optional().describe('The set with this name (pick_elements\' name)'),
  }),
  async handle({ tabId, name }, { session }, res) {
    const sets = stateOf(session).sets.filter(s => (tabId === undefined || s.tabId === tabId) && (name === undefined || s.name === name));
    const set = sets.at(-1);
    if (set) {
      reportSet(res, set, 'Latest pick:');
      return;
    }
    if (name !== undefined) {
      const known = stateOf(session).sets.map(s => s.name);
      throw new ToolError('invalid_arguments', `No picked set is named "${name}"${tabId !== undefined ? ` in tab ${tabId}` : ''}.`,
        known.length ? `Sets of this session: ${known.slice(-10).join(', ')}; their files stay under .tabwright/dom-context/.` : 'Nothing was picked in this session yet: call pick_elements.');
    }
    res.text(`Nothing was picked${tabId !== undefined ? ` in tab ${tabId}` : ''} in this session yet: call pick_elements to let the user pick elements.`).set('selections', []);
  },
});

export const toggleUi = defineTool({
  name: 'toggle_ui',
  title: 'Show or hide the picker',
  description: 'Hides or shows the picker overlay of a running pick_elements (hidden, the user can use the page; the pick keeps waiting).',
  needs: [],
  effect: 'interact',
  launchesBrowser: false,
  tabLock: false,
  input: z.object({
    tabId: tabIdField.describe('The tab of the running pick (default: the only running pick, else the active tab\'s)'),
    visible: z.boolean().optional().describe('true shows, false hides (default: flip)'),
  }),
  async handle({ tabId, visible }, { session }, res) {
    const running = stateOf(session).running;
    const id = tabId ?? (running.size === 1 ? [...running.keys()][0] : session.activeTabId);
    const pick = id === undefined ? undefined : running.get(id);
    if (!pick) {
      const where = running.size ? ` (picks run in ${plural(running.size, 'tab')}: ${[...running.keys()].join(', ')})` : '';
      throw new ToolError('pick_not_running', `No pick runs${id !== undefined ? ` in tab ${id}` : ''}${where}: there is no picker overlay to show or hide.`,
        running.size ? 'Pass the tabId of a running pick.' : 'Call pick_elements to start one.');
    }
    const shown = await pick.run.toggle(visible).catch(() => {
      throw new ToolError('pick_not_running', `The pick in tab ${id} has just ended.`, 'Call pick_elements to start another.');
    });
    res.text(shown ? `The picker overlay in tab ${id} is shown: the user picks elements in it.` : `The picker overlay in tab ${id} is hidden: the user can use the page; toggle_ui {visible: true} shows it again (the pick keeps waiting).`);
    res.merge({ tabId: id, visible: shown });
  },
});

export const pickerTools = [pickElements, getSelectedElements, toggleUi];
