/**
 * Where a process gets its Dispatcher (issue #7). Today: a LocalDispatcher
 * on a managed Chromium. The relay (src/relay) makes this choose between
 * leading (owning the browser) and following (relaying to the leader).
 */
import { RemoteConnection } from '../browser/cdp/remoteConnection.js';
import { LaunchConnection } from '../browser/launch/launchConnection.js';
import type { Config } from '../config.js';
import { Session } from '../session/session.js';
import { LocalDispatcher, type Dispatcher } from './dispatcher.js';

/** The dispatcher this process serves its fronts with. Never starts the browser (that is lazy, on the first call that needs it). */
export async function createDispatcher(config: Config): Promise<Dispatcher> {
  const connection = config.remote ? new RemoteConnection(config.remote, config) : new LaunchConnection(config);
  return new LocalDispatcher(new Session(connection, config), config);
}
