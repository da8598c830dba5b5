/**
 * What a connection kind can do (docs/connections.md, "The seam"). A tool lists the capabilities it needs; a connection
 * that lacks one makes the call fail with `capability_unavailable` naming
 * the kinds that have it.
 */
import { ToolError } from '../errors.js';

export type Capability = 'trustedInput' | 'screenshot' | 'snapshot' | 'evaluate' | 'webmcp' | 'userscripts' | 'console';

/** `cdp`: a browser attached over the DevTools protocol; `playwright-server`: a Playwright server's browser. */
export type ConnectionKind = 'launch' | 'cdp' | 'playwright-server' | 'extension' | 'userscript';

/** Which connection kinds offer which capability (the kinds not built yet included). */
export const CAPABILITIES_BY_KIND: Record<ConnectionKind, readonly Capability[]> = {
  launch: ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console'],
  cdp: ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console'],
  'playwright-server': ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'console'],
  extension: ['screenshot', 'snapshot', 'evaluate', 'webmcp', 'userscripts', 'console'],
  userscript: ['evaluate', 'webmcp', 'userscripts'],
};

/**
 * @throws ToolError capability_unavailable when `have` lacks one of `needs`.
 */
export function requireCapabilities(needs: readonly Capability[], kind: ConnectionKind, have: ReadonlySet<Capability>): void {
  for (const need of needs) {
    if (have.has(need)) continue;
    const kinds = (Object.keys(CAPABILITIES_BY_KIND) as ConnectionKind[]).filter(k => CAPABILITIES_BY_KIND[k].includes(need));
    throw new ToolError(
      'capability_unavailable',
      `The ${kind} connection cannot do this: it lacks the "${need}" capability.`,
      `Connect through a kind that has it: ${kinds.join(', ')}.`,
    );
  }
}
