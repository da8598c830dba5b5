/**
 * The transports the bench's "Transports" section measures tabwright on (bench/transportRun.ts): how each one is
 * set up around the same `tabwright mcp` server, so that only the way to the browser differs.
 *
 * - `launch` (the reference): the managed headless Chromium, `--headless --isolated`, exactly as the per-server
 *   tables drive tabwright.
 * - `own-chrome`: `--own-chrome --own-chrome-profile DIR` against a Chromium the bench starts itself with
 *   `--remote-debugging-port=0 --user-data-dir=DIR` (it writes DIR/DevToolsActivePort, which tabwright reads; no
 *   approval dialog, so it runs headless). That browser gets the managed browser's own switches, read from /proc
 *   (`relayBrowserArgs`), and a window of the managed browser's viewport, so the two browsers differ only in how
 *   tabwright reaches them: a pipe from Playwright, or the in-process CDP relay over one WebSocket.
 *
 * - `cdp`, for comparison: the same kind of browser over a plain DevTools WebSocket, no relay.
 *
 * - `extension`: `--connection extension` against a Chromium started like `own-chrome`'s, with the companion extension
 *   loaded and paired (nothing else attached to it, as in a user's browser).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { HOST_RULES, VIEWPORT } from './servers.js';
import type { TransportId } from './types.js';

/** What `prepare` gives the bench: the flags for `tabwright mcp` and how to stop what it started. */
export interface TransportSetup {
  /** tabwright's flags after `mcp`. */
  args: string[];
  /** Extra environment for the server. */
  env?: Record<string, string>;
  /** How the transport was set up, for the report. */
  notes: string[];
  /** The browser's argv when the bench started the browser itself (else the server's browser is read from /proc). */
  browserCommandLine?: string[];
  /** Runs once the server is up, before the warm-up (the extension pairs with it then). */
  afterStart?(): Promise<void>;
  /** Stops what `prepare` started (a browser, its profile). Safe to call twice. */
  close(): Promise<void>;
}

export interface PrepareOptions {
  /** The Chromium of the run (`--chromium`). */
  chromium: string;
  /**
   * The managed browser's argv as it ran (the reference transport's browser, from /proc): other transports start
   * their browser with the same switches. Undefined while the reference itself is prepared.
   */
  referenceBrowser?: string[];
}

/** One transport of the section. */
export interface BenchTransport {
  id: TransportId;
  label: string;
  /** Shown for comparison only: no target (the report still divides it by the reference). */
  comparison?: boolean;
  /** Readies what the transport needs outside tabwright. @throws when it cannot (the row is reported as failed). */
  prepare(opts: PrepareOptions): Promise<TransportSetup>;
}

/** How long a started browser may take to write DevToolsActivePort, in ms. */
const BROWSER_START_MS = 30_000;

/** The managed browser's viewport as a window size (`--window-size=1280,720`). */
function windowSize(): string {
  return `--window-size=${VIEWPORT.replace('x', ',')}`;
}

/**
 * The switches of a browser tabwright reaches over the relay, from the managed browser's argv (`argv[0]` the
 * binary): the same switches, minus those of Playwright's own connection (`--remote-debugging-pipe`, its
 * `--user-data-dir`, `--no-startup-window`) and any page to open, plus a debugging port chosen by the browser
 * (written to `userDataDir/DevToolsActivePort`), that user data dir, a window the size of the managed browser's
 * viewport (there is no emulation through the relay; `fitWindow` then grows it by the browser's own toolbars) and
 * one blank tab (the user's, never attached).
 * @returns the argv after the binary.
 * @throws Error when `argv` has no switches (not a browser command line).
 */
export function relayBrowserArgs(argv: readonly string[], userDataDir: string): string[] {
  const switches = argv.slice(1).filter(a => a.startsWith('--'));
  if (!switches.length) throw new Error(`not a browser command line: ${JSON.stringify(argv.slice(0, 3))}`);
  const own = (a: string) => a === '--remote-debugging-pipe' || a === '--no-startup-window' || /^--(user-data-dir|remote-debugging-port|remote-debugging-address|window-size)=/.test(a);
  return [...switches.filter(a => !own(a)), '--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0', `--user-data-dir=${userDataDir}`, windowSize(), 'about:blank'];
}

/**
 * Starts `binary args` in its own process group and waits for `userDataDir/DevToolsActivePort`.
 * @returns a stop function that SIGKILLs the group and waits for the browser to exit.
 * @throws Error when the browser exits first or writes no port within 30 s (the browser is killed then).
 */
export async function startDebuggableBrowser(binary: string, args: string[], userDataDir: string): Promise<() => Promise<void>> {
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited(child);
    }
  };
  const deadline = Date.now() + BROWSER_START_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the browser exited (${child.exitCode ?? child.signalCode}) before it wrote DevToolsActivePort: ${stderr.trim().slice(-500)}`);
    try {
      if (/^\d+\n/.test(readFileSync(join(userDataDir, 'DevToolsActivePort'), 'utf8'))) return stop;
    } catch {
      // not written yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the browser wrote no DevToolsActivePort within ${BROWSER_START_MS / 1000} s: ${stderr.trim().slice(-500)}`);
    }
    await new Promise(resolve => setTimeout(resolve, 50));
  }
}

/**
 * Sizes the browser's window so that its tabs' viewport is `width` × `height` CSS px: headless Chromium still lays
 * out its toolbars, so `--window-size` alone gives a shorter viewport. Over a CDP socket of the bench's own (before
 * tabwright connects): attach to the blank tab, grow the window's bounds by what its viewport lacks until it fits
 * (the toolbars' height settles while the browser starts), detach, close.
 * @returns the viewport the blank tab has afterwards ("1280x720").
 * @throws Error when the browser does not answer within 10 s.
 */
export async function fitWindow(userDataDir: string, width: number, height: number): Promise<string> {
  const [port, path] = readFileSync(join(userDataDir, 'DevToolsActivePort'), 'utf8').split('\n');
  const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let next = 1;
  const pending = new Map<number, { resolve(v: Record<string, unknown>): void; reject(e: Error): void }>();
  ws.on('message', data => {
    const m = JSON.parse(data.toString()) as { id?: number; result?: Record<string, unknown>; error?: { message: string } };
    const p = m.id === undefined ? undefined : pending.get(m.id);
    if (!p) return;
    pending.delete(m.id!);
    if (m.error) p.reject(new Error(m.error.message));
    else p.resolve(m.result ?? {});
  });
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string) => new Promise<Record<string, unknown>>((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
  });
  const viewport = async (sessionId: string) => {
    const r = await send('Runtime.evaluate', { expression: '[innerWidth, innerHeight].join(",")', returnByValue: true }, sessionId);
    return String((r.result as { value?: unknown }).value).split(',').map(Number) as [number, number];
  };
  const timer = setTimeout(() => ws.terminate(), 10_000);
  try {
    const { targetInfos } = (await send('Target.getTargets')) as { targetInfos: Array<{ targetId: string; type: string }> };
    const tab = targetInfos.find(t => t.type === 'page');
    if (!tab) throw new Error('the browser has no tab');
    const { sessionId } = (await send('Target.attachToTarget', { targetId: tab.targetId, flatten: true })) as { sessionId: string };
    const { windowId, bounds } = (await send('Browser.getWindowForTarget', { targetId: tab.targetId })) as { windowId: number; bounds: { width: number; height: number } };
    // The toolbars' size settles while the browser starts, so the window is corrected until the viewport fits.
    let [w, h] = await viewport(sessionId);
    let outer = { width: bounds.width, height: bounds.height };
    for (let i = 0; i < 8 && (w !== width || h !== height); i++) {
      outer = { width: outer.width + width - w, height: outer.height + height - h };
      await send('Browser.setWindowBounds', { windowId, bounds: outer });
      await new Promise(resolve => setTimeout(resolve, 100));
      [w, h] = await viewport(sessionId);
    }
    await send('Target.detachFromTarget', { sessionId });
    return `${w}x${h}`;
  } catch (error) {
    throw new Error(`sizing the browser window: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
    ws.close();
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise(resolve => child.once('exit', () => resolve()));
}

const launch: BenchTransport = {
  id: 'launch',
  label: 'launch (managed headless Chromium)',
  prepare: async ({ chromium }) => ({
    args: ['--headless', '--isolated', '--browser', chromium, '--browser-arg', HOST_RULES],
    notes: ['tabwright launches the browser through Playwright (a pipe), a fresh isolated context, viewport 1280x720 emulated'],
    close: async () => undefined,
  }),
};

/** A browser the bench started for a transport that attaches to a running one. */
interface StartedBrowser {
  profile: string;
  /** The debugging port (DevToolsActivePort's first line). */
  port: number;
  /** The viewport its tabs have ("1280x720"). */
  viewport: string;
  /** Its argv, the profile path shortened. */
  commandLine: string[];
  close(): Promise<void>;
}

/** How a transport's browser differs from the managed browser's switches. */
export interface LikeManagedOptions {
  /** Switches of the managed browser to leave out (matched whole). */
  drop?: readonly string[];
  /** Switches to add. */
  extraArgs?: readonly string[];
  /** Readies the profile before the browser starts on it. */
  prepareProfile?(profile: string): Promise<void>;
}

/**
 * Starts a browser with the managed browser's switches (`relayBrowserArgs`, changed by `opts`) and fits its window to
 * the managed browser's viewport. @throws when it does not start (nothing is left running).
 */
async function startLikeManaged(referenceBrowser: string[] | undefined, id: TransportId, opts: LikeManagedOptions = {}): Promise<StartedBrowser> {
  if (!referenceBrowser?.length) throw new Error('needs the managed browser\'s command line (the launch transport did not start)');
  const profile = mkdtempSync(join(tmpdir(), `twbench-${id}-`));
  const args = [...relayBrowserArgs(referenceBrowser, profile).filter(a => !opts.drop?.includes(a)), ...(opts.extraArgs ?? [])];
  let stopBrowser: (() => Promise<void>) | undefined;
  try {
    await opts.prepareProfile?.(profile);
    stopBrowser = await startDebuggableBrowser(referenceBrowser[0]!, args, profile);
    const [w, h] = VIEWPORT.split('x').map(Number) as [number, number];
    const viewport = await fitWindow(profile, w, h);
    const port = Number(readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]);
    const stop = stopBrowser;
    let closed = false;
    return {
      profile,
      port,
      viewport,
      commandLine: [referenceBrowser[0]!, ...args.map(a => (a.startsWith('--user-data-dir=') ? '--user-data-dir=<tmp>' : a))],
      close: async () => {
        if (closed) return;
        closed = true;
        await stop();
        rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      },
    };
  } catch (error) {
    await stopBrowser?.();
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}

const startedNote = (b: StartedBrowser) => `the bench starts the browser with the managed browser's switches, --remote-debugging-port=0 and --user-data-dir, and sizes its window for a ${b.viewport} viewport before tabwright connects`;

const ownChrome: BenchTransport = {
  id: 'own-chrome',
  label: 'own-chrome (CDP relay)',
  prepare: async ({ referenceBrowser }) => {
    const b = await startLikeManaged(referenceBrowser, 'own-chrome');
    return {
      args: ['--own-chrome', '--own-chrome-profile', b.profile],
      notes: [
        `${startedNote(b)} (tabwright reads DevToolsActivePort; no approval dialog)`,
        'tabwright attaches through its in-process CDP relay (one WebSocket to the browser, selective attach), the default context, no emulation',
      ],
      browserCommandLine: b.commandLine,
      close: () => b.close(),
    };
  },
};

/**
 * Not a transport of the issue, a comparison that splits the relay's ratio in two: the same kind of browser over
 * a plain DevTools WebSocket (`--cdp-endpoint`, Playwright's connectOverCDP straight to the browser). launch → cdp
 * is what a WebSocket costs against Playwright's pipe; cdp → own-chrome is what the relay adds.
 */
const cdp: BenchTransport = {
  id: 'cdp',
  label: 'cdp (WebSocket, no relay)',
  comparison: true,
  prepare: async ({ referenceBrowser }) => {
    const b = await startLikeManaged(referenceBrowser, 'cdp');
    return {
      args: ['--cdp-endpoint', `http://127.0.0.1:${b.port}`],
      notes: [startedNote(b), 'for comparison: Playwright\'s connectOverCDP straight to the browser\'s WebSocket (no relay), the default context and its blank tab'],
      browserCommandLine: b.commandLine,
      close: () => b.close(),
    };
  },
};

/**
 * How a browser like the managed one runs the companion extension, paired with a server on `port` (the test pairing
 * code): without Playwright's switches that keep extensions out, with the built extension loaded, and its profile
 * paired first, as a user pairs, on the extension's pairing page of a browser Playwright launches on that profile
 * for that alone and closes again (test/fixtures/extension.ts). Used by the `extension` transport and relayHop.ts.
 */
export async function withExtension(port: number): Promise<LikeManagedOptions> {
  const { extensionArgs, startExtensionBrowser, TEST_PAIRING_CODE } = await import('../test/fixtures/extension.js');
  return {
    drop: ['--disable-extensions', '--disable-component-extensions-with-background-pages'],
    extraArgs: extensionArgs().filter(a => /^--(load-extension|disable-extensions-except)=/.test(a)),
    prepareProfile: async profile => {
      const pairing = await startExtensionBrowser({ profile });
      try {
        await pairing.pair(TEST_PAIRING_CODE, port);
      } finally {
        await pairing.close();
      }
    },
  };
}

/**
 * The companion extension: `--connection extension` on a free relay port, against a Chromium the bench starts itself
 * with the managed browser's switches and the extension loaded, as a user's browser runs: nothing but the extension
 * attaches to it while it is measured. Its profile is paired first, as a user pairs, on the extension's pairing page
 * of a browser Playwright launches for that alone (test/fixtures/extension.ts) and closes again; the worker then
 * dials the server when the measured browser starts (and retries until the server listens). The agent's tabs come
 * from open_tab (they join the shared set); every CDP command goes server → relay → link → the extension's worker →
 * chrome.debugger.
 */
const extension: BenchTransport = {
  id: 'extension',
  label: 'extension (chrome.debugger)',
  prepare: async ({ referenceBrowser }) => {
    const { TEST_PAIRING_CODE } = await import('../test/fixtures/extension.js');
    const { freePort } = await import('../test/fixtures/harness.js');
    const port = await freePort();
    const b = await startLikeManaged(referenceBrowser, 'extension', await withExtension(port));
    return {
      args: ['--connection', 'extension'],
      env: { TABWRIGHT_WS_PORT: String(port), TABWRIGHT_PAIRING_KEY: TEST_PAIRING_CODE },
      notes: [
        `${startedNote(b)}, with the companion extension loaded and paired (on the extension's pairing page of a browser Playwright launched on the same profile and closed before)`,
        'nothing attaches to the measured browser but the extension: tabwright reaches it only through the extension link',
      ],
      browserCommandLine: b.commandLine,
      close: () => b.close(),
    };
  },
};

/** The transports, the reference first. */
export const TRANSPORTS: readonly BenchTransport[] = [launch, cdp, ownChrome, extension];

/** The transport every other one is divided by. */
export const REFERENCE_TRANSPORT: TransportId = 'launch';

/** Timed rounds of the transports section by default (enough for a steady median and p90 on a shared 2-core machine). */
export const DEFAULT_TRANSPORT_ROUNDS = 30;
/** Timed rounds with `--quick`. */
export const QUICK_TRANSPORT_ROUNDS = 5;

/** The target: each transport's median at most this × the managed browser's. */
export const TRANSPORT_TARGET_RATIO = 1.2;
