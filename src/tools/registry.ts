/** Every tool, in the order tools/list shows them. */
import { getConsoleContext } from './console.js';
import type { AnyTool } from './define.js';
import { dialogTools } from './dialogs.js';
import { downloadTools } from './downloads.js';
import { drag } from './drag.js';
import { execute } from './execute.js';
import { fileTools } from './files.js';
import { find } from './find.js';
import { inputTools } from './input.js';
import { navigate } from './navigation.js';
import { getPageContext } from './pageContext.js';
import { takeScreenshot } from './screenshot.js';
import { shareTabs } from './sharing.js';
import { scriptTools } from './userscripts.js';
import { getBridgeStatus } from './status.js';
import { tabTools } from './tabs.js';
import { runMenuCommand } from './userscriptMenu.js';
import { waitForCall } from './waitForCall.js';
import { webmcpTools } from './webmcp.js';

export const TOOLS: readonly AnyTool[] = [
  ...tabTools,
  navigate,
  getPageContext,
  find,
  ...inputTools,
  ...dialogTools,
  ...fileTools,
  ...downloadTools,
  drag,
  takeScreenshot,
  execute,
  getConsoleContext,
  ...webmcpTools,
  waitForCall,
  getBridgeStatus,
  shareTabs,
  ...scriptTools,
  runMenuCommand,
] as unknown as AnyTool[];

/** Every tool by name. */
export const TOOLS_BY_NAME: ReadonlyMap<string, AnyTool> = new Map(TOOLS.map(t => [t.name, t]));

/** The tool with this name, if any. */
export function findTool(name: string): AnyTool | undefined {
  return TOOLS_BY_NAME.get(name);
}
