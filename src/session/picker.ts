/**
 * Runs the element picker overlay (src/page/picker.ts, bundled into
 * dist/page/picker.js) in a tab (docs/picker.md). Each pick gets an isolated
 * world of its own in the tab's main frame (`Page.createIsolatedWorld`
 * through the tab's CDP session; Chrome DevTools Protocol, Page domain): the
 * bundle is evaluated there, so page scripts cannot see or call it, and
 * the outcome is one `Runtime.evaluate` that awaits the overlay's promise.
 * The document going away (navigation, reload) destroys the world and
 * ends the pick.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CDPSession } from 'playwright-core';
import type { PickerOptions, PickOutcome } from '../page/picker.js';
import { ToolError } from '../errors.js';
import type { Tab } from './tab.js';

/** The bundled overlay (built by scripts/build.mjs from src/page/picker.ts). */
const PICKER_PATH = fileURLToPath(new URL('../page/picker.js', import.meta.url));
const WORLD_NAME = 'tabwright-picker';
let bundle: string | undefined;

function pickerBundle(): string {
  if (bundle === undefined) {
    if (!existsSync(PICKER_PATH)) throw new ToolError('internal', `The picker overlay is missing at ${PICKER_PATH}.`, 'Run npm run build (a source checkout), or reinstall tabwright.');
    bundle = `${readFileSync(PICKER_PATH, 'utf8')}\n//# sourceURL=tabwright-picker.js`;
  }
  return bundle;
}

/** What a CDP `Runtime.evaluate` answers. */
interface Evaluated {
  result: { value?: unknown };
  exceptionDetails?: { text: string; exception?: { description?: string } };
}

/** One pick running in a tab: its world, and the calls that end it or show and hide it. */
export class PickerRun {
  private ended = false;

  private constructor(
    readonly tab: Tab,
    private readonly cdp: CDPSession,
    private readonly contextId: number,
  ) {}

  /**
   * Shows the overlay in `tab`'s top document.
   * @throws ToolError capability_unavailable (the tab has no CDP session); internal (the bundle is missing);
   *   CDP errors of a closed tab or a document on its way out.
   */
  static async start(tab: Tab, opts: PickerOptions): Promise<PickerRun> {
    const cdp = tab.cdp;
    if (!cdp) {
      throw new ToolError('capability_unavailable', `Tab ${tab.id} has no DevTools session of tabwright's own, which the picker overlay runs through.`, 'Try another tab, or open one with open_tab.');
    }
    const { frameTree } = await cdp.send('Page.getFrameTree');
    const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: WORLD_NAME, grantUniveralAccess: false });
    const run = new PickerRun(tab, cdp, executionContextId);
    await run.evaluate(pickerBundle());
    if (!(await run.evaluate(`__tabwrightPicker.start(${JSON.stringify(opts)})`))) throw new Error('a pick already runs in this world');
    return run;
  }

  /**
   * Waits for the pick to end: confirmed or cancelled by the human, or stopped by `stop()`.
   * @throws ToolError pick_cancelled when the tab's document was replaced first (the overlay went with it),
   *   tab_not_found when the tab closed.
   */
  async outcome(): Promise<PickOutcome> {
    try {
      return (await this.evaluate('__tabwrightPicker.outcome()', true)) as PickOutcome;
    } catch (error) {
      if (this.tab.closed) throw new ToolError('tab_not_found', `Tab ${this.tab.id} closed during the pick.`, 'Call list_tabs to see the open tabs, then pick_elements again.');
      if (this.ended) return { status: 'stopped' };
      throw new ToolError('pick_cancelled', `The pick in tab ${this.tab.id} ended because its page was replaced (navigation or reload) before it was confirmed.`,
        'Call pick_elements again once the page the user wants to pick in is loaded.', { reason: 'navigated' });
    } finally {
      this.ended = true;
    }
  }

  /**
   * Shows (true) or hides (false) the overlay, or flips it; resolves whether it is shown now.
   * @throws CDP errors when the world is gone (the pick ended with its document).
   */
  async toggle(visible?: boolean): Promise<boolean> {
    return Boolean(await this.evaluate(`__tabwrightPicker.toggle(${visible === undefined ? '' : JSON.stringify(visible)})`));
  }

  /** Ends the pick (timeout, cancellation, a newer pick): the overlay is removed. Never throws. */
  async stop(): Promise<void> {
    this.ended = true;
    await this.evaluate('__tabwrightPicker.stop()').catch(() => undefined);
  }

  private async evaluate(expression: string, awaitPromise = false): Promise<unknown> {
    const reply = (await this.cdp.send('Runtime.evaluate', { expression, contextId: this.contextId, awaitPromise, returnByValue: true })) as Evaluated;
    if (reply.exceptionDetails) throw new Error(reply.exceptionDetails.exception?.description ?? reply.exceptionDetails.text);
    return reply.result.value;
  }
}
