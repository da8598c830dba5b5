/**
 * The consent gate for the tools that run the agent's code, `execute` and `add_element` (docs/policy.md, "Consent
 * for code"): judged as tabwright's own tool on the tab's origin, with the code's hash for `code` grants
 * (src/consent/codeGrant.ts). Nothing asks unless the user's rules say so (a rule with `"source": "tabwright"`) or a
 * saved answer denies: these tools ran ungated before, and their default stays `allow`.
 */
import { originOf } from '../util/origin.js';
import { browserChannel } from '../consent/browserChannel.js';
import { codeHash } from '../consent/codeGrant.js';
import { consentGate } from '../consent/gate.js';
import type { RemoteTabInfo } from '../browser/connection.js';
import type { Tab } from '../session/tab.js';
import type { CallContext } from './context.js';


/**
 * Lets the call through the gate or throws (consent_denied, consent_expired, consent_unavailable, cancelled; see
 * src/consent/gate.ts consentGate).
 * @param tab  a tab of the browser, or a remote tab (the userscript connection: its origin from the URL the page
 *   reports, which is all this kind knows; docs/userscript-connection.md).
 * @param code  what the call runs: `execute`'s source, `add_element`'s element (tag, attributes, properties).
 */
export async function gateCode(ctx: CallContext, tab: Tab | RemoteTabInfo, tool: 'execute' | 'add_element', code: string | Record<string, unknown>): Promise<void> {
  const remote = !('page' in tab);
  await consentGate(ctx, {
    origin: originOf(remote ? tab.url : tab.page.url()),
    name: tool,
    source: 'tabwright',
    builtin: true,
    codeHash: codeHash(tool, code),
    description: tool === 'execute' ? 'Runs JavaScript the agent wrote in the page.' : 'Inserts an element the agent wrote into the page (an inline script runs, an inline style applies).',
    tabId: remote ? tab.tabId : tab.id,
    arguments: code,
    browserPrompt: remote ? undefined : browserChannel(ctx.session.connection, tab.page),
  });
}
