/**
 * Command-line options of `npm run bench -- [options]`.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_TRANSPORT_ROUNDS, QUICK_TRANSPORT_ROUNDS, TRANSPORTS } from './transports.js';
import { SERVER_IDS, type ServerId, type TransportId } from './types.js';

export interface Options {
  rounds: number;
  quick: boolean;
  /** Folder of real pages (*.html), served from 127.0.0.1; absent: generated pages only. */
  corpus?: string;
  /** The corpus folder as given on the command line (for the report). */
  corpusArg?: string;
  chromium: string;
  servers: ServerId[];
  /** Timeout of one tool call (ms); large-page and corpus calls get 3×. */
  timeoutMs: number;
  outDir?: string;
  /** The transports section (bench/transportRun.ts): which transports (empty: skip it) and how many timed rounds. */
  transports: TransportId[];
  transportRounds: number;
}

export const USAGE = `npm run bench -- [options]

  --quick            1 round, generated pages only (a smoke check, about a minute)
  --rounds N         rounds (default 5)
  --corpus DIR       also measure the real pages DIR/*.html (e.g. ../shared/corpus/pages)
  --chromium PATH    browser for all three servers (default /usr/bin/chromium)
  --only a,b         only these servers: ${SERVER_IDS.join(', ')}
  --timeout-ms N     timeout of one tool call (default 60000; large pages get 3×)
  --transports LIST  tabwright per transport, against the managed browser: ${TRANSPORTS.map(t => t.id).join(',')} (default), or none
  --transport-rounds N  timed rounds of the transports section (default ${DEFAULT_TRANSPORT_ROUNDS}; --quick ${QUICK_TRANSPORT_ROUNDS})
  --out DIR          where results go (default bench/results)
  --help             this text`;

export const DEFAULT_ROUNDS = 5;

/** Parses argv; throws with a message on a bad option. */
export function parseArgs(argv: string[]): Options | 'help' {
  const o: Options = { rounds: DEFAULT_ROUNDS, quick: false, chromium: '/usr/bin/chromium', servers: [...SERVER_IDS], timeoutMs: 60_000, transports: TRANSPORTS.map(t => t.id), transportRounds: DEFAULT_TRANSPORT_ROUNDS };
  let roundsGiven = false;
  let transportRoundsGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    switch (a) {
      case '--help':
      case '-h':
        return 'help';
      case '--quick':
        o.quick = true;
        break;
      case '--rounds':
        o.rounds = Number(value());
        roundsGiven = true;
        if (!Number.isInteger(o.rounds) || o.rounds < 1) throw new Error('--rounds must be a positive integer');
        break;
      case '--corpus':
        o.corpusArg = value();
        o.corpus = resolve(o.corpusArg);
        if (!existsSync(o.corpus) || !statSync(o.corpus).isDirectory()) throw new Error(`--corpus ${o.corpusArg}: not a folder`);
        break;
      case '--chromium':
        o.chromium = value();
        break;
      case '--only':
        o.servers = value().split(',').map(s => s.trim()) as ServerId[];
        for (const s of o.servers) if (!SERVER_IDS.includes(s)) throw new Error(`--only: unknown server ${s}`);
        break;
      case '--timeout-ms':
        o.timeoutMs = Number(value());
        if (!(o.timeoutMs >= 1000)) throw new Error('--timeout-ms must be at least 1000');
        break;
      case '--transports': {
        const list = value();
        o.transports = list === 'none' ? [] : (list.split(',').map(s => s.trim()) as TransportId[]);
        for (const t of o.transports) if (!TRANSPORTS.some(x => x.id === t)) throw new Error(`--transports: unknown transport ${t} (${TRANSPORTS.map(x => x.id).join(', ')}, or none)`);
        break;
      }
      case '--transport-rounds':
        o.transportRounds = Number(value());
        transportRoundsGiven = true;
        if (!Number.isInteger(o.transportRounds) || o.transportRounds < 1) throw new Error('--transport-rounds must be a positive integer');
        break;
      case '--out':
        o.outDir = resolve(value());
        break;
      default:
        throw new Error(`unknown option ${a}\n\n${USAGE}`);
    }
  }
  if (o.quick && !roundsGiven) o.rounds = 1;
  if (o.quick && !transportRoundsGiven) o.transportRounds = QUICK_TRANSPORT_ROUNDS;
  return o;
}
