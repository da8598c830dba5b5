/**
 * `npm run demo`: serves Harbor Books (a demo shop) on 127.0.0.1, starts the
 * real tabwright server over stdio (`dist/cli.js mcp --isolated`), connects
 * the official MCP client and walks through list_tabs → navigate →
 * get_page_context → type → click → list_webmcp_tools → call_webmcp_tool →
 * take_screenshot → get_console_context, printing each call with its time.
 *
 * Flags: `--headed` shows the browser (default headless), `--out DIR` is the
 * workspace the screenshot goes under (default ./demo-output).
 * Exit status: 0 when every step passed, 1 when one failed (named on
 * stderr), 2 for bad flags, 130 on Ctrl-C.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemoSite, type DemoSite } from './site.js';
import { STEPS, type DemoState } from './steps.js';
import { sleep } from '../util/wait.js';
import { callTool, say, StepFailure, stepDone, stepFailed, stepStart } from './transcript.js';

/** The demo's command-line options. */
export interface DemoOptions {
  headed: boolean;
  /** Workspace folder (TABWRIGHT_WORKSPACE of the server). */
  out: string;
}

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'cli.js');
const USAGE = 'usage: node dist/demo/run.js [--headed] [--out DIR]   (npm run demo -- --headed)';
/** Pause between steps when headed, so a person can follow along. */
const HEADED_PAUSE_MS = 700;

/**
 * Parses the demo's flags.
 * @throws Error naming an unknown flag or a missing value.
 */
export function parseDemoArgs(argv: string[]): DemoOptions {
  const options: DemoOptions = { headed: false, out: resolve('demo-output') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--headed') options.headed = true;
    else if (arg === '--headless') options.headed = false;
    else if (arg === '--out' && argv[i + 1]) options.out = resolve(argv[++i]!);
    else if (arg.startsWith('--out=')) options.out = resolve(arg.slice('--out='.length));
    else throw new Error(`unknown or incomplete argument "${arg}"`);
  }
  return options;
}

/** The server's argv after `node`. */
/**
 * The server the demo starts. The demo is a program that checks each step's
 * fields (docs/clients.md: fields reach an MCP client only with
 * --structured-content); the text a model reads is what it prints.
 */
function serverArgs(options: DemoOptions): string[] {
  return [CLI, 'mcp', '--isolated', '--structured-content', options.headed ? '--headed' : '--headless'];
}


/** True when a headed browser has nowhere to show its window (Linux without DISPLAY or WAYLAND_DISPLAY). */
function noDisplay(): boolean {
  return process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
}

/**
 * Runs every step; returns the exit status. Always closes the client (and
 * with it the server and browser) and the site; `signal` (Ctrl-C) closes
 * them at once and ends the run.
 */
export async function runDemo(options: DemoOptions, signal?: AbortSignal): Promise<number> {
  const started = performance.now();
  mkdirSync(options.out, { recursive: true });
  let site: DemoSite | undefined;
  let client: Client | undefined;
  let closing: Promise<void> | undefined;
  /** Closes the client once (a second Client.close() returns before the server has exited). */
  const closeClient = () => (closing ??= client?.close().catch(() => undefined) ?? Promise.resolve());
  let serverLog = '';
  const shown = (path: string) => relative(process.cwd(), path) || '.';
  try {
    site = await startDemoSite();
    say('tabwright demo: an MCP client drives a real Chromium through tabwright');
    say(`  site    ${site.origin}   (Harbor Books, a demo bookshop served by this process)`);
    say(`  server  node ${serverArgs(options).map(a => (a === CLI ? shown(CLI) : a)).join(' ')}   (stdio, official MCP client)`);
    say(`  files   ${options.out}   (TABWRIGHT_WORKSPACE)`);
    say(`  browser ${options.headed ? `headed${noDisplay() ? '   (warning: no DISPLAY or WAYLAND_DISPLAY is set, so the window cannot open)' : ''}` : 'headless   (pass --headed to watch it)'}`);
    say();

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: serverArgs(options),
      env: { ...(process.env as Record<string, string>), TABWRIGHT_WORKSPACE: options.out },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      serverLog = (serverLog + chunk.toString()).slice(-20_000);
    });
    client = new Client({ name: 'tabwright-demo', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } });
    // The consent gate asks before a WebMCP tool without readOnlyHint runs; the demo answers as its user.
    client.setRequestHandler('elicitation/create', async request => {
      const asked = String((request.params as { message?: string }).message ?? '').split('\n')[0];
      say(`\n        consent asked: ${asked}`); // the step's line is still open: start a new one
      say('        consent answer: allow once (the demo answers for you)');
      return { action: 'accept', content: { decision: 'once' } };
    });
    signal?.addEventListener('abort', () => void closeClient(), { once: true });
    const t0 = performance.now();
    try {
      await client.connect(transport);
    } catch (error) {
      throw new StepFailure(`could not start or connect to the server: ${error instanceof Error ? error.message : String(error)}`, 'Run `npm run build` first; the server log is below.');
    }
    // On stdio the SDK negotiates the era in a throwaway sibling process and starts the real
    // server afterwards, so the first request waits for it to boot: do that here, not in step 1.
    const { tools } = await client.listTools(undefined, { timeout: 60_000 });
    const server = client.getServerVersion();
    say(`connected to ${server?.name ?? 'server'} ${server?.version ?? ''} over MCP ${client.getNegotiatedProtocolVersion() ?? '?'}: ${tools.length} tools, ready in ${Math.round(performance.now() - t0)} ms`);
    say();

    const state: DemoState = { client, site };
    let toolMs = 0;
    for (const [i, step] of STEPS.entries()) {
      if (signal?.aborted) return interrupted();
      const args = step.args(state);
      stepStart(i + 1, STEPS.length, step.tool, args);
      try {
        const called = await callTool(client, step.tool, args);
        stepDone(called.ms, await step.check(called, state));
        toolMs += called.ms;
      } catch (error) {
        const failure = error instanceof StepFailure ? error : new StepFailure(error instanceof Error ? error.message : String(error));
        if (signal?.aborted) return interrupted();
        stepFailed(failure);
        return failed(`step ${i + 1} (${step.tool})`, failure, serverLog, options);
      }
      if (options.headed) await sleep(HEADED_PAUSE_MS);
    }
    say();
    say(`Demo passed: ${STEPS.length} steps, ${toolMs} ms in tool calls, ${((performance.now() - started) / 1000).toFixed(1)} s overall.`);
    say(`Screenshot: ${state.screenshotPath}`);
    return 0;
  } catch (error) {
    if (signal?.aborted) return interrupted();
    const failure = error instanceof StepFailure ? error : new StepFailure(error instanceof Error ? error.message : String(error));
    return failed('setup', failure, serverLog, options);
  } finally {
    await closeClient();
    await site?.close();
  }
}

/** Ends the transcript after Ctrl-C; returns 130. */
function interrupted(): number {
  say('  interrupted');
  process.stderr.write('Demo interrupted.\n');
  return 130;
}

/** Reports a failure on stderr (with the server's log tail unless the browser is simply missing); returns 1. */
function failed(where: string, failure: StepFailure, serverLog: string, options: DemoOptions): number {
  process.stderr.write(`\nDemo FAILED at ${where}: ${failure.message}\n`);
  if (failure.hint) process.stderr.write(`hint: ${failure.hint}\n`);
  if (failure.type === 'browser_unavailable' && options.headed && noDisplay()) {
    process.stderr.write('--headed needs a display and none is set (DISPLAY, WAYLAND_DISPLAY): run `npm run demo` without --headed, or under xvfb-run.\n');
  } else if (failure.type === 'browser_unavailable') {
    process.stderr.write('The demo needs a Chromium-family browser that starts here: install one as the hint says, or point TABWRIGHT_BROWSER at it, then run `npm run demo` again.\n');
  } else if (serverLog.trim()) {
    process.stderr.write(`\nServer log (last lines):\n${serverLog.trimEnd().split('\n').slice(-20).join('\n')}\n`);
  }
  return 1;
}

function main(): void {
  let options: DemoOptions;
  try {
    options = parseDemoArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`demo: ${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  const interrupt = new AbortController();
  process.once('SIGINT', () => {
    process.stderr.write('\nInterrupted; closing the browser and the site…\n');
    interrupt.abort();
  });
  runDemo(options, interrupt.signal).then(
    code => process.exit(code),
    error => {
      process.stderr.write(`demo: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
}

main();
