/**
 * Drag: "`drag {fromRef, toRef}` with real pointer events."
 *
 * Playwright's `dragTo`: the mouse moves onto the source, presses, moves to
 * the target in DRAG_STEPS interpolated moves and releases, all through
 * CDP mouse input (trusted pointer and mouse events). Chromium turns those
 * moves into an HTML5 drag (dragstart, dragover, drop) when the source is
 * draggable, so both pointer-event and HTML5 drag-and-drop pages work.
 */
import * as z from 'zod';
import { formatElement, type ElementInfo } from '../session/elementInfo.js';
import { resolveRef } from '../session/refs.js';
import { actionError } from './actionErrors.js';
import { reportAction, snapshotFlag } from './actionReport.js';
import { defineTabTool } from './define.js';
import { ToolError } from '../errors.js';
import { assertNotCovered } from './obstruction.js';
import { withRefHandle } from './refHandle.js';
import { refField } from './schemas.js';

/** Limit of each step (hit tests, the drag), in ms. */
const DRAG_TIMEOUT = 5_000;
/** Mouse moves between press and release (libraries wait for a few pixels of travel before a drag starts). */
export const DRAG_STEPS = 10;

export const drag = defineTabTool({
  name: 'drag',
  title: 'Drag',
  description: 'Drag one element onto another with real mouse input (pointer-event and HTML5 drag and drop). Reports both elements and the diff, as click does.',
  needs: ['trustedInput'],
  effect: 'interact',
  launchesBrowser: true,
  target: 'refs',
  refs: ({ fromRef, toRef }) => [fromRef, toRef],
  input: z.object({
    fromRef: refField,
    toRef: refField.describe('Drop target, or any element inside the drop zone'),
    snapshot: snapshotFlag,
  }),
  async handle(tab, { fromRef, toRef, snapshot }, { session }, res) {
    const from = await resolveRef(session, fromRef);
    const to = await resolveRef(session, toRef);
    if (from.tab !== to.tab) {
      throw new ToolError('invalid_arguments', `${fromRef} is in tab ${from.tab.id} and ${toRef} in tab ${to.tab.id}.`, 'Drag between elements of one tab.');
    }
    const timeout = DRAG_TIMEOUT;
    const report = await tab.act(async () => {
      try {
        await withRefHandle(from, fromRef, handle => assertNotCovered(handle, fromRef, `drag ${fromRef}`, false, timeout));
        await withRefHandle(to, toRef, handle => assertNotCovered(handle, toRef, `drop onto ${toRef}`, false, timeout));
        await from.locator.dragTo(to.locator, { steps: DRAG_STEPS, timeout });
      } catch (error) {
        throw actionError(error, `drag ${fromRef} onto ${toRef}`);
      }
    }, { snapshot, diff: true, targets: [{ ref: fromRef, resolved: from }, { ref: toRef, resolved: to }] });
    reportAction(res, report, ([a, b]: ElementInfo[]) => `Dragged ${a ? formatElement(a) : fromRef} onto ${b ? formatElement(b) : toRef}.`);
    res.set('dropTarget', report.elements[1]);
  },
});
