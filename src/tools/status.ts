/** get_bridge_status: what tabwright is connected to, and its place in the relay (CallContext.relay). Never starts the browser. */
import * as z from 'zod';
import { scriptService } from '../userscripts/service.js';
import { VERSION } from '../version.js';
import { defineTool } from './define.js';
import type { Config, OwnBrowserConfig } from '../config.js';
import { HARDENED_OFF, HARDENED_OFF_USES, hasHostRules, restricts, type Policy } from '../consent/policy.js';
import type { BudgetStatus } from './context.js';
import { REQUEST_GAPS } from '../session/requestPolicy.js';
import { capabilityManifest, manifestLine } from '../browser/capabilities.js';
import { consentHub } from '../consent/hub.js';
import { describeEmulation } from '../session/emulation.js';
import { megabytes } from '../session/recording.js';
import { recordingLine } from './recording.js';

export const getBridgeStatus = defineTool({
  name: 'get_bridge_status',
  title: 'Get bridge status',
  description: 'Connection kind and what works on it (each capability available, unavailable with the reason, or experimental), browser version and state, tabs, server version, MCP revision and relay role. Does not start the browser.',
  needs: [],
  effect: 'observe',
  launchesBrowser: false,
  input: z.object({
    operationId: z.string().optional().describe('Check this export_script operation'),
    scriptId: z.string().optional().describe('Check this script\'s latest save'),
  }),
  async handle({ operationId, scriptId }, { session, config, client, relay, budget }, res) {
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
      // Headless and profile are tabwright's choice only for the browser it launches.
      headless: config.remote || config.own ? null : config.headless,
      profile: config.remote ? 'remote' : config.own ? ownProfile(config.own) : config.isolated ? 'isolated' : config.userDataDir,
      // The launch settings of this browser (a follower's call runs here, in the leader: these are the leader's).
      viewport: config.remote || config.own ? null : `${config.viewport.width}x${config.viewport.height}`,
      browserPath: config.remote || config.own ? null : config.browser ?? 'found on PATH',
      scope: session.connection.scope ?? null,
      capabilities: [...session.connection.capabilities],
      capabilityManifest: capabilityManifest(session.connection.kind).capabilities,
      workspace: config.workspace,
      role: relay.role,
      leaderPid: relay.leaderPid,
      relayProtocol: relay.relayProtocol,
      policy: policyStatus(config.policy),
      budget: budget ?? null,
      // The process that runs this call serves the dashboard (a follower's calls run on its leader): no key in it.
      dashboard: consentHub.surfaceUrl ? { url: consentHub.surfaceUrl } : null,
      tasks: tasksStatus(config),
    };
    res.merge(status);
    // Which way userscripts reach pages (on the extension: chrome.userScripts when "Allow User Scripts" is on).
    const userscripts = session.running ? await session.userscripts?.status().catch(() => undefined) : undefined;
    if (userscripts) res.set('userscripts', userscripts);
    // What tabs emulate (emulate) and record (start_recording): only when some do.
    const emulating = session.openTabs().filter(t => t.emulation).map(t => ({ tabId: t.id, ...t.emulation! }));
    if (emulating.length) res.set('emulation', emulating);
    const recordings = session.recordings.list();
    if (recordings.active.length || recordings.ended.length) res.set('recordings', recordings);
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
    if (status.scope) res.text(`Scope: ${status.scope}.`);
    const browser = status.headless === null
      ? config.own ? `the user's own browser (its windows, ${status.profile})` : 'an attached browser (its own windows and profile)'
      : `${status.headless ? 'Headless' : 'Headed'} · viewport ${status.viewport} · browser ${status.browserPath} · profile ${status.profile}`;
    res.text(`${browser} · workspace ${status.workspace} · can: ${status.capabilities.join(', ')}`);
    const limits = manifestLine(capabilityManifest(status.connection));
    if (limits) res.text(limits);
    res.text(policyLine(config.policy, config.allowedRoots));
    if (budget) res.text(budgetLine(budget));
    for (const { tabId, ...state } of emulating) res.text(`Tab ${tabId} emulates: ${describeEmulation(state)}.`);
    for (const r of recordings.active) res.text(`Recording tab ${r.tabId} since ${r.startedAt} (${r.seconds} s, ${r.frames} frames; caps ${r.maxSeconds} s, ${megabytes(r.maxBytes)} MB).`);
    for (const r of recordings.ended) res.text(`${recordingLine(r)} (stop_recording {tabId: ${r.tabId}} reports it once)`);
    res.text(status.tasks.available
      ? `Tasks: model ${status.tasks.model} at ${status.tasks.url}${status.tasks.listed ? '' : ' (tool set tasks is off: --toolsets tasks lists run_task, extract, run_status, run_respond, run_abort)'}.`
      : `Tasks: unavailable, ${status.tasks.reason}`);
    if (status.dashboard) res.text(`Dashboard: ${status.dashboard.url} (\`tabwright dashboard\` prints the address with its key)`);
    if (userscripts) {
      res.text(userscripts.path === 'chrome.userScripts'
        ? 'Userscripts: registered through the extension\'s chrome.userScripts (shared tabs only).'
        : `Userscripts: injected over CDP${userscripts.hint ? `; chrome.userScripts is off (${userscripts.userScripts?.reason}). ${userscripts.hint}` : '.'}`);
    }
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

/**
 * The task tools as get_bridge_status shows them (docs/tasks.md): the model's name and URL (without user info,
 * query or key), whether the tool set lists them, or why they are unavailable.
 */
function tasksStatus(config: Config) {
  if (!config.llm) return { available: false, listed: false, reason: 'no model configured: set TABWRIGHT_LLM_URL (with /v1) and TABWRIGHT_LLM_MODEL where the server starts (docs/tasks.md); run_task, extract, run_status, run_respond and run_abort are not listed until then.' };
  const url = new URL(config.llm.url);
  return { available: true, listed: config.toolsets.includes('tasks'), model: config.llm.model, url: `${url.origin}${url.pathname}`.replace(/\/$/, '') };
}

/** The policy as get_bridge_status shows it (docs/policy.md): what is off, and the host rules. */
function policyStatus(policy: Policy) {
  return {
    mode: policy.mode,
    allowHosts: policy.allowHosts.map(p => p.text),
    denyHosts: policy.denyHosts.map(p => p.text),
    // Host rules hold for navigation tools and for every request the pages make (routed on every connection kind
    // that can have a policy; the extension cannot: the server refuses to start with one there).
    requestsRouted: hasHostRules(policy),
    requestGaps: hasHostRules(policy) ? [...REQUEST_GAPS] : [],
    off: policy.mode === 'hardened' ? [...HARDENED_OFF.keys(), ...[...HARDENED_OFF_USES.values()].map(u => u.what), 'non-http(s) navigation', 'uploads outside --allow-root', 'downloads'] : [],
  };
}

function policyLine(policy: Policy, roots: readonly string[]): string {
  if (!restricts(policy)) return 'Policy: default (no host rules).';
  const parts: string[] = [];
  if (policy.mode === 'hardened') {
    parts.push(`hardened: ${[...HARDENED_OFF.keys(), ...[...HARDENED_OFF_USES.values()].map(u => u.what)].join(', ')} off; only http(s) and about:blank load; uploads only from ${roots.length ? roots.join(', ') : 'nowhere (no --allow-root)'}; downloads refused`);
  }
  if (policy.allowHosts.length) parts.push(`only hosts ${policy.allowHosts.map(p => p.text).join(', ')}`);
  if (policy.denyHosts.length) parts.push(`never hosts ${policy.denyHosts.map(p => p.text).join(', ')}`);
  return `Policy: ${parts.join('; ')}${hasHostRules(policy) ? ` (navigation tools and page requests, except ${REQUEST_GAPS.join(' and ')})` : ''}.`;
}

function budgetLine(budget: BudgetStatus): string {
  const parts: string[] = [];
  if (budget.session) parts.push(`${budget.session.used} of ${budget.session.limit} this session`);
  if (budget.day) parts.push(`${budget.day.used < 0 ? '? (the count cannot be read)' : budget.day.used} of ${budget.day.limit} today (resets ${budget.day.resetsAt})`);
  return `Call budget: ${parts.join(', ')}; get_bridge_status is not counted.`;
}

/** The profile an own-browser connection uses, as status shows it: the folder it reads, or who picks it. */
function ownProfile(own: OwnBrowserConfig): string {
  if (own.kind === 'extension') return 'the profile the extension is installed in';
  if (own.kind === 'userscript') return 'the tabs opted in through the companion userscript, in any browser';
  return own.profileDir ? `profile ${own.profileDir}` : 'the first default profile folder with remote debugging on';
}
