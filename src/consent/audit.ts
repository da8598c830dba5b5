/**
 * The consent audit log: every gated decision is appended as one
 * JSON line to `consent-audit.jsonl` in the data dir (mode 0600): time,
 * origin, tool, decision, channel. Never the call's arguments.
 */
import { appendFileSync, chmodSync, closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { logger } from '../log.js';

const log = logger('consent');

/**
 * How the decision was reached: a saved override, a rule, the defaults, the
 * broken-rules fallback, `--auto-allow`/`--auto-deny`, or the human through a
 * prompt channel (`elicitation`, `terminal`, `cli` = the daemon's HTTP caller, `browser` = the extension's window,
 * `dashboard` = the local dashboard's page, `consent_cli` = `tabwright consent answer`); `none` when no channel could
 * ask.
 */
export type AuditChannel = 'override' | 'rules' | 'script' | 'default' | 'rules_invalid' | 'auto' | 'elicitation' | 'terminal' | 'browser' | 'cli' | 'run' | 'dashboard' | 'consent_cli' | 'none';

export interface AuditEntry {
  /** ISO 8601. */
  time: string;
  origin: string;
  tool: string;
  scriptId?: string;
  tabId?: number;
  decision: 'allowed' | 'denied' | 'expired' | 'unavailable' | 'cancelled';
  channel: AuditChannel;
  /** What the human answered, for prompted decisions: once, always, deny, never. */
  answer?: string;
}

/** `consent-audit.jsonl` in the data dir. */
export function auditPath(dataDir: string): string {
  return join(dataDir, 'consent-audit.jsonl');
}

/** Appends one entry. A log that cannot be written is reported on stderr; the decision stands. */
export function appendAudit(dataDir: string, entry: AuditEntry): void {
  const file = auditPath(dataDir);
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    appendFileSync(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  } catch (error) {
    log.error(`cannot append to the consent audit log ${file}:`, (error as Error).message);
  }
}

/** How many bytes of the log's end `readAudit` reads at most. */
const AUDIT_TAIL_BYTES = 256 * 1024;

/**
 * The newest `limit` entries, newest first (read from the log's last 256 KiB; lines that do not parse are skipped).
 * None when the log does not exist or cannot be read.
 */
export function readAudit(dataDir: string, limit: number): AuditEntry[] {
  let fd: number | undefined;
  try {
    fd = openSync(auditPath(dataDir), 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, AUDIT_TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    if (length < size) lines.shift(); // the first line may be cut
    const entries: AuditEntry[] = [];
    for (let i = lines.length - 1; i >= 0 && entries.length < limit; i--) {
      try {
        if (lines[i]!.trim()) entries.push(JSON.parse(lines[i]!) as AuditEntry);
      } catch {
        // A line being appended, or damaged: skipped.
      }
    }
    return entries;
  } catch {
    return [];
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
