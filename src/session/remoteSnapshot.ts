/**
 * The snapshot of a tab reached from inside its page (`RemoteTabs`, the userscript connection;
 * docs/userscript-connection.md, "Tools"): the same in-page walker as every other kind (src/page/snapshot.ts,
 * injected with the runtime into a document that lacks it), run through the tab's own `execute`, its element ids
 * turned into refs of the session's registry. Same format and paging as ./snapshot.ts; cross-origin frames stay
 * unread (the companion runs in the top document only), and the refs serve get_page_context's own paging.
 */
import type { RemoteTabInfo, RemoteTabs } from '../browser/connection.js';
import { ToolError } from '../errors.js';
import type { ElementCounts, SnapshotLevel, SnapshotResult } from '../page/snapshot.js';
import type { Session } from './session.js';
import { DEFAULT_LIMIT, LINE_HEAD, PAGE_MAX_TEXT, PLACEHOLDER, SCOPED_MAX_TEXT, type Snapshot } from './snapshot.js';

/** The largest snapshot a remote tab sends back, in bytes of JSON (execute's ceiling). */
const MAX_RESULT_BYTES = 2 * 1024 * 1024;
/** How long a walk may take, in ms. */
const WALK_TIMEOUT_MS = 15_000;

export interface RemoteSnapshotOptions {
  selector?: string;
  ref?: string;
  offset?: number;
  limit?: number;
  urls?: boolean;
  level?: SnapshotLevel;
  /** Characters, the walker's estimate. */
  budget: number;
}

/**
 * The in-page id (the walker's) of the element `ref` names in `tab`'s current document.
 * @throws ToolError stale_ref for a ref of another document or tab, or one never issued.
 */
export function remoteElementId(session: Session, tab: RemoteTabInfo, ref: string): string {
  const found = session.refs.lookup(ref);
  if (found.status !== 'live' || found.target.tabId !== tab.tabId || found.target.instanceId !== tab.instanceId) {
    throw new ToolError('stale_ref', `Ref ${ref} is not one of tab ${tab.tabId}'s current document.`, 'Call get_page_context for fresh refs.');
  }
  return found.target.ariaRef;
}

type WalkAnswer = SnapshotResult | { none: true } | { invalid: string } | { noRuntime: true };

/**
 * @throws ToolError invalid_arguments (a selector that is not valid or matches nothing), stale_ref (a ref of
 *   another document or tab), capability_unavailable (the runtime could not be loaded), and what execute throws.
 */
export async function takeRemoteSnapshot(session: Session, tabs: RemoteTabs, tab: RemoteTabInfo, opts: RemoteSnapshotOptions, signal?: AbortSignal): Promise<Snapshot> {
  const runtime = session.runtimeScript();
  if (!runtime) throw new ToolError('internal', 'The in-page runtime is missing.', 'Run npm run build (a source checkout), or reinstall tabwright.');
  const rootId = opts.ref === undefined ? undefined : remoteElementId(session, tab, opts.ref);
  const scoped = rootId !== undefined || opts.selector !== undefined;
  const base = { rootId, offset: scoped ? opts.offset ?? 0 : undefined, urls: !!opts.urls, maxText: scoped ? SCOPED_MAX_TEXT : PAGE_MAX_TEXT, budget: opts.budget, level: opts.level ?? 'full' };
  // The runtime (some 70 KB) goes along only to a document that lacks it: the first walk asks without it.
  const walk = async (limit: number, load = false): Promise<SnapshotResult> => {
    const code = `{
if (!globalThis.__tabwright || !globalThis.__tabwright.snapshot) {
${load ? runtime : 'return { noRuntime: true };'}
}
const o = ${JSON.stringify({ ...base, limit })};
const selector = ${JSON.stringify(opts.selector ?? null)};
if (selector !== null) {
  let el;
  try { el = document.querySelector(selector); } catch (e) { return { invalid: String(e && e.message || e) }; }
  if (!el) return { none: true };
  o.root = el;
}
return globalThis.__tabwright.snapshot(o);
}`;
    const answer = await tabs.execute(tab.tabId, `async () => ${code}`, { timeoutMs: WALK_TIMEOUT_MS, maxBytes: MAX_RESULT_BYTES, instanceId: tab.instanceId, signal }) as WalkAnswer | null;
    if (answer && typeof answer === 'object' && 'noRuntime' in answer && !load) return walk(limit, true);
    if (!answer || typeof answer !== 'object' || 'noRuntime' in answer) throw new ToolError('capability_unavailable', 'The in-page runtime could not be loaded into this page.', 'Reload the tab and try again.');
    if ('invalid' in answer) throw new ToolError('invalid_arguments', `The selector is not valid: ${answer.invalid}`, 'Pass a CSS selector such as "main" or "#results", or omit selector for the whole page.');
    if ('none' in answer) throw new ToolError('invalid_arguments', 'The selector matches no element on the page.', 'Check the selector against the page, or omit it for the whole page.');
    return answer;
  };
  // As ./snapshot.ts: every child of every container when it all fits the budget, else pages of DEFAULT_LIMIT.
  let result = await walk(opts.limit ?? 100_000);
  if (result.cut && opts.limit === undefined && !result.gone) result = await walk(DEFAULT_LIMIT);
  if (result.gone) throw new ToolError('stale_ref', `Ref ${opts.ref ?? ''} is no longer in the page.`, 'Call get_page_context for fresh refs.');
  const lines = result.lines.map(line => line.replace(PLACEHOLDER, (_, id: string) => {
    const ref = session.refs.assign(tab.tabId, tab.instanceId, id);
    const shown = LINE_HEAD.exec(line);
    if (shown) session.refs.describe(ref, shown[1]!, shown[2] ? JSON.parse(shown[2]) as string : undefined);
    return ref;
  }));
  const text = lines.join('\n');
  const counts: ElementCounts | undefined = base.level === 'summary' ? result.counts ?? { links: 0, buttons: 0, fields: 0, other: 0, forms: 0 } : undefined;
  return { text, refCount: text.split('[ref=').length - 1, revision: tab.revision, instanceId: tab.instanceId, whole: !scoped && !result.cut, counts };
}
