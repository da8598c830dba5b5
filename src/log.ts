/**
 * Logging for tabwright. Everything goes to stderr (or to the file named by
 * `--log-file` / `TABWRIGHT_LOG_FILE`): stdout of the MCP stdio server carries
 * protocol frames only (docs/mcp.md, "Lifecycle").
 *
 * Levels: `TABWRIGHT_LOG=debug|info|warn|error|silent` (default `warn`), or
 * `DEBUG=tabwright*` for debug output.
 */
import { appendFileSync } from 'node:fs';
import { format } from 'node:util';

type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const order: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };

let threshold: Level = pickLevel();
let logFile: string | undefined = process.env.TABWRIGHT_LOG_FILE || undefined;

function pickLevel(): Level {
  const env = process.env.TABWRIGHT_LOG as Level | undefined;
  if (env && env in order) return env;
  if (/(^|,)\s*tabwright/.test(process.env.DEBUG ?? '')) return 'debug';
  return 'warn';
}

/** Sends logs to `file` (appended) instead of stderr; `undefined` restores stderr. */
export function setLogFile(file: string | undefined): void {
  logFile = file;
}

/** Sets the minimum level that is written. */
export function setLogLevel(level: Level): void {
  threshold = level;
}

function write(level: Level, ns: string, args: unknown[]): void {
  if (order[level] < order[threshold]) return;
  const line = `${new Date().toISOString()} ${level} [${ns}] ${format(...args)}\n`;
  if (logFile) {
    try {
      appendFileSync(logFile, line);
      return;
    } catch {
      // fall through to stderr
    }
  }
  process.stderr.write(line);
}

/** A namespaced logger; `ns` names the module (`browser`, `mcp`, ...). */
export function logger(ns: string) {
  return {
    debug: (...args: unknown[]) => write('debug', ns, args),
    info: (...args: unknown[]) => write('info', ns, args),
    warn: (...args: unknown[]) => write('warn', ns, args),
    error: (...args: unknown[]) => write('error', ns, args),
  };
}
