/**
 * The tabs in scope of the user's Chrome, kept between tabwright leaders (docs/own-browser.md, "Sharing tabs"):
 * the leader holds the one browser socket, so when it exits and another process takes over, the new leader opens
 * its own socket, and without this file the tabs the user shared and the tabs the agent opened would drop out of
 * reach. `<dataDir>/own-chrome-scope.json` (mode 0600, written whole: src/util/privateFile.ts) names the
 * browser run it belongs to (its DevToolsActivePort browser path, new each time Chrome starts) and the target
 * ids; a file of another profile or another run of the browser is ignored. It holds no page content and no
 * secret: target ids, which are valid only inside that browser run.
 *
 * Shape: `{ profileDir, browserPath, shared: string[], agents: string[] }`.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { logger } from '../../log.js';
import { parseActivePort, type ActivePort } from './activePort.js';
import { writePrivateFile } from '../../util/privateFile.js';

const log = logger('own-chrome');

/** The tabs in scope by target id. */
export interface Scope {
  shared: string[];
  agents: string[];
}

/** `<dataDir>/own-chrome-scope.json`. */
export function scopePath(dataDir: string): string {
  return join(dataDir, 'own-chrome-scope.json');
}

/** The scope kept for this run of the browser `port` names; empty when none is kept (or the file is another's). */
export function readScope(dataDir: string, port: ActivePort): Scope {
  try {
    const file = JSON.parse(readFileSync(scopePath(dataDir), 'utf8')) as Partial<Scope & { profileDir: string; browserPath: string }>;
    if (file.profileDir !== port.profileDir || file.browserPath !== port.browserPath) return { shared: [], agents: [] };
    const ids = (list: unknown) => (Array.isArray(list) ? list.filter((id): id is string => typeof id === 'string') : []);
    return { shared: ids(file.shared), agents: ids(file.agents) };
  } catch {
    return { shared: [], agents: [] };
  }
}

/** Writes the scope of the browser run `port` names (an empty scope removes the file). Failures are logged, not thrown. */
export function writeScope(dataDir: string, port: ActivePort, scope: Scope): void {
  const file = scopePath(dataDir);
  try {
    if (!scope.shared.length && !scope.agents.length) {
      rmSync(file, { force: true });
      return;
    }
    writePrivateFile(file, `${JSON.stringify({ profileDir: port.profileDir, browserPath: port.browserPath, ...scope })}\n`);
  } catch (error) {
    log.warn(`could not keep the tabs in scope in ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * True when the scope file keeps tabs for the browser run now named by the DevToolsActivePort of its profile (of
 * `profileDir` when one is configured): an earlier leader had them in scope, so a tool that never connects on its
 * own (list_tabs) connects to show them. Reads two small files; no socket.
 */
export function keptScopeWaits(dataDir: string, profileDir: string | undefined): boolean {
  try {
    const file = JSON.parse(readFileSync(scopePath(dataDir), 'utf8')) as { profileDir?: unknown; browserPath?: unknown; shared?: unknown[]; agents?: unknown[] };
    if (typeof file.profileDir !== 'string' || (profileDir !== undefined && file.profileDir !== profileDir)) return false;
    if (!(file.shared?.length || file.agents?.length)) return false;
    const port = parseActivePort(readFileSync(join(file.profileDir, 'DevToolsActivePort'), 'utf8'), file.profileDir);
    return port?.browserPath === file.browserPath;
  } catch {
    return false;
  }
}
