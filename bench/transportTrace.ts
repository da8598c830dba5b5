/**
 * Where a transport's time goes, one operation at a time (docs/bench.md, "Transports"): the CDP traffic of each
 * step of the transports pass (bench/transportRun.ts: navigate, snapshot, click, type, screenshot on a fresh load of
 * the login page), counted per transport from Playwright's own protocol log (`DEBUG=pw:protocol` in the server:
 * every command it sends and every answer and event it receives, on the managed browser's pipe as through the
 * relay). Standalone, not part of `npm run bench`:
 *
 *   npx tsx bench/transportTrace.ts [--rounds 3] [--transports launch,extension] [--top 8] [--dump DIR]
 *
 * After one warm-up pass per transport, `--rounds` passes are traced; per step and transport it prints the median
 * count of commands sent, their bytes, the bytes received (answers and events), and the commands that cost most,
 * by method (count, bytes sent). Click and type include their DOM check (one `execute` call, a few commands).
 * `--dump DIR` writes each step's log lines to DIR/<round>-<transport>-<step>.log. Timing is not its business (the
 * log itself slows the server): bench/transportRun.ts times, this counts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './stats.js';
import { standaloneCtx, start, steps, type Closer, type Running } from './transportRun.js';
import { REFERENCE_TRANSPORT, TRANSPORTS, type BenchTransport } from './transports.js';
import { TRANSPORT_OPS, type TransportId, type TransportInfo, type TransportOp } from './types.js';

/** The CDP traffic of one step. */
interface Traffic {
  commands: number;
  sentBytes: number;
  receivedBytes: number;
  /** By method: count and bytes sent. */
  byMethod: Map<string, { count: number; bytes: number }>;
}

/** Playwright's protocol log line: `… pw:protocol SEND ► {json}` or `… pw:protocol ◀ RECV {json}`. */
const LINE = /pw:protocol (SEND ►|◀ RECV) (\{.*\})/;

/** Counts the protocol log `text` (whole lines of the server's stderr). */
export function countTraffic(text: string): Traffic {
  const traffic: Traffic = { commands: 0, sentBytes: 0, receivedBytes: 0, byMethod: new Map() };
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    if (!match) continue;
    const bytes = Buffer.byteLength(match[2]!);
    if (match[1] === 'SEND ►') {
      traffic.commands++;
      traffic.sentBytes += bytes;
      const method = /"method":"([^"]+)"/.exec(match[2]!)?.[1] ?? '?';
      const entry = traffic.byMethod.get(method) ?? { count: 0, bytes: 0 };
      entry.count++;
      entry.bytes += bytes;
      traffic.byMethod.set(method, entry);
    } else {
      traffic.receivedBytes += bytes;
    }
  }
  return traffic;
}

/** The transport with `DEBUG=pw:protocol` in its server's environment. */
function traced(transport: BenchTransport): BenchTransport {
  return {
    ...transport,
    prepare: async opts => {
      const setup = await transport.prepare(opts);
      return { ...setup, env: { ...setup.env, DEBUG: 'pw:protocol' } };
    },
  };
}

/** The server's stderr as it grows, and the whole lines written since the last `take()`. */
class StderrLog {
  private text = '';

  constructor(running: Running) {
    running.session.transport.stderr?.on('data', (d: Buffer) => {
      this.text += d.toString();
    });
  }

  take(): string {
    const end = this.text.lastIndexOf('\n') + 1;
    const out = this.text.slice(0, end);
    this.text = this.text.slice(end);
    return out;
  }
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, transports: { type: 'string', default: 'launch,extension' }, top: { type: 'string', default: '8' }, dump: { type: 'string' }, chromium: { type: 'string', default: '/usr/bin/chromium' } } });
  const ctx = await standaloneCtx(values.chromium!, 120_000);
  if (values.dump) mkdirSync(values.dump, { recursive: true });
  const live = new Set<Closer>();
  const wanted = values.transports!.split(',') as TransportId[];
  const running: Array<{ r: Running; log: StderrLog }> = [];
  const traffic = new Map<string, Traffic[]>();
  try {
    let referenceBrowser: string[] | undefined;
    for (const transport of TRANSPORTS.filter(t => t.id === REFERENCE_TRANSPORT || wanted.includes(t.id))) {
      const info: TransportInfo = { id: transport.id, label: transport.label, status: 'ok', command: [], notes: [] };
      const r = await start(traced(transport), info, ctx, { rounds: 0, transports: wanted, live, aborted: () => false }, referenceBrowser);
      if (transport.id === REFERENCE_TRANSPORT) referenceBrowser = r.session.browserCommandLine();
      const log = new StderrLog(r);
      running.push({ r, log });
    }
    for (let round = 1; round <= Number(values.rounds); round++) {
      for (const { r, log } of running) {
        const pass = steps(r.session, ctx, round, {});
        log.take();
        for (let i = 0; i < pass.length; i++) {
          await pass[i]!();
          // The DOM checks of click and type (execute) come after the step: the log up to here is the step's own.
          await new Promise(resolve => setTimeout(resolve, 200));
          const key = `${r.transport.id} ${TRANSPORT_OPS[i]}`;
          const text = log.take();
          if (values.dump) writeFileSync(join(values.dump, `${round}-${r.transport.id}-${TRANSPORT_OPS[i]}.log`), text);
          traffic.set(key, [...(traffic.get(key) ?? []), countTraffic(text)]);
        }
      }
    }
  } finally {
    for (const { r } of running) for (const close of r.closers) await close().catch(() => undefined);
    await ctx.site.close();
  }
  const top = Number(values.top);
  for (const op of TRANSPORT_OPS as readonly TransportOp[]) {
    for (const { r } of running) {
      const samples = traffic.get(`${r.transport.id} ${op}`) ?? [];
      if (!samples.length) continue;
      const methods = new Map<string, { count: number; bytes: number }>();
      for (const s of samples) {
        for (const [m, e] of s.byMethod) {
          const acc = methods.get(m) ?? { count: 0, bytes: 0 };
          methods.set(m, { count: acc.count + e.count / samples.length, bytes: acc.bytes + e.bytes / samples.length });
        }
      }
      const heaviest = [...methods].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top);
      process.stdout.write(`${op} · ${r.transport.id}: ${median(samples.map(s => s.commands))} commands, sent ${kb(median(samples.map(s => s.sentBytes)))}, received ${kb(median(samples.map(s => s.receivedBytes)))}\n`);
      process.stdout.write(`  ${heaviest.map(([m, e]) => `${m} ×${e.count.toFixed(1)} ${kb(e.bytes)}`).join(' · ')}\n`);
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().then(() => process.exit(0), error => {
    process.stderr.write(`${(error as Error).stack ?? error}\n`);
    process.exit(1);
  });
}
