/** Input fields shared by several tools, each described once. */
import * as z from 'zod';

/** A tabId as list_tabs reports it. */
export const tabIdRequired = z.number().int().min(1).max(1_000_000);
export const tabIdField = tabIdRequired.optional().describe('Tab (default: the active tab)');
export const refField = z.string().min(1).max(64).describe('Element ref, e.g. "e12"');
export const timeoutMsField = (defaultMs: number) =>
  z.number().int().min(100).max(300_000).optional().describe(`Wait limit in ms (default ${defaultMs})`);
export const outputField = z.enum(['auto', 'inline', 'file']).optional()
  .describe('auto (default): inline unless too large; file: a file under .tabwright/, path returned');
export const waitUntilField = z.enum(['commit', 'domcontentloaded', 'load', 'networkidle']).optional()
  .describe('When the navigation counts as done (default domcontentloaded)');
