/**
 * What the dashboard shows, as one JSON document (docs/dashboard.md, "What it shows"): the process, the callers seen,
 * the main session's tabs, the call log, the pending consent prompts, the scripts, the consent audit log, the saved
 * permissions and the latest benchmark report. Never a call's arguments (the call log has tool, tab, time and outcome
 * only); a prompt carries the preview of the WebMCP call's arguments the human is asked about, as every consent
 * surface does.
 */
import type { Config } from '../config.js';
import type { ConsentHub } from '../consent/hub.js';
import { offeredAnswers, type ConsentAnswer } from '../consent/channel.js';
import { readAudit, type AuditEntry } from '../consent/audit.js';
import { readOverrides, type Override } from '../consent/overrides.js';
import type { LocalDispatcher } from '../dispatch/dispatcher.js';
import type { ActivityCall, ActivitySession } from '../dispatch/activity.js';
import { scriptService } from '../userscripts/service.js';
import { VERSION } from '../version.js';
import { latestBenchReport, type BenchReport } from './bench.js';
import type { Thumbnails } from './thumbnails.js';

/** How many audit entries the state carries, newest first. */
const AUDIT_SHOWN = 50;

/** A tab as the dashboard lists it. */
export interface DashboardTab {
  tabId: number;
  url: string;
  title: string;
  active: boolean;
  /** A call holds the tab now. */
  busy: boolean;
  /**
   * The thumbnail's version (fetch `/api/tabs/<tabId>/thumbnail`) and when it was taken (epoch ms); null before the
   * first one. Only the active tab is captured (./thumbnails.ts): a background tab shows how it looked last in front.
   */
  thumbnail: { version: number; takenAt: number } | null;
  /** The userscripts that ran in its document. */
  scripts: Array<{ id: string; name: string }>;
}

/** A pending consent prompt as the dashboard lists it. */
export interface DashboardPrompt {
  id: string;
  tool: string;
  origin: string;
  description: string;
  tabId?: number;
  argumentsPreview: string;
  /** Epoch ms. */
  askedAt: number;
  /** ISO 8601 or epoch ms as the question holds it. */
  expiresAt: unknown;
  alsoAskedBy: string[];
  /** `tabwright` for a code tool's prompt (execute, add_element), else where the WebMCP tool comes from. */
  source: string;
  /** The answers it takes (src/consent/channel.ts ConsentAnswer). */
  offers: readonly ConsentAnswer[];
}

/** A stored script as the dashboard lists it. */
export interface DashboardScript {
  id: string;
  name: string;
  kind: string;
  enabled: boolean;
  /** Its @match and @include patterns. */
  matches: string[];
  /** The open tabs it ran in. */
  ranIn: number[];
}

/** The whole state; `lead` is false while this process does not own the browser (nothing else is filled then). */
export interface DashboardState {
  version: string;
  pid: number;
  url: string;
  lead: boolean;
  connection?: string;
  browserRunning: boolean;
  sessions: ActivitySession[];
  tabs: DashboardTab[];
  calls: ActivityCall[];
  prompts: DashboardPrompt[];
  scripts: DashboardScript[];
  audit: AuditEntry[];
  permissions: Override[];
  bench: BenchReport | null;
}

/** The pending prompts of `hub`, as listed (also `GET /api/prompts`, what `tabwright consent list` prints). */
export function promptsOf(hub: ConsentHub): DashboardPrompt[] {
  return hub.list().map(p => ({
    id: p.id, tool: p.question.tool, origin: p.question.origin, description: p.question.description, tabId: p.question.tabId,
    argumentsPreview: p.question.argumentsPreview, askedAt: p.askedAt, expiresAt: p.question.expiresAt, alsoAskedBy: p.alsoAskedBy,
    source: p.question.source, offers: offeredAnswers(p.question),
  }));
}

/** Builds the state of `local` (undefined: this process does not lead now). */
export async function buildState(config: Config, url: string, hub: ConsentHub, local: LocalDispatcher | undefined, thumbs: Thumbnails): Promise<DashboardState> {
  const tabs: DashboardTab[] = [];
  const session = local?.session;
  if (local && session?.running) {
    const active = session.activeTabId;
    for (const tab of session.openTabs()) {
      const { url: tabUrl, title } = await tab.urlAndTitle();
      tabs.push({ tabId: tab.id, url: tabUrl, title, active: tab.id === active, busy: local.tabBusy(tab.id), thumbnail: thumbs.info(tab.id) ?? null, scripts: tab.userscripts.scripts() });
    }
  }
  return {
    version: VERSION,
    pid: process.pid,
    url,
    lead: local !== undefined,
    connection: session?.connection.kind,
    browserRunning: session?.running ?? false,
    sessions: local?.activity.sessions() ?? [],
    tabs,
    calls: local?.activity.calls() ?? [],
    prompts: promptsOf(hub),
    scripts: scriptsOf(config, tabs),
    audit: readAudit(config.dataDir, AUDIT_SHOWN),
    permissions: readOverrides(config.configDir),
    bench: latestBenchReport() ?? null,
  };
}

function scriptsOf(config: Config, tabs: DashboardTab[]): DashboardScript[] {
  try {
    return scriptService(config).store.list().map(s => ({
      id: s.id, name: s.name, kind: s.kind, enabled: s.enabled,
      matches: [...s.metadata.match, ...s.metadata.include],
      ranIn: tabs.filter(t => t.scripts.some(r => r.id === s.id)).map(t => t.tabId),
    }));
  } catch {
    return []; // The store cannot be opened (another process migrates it, a read-only data dir): shown as none.
  }
}
