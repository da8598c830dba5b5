/**
 * The `own-chrome` connection (docs/own-browser.md, "Chrome's approval prompt"): the user's running Chrome,
 * reached through its approval-based remote debugging. The one browser socket (./upstream.ts) is opened on the
 * first call that needs the browser, waits for the user's "Allow", and lives as long as this process: Playwright
 * attaches to it through the in-process CDP relay (src/browser/cdpRelay/) with `noDefaults`, so no viewport,
 * colour scheme or other emulation is pushed into the user's browser, and only the tabs in scope are attached.
 *
 * Leaving closes Playwright's connection to the relay (every tab detached), then the browser socket; the user's
 * tabs and windows stay as they were. If the browser socket drops (Chrome closed, the toggle turned off), calls in
 * flight report `browser_disconnected` and the next call connects again, which raises a new dialog.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import type { OwnBrowserConfig } from '../../config.js';
import { firstLine, ToolError } from '../../errors.js';
import { logger } from '../../log.js';
import { raceTimeout } from '../../util/wait.js';
import { CAPABILITIES_BY_KIND, type Capability } from '../capabilities.js';
import type { BrowserConnection, LeftScope, TabSharing } from '../connection.js';
import { ConnectionBase } from '../connectionBase.js';
import { adoptSelectorEngines } from '../selectorEngines.js';
import { CdpRelayEndpoint } from '../cdpRelay/endpoint.js';
import { playwright } from '../playwright.js';
import { findActivePort } from './activePort.js';
import { keptScopeWaits, readScope, writeScope } from './scopeFile.js';
import { OwnChromeUpstream } from './upstream.js';

const log = logger('own-chrome');

/** How long Playwright's attach to the relay may take once the user allowed, in ms. */
const RELAY_CONNECT_TIMEOUT_MS = 30_000;

/** How long leaving may take before we stop waiting, in ms. */
const CLOSE_TIMEOUT_MS = 5_000;

export class OwnChromeConnection extends ConnectionBase implements BrowserConnection {
  readonly kind = 'own-chrome' as const;
  readonly relayed = true;
  readonly capabilities: ReadonlySet<Capability> = new Set(CAPABILITIES_BY_KIND['own-chrome']);
  private upstreamStarting: Promise<OwnChromeUpstream> | undefined;
  private upstream: OwnChromeUpstream | undefined;
  private relay: CdpRelayEndpoint | undefined;
  private browser: Browser | undefined;
  private readonly approvalListeners = new Set<(pending: { expiresAt: number } | undefined) => void>();
  private approvalPending: { expiresAt: number } | undefined;

  /**
   * @param own  the profile to find the browser in and the approval wait.
   * @param dataDir  where the tabs in scope are kept between leaders (./scopeFile.ts).
   */
  constructor(private readonly own: OwnBrowserConfig, private readonly dataDir: string) {
    super();
  }

  leftScope(targetId: string): LeftScope | undefined {
    return this.upstream?.leftScope(targetId);
  }

  resumesScope(): boolean {
    return !this.upstream && keptScopeWaits(this.dataDir, this.own.profileDir);
  }

  /** `own-chrome:<profile dir>` once connected (no secret in it), else `own-chrome`. */
  get endpoint(): string {
    return this.upstream ? `own-chrome:${this.upstream.port.profileDir} (port ${this.upstream.port.port})` : 'own-chrome';
  }

  readonly asksToConnect = true;
  readonly scope = 'whole-browser access, scoped only by tabwright: the tabs the agent opened and the tabs shared with `tabwright share`';

  onApproval(listener: (pending: { expiresAt: number } | undefined) => void): () => void {
    this.approvalListeners.add(listener);
    if (this.approvalPending) listener(this.approvalPending);
    return () => void this.approvalListeners.delete(listener);
  }

  private setApproval(pending: { expiresAt: number } | undefined): void {
    this.approvalPending = pending;
    for (const listener of [...this.approvalListeners]) listener(pending);
  }

  disconnectedSince(since: number): boolean {
    return this.lastDrop >= since;
  }

  readonly sharing: TabSharing = {
    tabs: async () => {
      await this.context();
      return (await this.browserSocket()).tabs();
    },
    share: async targetIds => {
      await this.context();
      await (await this.browserSocket()).share(targetIds);
    },
    unshare: async targetIds => {
      await this.context();
      await (await this.browserSocket()).unshare(targetIds);
    },
  };

  /** The one browser socket, opened once (the user's approval) and kept until it drops. */
  private browserSocket(): Promise<OwnChromeUpstream> {
    this.upstreamStarting ??= (async () => {
      const port = await findActivePort(this.own.profileDir);
      this.setApproval({ expiresAt: Date.now() + this.own.approvalTimeoutMs });
      const upstream = await OwnChromeUpstream.connect(port, this.own.approvalTimeoutMs).finally(() => this.setApproval(undefined));
      if (this.closing) {
        upstream.close();
        throw new ToolError('browser_unavailable', 'The server is shutting down.', 'Start the server again.');
      }
      this.upstream = upstream;
      // The tabs an earlier leader had in scope on this run of the browser are in scope again.
      upstream.restoreScope(readScope(this.dataDir, port));
      upstream.onScope(() => writeScope(this.dataDir, port, upstream.scope()));
      upstream.onDrop(reason => this.upstreamDropped(upstream, reason));
      return upstream;
    })().catch(error => {
      this.upstreamStarting = undefined;
      throw error;
    });
    return this.upstreamStarting;
  }

  protected async open(): Promise<BrowserContext> {
    const upstream = await this.browserSocket();
    this.relay ??= await CdpRelayEndpoint.start(upstream);
    const { chromium } = playwright();
    let browser: Browser;
    try {
      browser = await chromium.connectOverCDP(this.relay.url, { noDefaults: true, isLocal: true, timeout: RELAY_CONNECT_TIMEOUT_MS });
    } catch (error) {
      throw new ToolError('browser_unavailable', `Connected to the user's Chrome, but Playwright could not attach through the relay: ${firstLine(String(error))}`, 'Call again; if it persists, restart tabwright (the next connection raises a new dialog).');
    }
    if (this.closing) {
      await browser.close().catch(() => undefined);
      throw new ToolError('browser_unavailable', 'The server is shutting down.', 'Start the server again.');
    }
    this.browser = browser;
    browser.on('disconnected', () => this.browserGone(browser));
    this.version = `chromium ${browser.version()}`;
    this.ctx = browser.contexts()[0]!;
    // Made without the selector engines registered before the attach (../selectorEngines.ts).
    await adoptSelectorEngines(this.ctx);
    log.info(`attached through the relay: ${this.version}, ${this.ctx.pages().length} tab(s) in scope`);
    return this.ctx;
  }

  private upstreamDropped(upstream: OwnChromeUpstream, reason: string): void {
    if (this.upstream !== upstream) return;
    this.upstream = undefined;
    this.upstreamStarting = undefined;
    const relay = this.relay;
    this.relay = undefined;
    void relay?.close();
    if (!this.closing) log.warn(`the connection to the user's Chrome dropped (${reason}); the next call connects again and Chrome asks again`);
    // Closing the relay ends Playwright's connection, which reports the drop (browserGone()).
  }

  private browserGone(browser: Browser): void {
    if (this.browser !== browser) return;
    this.browser = undefined;
    this.dropped();
  }

  /** Leaves: Playwright's connection (tabs detached), the relay, then the browser socket. The user's browser stays. */
  async close(): Promise<void> {
    await this.stopOpening();
    await this.leave();
  }

  /** As close(), and the next call connects again: Chrome asks the user to allow it again. */
  protected async leave(): Promise<void> {
    const { browser, relay, upstream } = this;
    this.browser = undefined;
    this.ctx = undefined;
    this.relay = undefined;
    this.upstream = undefined;
    this.upstreamStarting = undefined;
    if (browser) await raceTimeout(browser.close().catch(error => log.warn(`detaching failed: ${firstLine(String(error))}`)), { ms: CLOSE_TIMEOUT_MS, onTimeout: 'undefined' });
    await relay?.close();
    upstream?.close();
  }

  protected leaves(): 'detached' {
    return 'detached';
  }
}
