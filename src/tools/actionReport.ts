/**
 * reportAction: writes an action's report (Tab.act, src/session/tabAction.ts)
 * on a tool's response, the same for every tool: a label line naming what
 * was done, then navigation, dialog, console errors, new tabs, files and the
 * page (docs/actions.md, "Actions report what changed"). Every fact is
 * a text line as well as a field.
 */
import * as z from 'zod';
import { describeDialog } from '../session/dialogs.js';
import { beforeUnloadQuestion } from '../session/leaving.js';
import type { ElementInfo } from '../session/elementInfo.js';
import type { ActionFiles } from '../session/actionFiles.js';
import type { ActionReport } from '../session/tabAction.js';
import type { ToolResponse } from './response.js';

/** The `snapshot` flag every action tool accepts. */
export const snapshotFlag = z.boolean().optional().describe('Whole snapshot instead of the diff');

/**
 * The first line of an action's text, or a function of the described
 * elements and of the refs the page report below it shows (lines of its diff
 * or of the page as it now reads), so a label can leave out what that shows.
 */
export type ActionLabel = string | ((elements: ElementInfo[], shown: ReadonlySet<string>) => string);

/**
 * Writes `report` on `res`. `label` is the first line ("Clicked button
 * "Save" [ref=e5]."); empty or absent for none. The elements acted on go to
 * field `element` (the first), or with `opts.peers` (fill_form's fields) to
 * field `elements`.
 */
export function reportAction(res: ToolResponse, report: ActionReport, label: ActionLabel = '', opts: { peers?: boolean } = {}): void {
  const page = report.page;
  const shown = new Set(page?.lines.flatMap(l => [...l.text.matchAll(/\[ref=(e\d+)\]/g)].map(m => m[1]!)) ?? []);
  const text = typeof label === 'function' ? label(report.elements, shown) : label;
  if (text) res.text(text);
  res.set('tabId', report.tabId);
  if (opts.peers) res.set('elements', report.elements);
  else res.set('element', report.elements[0]);

  if (report.tabClosed) {
    const { activeTabId } = report.tabClosed;
    res.text(`Tab ${report.tabId} closed during the action (by its own script or its opener); the active tab is now ${activeTabId ?? 'none'}.`).set('tabClosed', true).set('activeTabId', activeTabId);
  } else {
    const nav = report.navigation;
    if (nav) {
      const http = nav.status ? `HTTP ${nav.status}, ` : '';
      res.text(`${nav.sameDocument ? 'URL changed (same document)' : 'Navigated'} to ${nav.url} ${JSON.stringify(nav.title)} (${http}revision ${nav.revision}).`);
      if (nav.status && nav.status >= 400) res.text(`The server answered HTTP ${nav.status}; the page shown is its error page.`);
      res.set('navigation', nav);
    }
    res.set('revision', report.revision);
  }
  if (report.dialog) {
    res.set('dialog', report.dialog).text(describeDialog(report.tabId, report.dialog));
    if (report.dialog.type === 'beforeunload') res.set('leaving', report.leaving).text(beforeUnloadQuestion(report.leaving));
  }
  const errors = report.consoleErrors;
  if (errors?.length) {
    res.set('consoleErrors', errors);
    res.text(`${errors.length} new console error${errors.length > 1 ? 's' : ''}: ${errors.slice(0, 3).map(e => e.text.split('\n')[0]!.slice(0, 200)).join(' | ')}`);
  }
  if (report.newTabs) {
    const { tabs, activeTabId, dialogs } = report.newTabs;
    res.set('newTabs', tabs);
    res.set('activeTabId', activeTabId);
    for (const t of tabs) {
      const page = t.blank ? `${t.url || 'about:blank'}, no page loaded yet (its opener may still navigate it; list_tabs shows where it goes)` : `${t.url} ${JSON.stringify(t.title)}`;
      res.text(`New tab ${t.tabId} opened (${t.popup ? 'a popup: it can reach its opener through window.opener' : 'a plain tab'}, opener tab ${t.openerTabId}): ${page}.`);
    }
    res.text(`The active tab stays ${activeTabId} (focus_tab {tabId: ${tabs[0]!.tabId}} switches; tools take tabId).`);
    for (const d of dialogs) res.text(describeDialog(d.tabId, d.dialog));
  }
  const { downloads, fileChooser } = report.files;
  if (downloads) {
    res.set('downloads', downloads);
    for (const d of downloads) {
      if (d.state === 'completed') res.text(`Downloaded ${JSON.stringify(d.name)} (${d.size} bytes) to ${d.path}.`);
      else if (d.refused) res.text(`Download ${JSON.stringify(d.suggestedName)} was refused [${d.refused.type}]: ${d.error}; nothing was saved.`);
      else if (d.state === 'failed') res.text(`Download ${JSON.stringify(d.suggestedName)} failed: ${d.error}.`);
      else res.text(`Download ${JSON.stringify(d.suggestedName)} is still in progress; list_downloads shows when it is saved.`);
    }
  }
  if (fileChooser) reportFileChooser(res, fileChooser);
  if (report.snapshot !== undefined) {
    res.set('snapshot', report.snapshot).text(`\n${report.snapshot}`, { mirrors: 'snapshot' });
  } else if (page) {
    for (const line of page.lines) res.text(line.text, line);
    res.merge(page.fields);
  }
}

/**
 * Writes a file chooser nothing answered yet on `res`: field `fileChooser` ({multiple, late?}) and the line naming
 * the upload_file call. `late`: it opened after the previous call returned (docs/actions.md, "Choosers in action
 * results").
 */
export function reportFileChooser(res: ToolResponse, chooser: NonNullable<ActionFiles['fileChooser']>): void {
  res.set('fileChooser', { multiple: chooser.multiple, ...(chooser.late ? { late: true } : {}) });
  const when = chooser.late ? ` after the previous call returned${chooser.ref ? ` (after the action on ${chooser.ref})` : ''}` : '';
  res.text(`A file chooser opened${when}${chooser.multiple ? ' (several files allowed)' : ''}; call upload_file {ref: ${chooser.ref ? JSON.stringify(chooser.ref) : '<the same ref>'}, paths: [...]} to choose the files.`);
}
