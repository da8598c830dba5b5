/**
 * The remote connection kinds (docs/attach.md):
 *
 * - `cdp` (`--cdp-endpoint`): a Chromium started with
 *   `--remote-debugging-port`, attached with `chromium.connectOverCDP`. We
 *   use the browser's default context and its open tabs, or with
 *   `--new-context` a context of our own (created with `disposeOnDetach`, so
 *   the browser drops it when we go, even if we die without closing it).
 * - `playwright-server` (`--ws-endpoint`): a Playwright server
 *   (`playwright run-server`, hosted grids), attached with `chromium.connect`.
 *   The server launches a browser for each connection and closes it when
 *   we disconnect; we always work in a context of our own.
 *
 * Leaving never closes the user's browser or tabs: `Browser.close()` on a
 * connectOverCDP browser closes only the DevTools connection (playwright-core
 * 1.65: the "browser process" it closes is the WebSocket transport). The
 * default context is never closed (that would close every tab in it).
 *
 * Drops (the remote browser restarts, the network is cut): Playwright's
 * `disconnected` event forgets the context; calls in flight fail at once
 * (Playwright rejects them) and report `browser_disconnected`
 * (`disconnectedSince`); the next call attaches again. Attaching is bounded by
 * `connectTimeoutMs` (`browser_unavailable` naming the redacted endpoint).
 */
import type { Browser, BrowserContext } from 'playwright-core';
import type { RemoteConfig, Config } from '../../config.js';
import { logger } from '../../log.js';
import { raceTimeout } from '../../util/wait.js';
import { firstLine, ToolError } from '../../errors.js';
import { CAPABILITIES_BY_KIND, type Capability } from '../capabilities.js';
import type { BrowserConnection, BrowserRelease } from '../connection.js';
import { ConnectionBase } from '../connectionBase.js';
import { adoptSelectorEngines } from '../selectorEngines.js';
import { playwright } from '../playwright.js';
import { redactUrl, Redactor } from './endpoint.js';
import { classifyPlaywrightError } from '../../util/playwrightErrors.js';

const log = logger('remote');

/** How long leaving (closing our context, then the connection) may take before we stop waiting, in ms. */
const CLOSE_TIMEOUT_MS = 5_000;

export class RemoteConnection extends ConnectionBase implements BrowserConnection {
  readonly kind: 'cdp' | 'playwright-server';
  readonly capabilities: ReadonlySet<Capability>;
  /** The endpoint without secrets (what logs and get_bridge_status show). */
  readonly endpoint: string;
  private readonly redactor: Redactor;
  /** The context we created (closed on exit); undefined when we use the browser's default one. */
  private owned: BrowserContext | undefined;
  private browser: Browser | undefined;

  constructor(
    private readonly remote: RemoteConfig,
    private readonly config: Config,
  ) {
    super();
    this.kind = remote.kind;
    this.capabilities = new Set(CAPABILITIES_BY_KIND[remote.kind]);
    this.endpoint = redactUrl(remote.endpoint);
    this.redactor = new Redactor(remote.endpoint, remote.headers);
  }

  disconnectedSince(since: number): boolean {
    return this.lastDrop >= since;
  }

  protected async open(): Promise<BrowserContext> {
    const { chromium } = playwright();
    const { endpoint, headers, connectTimeoutMs: timeout } = this.remote;
    log.info(`attaching to ${this.endpoint} (${this.kind})`);
    let browser: Browser;
    try {
      browser = this.kind === 'cdp'
        ? await chromium.connectOverCDP(endpoint, { headers, timeout })
        : await chromium.connect(endpoint, { headers, timeout });
    } catch (error) {
      const reason = this.redactor.text(firstLine(error instanceof Error ? error.message : String(error)));
      throw new ToolError(
        'browser_unavailable',
        `Could not attach to the ${this.kind === 'cdp' ? 'DevTools endpoint' : 'Playwright server'} ${this.endpoint} within ${Math.round(timeout / 1000)} s: ${reason}`,
        this.kind === 'cdp'
          ? `Check that a Chromium-family browser runs with --remote-debugging-port and that ${this.endpoint} answers (GET /json/version), or fix --cdp-endpoint.`
            // playwright-core's attach waits on every tab; one showing a JavaScript dialog never answers (docs/attach.md).
            + (classifyPlaywrightError(error).has('timeout') ? ' A tab of that browser showing a dialog (alert, confirm, prompt, leave-page) holds the attach until it is answered: answer it in the browser, then retry.' : '')
          : `Check that the Playwright server at ${this.endpoint} runs and accepts this client (version, --cdp-header tokens), or fix --ws-endpoint.`,
      );
    }
    if (this.closing) {
      await browser.close().catch(() => undefined);
      throw new ToolError('browser_unavailable', 'The server is shutting down.', 'Start the server again.');
    }
    this.browser = browser;
    browser.on('disconnected', () => this.browserGone(browser));
    let ctx: BrowserContext;
    try {
      const existing = this.remote.newContext ? undefined : browser.contexts()[0];
      if (existing) {
        ctx = existing;
        // Made without the selector engines registered before the attach (../selectorEngines.ts).
        await adoptSelectorEngines(ctx);
      } else {
        ctx = await browser.newContext({ viewport: this.config.viewport, acceptDownloads: true });
        this.owned = ctx;
        ctx.on('close', () => this.browserGone(browser));
      }
    } catch (error) {
      await browser.close().catch(() => undefined);
      throw new ToolError('browser_unavailable', `Attached to ${this.endpoint}, but could not open a browser context: ${this.redactor.text(firstLine(String(error)))}`, 'Check the remote browser; the next call tries again.');
    }
    this.version = `${browser.browserType().name()} ${browser.version()}`;
    this.ctx = ctx;
    log.info(`attached to ${this.endpoint}: ${this.version}, ${this.owned ? 'own context' : `default context with ${ctx.pages().length} tab(s)`}`);
    return ctx;
  }

  private browserGone(browser: Browser): void {
    if (this.browser !== browser) return;
    this.browser = undefined;
    this.owned = undefined;
    if (!this.closing) log.warn(`the connection to ${this.endpoint} dropped; the next call attaches again`);
    this.dropped();
  }

  /** Leaves: closes our own context (never the default one), then the connection. The remote browser and its tabs stay. */
  async close(): Promise<void> {
    await this.stopOpening();
    await this.leave();
  }

  protected async leave(): Promise<void> {
    const { owned, browser } = this;
    this.ctx = undefined;
    this.owned = undefined;
    this.browser = undefined;
    await this.bounded(owned?.close(), 'closing our context');
    await this.bounded(browser?.close(), 'detaching');
  }

  /**
   * A Playwright server closes the browser it launched for this connection when we leave; over CDP our own
   * context (`--new-context`) closes and the browser stays; else we only detach.
   */
  protected leaves(): BrowserRelease {
    if (this.kind === 'playwright-server') return 'closed';
    return this.remote.newContext ? 'context_closed' : 'detached';
  }

  /** Awaits `work` for at most CLOSE_TIMEOUT_MS, logging (never throwing) a failure. */
  private async bounded(work: Promise<void> | undefined, what: string): Promise<void> {
    if (!work) return;
    await raceTimeout(work.catch(error => log.warn(`${what} failed: ${this.redactor.text(firstLine(String(error)))}`)), { ms: CLOSE_TIMEOUT_MS, onTimeout: 'undefined' });
  }
}
