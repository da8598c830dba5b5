/**
 * The `userscript` connection kind (`--connection userscript`; docs/userscript-connection.md): tabs of any browser
 * (Firefox, Safari, a locked-down Chrome) that the user opted in, one at a time, through the companion userscript.
 * It holds the broker (./broker.ts), which the relay leader serves under /userscript on its port: one process
 * holds the tabs and the others follow it, as with the extension (`sharedBrowserKey` is `userscript`).
 *
 * There is no Playwright browser behind it: `context()` fails with capability_unavailable, and the tab tools that
 * can serve these tabs reach them through `remoteTabs` (docs/connections.md, "The seam"). Each target the broker
 * knows gets a small tabId, never reused within the process.
 */
import type { BrowserContext } from 'playwright-core';
import type { Config } from '../../config.js';
import { ToolError } from '../../errors.js';
import { CAPABILITIES_BY_KIND, type Capability } from '../capabilities.js';
import type { BrowserConnection, BrowserRelease, RemoteCallLimits, RemoteTabInfo, RemoteTabs } from '../connection.js';
import { UserscriptBroker } from './broker.js';
import { userscriptToken } from './token.js';

/**
 * What the companion evaluates as the body of `async () => body` (seed 001): the part of an async arrow
 * function's source after the arrow (`async () => (expr)` or `async () => { … }`, as the execute tool wraps code).
 */
function bodyOf(fn: string): string {
  const arrow = /^async \(\) => /.exec(fn);
  if (!arrow) throw new ToolError('invalid_arguments', 'The userscript connection runs code without parameters.', 'Drop ref: code runs in the page as a whole here.');
  return fn.slice(arrow[0].length);
}

/** The broker of `connection` when it is a userscript connection (the relay leader routes /userscript to it). */
export function userscriptBrokerOf(connection: BrowserConnection): UserscriptBroker | undefined {
  return connection instanceof UserscriptConnection ? connection.broker : undefined;
}

export class UserscriptConnection implements BrowserConnection {
  readonly kind = 'userscript' as const;
  readonly capabilities: ReadonlySet<Capability> = new Set(CAPABILITIES_BY_KIND.userscript);
  readonly scope = 'the tabs where the user chose "Allow agent access to this tab" in the companion userscript';
  readonly broker: UserscriptBroker;
  readonly remoteTabs: RemoteTabs;
  private readonly listeners = new Set<() => void>();
  private readonly tabIds = new Map<string, number>();
  private nextTabId = 1;

  constructor(config: Pick<Config, 'configDir'>) {
    this.broker = new UserscriptBroker(() => userscriptToken(config.configDir));
    this.remoteTabs = {
      list: () => this.list(),
      execute: (tabId, fn, limits) => this.broker.call(this.targetOf(tabId), 'execute', { code: bodyOf(fn) }, limits),
      navigate: (tabId, fn, limits) => this.broker.navigate(this.targetOf(tabId), bodyOf(fn), limits),
      addElement: async (tabId, element, limits: RemoteCallLimits) => await this.broker.call(this.targetOf(tabId), 'add_element', element, limits) as { tag: string; id: string | null },
    };
  }

  private list(): RemoteTabInfo[] {
    return this.broker.tabs().map(({ target, instanceId, revision, url, title }) => {
      let tabId = this.tabIds.get(target);
      if (tabId === undefined) this.tabIds.set(target, (tabId = this.nextTabId++));
      return { tabId, instanceId, revision, url, title };
    });
  }

  /** @throws ToolError tab_not_found for a tabId no connected tab has. */
  private targetOf(tabId: number): string {
    this.list();
    for (const [target, id] of this.tabIds) if (id === tabId) return target;
    throw new ToolError('tab_not_found', `No userscript tab ${tabId}.`, 'Call list_tabs: the user may have disconnected it, or closed it.');
  }

  /** @throws ToolError capability_unavailable always: the companion runs inside pages, with no browser to drive. */
  context(): Promise<BrowserContext> {
    return Promise.reject(new ToolError(
      'capability_unavailable',
      'The userscript connection has no browser to drive: it reaches only the tabs the user opted in, from inside their pages.',
      'Use list_tabs and execute on those tabs; for the browser itself start the server with --connection launch, --own-chrome or --connection extension.',
    ));
  }

  /** True while at least one opted-in tab is connected. */
  isRunning(): boolean {
    return this.broker.tabs().length > 0;
  }

  browserVersion(): string | undefined {
    return undefined;
  }

  onDisconnect(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Closes every tab's channel; the companions retry until a broker answers again. */
  async close(): Promise<void> {
    this.broker.close();
    for (const listener of [...this.listeners]) listener();
  }

  /** close_browser: nothing tabwright owns; the tabs stay connected. */
  async release(): Promise<BrowserRelease> {
    return 'detached';
  }
}
