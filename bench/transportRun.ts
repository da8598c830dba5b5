/**
 * The transports phase of `npm run bench` (the report's "Transports" section): tabwright itself on each transport
 * of bench/transports.ts, the same `tabwright mcp` server, the same generated login page (bench/pages.ts
 * `/gen/login`) and the same calls: navigate, snapshot (`get_page_context`), click by ref, type by ref, screenshot.
 * Each transport's server and browser stay up for the whole phase; after one untimed warm-up pass each, every round
 * runs the pass on every transport step by step (each transport's navigate, then each one's snapshot, ...), the
 * order rotated every round, so machine noise hits them alike. Click and type are
 * checked in the DOM after each (outside the timed call). The report divides each transport's median by the
 * managed browser's (target: at most 1.2×; bench/transportReport.ts).
 *
 * Standalone (after `npm run build`), without the peers:
 *
 *   npx tsx bench/transportRun.ts [--rounds 30] [--transports launch,own-chrome] [--chromium /usr/bin/chromium]
 *
 * prints the section's table to stdout.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { machine } from './machine.js';
import { snapshotText, type Ctx } from './measure.js';
import { startSite } from './pages.js';
import { TreeSampler } from './procs.js';
import { entryScript, SPECS, type ServerSpec } from './servers.js';
import { Session } from './session.js';
import { findRef, parseRefs } from './snapshotText.js';
import { transportSection } from './transportReport.js';
import { DEFAULT_TRANSPORT_ROUNDS, REFERENCE_TRANSPORT, TRANSPORT_TARGET_RATIO, TRANSPORTS, type BenchTransport, type TransportSetup } from './transports.js';
import { TRANSPORT_OPS, type Results, type TransportId, type TransportInfo, type TransportOp, type TransportResults, type TransportSample } from './types.js';

/** Stops what the phase started; run.ts calls these on Ctrl-C as well. */
export type Closer = () => Promise<unknown>;

export interface TransportPhase {
  /** Timed rounds. */
  rounds: number;
  /** The transports to measure (ids of TRANSPORTS; the reference is measured whenever another one is). */
  transports: readonly TransportId[];
  /** Every closer of a live server or browser is in this set until it has run. */
  live: Set<Closer>;
  /** True once the run is aborted: stop measuring. */
  aborted(): boolean;
}

export interface Running {
  transport: BenchTransport;
  info: TransportInfo;
  session: Session;
  /** Stop the server, then what the transport started (both also in `phase.live` until they ran). */
  closers: Closer[];
}

/** The tabwright spec with `args` after `mcp` (the transport's flags) and the transport's environment. */
function tabwrightOn(setup: TransportSetup): ServerSpec {
  const tabwright = SPECS.find(s => s.id === 'tabwright')!;
  return { ...tabwright, argv: ({ script }) => [script, 'mcp', ...setup.args], env: { ...tabwright.env, ...setup.env } };
}

/** The DOM check after an action: `expr` evaluated in the page through tabwright's `execute`. */
async function check(session: Session, ctx: Ctx, expr: string, want: string): Promise<boolean> {
  const out = await session.ok(session.spec.evaluate(`() => ${expr}`, session.state), ctx.timeoutMs);
  return `${out.text}\n${JSON.stringify(out.structured ?? {})}`.includes(want);
}

/** Refs a pass reads from its snapshot and uses in its actions. */
export interface PassState {
  button?: string;
  field?: string;
}

type Timed = Omit<TransportSample, 'round' | 'transport'>;

/**
 * The steps of one pass on a fresh load of the login page, in order: navigate, snapshot (its refs for "Sign in"
 * and "Username" kept in `p`), click by ref (then the click checked in the DOM), type by ref (then the value
 * checked), screenshot (its bytes). Each returns its timed call. @throws on a tool error or a missing ref.
 */
export function steps(session: Session, ctx: Ctx, round: number, p: PassState): Array<() => Promise<Timed>> {
  const { spec, state } = session;
  const timed = async (op: TransportOp, call: ReturnType<ServerSpec['snapshot']>) => {
    const result = await session.ok(call, ctx.timeoutMs);
    return { sample: { op, ms: result.ms } as Timed, result };
  };
  const typed = `bench-user-${round}`;
  return [
    async () => (await timed('navigate', spec.navigate(`${ctx.site.origin}/gen/login`, state))).sample,
    async () => {
      const { sample, result } = await timed('snapshot', spec.snapshot(state));
      const nodes = parseRefs(snapshotText(spec, result, session.workspace).text);
      p.button = findRef(nodes, 'button', 'Sign in');
      p.field = findRef(nodes, 'textbox', 'Username');
      if (!p.button || !p.field) throw new Error('login page: no ref for the Sign in button or the Username field in the snapshot');
      return sample;
    },
    async () => {
      const { sample } = await timed('click', spec.click(p.button!, 'Sign in button', state));
      return { ...sample, verified: await check(session, ctx, `'TWC:' + document.body.dataset.clicks`, 'TWC:1') };
    },
    async () => {
      const { sample } = await timed('type', spec.type(p.field!, 'Username textbox', typed, state));
      return { ...sample, verified: await check(session, ctx, `'TWV:' + document.getElementById('user').value`, `TWV:${typed}`) };
    },
    async () => {
      const { sample, result } = await timed('screenshot', spec.screenshot(state));
      return { ...sample, bytes: result.images.reduce((a, b) => a + b, 0) };
    },
  ];
}

/** One whole pass on one transport (the warm-up). */
async function pass(session: Session, ctx: Ctx, round: number): Promise<Timed[]> {
  const out: Timed[] = [];
  for (const step of steps(session, ctx, round, {})) out.push(await step());
  return out;
}

/** Prepares a transport, starts tabwright on it and runs the warm-up pass. @throws when any of it fails (all stopped). */
export async function start(transport: BenchTransport, info: TransportInfo, ctx: Ctx, phase: TransportPhase, referenceBrowser: string[] | undefined): Promise<Running> {
  const setup = await transport.prepare({ chromium: ctx.chromium, referenceBrowser });
  const closeSetup: Closer = () => setup.close();
  phase.live.add(closeSetup);
  let session: Session | undefined;
  let closeSession: Closer | undefined;
  try {
    const spec = tabwrightOn(setup);
    info.command = ['node', 'dist/cli.js', 'mcp', ...setup.args.map(a => (a.startsWith('/tmp/') ? '<tmp>' : /\s/.test(a) ? `'${a}'` : a))];
    info.notes = setup.notes;
    ({ session } = await Session.start(spec, {
      script: entryScript(spec, ctx.root, ctx.cacheDir),
      chromium: ctx.chromium,
      root: ctx.isRoot,
      sampler: ctx.sampler,
      key: `transport:${transport.id}`,
      timeoutMs: ctx.timeoutMs,
    }));
    const s = session;
    closeSession = () => s.close();
    phase.live.add(closeSession);
    await setup.afterStart?.();
    await pass(session, ctx, 0);
    const viewport = await session.ok(session.spec.evaluate(`() => 'TWVP:' + innerWidth + 'x' + innerHeight`, session.state), ctx.timeoutMs);
    info.viewport = /TWVP:(\d+x\d+)/.exec(`${viewport.text} ${JSON.stringify(viewport.structured ?? {})}`)?.[1];
    info.browserCommandLine = setup.browserCommandLine ?? session.browserCommandLine();
    return { transport, info, session, closers: [closeSession, closeSetup] };
  } catch (error) {
    await session?.close();
    await setup.close();
    phase.live.delete(closeSetup);
    if (closeSession) phase.live.delete(closeSession);
    throw error;
  }
}

function rotate<T>(list: readonly T[], by: number): T[] {
  if (!list.length) return [];
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

/**
 * Runs the phase: each transport started (the reference first, whose browser's switches the others copy), the
 * warm-up passes, then `phase.rounds` interleaved rounds. Failures go to `ctx.results.errors` (server `tabwright`,
 * step `transport <id>…`); a transport that fails to start is reported `start_failed` and the others go on.
 * Everything started is stopped before it returns.
 */
export async function measureTransports(ctx: Ctx, phase: TransportPhase): Promise<TransportResults> {
  const wanted = TRANSPORTS.filter(t => t.id === REFERENCE_TRANSPORT || phase.transports.includes(t.id));
  const results: TransportResults = { rounds: phase.rounds, reference: REFERENCE_TRANSPORT, targetRatio: TRANSPORT_TARGET_RATIO, transports: [], samples: [] };
  const running: Running[] = [];
  const started = performance.now();
  const fail = (round: number, id: TransportId, step: string, error: unknown) => {
    const message = `${(error as Error).message ?? error}`;
    ctx.results.errors.push({ round, server: 'tabwright', step: `transport ${id}${step ? `: ${step}` : ''}`, message });
    ctx.log(`  transport ${id}${step ? ` ${step}` : ''}: ${message.slice(0, 200)}`);
  };
  try {
    let referenceBrowser: string[] | undefined;
    for (const transport of wanted) {
      if (phase.aborted()) break;
      const info: TransportInfo = { id: transport.id, label: transport.label, status: 'ok', command: [], notes: [], ...(transport.comparison ? { comparison: true } : {}) };
      results.transports.push(info);
      ctx.log(`transports: starting ${transport.id}`);
      try {
        const r = await start(transport, info, ctx, phase, referenceBrowser);
        running.push(r);
        if (transport.id === REFERENCE_TRANSPORT) referenceBrowser = r.session.browserCommandLine();
      } catch (error) {
        info.status = 'start_failed';
        info.error = (error as Error).message;
        fail(0, transport.id, 'start', error);
      }
    }
    for (let round = 1; round <= phase.rounds && !phase.aborted(); round++) {
      const order = rotate(running.filter(r => !r.session.lost), round - 1);
      if (round === 1 || round % 10 === 0) ctx.log(`transports round ${round}/${phase.rounds}: ${order.map(r => r.transport.id).join(' → ')}`);
      // Step by step across the transports (all navigate, then all snapshot, ...): a burst of load on this shared
      // machine then hits every transport's same operation alike.
      const passes = order.map(r => ({ r, steps: steps(r.session, ctx, round, {}), failed: false }));
      for (let i = 0; i < TRANSPORT_OPS.length && !phase.aborted(); i++) {
        for (const p of passes) {
          if (p.failed || phase.aborted()) continue;
          try {
            results.samples.push({ round, transport: p.r.transport.id, ...(await p.steps[i]!()) });
          } catch (error) {
            p.failed = true;
            if (!phase.aborted()) fail(round, p.r.transport.id, `round ${round} ${TRANSPORT_OPS[i]}`, error);
          }
        }
      }
    }
  } finally {
    for (const r of running) {
      for (const close of r.closers) {
        await close().catch(error => ctx.log(`  transport ${r.transport.id}: closing: ${(error as Error).message}`));
        phase.live.delete(close);
      }
    }
    ctx.log(`transports: ${results.samples.length} samples in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  return results;
}

/**
 * The context of a standalone run (this file's, bench/transportTrace.ts'): the bench's site started, empty results,
 * log lines to stderr. `timeoutMs`: one tool call's bound.
 */
export async function standaloneCtx(chromium: string, timeoutMs: number): Promise<Ctx> {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const site = await startSite();
  const startedAt = new Date().toISOString();
  const results: Results = {
    schema: 1, startedAt, finishedAt: startedAt, options: { rounds: 0, quick: false }, machine: machine(chromium), servers: [], pages: [], samples: [], errors: [],
  };
  return { results, site, root, cacheDir: join(root, 'bench', 'cache'), chromium, isRoot: process.getuid?.() === 0, sampler: new TreeSampler(100), timeoutMs, slowTimeoutMs: 180_000, log: line => process.stderr.write(`${line}\n`) };
}

/** `npx tsx bench/transportRun.ts`: the phase alone, its table printed. */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: String(DEFAULT_TRANSPORT_ROUNDS) }, transports: { type: 'string', default: TRANSPORTS.map(t => t.id).join(',') }, chromium: { type: 'string', default: '/usr/bin/chromium' } } });
  const ctx = await standaloneCtx(values.chromium!, 60_000);
  const { results, site } = ctx;
  const live = new Set<Closer>();
  let aborted = false;
  process.on('SIGINT', () => {
    aborted = true;
  });
  try {
    const tr = await measureTransports(ctx, { rounds: Number(values.rounds), transports: values.transports!.split(',') as TransportId[], live, aborted: () => aborted });
    process.stdout.write(`${transportSection(tr, results.errors)}\n`);
  } finally {
    await Promise.all([...live].map(close => close().catch(() => undefined)));
    await site.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().then(() => process.exit(0), error => {
    process.stderr.write(`${(error as Error).stack ?? error}\n`);
    process.exit(1);
  });
}
