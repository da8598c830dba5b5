/**
 * The seam between the session and a browser (DESIGN.md: src/browser/<kind>).
 * Each connection kind (launch, cdp, extension, userscript) implements it;
 * only `launch` exists so far.
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
  /** Called with no argument when the browser goes away (crash, window closed, close()). */
  onDisconnect(listener: () => void): void;
  /** Closes the browser and removes temporary profiles. Safe to call twice. */
  close(): Promise<void>;
}
