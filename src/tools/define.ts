/**
 * One declaration per tool (docs/architecture.md, "Where to add a tool"):
 * the MCP tool, the CLI verb, the daemon route, docs/tools.md and
 * `tabwright schema` all read it. A tool that acts on one tab is declared
 * with defineTabTool, which resolves that tab (after Playwright MCP's
 * `defineTabTool` and Chrome DevTools MCP's `definePageTool`).
 */
import * as z from 'zod';
import { CAPABILITIES_BY_KIND, type Capability, type ConnectionKind } from '../browser/capabilities.js';
import type { RemoteTabInfo, RemoteTabs } from '../browser/connection.js';
import type { Toolset } from '../config.js';
import { noDialog } from '../session/dialogs.js';
import { tabOfRef } from '../session/refs.js';
import type { Session } from '../session/session.js';
import type { Tab } from '../session/tab.js';
import { pageCrashed, tabClosedDuring, ToolError } from '../errors.js';
import type { CallContext } from './context.js';
import { checkExpect, expectField, type Expectations } from './expectSchema.js';
import type { ToolResponse } from './response.js';

/**
 * What a call can do to the page, which drives the MCP annotations
 * (`readOnlyHint`) and the per-tab lock (src/dispatch/tabLocks.ts); the
 * consent gate does not read it (it judges WebMCP page tools by their own
 * annotations, and the code tools by their code, src/consent/gate.ts): `observe` reads, `interact` changes
 * page state, `sensitive` runs arbitrary code or reaches outside the page.
 */
export type ToolEffect = 'observe' | 'interact' | 'sensitive';

export interface ToolDef<Input extends z.ZodObject = z.ZodObject> {
  /** The tool's name: a snake_case verb (`click`, `get_page_context`). */
  name: string;
  title: string;
  /** What the model reads to decide when and how to call the tool. */
  description: string;
  /**
   * Connection capabilities the tool needs; missing ones fail with capability_unavailable. On a connection with
   * `remoteTabs` a tool that `servesRemoteTabs` is not held to them: its remote handler does what that kind can
   * (synthetic input for `trustedInput`) and says so.
   */
  needs: readonly Capability[];
  /**
   * Whether the tool serves the tabs of a connection with `remoteTabs`: a tab tool with a `remote` handler
   * (defineTabTool sets it), or a tool whose own handler reaches them (list_webmcp_tools).
   */
  servesRemoteTabs?: boolean;
  effect: ToolEffect;
  /** Whether the call starts the browser when it is not running (false: answers without it). */
  launchesBrowser: boolean;
  /**
   * Whether the call's effect cannot be undone from the page (closing a tab, running arbitrary code, deleting
   * a script): the MCP `destructiveHint` (src/mcp/server.ts). Default false; `observe` tools are read-only.
   */
  destructive?: boolean;
  /** The tool set that lists it over MCP (`--toolsets`); default `core`. Every front still runs it by name. */
  toolset?: Toolset;
  /**
   * A human's command (`share_tabs`): never registered over MCP, whatever `--toolsets` says, so an agent cannot
   * widen its own reach through it; the CLI and the daemon's `/v1` run it. Default false.
   */
  humanOnly?: boolean;
  /**
   * Whether a call takes its tab's FIFO lock (src/dispatch/tabLocks.ts).
   * Default: tools that can change a page and name a tab (`tabId` input).
   */
  tabLock?: boolean;
  /**
   * The tab a call with raw `args` acts on, as the handler will resolve it
   * (defineTabTool sets it): the per-tab lock's key, read before the call
   * runs. Undefined: the active tab. Never throws and never starts the browser.
   */
  tabOf?(args: unknown, session: Session): number | undefined;
  input: Input;
  handle(input: z.output<Input>, ctx: CallContext, res: ToolResponse): Promise<void>;
}

/** Identity function that keeps the input type for the handler. */
export function defineTool<Input extends z.ZodObject>(def: ToolDef<Input>): ToolDef<Input> {
  return def;
}

/** Erases the input type so tools of different shapes share one array. */
export type AnyTool = ToolDef<z.ZodObject>;

/**
 * How a tab tool finds its tab, in its input:
 * - `tab`: `tabId`, else the active tab (opening one when none is open);
 * - `ref`: the tab of `ref` (refs name their tab, src/session/refs.ts) when one is passed, else as `tab`;
 * - `refs`: the tab of the first of `refs(input)` (the tool checks the others), else as `tab`;
 * - `dialog`: `tabId`, else the active tab when it waits for a dialog, else the only tab that does.
 * A `tabId` passed with a ref must name the ref's tab.
 */
export type TabTarget = 'tab' | 'ref' | 'refs' | 'dialog';

/** A tool that acts on one tab: a ToolDef whose handler gets the tab, resolved before it runs (the dispatcher locks the same tab). */
export interface TabToolDef<Input extends z.ZodObject = z.ZodObject> extends Omit<ToolDef<Input>, 'handle' | 'tabOf'> {
  target: TabTarget;
  /** For target `refs`: the refs the call names, in order. */
  refs?(input: z.output<Input>): string[];
  /**
   * Whether the tool runs while the tab waits for a dialog (handle_dialog,
   * focus_tab, close_tab, reading the console buffer). Default false: such a
   * call fails with `dialog_open`.
   */
  dialogOk?: boolean;
  /**
   * What the tool does with a tab whose page crashed (Tab.crashed): `replace` (reload_tab, navigate) gets a new page
   * under the same tab id first (Session.replaceCrashed), `as-is` (close_tab) gets the crashed tab. Default: the
   * call fails with page_crashed, as does any call during which the page crashed.
   */
  crashed?: 'replace' | 'as-is';
  /**
   * Whether the call takes `expectRevision` (docs/actions.md, "Revision guards"). Default: every tool that can
   * change the page (effect other than `observe`).
   */
  guarded?: boolean;
  /**
   * Whether the call takes `expect` postconditions (docs/actions.md, "Verified actions"), checked on its tab after
   * the action. Default: the guarded tools.
   */
  verifiable?: boolean;
  /** Checks that need no tab (of the input, of what the session offers), run before the tab is resolved. @throws ToolError */
  check?(input: z.output<Input>, ctx: CallContext): void;
  handle(tab: Tab, input: z.output<Input>, ctx: CallContext, res: ToolResponse): Promise<void>;
  /**
   * The tool on a tab reached from inside its page (a connection with `remoteTabs`, the userscript kind): `tab` is
   * the one the call names, its `expectRevision` checked. Absent: the tool answers capability_unavailable there.
   */
  remote?(tabs: RemoteTabs, tab: RemoteTabInfo, input: z.output<Input>, ctx: CallContext, res: ToolResponse): Promise<void>;
}

/**
 * The connected remote tab `tabId` among `connected` (RemoteTabs.list()).
 * @throws ToolError tab_not_found when none has it (disconnected, closed, or never allowed).
 */
export function connectedTab(connected: readonly RemoteTabInfo[], tabId: number): RemoteTabInfo {
  const tab = connected.find(t => t.tabId === tabId);
  if (!tab) throw new ToolError('tab_not_found', `No connected tab ${tabId}.`, 'Call list_tabs: the user may have disconnected it, or closed it.');
  return tab;
}

/**
 * A tab tool on a connection whose tabs are reached from inside their pages: the tool's `remote` handler on the tab
 * the call names (`tabId`, else the only connected tab).
 * @throws ToolError capability_unavailable (the tool has no `remote` handler), invalid_arguments (`expect`, or no
 *   tabId with several tabs), tab_not_found, revision_mismatch. Refs are the handler's to check.
 */
async function handleRemote<Input extends z.ZodObject>(def: TabToolDef<Input>, tabs: RemoteTabs, input: z.output<Input>, ctx: CallContext, res: ToolResponse): Promise<void> {
  const kind = ctx.session.connection.kind;
  if (!def.remote) {
    const flags = (Object.keys(CAPABILITIES_BY_KIND) as ConnectionKind[]).filter(k => k !== kind && k !== 'cdp' && k !== 'playwright-server');
    throw new ToolError(
      'capability_unavailable',
      `The ${kind} connection cannot run ${def.name}: it reaches its tabs from inside their pages, without a browser to drive.`,
      `Tools here: list_tabs, get_page_context, execute (navigate: true for code that navigates), click/type/fill_form (synthetic events), add_element, list_webmcp_tools/call_webmcp_tool. ${def.name} works on the ${flags.join(', ')} connections (and --cdp-endpoint, --ws-endpoint).`,
    );
  }
  const { tabId, expectRevision, expect } = input as TabFields;
  if (expect !== undefined) throw new ToolError('invalid_arguments', `The ${kind} connection does not check expect postconditions.`, 'Drop expect; check the page with execute afterwards.');
  const connected = tabs.list();
  let tab: RemoteTabInfo | undefined;
  if (tabId !== undefined) {
    tab = connectedTab(connected, tabId);
  } else if (connected.length === 1) {
    tab = connected[0]!;
  } else {
    throw connected.length
      ? new ToolError('invalid_arguments', `${connected.length} tabs are connected: say which one.`, 'Pass tabId (list_tabs lists them).')
      : new ToolError('tab_not_found', 'No tab is connected.', 'The user opts a tab in from the companion userscript\'s menu ("Allow agent access to this tab").');
  }
  if (expectRevision !== undefined && tab.revision !== expectRevision) throw revisionMismatch(tab.tabId, expectRevision, tab.revision);
  await def.remote(tabs, tab, input, ctx, res);
}

/** The fields a tab tool's input may name its tab with. */
interface TabFields {
  tabId?: number;
  ref?: string;
  expectRevision?: number;
  expect?: Expectations;
}

/** The optional input a guarded tab tool takes (docs/actions.md, "Revision guards"). */
export const expectRevisionField = z.number().int().positive().optional()
  .describe('Act only if the tab still shows this document revision (from get_page_context, navigate or an action result); otherwise revision_mismatch and nothing is done');

/** Whether a tab tool's calls take `expectRevision`: its own `guarded`, else whether it can change the page. */
export function isGuarded(def: Pick<TabToolDef, 'guarded' | 'effect'>): boolean {
  return def.guarded ?? def.effect !== 'observe';
}

/**
 * The error for a call whose tab no longer shows the revision it expected. Nothing was dispatched.
 * @param actual  the tab's revision now; undefined when the call named its tab only by a ref of a replaced document.
 */
export function revisionMismatch(tabId: number | undefined, expected: number, actual: number | undefined, ref?: string): ToolError {
  const now = actual === undefined ? (ref ? `ref ${ref} belongs to a document that has since been replaced` : 'its document was replaced') : `tab ${tabId} is at revision ${actual}`;
  return new ToolError(
    'revision_mismatch',
    `Expected revision ${expected}, but ${now}; nothing was done.`,
    'The page changed since you looked: call get_page_context for the current revision and refs, check the action still fits, then call again with that revision.',
    { tabId, expected, actual },
  );
}

/** The ref a tab tool's call names its tab with, if any. */
function refOf<Input extends z.ZodObject>(def: TabToolDef<Input>, input: z.output<Input>): string | undefined {
  if (def.target === 'ref') return (input as TabFields).ref;
  if (def.target === 'refs') return def.refs?.(input)[0];
  return undefined;
}

/** The tab with an open dialog a `dialog` tool answers without tabId: the active tab's, else the only one. */
function dialogTabOf(session: Session): Tab | undefined {
  const withDialog = session.openTabs().filter(t => t.dialogs.current);
  return withDialog.find(t => t.id === session.activeTabId) ?? (withDialog.length === 1 ? withDialog[0] : undefined);
}

/**
 * The tab a tab tool's call acts on.
 * @throws ToolError tab_not_found, dialog_open, no_dialog; invalid_arguments, stale_ref for its ref (src/session/refs.ts).
 */
async function resolveTab<Input extends z.ZodObject>(def: TabToolDef<Input>, input: z.output<Input>, session: Session): Promise<Tab> {
  const { tabId } = input as TabFields;
  const dialogOk = def.dialogOk ?? false;
  if (def.target === 'dialog' && tabId === undefined) {
    const tab = dialogTabOf(session);
    if (!tab) throw noDialog(session.activeTabId ?? 0);
    return tab;
  }
  const ref = refOf(def, input);
  if (ref === undefined) return session.tab(tabId, { dialogOk });
  const tab = await tabOfRef(session, ref, { dialogOk });
  if (tabId !== undefined && tab.id !== tabId) {
    throw new ToolError('invalid_arguments', `Ref ${ref} belongs to tab ${tab.id}, not tab ${tabId}.`, 'Omit tabId when passing a ref.');
  }
  return tab;
}

/**
 * Declares a tool that acts on one tab: the wrapper resolves the tab
 * (TabTarget) and refuses one that waits for a dialog unless `dialogOk`,
 * then runs `handle(tab, ...)`. The same resolution, without the browser,
 * gives the dispatcher the tab whose lock the call takes (`tabOf`).
 */
export function defineTabTool<Input extends z.ZodObject>(def: TabToolDef<Input>): ToolDef<Input> {
  const guarded = isGuarded(def);
  const verifiable = def.verifiable ?? guarded;
  return {
    ...def,
    servesRemoteTabs: def.remote !== undefined,
    input: def.input.extend({
      ...(guarded ? { expectRevision: expectRevisionField } : {}),
      ...(verifiable ? { expect: expectField } : {}),
    }) as unknown as Input,
    tabOf(args, session) {
      const parsed = def.input.safeParse(args ?? {});
      if (!parsed.success) return undefined;
      const input = parsed.data;
      const ref = refOf(def, input);
      const found = ref === undefined ? undefined : session.refs.lookup(ref);
      if (found?.status === 'live') return found.target.tabId;
      const { tabId } = input as TabFields;
      if (def.target === 'dialog' && tabId === undefined) return dialogTabOf(session)?.id;
      return tabId;
    },
    async handle(input, ctx, res) {
      def.check?.(input, ctx);
      const { expectRevision, tabId, expect } = input as TabFields;
      checkExpect(expect);
      const remote = ctx.session.connection.remoteTabs;
      if (remote) return await handleRemote(def, remote, input, ctx, res);
      const found = await resolveTab(def, input, ctx.session).catch((error: unknown) => {
        // A ref of a replaced document, with a revision expected: the guard's answer when its tab has moved on (or
        // is gone); a ref that is stale on the expected revision stays stale_ref (its candidates come with it).
        if (expectRevision !== undefined && error instanceof ToolError && error.type === 'stale_ref') {
          const ref = refOf(def, input);
          const refTab = tabId ?? (ref === undefined ? undefined : ctx.session.refs.description(ref)?.tabId);
          const named = refTab === undefined ? undefined : ctx.session.openTabs().find(t => t.id === refTab);
          if (named?.revision !== expectRevision) throw revisionMismatch(named?.id, expectRevision, named?.revision, ref);
        }
        throw error;
      });
      let tab = found;
      if (tab.crashed && def.crashed === undefined) throw pageCrashed(tab.id);
      res.actedOn = tab;
      res.revisionBefore = tab.revision;
      if (expectRevision !== undefined && tab.revision !== expectRevision) {
        const mismatch = revisionMismatch(tab.id, expectRevision, tab.revision);
        // get_page_context, which the mismatch's hint names, cannot read a crashed page: say so instead.
        if (tab.crashed) throw new ToolError(mismatch.type, `${mismatch.message} Its page has crashed.`, `reload_tab {tabId: ${tab.id}} (without expectRevision, or with ${tab.revision}) loads it again; or close_tab.`, mismatch.details);
        throw mismatch;
      }
      // The crashed page is gone for good (Playwright answers nothing on it): a new page takes the tab's id, after
      // the revision guard (which the crashed page's revision answers), and goes on from that revision.
      if (tab.crashed && def.crashed === 'replace') res.actedOn = tab = await ctx.session.replaceCrashed(tab);
      tab.workspace = ctx.config.workspace; // files the tab writes meanwhile (downloads) go to this caller
      const started = Date.now();
      try {
        await def.handle(tab, input, ctx, res);
      } catch (error) {
        // Whatever the call hit on its way (a timeout, "Target crashed"), the page's crash is the cause to report.
        if (tab.crashed && def.crashed !== 'as-is') throw pageCrashed(tab.id, true);
        // Likewise a tab that closed during the call (an aborted load, an action that waited for its element), unless
        // the browser went away: invokeTool answers browser_disconnected then.
        if (tab.closed && !(await ctx.session.browserGoneSince(started)) && !(error instanceof ToolError && error.type === 'tab_not_found')) {
          throw tabClosedDuring(tab.id, error instanceof ToolError && error.details?.dispatched !== undefined ? { dispatched: error.details.dispatched } : undefined);
        }
        throw error;
      }
    },
  };
}
