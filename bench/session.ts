/**
 * One server process driven over stdio with the official MCP client: spawn,
 * initialize, timed tool calls with a bounded timeout, and a close that
 * leaves nothing running (client close, then SIGKILL by pid for any process
 * of its tree that outlives a grace period).
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { LensInput } from '../test/fixtures/clientLens.js';
import { killTree, stillRunning, type TreeSampler } from './procs.js';
import type { AdapterState, Call, ServerSpec } from './servers.js';

/** What a tool call returned, as the bench reads it. */
export interface CallOutcome {
  ms: number;
  /** All text content blocks, joined by newlines. */
  text: string;
  structured?: Record<string, unknown>;
  /** Decoded bytes of each image content block. */
  images: number[];
  isError: boolean;
  /** Size of the result as JSON (roughly what crossed the wire). */
  wireBytes: number;
  /** The CallToolResult as received: what the client lens (bench/lens.ts) reads. */
  raw: LensInput;
}

/** Rejects after `ms` with a message naming `what`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]);
}

export class Session {
  readonly state: AdapterState = {};
  private stderrTail = '';
  private closed = false;
  /** The connection closed without us closing it (the server exited or crashed). */
  lost = false;

  private constructor(
    readonly spec: ServerSpec,
    readonly client: Client,
    readonly transport: StdioClientTransport,
    readonly workspace: string,
    readonly pid: number,
    private sampler: TreeSampler,
    private key: string,
  ) {
    transport.stderr?.on('data', (d: Buffer) => {
      this.stderrTail = (this.stderrTail + d.toString()).slice(-2000);
    });
    client.onclose = () => {
      if (!this.closed) this.lost = true;
    };
  }

  /**
   * Spawns the server and completes the MCP handshake. Starts memory sampling
   * of its process tree as soon as the pid exists. `initializeMs` is spawn →
   * initialized.
   */
  static async start(
    spec: ServerSpec,
    opts: { script: string; chromium: string; root: boolean; sampler: TreeSampler; key: string; timeoutMs: number },
  ): Promise<{ session: Session; initializeMs: number; t0: number }> {
    const workspace = mkdtempSync(join(tmpdir(), `twbench-${spec.id}-`));
    for (const [name, body] of Object.entries(spec.files?.(opts) ?? {})) writeFileSync(join(workspace, name), body);
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ...spec.env };
    if (spec.id === 'tabwright') {
      // The run's own workspace, config and data dirs: no user rules apply and no consent audit lands in the user's data dir.
      env.TABWRIGHT_WORKSPACE = workspace;
      env.TABWRIGHT_CONFIG_DIR = join(workspace, '.config');
      env.TABWRIGHT_DATA_DIR = join(workspace, '.data');
      // Default settings, as a user gets them: the test runner's structured mode must not leak in from the environment.
      delete env.TABWRIGHT_STRUCTURED_CONTENT;
    }
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: spec.argv({ script: opts.script, chromium: opts.chromium, workspace, root: opts.root }),
      env,
      cwd: workspace,
      stderr: 'pipe',
      maxBufferSize: 512 * 1024 * 1024,
    });
    const client = new Client({ name: 'tabwright-bench', version: '0.1.0' });
    const t0 = performance.now();
    let settled = false;
    const connecting = client.connect(transport).finally(() => {
      settled = true;
    });
    connecting.catch(() => undefined); // handled below, after the pid watch
    // The pid exists once connect() has started the transport: watch for it, to sample memory from the start.
    let pid = transport.pid;
    while (!pid && !settled) {
      await new Promise(r => setTimeout(r, 2));
      pid = transport.pid;
    }
    if (pid) opts.sampler.track(opts.key, pid);
    try {
      await withTimeout(connecting, opts.timeoutMs, `${spec.id} initialize`);
    } catch (error) {
      await client.close().catch(() => undefined);
      if (pid) killTree(opts.sampler.untrack(opts.key));
      rmSync(workspace, { recursive: true, force: true });
      throw error;
    }
    const initializeMs = performance.now() - t0;
    if (!pid) throw new Error(`${spec.id}: no pid after start`);
    return { session: new Session(spec, client, transport, workspace, pid, opts.sampler, opts.key), initializeMs, t0 };
  }

  /** The last lines the server wrote to stderr (for error reports). */
  stderr(): string {
    return this.stderrTail.trim().split('\n').slice(-3).join(' | ');
  }

  /** Calls a tool and times the round trip (client send → result parsed). */
  async call(call: Call, timeoutMs: number): Promise<CallOutcome> {
    const t = performance.now();
    const result = await this.client.callTool({ name: call.name, arguments: call.args }, { timeout: timeoutMs, maxTotalTimeout: timeoutMs });
    const ms = performance.now() - t;
    const content = (result.content ?? []) as Array<{ type: string; text?: string; data?: string }>;
    return {
      ms,
      text: content.filter(c => c.type === 'text').map(c => c.text ?? '').join('\n'),
      structured: result.structuredContent as Record<string, unknown> | undefined,
      images: content.filter(c => c.type === 'image' && c.data).map(c => Buffer.from(c.data!, 'base64').length),
      isError: result.isError === true,
      wireBytes: Buffer.byteLength(JSON.stringify(result)),
      raw: result as LensInput,
    };
  }

  /** Like `call`, but a tool error result throws (with the server's message). */
  async ok(call: Call, timeoutMs: number): Promise<CallOutcome> {
    const out = await this.call(call, timeoutMs);
    if (out.isError) throw new Error(`${call.name} returned an error: ${out.text.slice(0, 300)}`);
    return out;
  }

  /** Memory peaks of the process tree so far (MiB). */
  peaks(): { nodeMiB: number; treeMiB: number } | undefined {
    return this.sampler.peaks(this.key);
  }

  /** The Chromium browser process's command line, read from /proc (undefined if not found). */
  browserCommandLine(): string[] | undefined {
    return this.sampler.commandLines(this.key).find(argv => /(^|\/)(chromium|chromium-browser|chrome|google-chrome|headless_shell)$/.test(argv[0] ?? '') && !argv.some(a => a.startsWith('--type=')));
  }

  /**
   * Closes the client (the server sees stdin end and closes its browser),
   * waits up to `graceMs` for the tree to exit, then SIGKILLs what is left.
   * Returns how many processes had to be killed.
   */
  async close(graceMs = 5000): Promise<number> {
    if (this.closed) return 0;
    this.closed = true;
    this.sampler.sample();
    await withTimeout(this.client.close(), graceMs, 'close').catch(() => undefined);
    const seen = this.sampler.untrack(this.key);
    const deadline = Date.now() + graceMs;
    while (stillRunning(seen).length && Date.now() < deadline) await new Promise(r => setTimeout(r, 100));
    const killed = killTree(seen);
    rmSync(this.workspace, { recursive: true, force: true });
    return killed;
  }
}
