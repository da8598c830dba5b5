/**
 * `tabwright doctor --launch` (docs/cli.md, "doctor"): what the plain doctor only looks for, really done. It starts
 * the managed browser as the server would (a temporary profile, headless, the environment's settings), once with
 * the `--webmcp` mode `auto` to see whether the browser offers native WebMCP and whether the in-page runtime loads,
 * once with `polyfill` to see the polyfill install `document.modelContext` (both on a page served on 127.0.0.1 for the
 * purpose: WebMCP needs a secure context); it opens the SQLite addon
 * (better-sqlite3, which the script store and the call budget use) on an in-memory database. Each check says what
 * it found, how long it took, and on failure the error with its hint.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { LaunchConnection } from '../browser/launch/launchConnection.js';
import { resolveConfig, type WebMcpMode } from '../config.js';
import { Session } from '../session/session.js';

/** One check's outcome: `ok`, its findings, the time it took in ms, or the error with a hint. */
export interface LaunchCheck {
  ok: boolean;
  ms: number;
  error?: { type: string; message: string; hint: string };
  [finding: string]: unknown;
}

/** What `doctor --launch` adds to the report. */
export interface LaunchReport {
  browser: LaunchCheck;
  polyfill: LaunchCheck;
  sqlite: LaunchCheck;
}

/** How long one launch may take before it counts as failed, in ms. */
const LAUNCH_MS = 60_000;

function failure(error: unknown): LaunchCheck['error'] {
  const e = error as { type?: string; message?: string; hint?: string };
  return { type: e.type ?? 'browser_unavailable', message: e.message ?? String(error), hint: e.hint ?? 'Run `tabwright doctor` for the browser it finds, and `scripts/setup.sh` to install Chromium.' };
}

/** What the runtime says about WebMCP in a fresh page (src/page/webmcp.ts WebMcpBridge.state). */
interface PageFacts {
  runtime: boolean;
  state: string | null;
  registerTool: boolean;
}

/**
 * Serves one page on 127.0.0.1 for the checks: WebMCP exists only in secure contexts, which `about:blank` of a new
 * tab is not and `http://127.0.0.1` is. Answers only requests naming that host. @returns its URL and a closer.
 */
async function pageServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const host = req.headers.host ?? '';
    if (host !== `127.0.0.1:${(server.address() as AddressInfo).port}`) {
      res.writeHead(421).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>tabwright doctor</title><p>doctor</p>');
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise(resolve => server.close(() => resolve())) };
}

/** Launches the browser with `mode`, opens a page, reads PageFacts, closes everything. @throws what the launch throws. */
async function launchOnce(mode: WebMcpMode, dir: string, url: string): Promise<{ version: string | undefined; facts: PageFacts }> {
  const config = resolveConfig({ isolated: true, headless: true, webmcp: mode, workspace: dir }, { ...process.env, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data'), TABWRIGHT_CONFIG_DIR: '', TABWRIGHT_DATA_DIR: '' });
  const session = new Session(new LaunchConnection(config), config);
  try {
    const run = async () => {
      const tab = await session.openTab();
      await tab.page.goto(url, { waitUntil: 'load' });
      const facts = await tab.page.evaluate((): PageFacts => {
        const rt = (globalThis as { __tabwright?: { webmcp?: { state?: string } } }).__tabwright;
        const mc = (document as unknown as { modelContext?: { registerTool?: unknown } }).modelContext;
        return { runtime: !!rt, state: rt?.webmcp?.state ?? null, registerTool: typeof mc?.registerTool === 'function' };
      });
      return { version: session.connection.browserVersion(), facts };
    };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`the browser did not start and open a page within ${LAUNCH_MS / 1000} s`)), LAUNCH_MS); });
    try {
      return await Promise.race([run(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  } finally {
    await session.close().catch(() => undefined);
  }
}

/** Runs the three checks, one after the other (the second launch only after the first browser closed). Never throws. */
export async function launchChecks(): Promise<LaunchReport> {
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-doctor-'));
  const page = await pageServer();
  try {
    let started = Date.now();
    let browser: LaunchCheck;
    try {
      const { version, facts } = await launchOnce('auto', dir, page.url);
      browser = {
        ok: facts.runtime, ms: Date.now() - started, version: version ?? null,
        runtime: facts.runtime ? 'loaded' : 'missing (run `npm run build`)',
        // In the mode `auto` the runtime takes the browser's own WebMCP where the page has it, else installs the polyfill.
        nativeWebMcp: facts.state === 'native' ? 'available (the browser\'s WebMCP feature is on)' : 'not in this browser (tabwright uses its polyfill)',
        webmcp: facts.state,
      };
    } catch (error) {
      browser = { ok: false, ms: Date.now() - started, error: failure(error) };
    }
    started = Date.now();
    let polyfill: LaunchCheck;
    try {
      const { facts } = await launchOnce('polyfill', dir, page.url);
      const ok = facts.state === 'polyfill' && facts.registerTool;
      polyfill = { ok, ms: Date.now() - started, webmcp: facts.state, registerTool: facts.registerTool,
        ...(ok ? {} : { error: { type: 'capability_unavailable', message: `The WebMCP polyfill did not install (state ${facts.state ?? 'no runtime'}).`, hint: 'Run `npm run build` (the runtime bundle), then try again.' } }) };
    } catch (error) {
      polyfill = { ok: false, ms: Date.now() - started, error: failure(error) };
    }
    started = Date.now();
    let sqlite: LaunchCheck;
    try {
      const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
      const db = new Database(':memory:');
      const { version } = db.prepare('select sqlite_version() as version').get() as { version: string };
      db.close();
      sqlite = { ok: true, ms: Date.now() - started, version };
    } catch (error) {
      sqlite = { ok: false, ms: Date.now() - started, error: { type: 'internal_error', message: `The SQLite addon (better-sqlite3) does not load: ${(error as Error).message}`, hint: 'Run `npm rebuild better-sqlite3` with the Node that runs tabwright (it compiles for that Node\'s ABI).' } };
    }
    return { browser, polyfill, sqlite };
  } finally {
    await page.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
