/**
 * Where a process gets its Dispatcher (issue #7). Today: a LocalDispatcher
 * on a managed Chromium. The relay (src/relay) makes this choose between
 * leading (owning the browser) and following (relaying to the leader).
 */
import { RemoteConnection } from '../browser/cdp/remoteConnection.js';
import { LaunchConnection } from '../browser/launch/launchConnection.js';
import type { Config } from '../config.js';
import { Session } from '../session/session.js';
import { UserscriptInjector } from '../userscripts/injection.js';
import { scriptService } from '../userscripts/service.js';
import { VERSION } from '../version.js';
import { LocalDispatcher, type Dispatcher } from './dispatcher.js';

/** The dispatcher this process serves its fronts with. Never starts the browser (that is lazy, on the first call that needs it). */
export async function createDispatcher(config: Config): Promise<Dispatcher> {
  const connection = config.remote ? new RemoteConnection(config.remote, config) : new LaunchConnection(config);
  const session = new Session(connection, config);
  // issue #6: enabled scripts of the store run in every page of the connection (the store opens on first use).
  session.userscripts = new UserscriptInjector(scriptService(config).store, VERSION);
  return new LocalDispatcher(session, config);
}
