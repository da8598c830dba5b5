/**
 * A browser context of its own for one MCP session (`--isolate-sessions`;
 * docs/attach.md, "Many agents, many browsers"). It shares the browser of a base
 * connection (launch with a temporary profile, cdp, playwright-server) and
 * opens a fresh context there on first use: own tabs, cookies and storage.
 * `close()` closes that context only; the base connection stays up for the
 * other sessions. When the base drops, so does this context.
 */
import type { BrowserContext } from 'playwright-core';
import type { Config } from '../config.js';
import { ToolError } from '../errors.js';
import type { Capability, ConnectionKind } from './capabilities.js';
import type { BrowserConnection, BrowserRelease } from './connection.js';

export class SessionContextConnection implements BrowserConnection {
  readonly kind: ConnectionKind;
  readonly sessionContext = true;
  readonly capabilities: ReadonlySet<Capability>;
  readonly endpoint: string | undefined;
  readonly asksToConnect: boolean | undefined;
  readonly scope: string | undefined;
  readonly onApproval: BrowserConnection['onApproval'];
  private starting: Promise<BrowserContext> | undefined;
  private ctx: BrowserContext | undefined;
  private readonly listeners = new Set<() => void>();
  private closed = false;
  /** Removes our listener from the base connection (shared by every session: it must not keep one per ended session). */
  private readonly offBase: () => void;

  constructor(
    private readonly base: BrowserConnection,
    private readonly config: Config,
  ) {
    this.kind = base.kind;
    this.capabilities = base.capabilities;
    this.endpoint = base.endpoint;
    this.asksToConnect = base.asksToConnect;
    this.scope = base.scope;
    this.onApproval = base.onApproval?.bind(base);
    this.offBase = base.onDisconnect(() => {
      if (this.ctx || this.starting) this.dropped();
    });
  }

  /**
   * This session's context, opened in the base connection's browser on first use.
   * @throws ToolError browser_unavailable as the base does, or when the base context has no Browser object (a persistent launch profile).
   */
  context(): Promise<BrowserContext> {
    if (this.closed) return Promise.reject(new ToolError('browser_unavailable', 'This MCP session has ended.', 'Start a new MCP session.'));
    this.starting ??= this.open().catch(error => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  private async open(): Promise<BrowserContext> {
    const browser = (await this.base.context()).browser();
    if (!browser) {
      throw new ToolError('browser_unavailable', 'Per-session contexts need a browser tabwright can open contexts in; a persistent launch profile has none.', 'Run with --isolated (implied by --isolate-sessions unless --user-data-dir is given), or attach with --cdp-endpoint / --ws-endpoint.');
    }
    const ctx = await browser.newContext({ viewport: this.config.viewport, acceptDownloads: true });
    if (this.closed) {
      await ctx.close().catch(() => undefined);
      throw new ToolError('browser_unavailable', 'This MCP session has ended.', 'Start a new MCP session.');
    }
    ctx.on('close', () => {
      if (this.ctx === ctx) this.dropped();
    });
    this.ctx = ctx;
    return ctx;
  }

  private dropped(): void {
    this.ctx = undefined;
    this.starting = undefined;
    for (const listener of [...this.listeners]) listener();
  }

  isRunning(): boolean {
    return this.ctx !== undefined;
  }

  browserVersion(): string | undefined {
    return this.base.browserVersion();
  }

  onDisconnect(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  disconnectedSince(since: number): boolean {
    return this.base.disconnectedSince?.(since) ?? false;
  }

  /**
   * Closes this session's context (its tabs, cookies and storage go with it) and lets the next call open a new
   * one; the browser and the other sessions' contexts stay (close_browser of one session).
   */
  async release(): Promise<BrowserRelease> {
    const ctx = this.ctx ?? (await this.starting?.catch(() => undefined));
    this.ctx = undefined;
    this.starting = undefined;
    await ctx?.close().catch(() => undefined);
    return 'context_closed';
  }

  /** Closes this session's context (its tabs, cookies and storage go with it); the browser stays. */
  async close(): Promise<void> {
    this.closed = true;
    this.offBase();
    const ctx = this.ctx ?? (await this.starting?.catch(() => undefined));
    this.ctx = undefined;
    this.starting = undefined;
    await ctx?.close().catch(() => undefined);
    this.listeners.clear();
  }
}
