/**
 * `bridge.json` in the config dir: how a follower finds and
 * authenticates to the leader. Written by the leader once it holds the
 * relay port, mode 0600 (only the same user can read the token), atomically
 * (temp + rename); removed by the leader when it lets go of the port.
 * The file keeps its name and shape across versions: followers of older
 * builds read it.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The contents of bridge.json. */
export interface LeaderFile {
  /** The leader's process id. */
  pid: number;
  /** The relay port it listens on (127.0.0.1). */
  port: number;
  /** 32 random bytes, hex: the follower presents it in `hello`. */
  token: string;
  /** The leader's package version (as advertised). */
  version: string;
  relayProtocol: number;
  /** The profile dir of the leader's browser: only processes on the same profile follow it. */
  profile: string;
}

/** Path of bridge.json in `configDir`. */
export function leaderFilePath(configDir: string): string {
  return join(configDir, 'bridge.json');
}

/** Writes bridge.json atomically, mode 0600 (the config dir is created 0700 when missing). */
export function writeLeaderFile(configDir: string, file: LeaderFile): void {
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const path = leaderFilePath(configDir);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(file)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600); // the umask may have narrowed it; never wider than 0600
  renameSync(tmp, path);
}

/** Reads bridge.json; undefined when missing or malformed. */
export function readLeaderFile(configDir: string): LeaderFile | undefined {
  try {
    const value = JSON.parse(readFileSync(leaderFilePath(configDir), 'utf8')) as Partial<LeaderFile>;
    if (typeof value.pid !== 'number' || typeof value.port !== 'number' || typeof value.token !== 'string' || typeof value.profile !== 'string') return undefined;
    return value as LeaderFile;
  } catch {
    return undefined;
  }
}

/** Removes bridge.json if it is still this leader's (same token): a newer leader's file is left alone. */
export function removeLeaderFile(configDir: string, token: string): void {
  if (readLeaderFile(configDir)?.token === token) rmSync(leaderFilePath(configDir), { force: true });
}
