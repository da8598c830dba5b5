/**
 * Where a process gets its Dispatcher. A process on a persistent
 * profile joins the relay (src/relay/relayDispatcher.ts): it leads (owns the
 * browser) or follows (relays to the leader). An `--isolated` process has a
 * temporary profile nobody else can share: it runs alone, off the relay;
 * so does a process attached to a remote browser (each attaches itself).
 * The user's own browser (`--own-chrome`, the extension) is shared through the relay like a
 * launched profile: one upstream connection, held by the leader (docs/own-browser.md).
 */
import type { Config } from '../config.js';
import { RelayDispatcher } from '../relay/relayDispatcher.js';
import { relayPort } from '../relay/protocol.js';
import type { Dispatcher } from './dispatcher.js';
import { localDispatcher } from './local.js';

/**
 * The dispatcher this process serves its fronts with. Never starts the
 * browser (that is lazy, on the first call that needs it).
 * @throws Error when TABWRIGHT_WS_PORT is not a port number (a port that cannot be bound for another reason than
 *   being in use, e.g. EACCES, makes the process run alone with a warning).
 */
export async function createDispatcher(config: Config): Promise<Dispatcher> {
  // A remote browser is shared by attaching to it, and an --isolated profile cannot be shared: both run alone.
  // The extension dials the relay port whatever the profile: its connection always sits behind the relay.
  // So does the companion userscript: its broker is served on the relay port (docs/userscript-connection.md).
  if (config.remote || (config.isolated && config.own?.kind !== 'extension' && config.own?.kind !== 'userscript')) return localDispatcher(config);
  return RelayDispatcher.start(config, relayPort());
}
