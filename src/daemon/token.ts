/**
 * The daemon's token (docs/daemon.md, "The token"): 32 random bytes as 64 hex characters in
 * `<config dir>/daemon-token`, mode 0600, created on first use and kept across daemon restarts, so an HTTP-only
 * client's entry (`tabwright mcp-config --client http`) stays valid; deleting the file rotates it (the next daemon
 * start makes a new one). The daemon also writes it to daemon.json, where the CLI reads it. Never logged, never in
 * a process's arguments.
 */
import { join } from 'node:path';
import { ensureSecret, HEX_TOKEN, newHexToken } from '../util/secretFile.js';

/** The token file's name in the config dir. */
export const DAEMON_TOKEN_FILE = 'daemon-token';

/** The token file's path in `configDir`. */
export function daemonTokenPath(configDir: string): string {
  return join(configDir, DAEMON_TOKEN_FILE);
}

/**
 * The daemon's token, creating `<configDir>/daemon-token` when it is missing or does not hold one.
 * @throws the fs error when the file cannot be read or written.
 */
export function daemonToken(configDir: string): string {
  return ensureSecret(daemonTokenPath(configDir), HEX_TOKEN, newHexToken);
}
