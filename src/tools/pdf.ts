/**
 * save_pdf: a tab's page printed to a PDF file (Playwright's `page.pdf`, the DevTools protocol's `Page.printToPDF`),
 * written atomically to `<workspace>/.tabwright/pdf/` or a path inside the workspace or an allowed root.
 */
import * as z from 'zod';
import { diskFull, ToolError } from '../errors.js';
import { resolveWritablePath, writeFileAtomic } from '../userscripts/workspacePaths.js';
import { stamp, writeArtifact } from './artifacts.js';
import { defineTabTool } from './define.js';
import { tabIdField } from './schemas.js';

export const savePdf = defineTabTool({
  name: 'save_pdf',
  title: 'Save as PDF',
  description:
    "Print a tab's page to a PDF file, as the browser's print does (print stylesheets apply): to .tabwright/pdf/ in the workspace, " +
    'or to path (relative to the workspace, ending in .pdf). Says the file, its size and page count.',
  needs: ['snapshot'],
  effect: 'observe',
  launchesBrowser: true,
  target: 'tab',
  input: z.object({
    tabId: tabIdField,
    path: z.string().min(1).max(1000).optional().describe('Where to write it, relative to the workspace (default .tabwright/pdf/tabN-<time>.pdf)'),
    format: z.enum(['A4', 'Letter', 'Legal', 'A3', 'A5', 'Tabloid']).optional().describe('Paper size (default A4)'),
    landscape: z.boolean().optional().describe('Landscape orientation (default false)'),
    printBackground: z.boolean().optional().describe('Print background colours and images (default true)'),
  }),
  check(args, ctx) {
    if (args.path !== undefined) {
      if (!/\.pdf$/i.test(args.path)) throw new ToolError('invalid_arguments', `path must end in .pdf: ${args.path}`, 'Name a .pdf file, e.g. "reports/order.pdf", or leave path out for .tabwright/pdf/.');
      resolveWritablePath(args.path, ctx.config);
    }
  },
  async handle(tab, args, ctx, res) {
    // A closed tab is tab_not_found, a browser that cannot print browser_error naming Page.printToPDF (toToolError, as for any handler).
    const pdf = await tab.page.pdf({ format: args.format ?? 'A4', landscape: args.landscape ?? false, printBackground: args.printBackground ?? true });
    let file: string;
    if (args.path !== undefined) {
      file = resolveWritablePath(args.path, ctx.config);
      try {
        writeFileAtomic(file, pdf);
      } catch (error) {
        throw diskFull(error, file) ?? new ToolError('workspace_unwritable', `Cannot write ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`, 'Name a path in a folder you can write, or leave path out for .tabwright/pdf/ in the workspace.');
      }
    } else {
      file = writeArtifact(ctx.config.workspace, 'pdf', `tab${tab.id}-${stamp()}.pdf`, pdf);
    }
    // Each page object of the file is `/Type /Page` (not `/Pages`): PDF 1.7 §7.7.3.3.
    const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;
    res.merge({ tabId: tab.id, path: file, bytes: pdf.length, pages });
    res.text(`Saved tab ${tab.id} as PDF: ${file} (${pages} page${pages === 1 ? '' : 's'}, ${(pdf.length / 1024).toFixed(1)} KB).`);
  },
});
