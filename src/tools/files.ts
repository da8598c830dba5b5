/**
 * upload_file: sets files on a file input by ref, even a
 * hidden one, or answers the file chooser an element opens (also one opened
 * from an `<input type=file>` that was never attached to the document, and
 * one that opens a while after the click). Paths resolve against the
 * workspace and must stay inside it or a configured root.
 */
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { basename } from 'node:path';
import * as z from 'zod';
import type { Config } from '../config.js';
import { formatElement, type ElementInfo } from '../session/elementInfo.js';
import { resolveRef } from '../session/refs.js';
import { actionError } from './actionErrors.js';
import { reportAction, snapshotFlag } from './actionReport.js';
import { defineTabTool } from './define.js';
import { ToolError } from '../errors.js';
import { inside, realOrSelf } from '../util/paths.js';
import { classifyPlaywrightError } from '../util/playwrightErrors.js';
import { refField, timeoutMsField } from './schemas.js';

const UPLOAD_TIMEOUT = 5_000;
/** Longest wait for the chooser the last click on the element still owes before upload_file clicks it again, in ms. */
const OWED_CHOOSER_MS = 2_000;


/**
 * Resolves upload paths: relative ones against the workspace; each must be
 * an existing regular file inside the workspace or one of
 * `config.allowedRoots`, checked after resolving symlinks (a link inside
 * the workspace that points out is rejected). Returns the real paths.
 * @throws ToolError path_not_allowed (outside the roots; checked first, so
 *   nothing outside is probed), file_not_found, invalid_arguments (not a
 *   regular file, e.g. a folder).
 */
export function resolveUploadPaths(paths: readonly string[], config: Pick<Config, 'workspace' | 'allowedRoots'>): string[] {
  const roots = [config.workspace, ...config.allowedRoots];
  const realRoots = roots.map(realOrSelf);
  const notAllowed = (p: string) => new ToolError(
    'path_not_allowed',
    `${p} is outside the workspace (${config.workspace})${config.allowedRoots.length ? ' and the allowed roots' : ''}.`,
    'Copy the file into the workspace, or start the server with --allow-root DIR (env TABWRIGHT_ALLOWED_ROOTS).',
  );
  return paths.map(p => {
    const abs = resolve(config.workspace, p);
    if (!roots.some(root => inside(abs, root)) && !realRoots.some(root => inside(abs, root))) throw notAllowed(p);
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      throw new ToolError('file_not_found', `${p} does not exist.`, `Check the path; relative paths resolve against the workspace (${config.workspace}).`);
    }
    if (!realRoots.some(root => inside(real, root))) throw notAllowed(p);
    if (!statSync(real).isFile()) throw new ToolError('invalid_arguments', `${p} is not a regular file.`, 'Pass files, not folders.');
    return real;
  });
}

export const uploadFile = defineTabTool({
  name: 'upload_file',
  title: 'Upload file',
  description: 'Set the files of a file input (even hidden) or of the file chooser an element opens, by ref. Reports as click does.',
  needs: ['trustedInput'],
  effect: 'sensitive',
  launchesBrowser: true,
  target: 'ref',
  input: z.object({
    ref: refField,
    paths: z.array(z.string().min(1)).max(100).describe('Files, absolute or relative to the workspace; [] clears'),
    timeoutMs: timeoutMsField(UPLOAD_TIMEOUT),
    snapshot: snapshotFlag,
  }),
  async handle(tab, { ref, paths, timeoutMs, snapshot }, { session, config }, res) {
    const files = resolveUploadPaths(paths, config);
    const resolved = await resolveRef(session, ref);
    const { locator } = resolved;
    const timeout = timeoutMs ?? UPLOAD_TIMEOUT;
    const names = files.map(f => basename(f));
    const many = files.length ? `${files.length} file${files.length === 1 ? '' : 's'} (${names.slice(0, 10).join(', ')}${names.length > 10 ? ', …' : ''})` : 'no files (cleared)';
    let via: 'input' | 'chooser' = 'input';
    const report = await tab.act(async () => {
      // The file input itself, or the one a <label> is for (Playwright does not follow a label with role=button).
      const input = await locator.evaluateHandle(el => {
        const target = el instanceof HTMLLabelElement ? el.control : el;
        return target instanceof HTMLInputElement && target.type === 'file' ? target : null;
      }, undefined, { timeout }).catch(error => {
        throw actionError(error, `read ${ref}`);
      });
      const element = input.asElement();
      if (element) {
        try {
          await element.setInputFiles(files, { timeout });
        } catch (error) {
          throw uploadError(error, ref);
        } finally {
          await element.dispose().catch(() => undefined);
        }
        // The files are chosen: no chooser opened so far (one a click on this input opened) is a question left.
        tab.fileChoosers.answeredAll();
        return;
      }
      await input.dispose().catch(() => undefined);
      // The chooser an earlier click on this element opened (or one no action reported: it opened late),
      // else click the element and wait for one.
      const choosers = tab.fileChoosers;
      await choosers.delivered();
      const instanceId = tab.instanceId;
      const pending = choosers.pending(instanceId);
      let open = pending && (pending.openedBy === undefined || pending.openedBy === ref) ? pending : undefined;
      // The last click on this element has not opened its chooser yet: a page that opens it late gets a moment
      // first, so that clicking again does not open a second one.
      const owed = !open && choosers.owedTo(ref, instanceId);
      if (owed) open = await choosers.after(choosers.lastSeq, Math.min(timeout, OWED_CHOOSER_MS));
      if (!open) {
        const seq = choosers.lastSeq;
        await locator.click({ timeout }).catch(error => {
          throw actionError(error, `click ${ref}`);
        });
        open = await choosers.after(seq, timeout);
        if (!open) {
          throw new ToolError('element_not_actionable', `${ref} is not a file input, and clicking it opened no file chooser within ${timeout} ms.`, 'Pass the ref of the file input or of the button that opens the chooser; for a page that opens its chooser late, pass a larger timeoutMs.');
        }
        // Both the earlier click and this one may open a chooser: the one still to come answers nothing.
        if (owed) choosers.dropNext(instanceId);
      }
      open.used = true;
      via = 'chooser';
      if (files.length > 1 && !open.chooser.isMultiple()) throw tooMany(ref);
      await open.chooser.setFiles(files, { timeout }).catch(error => {
        throw uploadError(error, ref);
      });
      choosers.answeredAll();
    }, { snapshot, ref, diff: true, targets: [{ ref, resolved }] });
    reportAction(res, report, ([el]: ElementInfo[]) => `Chose ${many} for ${el ? formatElement(el) : ref}.`);
    res.set('files', files).set('via', via);
  },
});

function tooMany(ref: string): ToolError {
  return new ToolError('invalid_arguments', `${ref} takes a single file (its input has no "multiple").`, 'Pass one path.');
}

function uploadError(error: unknown, ref: string): ToolError {
  if (classifyPlaywrightError(error).has('single_file_only')) return tooMany(ref);
  return actionError(error, `set the files of ${ref}`);
}

export const fileTools = [uploadFile];
