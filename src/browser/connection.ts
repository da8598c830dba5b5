/**
 * The seam between the session and a browser (docs/connections.md, "The
 * seam"; one folder per kind, src/browser/<kind>).
 * Each connection kind (launch, cdp, playwright-server, extension, userscript)
 * implements it: src/browser/launch, src/browser/cdp (both remote kinds).
 */
import type { BrowserContext } from 'playwright-core';
import type { Capability, ConnectionKind } from './capabilities.js';

export interface BrowserConnection {
  readonly kind: ConnectionKind;
  readonly capabilities: ReadonlySet<Capability>;
  /**
   * The browser context, starting the browser on first use (lazily).
   * @throws ToolError browser_unavailable when no browser can be started.
   */
  context(): Promise<BrowserContext>;
  /** True once the browser is up and until it closes. */
  isRunning(): boolean;
  /** Browser product and version (`Chromium 156.0...`) once running. */
  browserVersion(): string | undefined;
  /**
   * Calls `listener` with no argument when the browser goes away (crash, window closed, close()).
   * @returns a function that removes the listener again.
   */
  onDisconnect(listener: () => void): () => void;
  /** Closes the browser and removes temporary profiles. Safe to call twice. */
  close(): Promise<void>;
  /** The remote endpoint with its secrets redacted; undefined for a launched browser. */
  readonly endpoint?: string;
  /**
   * True when the connection to the browser dropped at or after `since`
   * (ms since the epoch): a call that started then and failed reports
   * `browser_disconnected`. Absent: never.
   */
  disconnectedSince?(since: number): boolean;
}
