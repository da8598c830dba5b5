/** Every tool, in the order tools/list shows them. */
import { getConsoleContext } from './console.js';
import { getNetworkRequest, listNetworkRequests } from './network.js';
import { routingTools } from './routing.js';
import { harTools } from './har.js';
import type { AnyTool } from './define.js';
import { batch } from './batch.js';
import { leaseTools } from './leases.js';
import { dismissConsentBanner } from './consentBanner.js';
import { dialogTools } from './dialogs.js';
import { downloadTools } from './downloads.js';
import { drag } from './drag.js';
import { addElement } from './addElement.js';
import { execute } from './execute.js';
import { fileTools } from './files.js';
import { find } from './find.js';
import { getText } from './getText.js';
import { inputTools } from './input.js';
import { navigate } from './navigation.js';
import { getPageContext } from './pageContext.js';
import { savePdf } from './pdf.js';
import { pickerTools } from './picker.js';
import { takeScreenshot } from './screenshot.js';
import { shareTabs } from './sharing.js';
import { scriptTools } from './userscripts.js';
import { getBridgeStatus } from './status.js';
import { closeBrowser } from './closeBrowser.js';
import { cookieTools } from './cookies.js';
import { storageStateTools } from './storageStates.js';
import { tabTools } from './tabs.js';
import { runMenuCommand } from './userscriptMenu.js';
import { resizeViewport } from './viewport.js';
import { emulate } from './emulation.js';
import { recordingTools } from './recording.js';
import { waitFor } from './waitFor.js';
import { taskTools } from './tasks.js';
import { waitForCall } from './waitForCall.js';
import { webmcpTools } from './webmcp.js';
import { webmcpDevTools } from './webmcpLint.js';

export const TOOLS: readonly AnyTool[] = [
  ...tabTools,
  navigate,
  getPageContext,
  getText,
  find,
  waitFor,
  ...inputTools,
  dismissConsentBanner,
  ...dialogTools,
  ...fileTools,
  ...downloadTools,
  drag,
  takeScreenshot,
  resizeViewport,
  savePdf,
  execute,
  addElement,
  getConsoleContext,
  listNetworkRequests,
  getNetworkRequest,
  ...routingTools,
  ...harTools,
  ...cookieTools,
  ...storageStateTools,
  ...pickerTools,
  ...webmcpTools,
  waitForCall,
  batch,
  ...leaseTools,
  getBridgeStatus,
  closeBrowser,
  shareTabs,
  ...scriptTools,
  runMenuCommand,
  emulate,
  ...recordingTools,
  ...taskTools,
  ...webmcpDevTools,
] as unknown as AnyTool[];

/** Every tool by name. */
export const TOOLS_BY_NAME: ReadonlyMap<string, AnyTool> = new Map(TOOLS.map(t => [t.name, t]));

/** The tool with this name, if any. */
export function findTool(name: string): AnyTool | undefined {
  return TOOLS_BY_NAME.get(name);
}
