/**
 * The `extension` connection kind (`--connection extension`; docs/own-browser.md, "Extension"): the user's own
 * browser, reached through the companion extension's link (./bridge.ts), scoped to the tabs the user shared.
 *
 * The extension dials the relay port at /extension; the relay leader routes that upgrade here
 * (`extensionBridgeOf`), so one process holds the one link and the others follow it. On first use, `context()`
 * waits for a paired link (TABWRIGHT_EXTENSION_WAIT_MS, 30 s), then puts a CDP relay endpoint
 * (src/browser/cdpRelay/endpoint.ts) in front of an ExtensionUpstream and attaches playwright-core to it with
 * `connectOverCDP(url, {noDefaults: true})` (no emulation in the user's browser). The context is the user's
 * profile: its pages are the shared tabs.
 *
 * When the link drops (the browser closed, the worker restarted), Playwright sees the relay close: calls in
 * flight fail with browser_disconnected and the next call waits for the extension to redial. Closing detaches
 * every tab (the extension does, when the link closes) and leaves tabs and windows as they were.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Config } from '../../config.js';
import { firstLine, ToolError } from '../../errors.js';
import { logger } from '../../log.js';
import { CAPABILITIES_BY_KIND, type Capability } from '../capabilities.js';
import { adoptSelectorEngines } from '../selectorEngines.js';
import { CdpRelayEndpoint } from '../cdpRelay/endpoint.js';
import { ConnectionBase } from '../connectionBase.js';
import type { BrowserConnection, LeftScope, UserScriptsAvailability, UserScriptsHost, UserScriptsOrigin, UserScriptsRegistration } from '../connection.js';
import { playwright } from '../playwright.js';
import { ExtensionBridge } from './bridge.js';
import type { ExtensionLink } from './link.js';
import { ExtensionUpstream } from './upstream.js';

const log = logger('extension');

/** How long a call waits for the extension to connect before it fails with browser_unavailable, in ms. */
export const DEFAULT_EXTENSION_WAIT_MS = 30_000;

/** The extension bridge of `connection` when it is an extension connection (the relay leader routes /extension to it). */
export function extensionBridgeOf(connection: BrowserConnection): ExtensionBridge | undefined {
  return extensionOf(connection)?.bridge;
}

/** `connection` as the extension connection, or undefined for any other kind. */
export function extensionOf(connection: BrowserConnection): ExtensionConnection | undefined {
  return connection instanceof ExtensionConnection ? connection : undefined;
}

export class ExtensionConnection extends ConnectionBase implements BrowserConnection {
  readonly kind = 'extension' as const;
  readonly relayed = true;
  readonly capabilities: ReadonlySet<Capability> = new Set(CAPABILITIES_BY_KIND.extension);
  readonly endpoint = 'the tabwright extension';
  readonly bridge: ExtensionBridge;
  private browser: Browser | undefined;
  private relay: CdpRelayEndpoint | undefined;
  private readonly waitMs: number;
  private upstream: ExtensionUpstream | undefined;
  private usHandler: ((origin: UserScriptsOrigin, msg: unknown) => Promise<unknown>) | undefined;
  /** The CDP target id of each page (what Chrome's tab ids map to), asked once per page. */
  private readonly targetIds = new WeakMap<Page, Promise<string | undefined>>();
  readonly userScripts: UserScriptsHost;

  constructor(config: Config, env: Record<string, string | undefined> = process.env) {
    super();
    this.bridge = new ExtensionBridge({ configDir: config.configDir, env });
    this.userScripts = {
      availability: () => this.usAvailability(),
      sync: registration => this.usSync(registration),
      onMessage: handler => {
        this.usHandler = handler;
      },
      pageOf: (tabId, waitMs) => this.pageOf(tabId, waitMs),
    };
    // Engine messages of shared tabs (the extension's user-script messenger), on every link.
    this.bridge.onLink(link => link.onRequest('us.message', async p => {
      const origin: UserScriptsOrigin = { tabId: Number(p.tabId), frameId: Number(p.frameId), url: String(p.url ?? '') };
      return this.usHandler ? await this.usHandler(origin, p.msg) : undefined;
    }));
    const wait = Number(env.TABWRIGHT_EXTENSION_WAIT_MS);
    this.waitMs = Number.isFinite(wait) && wait >= 0 ? wait : DEFAULT_EXTENSION_WAIT_MS;
  }

  leftScope(targetId: string): LeftScope | undefined {
    return this.upstream?.leftScope(targetId);
  }

  disconnectedSince(since: number): boolean {
    return this.lastDrop >= since;
  }

  private async usAvailability(): Promise<UserScriptsAvailability> {
    const link = this.bridge.link;
    if (!link) return { available: false, reason: 'no-link' };
    try {
      return await link.request('us.status') as UserScriptsAvailability;
    } catch (error) {
      log.debug(`us.status: ${(error as Error).message}`);
      return { available: false, reason: 'failed' };
    }
  }

  private async usSync(registration: UserScriptsRegistration | undefined): Promise<void> {
    const link = this.bridge.link;
    if (!link) throw new Error('the extension is not connected');
    await link.request('us.sync', registration ? { ...registration } : {});
  }

  /** Chrome's tab `tabId` as a Playwright page: the page whose CDP target is the tab's (waits up to waitMs for it). */
  private async pageOf(tabId: number, waitMs = 5_000): Promise<Page | undefined> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const targetId = this.upstream?.targetIdOf(tabId);
      const ctx = this.ctx;
      if (targetId && ctx) {
        for (const page of ctx.pages()) if (await this.targetIdOfPage(ctx, page) === targetId) return page;
      }
      if (Date.now() >= deadline) return undefined;
      await new Promise(resolve => setTimeout(resolve, 50));
    }
  }

  /**
   * Chrome's tab id of `page` (a shared tab), for the extension's requests about it (the consent window's input
   * lock); undefined when the page is no shared tab or the browser is not connected.
   */
  async browserTabIdOf(page: Page): Promise<number | undefined> {
    const ctx = this.ctx;
    if (!ctx || !this.upstream) return undefined;
    const targetId = await this.targetIdOfPage(ctx, page);
    return targetId === undefined ? undefined : this.upstream.tabIdOfTarget(targetId);
  }

  private targetIdOfPage(ctx: BrowserContext, page: Page): Promise<string | undefined> {
    let known = this.targetIds.get(page);
    if (!known) {
      known = (async () => {
        const session = await ctx.newCDPSession(page);
        try {
          return ((await session.send('Target.getTargetInfo')) as { targetInfo: { targetId: string } }).targetInfo.targetId;
        } finally {
          await session.detach().catch(() => undefined);
        }
      })().catch(() => undefined);
      this.targetIds.set(page, known);
      // A failure is asked again next time.
      void known.then(id => {
        if (id === undefined && this.targetIds.get(page) === known) this.targetIds.delete(page);
      });
    }
    return known;
  }

  /** Waits for a paired link. @throws ToolError browser_unavailable after waitMs. */
  private async waitForLink(): Promise<ExtensionLink> {
    const now = this.bridge.link;
    if (now) return now;
    log.info(`waiting up to ${Math.round(this.waitMs / 1000)} s for the tabwright extension to connect`);
    return await new Promise<ExtensionLink>((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new ToolError(
          'browser_unavailable',
          `The tabwright extension did not connect within ${Math.round(this.waitMs / 1000)} s.`,
          'Load the extension (chrome://extensions → Developer mode → Load unpacked → the folder `tabwright extension path` prints), '
          + 'pair it (paste `tabwright pairing-key` on its pairing page, with this server\'s port), and keep the browser running.',
        ));
      }, this.waitMs);
      const off = this.bridge.onLink(link => {
        clearTimeout(timer);
        off();
        resolve(link);
      });
    });
  }

  /** Waits for the extension's link, then attaches Playwright to the shared tabs through the CDP relay. */
  protected async open(): Promise<BrowserContext> {
    const link = await this.waitForLink();
    const upstream = new ExtensionUpstream(link);
    this.upstream = upstream;
    const relay = await CdpRelayEndpoint.start(upstream);
    let browser: Browser;
    try {
      browser = await playwright().chromium.connectOverCDP(relay.url, { noDefaults: true, isLocal: true, timeout: 30_000 });
    } catch (error) {
      await relay.close();
      throw new ToolError('browser_unavailable', `The extension is connected, but attaching through it failed: ${firstLine(String(error))}`, 'Check that the shared tabs are web pages; the next call tries again.');
    }
    if (this.closing) {
      await browser.close().catch(() => undefined);
      await relay.close();
      throw new ToolError('browser_unavailable', 'The server is shutting down.', 'Start the server again.');
    }
    this.browser = browser;
    this.relay = relay;
    browser.on('disconnected', () => this.browserGone(browser));
    // The link goes away (browser closed, worker restarted, a newer link replaced it): so does this attachment.
    link.onClose(() => void relay.close());
    const ctx = browser.contexts()[0];
    if (!ctx) {
      await browser.close().catch(() => undefined);
      throw new ToolError('browser_unavailable', 'Attached through the extension, but it offered no browser context.', 'This is a tabwright bug if it repeats.');
    }
    // Made without the selector engines registered before the attach (../selectorEngines.ts).
    await adoptSelectorEngines(ctx);
    this.version = `chromium ${browser.version()}`;
    this.ctx = ctx;
    log.info(`attached through the extension: ${this.version}, ${ctx.pages().length} shared tab(s)`);
    return ctx;
  }

  private browserGone(browser: Browser): void {
    if (this.browser !== browser) return;
    this.browser = undefined;
    void this.relay?.close();
    this.relay = undefined;
    if (!this.closing) log.warn('the extension link dropped; the next call waits for the extension to connect again');
    this.dropped();
  }

  /** Detaches from every tab and closes the link; the user's tabs and windows stay as they were. */
  async close(): Promise<void> {
    await this.stopOpening();
    await this.leave();
    this.bridge.close();
  }

  /**
   * Detaches from every tab (the relay's client goes, and the upstream detaches each tab: ./upstream.ts); the
   * link to the extension stays, so the next call attaches again without waiting for it to redial.
   */
  protected async leave(): Promise<void> {
    const { browser, relay } = this;
    this.ctx = undefined;
    this.browser = undefined;
    this.relay = undefined;
    this.upstream = undefined;
    await browser?.close().catch(error => log.warn(`detaching failed: ${firstLine(String(error))}`));
    await relay?.close();
  }

  protected leaves(): 'detached' {
    return 'detached';
  }
}
