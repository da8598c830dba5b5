/**
 * Trusted pointer input into a child frame that the browser sent elsewhere.
 *
 * Playwright dispatches mouse input through the tab's page (CDP
 * `Input.dispatchMouseEvent` in page coordinates), and Chromium routes it to
 * an out-of-process frame by the compositor's hit-test data. Until the
 * parent has drawn a frame with the child's surface in it (just after the
 * child loaded, on a busy machine) the input goes to the parent document
 * (the `<iframe>` element) and the child sees nothing; Playwright's
 * hit-target check, which runs inside the child, passed all the same, so
 * the click "succeeds" with no effect. `withPointerDelivery` notices that
 * and does the action once more after the tab has drawn.
 *
 * What tells: the runtime's count of trusted pointer events that reached
 * the element's document (`pointerInputSeen`, src/page/actions.ts), whose
 * listeners come before any page script's, so a page that stops every
 * event cannot hide a click that arrived and have it done twice. (`:hover`
 * cannot tell: headless Chromium 156 leaves an out-of-process frame's
 * document un-hovered after a click in it.)
 */
import type { ElementHandle, Frame } from 'playwright-core';
import { ToolError } from '../errors.js';
import { raceTimeout } from '../util/wait.js';

/** How long reading the count may take before the input counts as delivered (a busy or navigating frame), in ms. */
const READ_MS = 2_000;

interface PointerRuntime {
  __tabwright?: { pointerInputSeen?(): number };
}

/** The count of trusted pointer events of `handle`'s document; undefined without a runtime there, or no answer. */
async function seen(handle: ElementHandle<Element>): Promise<number | undefined> {
  const count = handle.evaluate(() => (globalThis as unknown as PointerRuntime).__tabwright?.pointerInputSeen?.() ?? null);
  return (await raceTimeout(count.catch(() => null), { ms: READ_MS, onTimeout: 'undefined' })) ?? undefined;
}

/** Lets the tab draw twice (two animation frames of its top document, bounded by READ_MS). */
async function drawn(frame: Frame): Promise<void> {
  const twice = frame.page().mainFrame().evaluate(() => new Promise<void>(resolve => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
  await raceTimeout(twice.catch(() => undefined), { ms: READ_MS, onTimeout: 'undefined' });
}

/**
 * Runs `action` (trusted pointer input on `handle`: a click, a hover) and, when the element is in a child frame and
 * no pointer event of it reached that frame's document, once more after the tab has drawn. An element of the top
 * document, or of a document without tabwright's runtime, is acted on once, with no extra round trip.
 * @param frame  the element's frame (ResolvedRef.frame): known already, so a top-document element costs nothing.
 * @param what  the action, for the error ("click e12").
 * @throws ToolError element_not_actionable when the second try's input did not reach the frame either; what `action` throws.
 */
export async function withPointerDelivery(handle: ElementHandle<Element>, frame: Frame, what: string, action: () => Promise<void>): Promise<void> {
  if (!frame.parentFrame()) return action();
  for (let attempt = 1; ; attempt++) {
    const before = await seen(handle);
    await action();
    if (before === undefined) return;
    const after = await seen(handle);
    // A document that went away or did not answer counts as reached: something happened there.
    if (after === undefined || after !== before) return;
    if (attempt === 2) {
      throw new ToolError('element_not_actionable', `The ${what} did not reach the frame ${frame.url()}: the browser sent the pointer input elsewhere, twice.`,
        'Take a snapshot and try again; when it keeps failing, something the page draws over the frame takes the input (a click with force: true dispatches it from script).',
        // The input went out twice, to whatever was there (src/tools/recovery.ts).
        { dispatched: 'yes' });
    }
    await drawn(frame);
  }
}
