/** take_screenshot (issue #2): any tab, the viewport, the full page or one element. */
import * as z from 'zod';
import { resolveRef } from '../session/snapshot.js';
import { actionError } from './actionErrors.js';
import { INLINE_IMAGE_CAP, stamp, writeArtifact } from './artifacts.js';
import { defineTool } from './define.js';
import { ToolError } from './errors.js';
import { outputField, refField, tabIdField } from './schemas.js';

export const takeScreenshot = defineTool({
  name: 'take_screenshot',
  title: 'Take screenshot',
  description: 'Screenshot of any tab (not only the focused one): the viewport, the full page, or one element by ref. Inline as an image, or written to a file.',
  needs: ['screenshot'],
  consent: 'observe',
  launchesBrowser: true,
  input: z.object({
    tabId: tabIdField,
    fullPage: z.boolean().optional().describe('Capture the whole scrollable page instead of the viewport'),
    ref: refField.optional().describe('Capture only this element (ref from get_page_context)'),
    format: z.enum(['png', 'jpeg']).optional().describe('Image format (default png)'),
    quality: z.number().int().min(1).max(100).optional().describe('JPEG quality 1-100 (default 80)'),
    output: outputField,
  }),
  async handle({ tabId, fullPage, ref, format, quality, output }, { session, config }, res) {
    if (ref && fullPage) throw new ToolError('invalid_arguments', 'ref and fullPage exclude each other.', 'Pass ref for one element, or fullPage for the whole page.');
    if (quality !== undefined && format !== 'jpeg') throw new ToolError('invalid_arguments', 'quality applies to jpeg only.', 'Pass format: "jpeg" with quality, or drop quality.');
    const resolved = ref ? await resolveRef(session, ref) : undefined;
    const tab = resolved?.tab ?? (await session.tab(tabId));
    const type = format ?? 'png';
    const opts = { type, quality: type === 'jpeg' ? (quality ?? 80) : undefined, timeout: 30_000 } as const;
    let image: Buffer;
    try {
      image = resolved ? await resolved.locator.screenshot(opts) : await tab.page.screenshot({ ...opts, fullPage: fullPage ?? false });
    } catch (error) {
      throw actionError(error, ref ? `screenshot ${ref}` : `screenshot tab ${tab.id}`);
    }
    const mimeType = `image/${type}`;
    const base64 = image.toString('base64');
    const mode = output ?? config.output;
    const what = ref ? `element ${ref}` : fullPage ? 'full page' : 'viewport';
    res.merge({ tabId: tab.id, revision: tab.revision, format: type, bytes: image.length });
    if (mode === 'inline' || (mode === 'auto' && base64.length <= INLINE_IMAGE_CAP)) {
      if (base64.length <= INLINE_IMAGE_CAP) {
        res.text(`Screenshot of tab ${tab.id} (${what}), ${image.length} bytes.`).image(base64, mimeType);
        return;
      }
    }
    const path = writeArtifact(config.workspace, 'screenshots', `tab${tab.id}-${stamp()}.${type === 'jpeg' ? 'jpg' : 'png'}`, image);
    res.set('path', path);
    const why = mode === 'file' ? 'as asked' : `because it is ${Math.round(base64.length / 1024)} KB of base64, over the ${INLINE_IMAGE_CAP / 1024} KB inline cap`;
    res.text(`Screenshot of tab ${tab.id} (${what}) written to ${path} ${why} (${image.length} bytes).`);
  },
});
