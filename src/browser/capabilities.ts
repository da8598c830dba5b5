/**
 * What a connection kind can do (docs/connections.md, "The seam"). A tool lists the capabilities it needs; a connection
 * that lacks one makes the call fail with `capability_unavailable` naming
 * the kinds that have it.
 */
import { ToolError } from '../errors.js';

export type Capability = 'trustedInput' | 'screenshot' | 'snapshot' | 'evaluate' | 'webmcp' | 'userscripts' | 'console' | 'shareTabs';

/**
 * `cdp`: a browser attached over the DevTools protocol; `playwright-server`: a Playwright server's browser;
 * `own-chrome`: the user's Chrome through its approval prompt; `extension`: the user's browser through the companion extension.
 */
export type ConnectionKind = 'launch' | 'cdp' | 'playwright-server' | 'own-chrome' | 'extension' | 'userscript';

/** Which connection kinds offer which capability (the kinds not built yet included). */
export const CAPABILITIES_BY_KIND: Record<ConnectionKind, readonly Capability[]> = {
  launch: ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console'],
  cdp: ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console'],
  'playwright-server': ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console'],
  'own-chrome': ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console', 'shareTabs'],
  // chrome.debugger's Input.dispatchMouseEvent is trusted (EXTENSION-DESIGN.md §2b). Userscripts run in shared tabs
  // through chrome.userScripts when the user allowed it, else the CDP injector (docs/userscripts.md, "Through the
  // extension"); no 'userscripts' capability: that names a userscript manager's.
  extension: ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console'],
  userscript: ['evaluate', 'webmcp', 'userscripts'],
};

/** The server flag that selects each kind a user can start today (a kind not built yet has none). */
const KIND_FLAG: Partial<Record<ConnectionKind, string>> = {
  launch: '--connection launch',
  cdp: '--cdp-endpoint URL',
  'playwright-server': '--ws-endpoint URL',
  'own-chrome': '--own-chrome',
  extension: '--connection extension',
};

/**
 * @throws ToolError capability_unavailable when `have` lacks one of `needs`; the hint names the server flags of the
 *   kinds that have it (for a daemon: stop it, start it with one).
 */
export function requireCapabilities(needs: readonly Capability[], kind: ConnectionKind, have: ReadonlySet<Capability>): void {
  for (const need of needs) {
    if (have.has(need)) continue;
    const flags = (Object.keys(CAPABILITIES_BY_KIND) as ConnectionKind[])
      .filter(k => CAPABILITIES_BY_KIND[k].includes(need))
      .flatMap(k => KIND_FLAG[k] ?? []);
    throw new ToolError(
      'capability_unavailable',
      `The ${kind} connection cannot do this: it lacks the "${need}" capability.`,
      flags.length
        ? `Start the server with ${flags.join(' or ')} (a daemon: \`tabwright daemon stop\`, then \`tabwright daemon start ${flags[0]}\`).`
        : 'No connection kind of this version has it.',
    );
  }
}
