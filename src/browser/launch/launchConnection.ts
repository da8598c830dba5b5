/**
 * The `launch` connection: tabwright starts a Chromium-family browser with
 * playwright-core and owns it.
 *
 * - lazily, on the first tool that needs a browser;
 * - persistent profile under the data dir by default, or a temporary one
 *   (`--isolated`, removed on close), or `--user-data-dir`;
 * - `--enable-features=WebMCP` unless `--webmcp polyfill`; `--no-sandbox` as root; the
 *   background-networking switches that keep a closed network quiet.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import type { Config } from '../../config.js';
import { logger } from '../../log.js';
import { firstLine, ToolError } from '../../errors.js';
import { CAPABILITIES_BY_KIND, type Capability } from '../capabilities.js';
import type { BrowserConnection } from '../connection.js';
import { ConnectionBase } from '../connectionBase.js';
import { playwright } from '../playwright.js';
import { findBrowser, installHint } from './findBrowser.js';
import { browserEnv } from './locale.js';

const log = logger('launch');

/** Switches every launch gets, before the user's own. */
export const BASE_ARGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
];

/**
 * Merges every `--enable-features=` / `--disable-features=` switch into one
 * each (Chromium reads only the last of each), so a user's own
 * `--enable-features=X` does not switch WebMCP off.
 */
export function mergeFeatureSwitches(args: string[]): string[] {
  const enable = new Set<string>();
  const disable = new Set<string>();
  const rest: string[] = [];
  for (const arg of args) {
    const m = /^--(enable|disable)-features=(.*)$/.exec(arg);
    if (!m) rest.push(arg);
    else for (const f of m[2]!.split(',').filter(Boolean)) (m[1] === 'enable' ? enable : disable).add(f);
  }
  for (const f of enable) disable.delete(f);
  if (enable.size) rest.push(`--enable-features=${[...enable].join(',')}`);
  if (disable.size) rest.push(`--disable-features=${[...disable].join(',')}`);
  return rest;
}

/** Drops WebMCP from an `--enable-features=` switch. */
function withoutWebMcp(arg: string): string {
  if (!arg.startsWith('--enable-features=')) return arg;
  return `--enable-features=${arg.slice('--enable-features='.length).split(',').filter(f => f !== 'WebMCP').join(',')}`;
}

/** The full switch list for a launch (exported for tests and `get_bridge_status`). */
export function launchArgs(config: Config): string[] {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // `--webmcp polyfill`: no native WebMCP, even when a --browser-arg enables it.
  if (config.webmcp === 'polyfill') return mergeFeatureSwitches([...BASE_ARGS, ...(isRoot ? ['--no-sandbox'] : []), ...config.browserArgs]).map(withoutWebMcp).filter(a => a !== '--enable-features=');
  return mergeFeatureSwitches([...BASE_ARGS, ...(isRoot ? ['--no-sandbox'] : []), '--enable-features=WebMCP', ...config.browserArgs]);
}

export class LaunchConnection extends ConnectionBase implements BrowserConnection {
  readonly kind = 'launch' as const;
  readonly capabilities: ReadonlySet<Capability> = new Set(CAPABILITIES_BY_KIND.launch);
  private browser: Browser | undefined;

  constructor(private readonly config: Config) {
    super();
  }

  protected async open(): Promise<BrowserContext> {
    const executablePath = findBrowser(this.config.browser);
    const { chromium } = playwright();
    const args = launchArgs(this.config);
    const common = {
      executablePath,
      headless: this.config.headless,
      args,
      // Playwright's own default switches stay; we only drop the ones that hide the browser from the user.
      ignoreDefaultArgs: ['--enable-automation'],
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      // A UTF-8 locale even when ours is C, or Chromium loses non-ASCII upload and download names.
      env: browserEnv(process.env),
      timeout: 60_000,
    };
    const contextOptions = { viewport: this.config.viewport, acceptDownloads: true };
    log.info(`launching ${executablePath} headless=${this.config.headless} isolated=${this.config.isolated}`);
    let ctx: BrowserContext;
    try {
      if (this.config.isolated) {
        this.browser = await chromium.launch(common);
        ctx = await this.browser.newContext(contextOptions);
      } else {
        mkdirSync(this.config.userDataDir, { recursive: true, mode: 0o700 });
        ctx = await chromium.launchPersistentContext(this.config.userDataDir, { ...common, ...contextOptions });
        this.browser = ctx.browser() ?? undefined;
      }
    } catch (error) {
      const message = firstLine(error instanceof Error ? error.message : String(error));
      const locked = /ProcessSingleton|profile.*in use|SingletonLock|existing browser session/i.test(String(error));
      if (!this.config.headless && /Missing X server|cannot open display|\$DISPLAY/i.test(String(error))) {
        throw new ToolError(
          'browser_unavailable',
          'The browser could not open a window: there is no usable display.',
          'Run headless (pass --headless, or drop --headed / TABWRIGHT_HEADLESS=0), or start under a display (e.g. xvfb-run).',
        );
      }
      throw new ToolError(
        'browser_unavailable',
        locked
          ? `The browser profile ${this.config.userDataDir} is in use by another browser process.`
          : `The browser at ${executablePath} failed to start: ${message}`,
        locked
          ? 'Close the other browser or tabwright using this profile, or pass --isolated or --user-data-dir DIR.'
          : `Check the executable (TABWRIGHT_BROWSER), add switches with --browser-arg, or reinstall: ${installHint()}.`,
      );
    }
    this.version = this.browser ? `${this.browser.browserType().name()} ${this.browser.version()}` : undefined;
    this.ctx = ctx;
    ctx.on('close', () => this.closed(ctx));
    log.info(`browser up: ${this.version}`);
    return ctx;
  }

  /** The browser went away on its own (its process ended: killed, crashed, closed by the person): recorded as a drop. */
  private closed(ctx: BrowserContext): void {
    if (this.ctx !== ctx) return;
    log.info('browser closed');
    this.dropped();
  }

  /** True when the launched browser went away on its own at or after `since` (ms since the epoch). */
  disconnectedSince(since: number): boolean {
    return this.lastDrop >= since;
  }

  async close(): Promise<void> {
    await this.stopOpening();
    await this.leave();
  }

  /** Closes the context and the browser (Playwright removes a temporary profile with it). */
  protected async leave(): Promise<void> {
    const { ctx, browser } = this;
    this.ctx = undefined;
    this.browser = undefined;
    try {
      await ctx?.close();
    } catch (error) {
      log.warn('closing the browser context failed:', error);
    }
    try {
      await browser?.close();
    } catch (error) {
      log.warn('closing the browser failed:', error);
    }
  }

  protected leaves(): 'closed' {
    return 'closed';
  }
}
