/**
 * The scripts service of one data dir: the store (opened on
 * first use), the save pipeline and the file-sync watchers. Tools, the MCP
 * resources and injection reach it through `scriptService(config)`;
 * nothing is opened until something asks. `closeScriptServices()` stops the
 * watchers and closes the databases (server exit).
 */
import type { Config } from '../config.js';
import { Saves } from './saves.js';
import { ScriptStore } from './store.js';
import { ScriptSync } from './sync.js';

/** The store, saves and sync of one data dir. */
export interface ScriptService {
  store: ScriptStore;
  saves: Saves;
  sync: ScriptSync;
}

const services = new Map<string, ScriptService>();

/**
 * The service for `config.dataDir`, created on first use (cheap: the
 * database opens on the first query). `TABWRIGHT_TEST_PAUSE_SAVE_AT` is
 * test-only (docs/userscripts.md).
 */
export function scriptService(config: Pick<Config, 'dataDir' | 'saveDeadlineMs'>): ScriptService {
  let service = services.get(config.dataDir);
  if (!service) {
    const store = ScriptStore.inDataDir(config.dataDir);
    const saves = new Saves(store, { deadlineMs: config.saveDeadlineMs, pauseAt: process.env.TABWRIGHT_TEST_PAUSE_SAVE_AT || undefined });
    service = { store, saves, sync: new ScriptSync(saves) };
    services.set(config.dataDir, service);
  }
  return service;
}

/** Stops every sync watcher and closes every store of this process. */
export async function closeScriptServices(): Promise<void> {
  for (const service of services.values()) {
    await service.sync.close();
    service.store.close();
  }
  services.clear();
}
