/** get_bridge_status (issue #2): what tabwright is connected to. Never starts the browser. */
import * as z from 'zod';
import { scriptService } from '../userscripts/service.js';
import { VERSION } from '../version.js';
import { defineTool } from './define.js';

export const getBridgeStatus = defineTool({
  name: 'get_bridge_status',
  title: 'Get bridge status',
  description: 'Connection kind, browser version, whether the browser is running, tab count, server version and the negotiated MCP protocol revision. Does not start the browser.',
  needs: [],
  consent: 'observe',
  launchesBrowser: false,
  input: z.object({
    operationId: z.string().optional().describe('Check this export_script operation'),
    scriptId: z.string().optional().describe('Check this script\'s latest save'),
  }),
  async handle({ operationId, scriptId }, { session, config, client }, res) {
    const status = {
      connection: session.connection.kind,
      browserRunning: session.running,
      browserVersion: session.connection.browserVersion() ?? null,
      tabCount: session.openTabs().length,
      activeTabId: session.activeTabId ?? null,
      serverVersion: VERSION,
      protocolVersion: client.protocolVersion ?? null,
      era: client.era ?? null,
      headless: config.headless,
      profile: config.isolated ? 'isolated' : config.userDataDir,
      capabilities: [...session.connection.capabilities],
      workspace: config.workspace,
    };
    res.merge(status);
    // Script saves and file sync (issue #6): only when asked, or when a sync folder is watched.
    const scripts = operationId || scriptId ? scriptService(config) : undefined;
    const save = scripts?.saves.status({ operationId, scriptId });
    res.set('save', save);
    const sync = scriptService(config).sync;
    if (sync.directories().length || sync.errors().length) res.set('scriptSync', { directories: sync.directories(), errors: sync.errors() });
    res.text(
      `tabwright ${VERSION} · ${status.connection} connection · browser ${status.browserRunning ? `running (${status.browserVersion})` : 'not started yet'} · ` +
      `${status.tabCount} tab${status.tabCount === 1 ? '' : 's'} · MCP ${status.protocolVersion ?? 'n/a'}`,
    );
    if (save) {
      res.text(`Save ${save.operationId ?? '-'} of script ${save.scriptId ?? '-'}: ${save.status}${save.matchesCurrentCode === undefined ? '' : save.matchesCurrentCode ? ' (still the current code)' : ' (no longer the current code)'}.`);
    }
  },
});
