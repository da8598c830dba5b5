/**
 * `tabwright userscript` and `tabwright userscript url` (docs/userscript-connection.md, "Install"): the install URL
 * of the companion userscript, and the broker URL with its token that the user pastes once into the companion's
 * menu. Both are served by the leading process of `--connection userscript` on the relay port.
 */
import { COMPANION_PATH, USERSCRIPT_PREFIX } from '../browser/userscript/protocol.js';
import { userscriptToken } from '../browser/userscript/token.js';
import { configDir } from '../config.js';
import { readLeaderFile } from '../relay/leaderFile.js';
import { relayPort } from '../relay/protocol.js';
import { processAlive } from '../util/processes.js';
import type { Command } from './commander.js';
import { respond } from './toolCommand.js';

/** The port the broker is on, and whether a leading process of the userscript kind serves it now. */
function broker(): { port: number; serving: boolean; note?: string } {
  const leader = readLeaderFile(configDir());
  const alive = leader !== undefined && processAlive(leader.pid);
  const serving = alive && leader!.profile === 'userscript';
  const port = alive ? leader!.port : relayPort();
  return serving ? { port, serving } : {
    port,
    serving,
    note: alive
      ? 'The running tabwright process drives another connection: start the server with --connection userscript for the broker to serve.'
      : 'No tabwright process serves it now: start the server with --connection userscript (an MCP client or `tabwright daemon start --connection userscript`).',
  };
}

/** Adds `userscript` (the install URL) and `userscript url` (the broker URL with its token) to `program`. */
export function addUserscriptCommands(program: Command): void {
  const userscript = program.command('userscript').description('the companion userscript that opts tabs of any browser in (Firefox, Safari, ...): its install URL')
    .action(() => respond(async () => {
      const { port, serving, note } = broker();
      return { installUrl: `http://127.0.0.1:${port}${COMPANION_PATH}`, serving, ...(note ? { note } : {}) };
    }));
  userscript.command('url').description('the broker URL with its token, to paste once into the companion\'s menu (keep it private; delete the token file to rotate it)')
    .action(() => respond(async () => {
      const { port, serving, note } = broker();
      return { url: `http://127.0.0.1:${port}${USERSCRIPT_PREFIX}/${userscriptToken(configDir())}`, serving, ...(note ? { note } : {}) };
    }));
}
