/**
 * Builds the LocalDispatcher a process runs calls on when it owns its
 * browser: a leader, a standalone `--isolated` process, or one attached to a
 * remote browser. Every kind injects the enabled userscripts of the store
 * into its pages (docs/userscripts.md).
 */
import { RemoteConnection } from '../browser/cdp/remoteConnection.js';
import type { BrowserConnection } from '../browser/connection.js';
import { ExtensionConnection } from '../browser/extension/extensionConnection.js';
import { LaunchConnection } from '../browser/launch/launchConnection.js';
import { OwnChromeConnection } from '../browser/ownChrome/connection.js';
import { UserscriptConnection } from '../browser/userscript/userscriptConnection.js';
import type { Config } from '../config.js';
import { Session } from '../session/session.js';
import { UserscriptInjector } from '../userscripts/injection.js';
import { scriptService } from '../userscripts/service.js';
import { VERSION } from '../version.js';
import { LocalDispatcher } from './dispatcher.js';

/** A LocalDispatcher on the connection the config names. Never starts the browser (that is lazy). */
export function localDispatcher(config: Config): LocalDispatcher {
  const session = new Session(connectionFor(config), config);
  // The store opens on first use; enabled scripts run in every page of the session's browser context
  // (launched or attached: Playwright's init scripts and bindings work over CDP alike).
  session.userscripts = new UserscriptInjector(scriptService(config).store, VERSION);
  return new LocalDispatcher(session, config);
}

/** The browser connection the config names: attached (`remote`), the user's own, else launched. */
function connectionFor(config: Config): BrowserConnection {
  if (config.remote) return new RemoteConnection(config.remote, config);
  if (config.own?.kind === 'own-chrome') return new OwnChromeConnection(config.own, config.dataDir);
  if (config.own?.kind === 'extension') return new ExtensionConnection(config);
  if (config.own?.kind === 'userscript') return new UserscriptConnection(config);
  return new LaunchConnection(config);
}
