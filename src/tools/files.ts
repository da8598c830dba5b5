/**
 * upload_file: sets files on a file input by ref, even a
 * hidden one, or answers the file chooser an element opens (also one opened
 * from an `<input type=file>` that was never attached to the document, and
 * one that opens a while after the click). Paths resolve against the
 * workspace and must stay inside it or a configured root.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import mime from 'mime';
import * as z from 'zod';
import type { Config } from '../config.js';
import { formatElement, type ElementInfo } from '../session/elementInfo.js';
import { resolveRef } from '../session/refs.js';
import { actionError } from './actionErrors.js';
import { reportAction, snapshotFlag } from './actionReport.js';
import { defineTabTool } from './define.js';
import { extensionDenial, ToolError } from '../errors.js';
import { uploadDeniedError } from '../consent/policy.js';
import { inside, realOrSelf } from '../util/paths.js';
import { classifyPlaywrightError } from '../util/playwrightErrors.js';
import { refField, timeoutMsField } from './schemas.js';

const UPLOAD_TIMEOUT = 5_000;
/** Longest wait for the chooser the last click on the element still owes before upload_file clicks it again, in ms. */
const OWED_CHOOSER_MS = 2_000;
/**
 * Largest total size of the files upload_file sends as contents (the extension without file access), in bytes:
 * Playwright's own bound for file payloads.
 */
export const CONTENTS_MAX_BYTES = 50 * 1024 * 1024;

/** A file as contents (Playwright's FilePayload with the file's modification time). */
interface FileContents { name: string; mimeType: string; buffer: Buffer; lastModifiedMs: number }

/** What a file input or a file chooser takes: Playwright's setInputFiles / FileChooser.setFiles. */
type FileSetter = (files: string[] | FileContents[]) => Promise<void>;

/**
 * Sets `files` through `set`: as paths, the browser reading the files itself (DOM.setFileInputFiles); when the
 * companion extension refuses paths (no "Allow access to file URLs", gate code `file_access`), as their contents,
 * which Playwright sets on the input in the page (a DataTransfer, then input and change events), as it does for a
 * remote browser. Returns which it was.
 * @throws the setter's error for anything else; ToolError invalid_arguments when the contents exceed
 *   CONTENTS_MAX_BYTES.
 */
async function setFiles(set: FileSetter, files: string[]): Promise<'paths' | 'contents'> {
  try {
    await set(files);
    return 'paths';
  } catch (error) {
    if (extensionDenial(error instanceof Error ? error.message : String(error))?.details?.code !== 'file_access') throw error;
  }
  await set(readContents(files));
  return 'contents';
}

/** The files' contents, names, MIME types (by extension) and modification times. @throws ToolError invalid_arguments over CONTENTS_MAX_BYTES. */
function readContents(files: string[]): FileContents[] {
  const stats = files.map(f => statSync(f));
  const total = stats.reduce((sum, st) => sum + st.size, 0);
  if (total > CONTENTS_MAX_BYTES) {
    throw new ToolError('invalid_arguments', `The files are ${total} bytes; without file access the extension can take at most ${CONTENTS_MAX_BYTES} bytes per upload_file.`,
      'Turn on "Allow access to file URLs" for the tabwright extension (chrome://extensions → tabwright → Details), or upload fewer or smaller files.');
  }
  return files.map((f, i) => ({ name: basename(f), mimeType: mime.getType(f) ?? 'application/octet-stream', buffer: readFileSync(f), lastModifiedMs: stats[i]!.mtimeMs }));
}


/**
 * Resolves upload paths: relative ones against the workspace; each must be
 * an existing regular file inside the workspace or one of
 * `config.allowedRoots`, checked after resolving symlinks (a link inside
 * the workspace that points out is rejected). Returns the real paths.
 * With `rootsOnly` (upload_file under `--policy hardened`, docs/policy.md) the workspace is no root: only
 * `config.allowedRoots` are, and a path outside them is `policy_denied_upload`.
 * @throws ToolError path_not_allowed (outside the roots; checked first, so
 *   nothing outside is probed), policy_denied_upload (the same, with rootsOnly), file_not_found,
 *   invalid_arguments (not a regular file, e.g. a folder).
 */
export function resolveUploadPaths(paths: readonly string[], config: Pick<Config, 'workspace' | 'allowedRoots'>, opts: { rootsOnly?: boolean } = {}): string[] {
  const roots = opts.rootsOnly ? [...config.allowedRoots] : [config.workspace, ...config.allowedRoots];
  const realRoots = roots.map(realOrSelf);
  const notAllowed = (p: string) => opts.rootsOnly ? uploadDeniedError(p, config.allowedRoots) : new ToolError(
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
    const files = resolveUploadPaths(paths, config, { rootsOnly: config.policy.mode === 'hardened' });
    const resolved = await resolveRef(session, ref);
    const { locator } = resolved;
    const timeout = timeoutMs ?? UPLOAD_TIMEOUT;
    const names = files.map(f => basename(f));
    const many = files.length ? `${files.length} file${files.length === 1 ? '' : 's'} (${names.slice(0, 10).join(', ')}${names.length > 10 ? ', …' : ''})` : 'no files (cleared)';
    let via: 'input' | 'chooser' = 'input';
    let sent = 'paths' as 'paths' | 'contents';
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
          sent = await setFiles(f => element.setInputFiles(f, { timeout }), files);
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
      const chooser = open.chooser;
      sent = await setFiles(f => chooser.setFiles(f, { timeout }), files).catch(error => {
        throw uploadError(error, ref);
      });
      choosers.answeredAll();
    }, { snapshot, ref, diff: true, targets: [{ ref, resolved }] });
    const asContents = sent === 'contents' ? ' (sent as contents: the extension has no access to file URLs)' : '';
    reportAction(res, report, ([el]: ElementInfo[]) => `Chose ${many} for ${el ? formatElement(el) : ref}${asContents}.`);
    res.set('files', files).set('via', via).set('sent', sent);
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
