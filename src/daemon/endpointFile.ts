/**
 * `<config dir>/daemon.json` (docs/daemon.md "The endpoint file"):
 * where the daemon listens and its token. Mode 0600, written atomically
 * (temp + rename) only once the socket listens, removed on exit, so it
 * exists only while the endpoint is live.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFile } from '../util/privateFile.js';

/** What daemon.json holds. */
export interface DaemonEndpoint {
  pid: number;
  port: number;
  /** 32 random bytes, hex: `<config dir>/daemon-token`'s (./token.ts), the same across restarts. */
  token: string;
  /** Package version of the daemon. */
  version: string;
  /** ISO 8601. */
  startedAt: string;
  /** Version of the HTTP API (docs/daemon.md). */
  protocol: number;
  /** The daemon decodes `x-tabwright-workspace-encoding: uri`. */
  workspaceEncoding: 'uri';
}

/** The endpoint file's path in `configDir`. */
export function endpointPath(configDir: string): string {
  return join(configDir, 'daemon.json');
}

/** The endpoint file's content, or undefined when it is missing or unreadable. */
export function readEndpoint(configDir: string): DaemonEndpoint | undefined {
  try {
    const value = JSON.parse(readFileSync(endpointPath(configDir), 'utf8')) as DaemonEndpoint;
    return typeof value?.pid === 'number' && typeof value.port === 'number' && typeof value.token === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}


/** Writes the endpoint file: temp file of mode 0600 in the same folder, then rename. */
export function writeEndpoint(configDir: string, endpoint: DaemonEndpoint): void {
  writePrivateFile(endpointPath(configDir), `${JSON.stringify(endpoint, null, 2)}\n`);
}

/** Removes the endpoint file if it is still this daemon's (same pid and token). */
export function removeEndpoint(configDir: string, endpoint: Pick<DaemonEndpoint, 'pid' | 'token'>): void {
  const current = readEndpoint(configDir);
  if (current && (current.pid !== endpoint.pid || current.token !== endpoint.token)) return;
  rmSync(endpointPath(configDir), { force: true });
}
