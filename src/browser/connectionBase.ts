/**
 * The lifecycle every connection kind shares (docs/connections.md, "The seam"): the browser context is opened
 * once, on the first call that needs it, by one `open()` at a time that every caller awaits; a failed open is
 * forgotten so the next call tries again; after `close()` nothing opens any more. The kinds add what they open
 * and how they leave.
 */
import type { BrowserContext } from 'playwright-core';
import { ToolError } from '../errors.js';
import type { BrowserRelease } from './connection.js';

export abstract class ConnectionBase {
  /** The open in progress or done; undefined before the first call, after a failure, a drop or close(). */
  protected starting: Promise<BrowserContext> | undefined;
  /** The context once open, until it drops or closes. */
  protected ctx: BrowserContext | undefined;
  /** Browser product and version (`chromium 150.0...`), set by open(). */
  protected version: string | undefined;
  /** Set by close(): no open starts any more. */
  protected closing = false;
  /** A release() in progress: a call that needs the browser meanwhile opens it again once it is done. */
  private releasing: Promise<BrowserRelease> | undefined;
  /** When the browser last went away on its own (ms since the epoch; 0: never): `disconnectedSince` of each kind. */
  protected lastDrop = 0;
  private readonly listeners = new Set<() => void>();

  /**
   * Opens the browser context (launching or attaching), sets `ctx` and `version`.
   * @throws ToolError browser_unavailable (or the kind's own types) when it cannot.
   */
  protected abstract open(): Promise<BrowserContext>;

  /**
   * The browser context, opening it on first use.
   * @throws ToolError browser_unavailable while the server shuts down, or what open() throws.
   */
  context(): Promise<BrowserContext> {
    if (this.closing) return Promise.reject(new ToolError('browser_unavailable', 'The server is shutting down.', 'Start the server again.'));
    if (this.releasing) return this.releasing.then(() => this.context(), () => this.context());
    this.starting ??= this.open().catch(error => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  isRunning(): boolean {
    return this.ctx !== undefined;
  }

  browserVersion(): string | undefined {
    return this.version;
  }

  onDisconnect(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * The browser went away on its own (a remote one's connection dropped, a launched one's process ended): while
   * closing, only forgets the context; else
   * records when (`lastDrop`), then as disconnected().
   */
  protected dropped(): void {
    if (this.closing) {
      this.ctx = undefined;
      this.starting = undefined;
      return;
    }
    this.lastDrop = Date.now();
    this.disconnected();
  }

  /**
   * Leaves the browser (close_browser): what `leave()` does, after an open in progress has settled; the next
   * context() opens again. Calls that ask for the context meanwhile wait for it. A no-op while the server closes.
   */
  release(): Promise<BrowserRelease> {
    if (this.closing) return Promise.resolve(this.leaves());
    this.releasing ??= (async () => {
      await this.starting?.catch(() => undefined);
      this.starting = undefined;
      await this.leave();
      return this.leaves();
    })().finally(() => {
      this.releasing = undefined;
    });
    return this.releasing;
  }

  /**
   * Ends tabwright's use of the browser, with nothing in progress: forgets `ctx` first (so the kind's close
   * and drop handlers stay quiet), then closes or detaches what open() made. Never throws.
   */
  protected abstract leave(): Promise<void>;

  /** What leave() does to the browser (close_browser reports it). */
  protected abstract leaves(): BrowserRelease;

  /** Starts closing: no open starts any more, and the one in progress has settled. */
  protected async stopOpening(): Promise<void> {
    this.closing = true;
    const starting = this.starting;
    this.starting = undefined;
    await starting?.catch(() => undefined);
  }

  /** Forgets the context (the next call opens again) and tells the listeners the browser went away. */
  protected disconnected(): void {
    this.ctx = undefined;
    this.starting = undefined;
    for (const listener of [...this.listeners]) listener();
  }
}
