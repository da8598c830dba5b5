/** get_bridge_status: what tabwright is connected to, and its place in the relay (CallContext.relay). Never starts the browser. */
import * as z from 'zod';
import { scriptService } from '../userscripts/service.js';
import { VERSION } from '../version.js';
import { defineTool } from './define.js';

export const getBridgeStatus = defineTool({
  name: 'get_bridge_status',
  title: 'Get bridge status',
  description: 'Connection kind and capabilities, browser version and state, tabs, server version, MCP revision and relay role. Does not start the browser.',
  needs: [],
  effect: 'observe',
  launchesBrowser: false,
  input: z.object({
    operationId: z.string().optional().describe('Check this export_script operation'),
    scriptId: z.string().optional().describe('Check this script\'s latest save'),
  }),
  async handle({ operationId, scriptId }, { session, config, client, relay }, res) {
    // An attached browser is already running: attach so its version and tabs show; a failure shows as not running.
    await session.attachRemote().catch(() => undefined);
    const status = {
      connection: session.connection.kind,
      endpoint: session.connection.endpoint ?? null,
      browserRunning: session.running,
      browserVersion: session.connection.browserVersion() ?? null,
      tabCount: session.openTabs().length,
      activeTabId: session.activeTabId ?? null,
      serverVersion: VERSION,
      protocolVersion: client.protocolVersion ?? null,
      era: client.era ?? null,
      headless: config.headless,
      profile: config.remote ? 'remote' : config.isolated ? 'isolated' : config.userDataDir,
      capabilities: [...session.connection.capabilities],
      workspace: config.workspace,
      role: relay.role,
      leaderPid: relay.leaderPid,
      relayProtocol: relay.relayProtocol,
    };
    res.merge(status);
    // Script saves and file sync: only when asked, or when a sync folder is watched.
    const scripts = operationId || scriptId ? scriptService(config) : undefined;
    const save = scripts?.saves.status({ operationId, scriptId });
    res.set('save', save);
    const sync = scriptService(config).sync;
    if (sync.directories().length || sync.errors().length) res.set('scriptSync', { directories: sync.directories(), errors: sync.errors() });
    res.text(
      `tabwright ${VERSION} · ${status.connection} connection${status.endpoint ? ` (${status.endpoint})` : ''} · browser ${status.browserRunning ? `running (${status.browserVersion})` : 'not started yet'} · ` +
      `${status.tabCount} tab${status.tabCount === 1 ? '' : 's'}${status.activeTabId !== null ? ` (active ${status.activeTabId})` : ''} · MCP ${status.protocolVersion ?? 'n/a'} · relay ${status.role}${status.role === 'follower' ? ` of pid ${status.leaderPid}` : ''}`,
    );
    res.text(`${status.headless ? 'Headless' : 'Headed'} · profile ${status.profile} · workspace ${status.workspace} · can: ${status.capabilities.join(', ')}`);
    const syncErrors = sync.errors();
    if (syncErrors.length) {
      const last = syncErrors.at(-1)!;
      res.text(`Script sync: ${syncErrors.length} failed export${syncErrors.length === 1 ? '' : 's'} (scriptSync.errors); newest: ${last.file}: [${last.type}] ${last.message}`);
    }
    if (save) {
      res.text(`Save ${save.operationId ?? '-'} of script ${save.scriptId ?? '-'}: ${save.status}${save.matchesCurrentCode === undefined ? '' : save.matchesCurrentCode ? ' (still the current code)' : ' (no longer the current code)'}.`);
    }
  },
});
