/**
 * One tool call from the CLI: the remembered tab filled in, the
 * daemon found or started, the call streamed (progress and consent on
 * stderr), and the answer turned into the output contract's result or a
 * CliError with its exit code.
 */
import { configDir, dataDir } from '../config.js';
import { daemonRequest, ensureDaemon, streamTool, type DaemonInfo } from './daemonClient.js';
import { exitCodeOf } from './exitCodes.js';
import { CliError, cliError, type CliErrorData } from './output.js';
import { askConsent, canAskHere, clearStatus, showProgress } from './progress.js';
import { currentScope, rememberedTab } from './rememberedTab.js';
import { treeTool } from './toolTree.js';

/** The MCP CallToolResult as the daemon returns it. */
export interface ToolResult {
  content?: Array<{ type: string; text?: string; data?: string; mimeType?: string; [key: string]: unknown }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Whether the daemon may be started on demand (`TABWRIGHT_DAEMON_AUTOSTART=0` turns it off). */
export function autostart(): boolean {
  return process.env.TABWRIGHT_DAEMON_AUTOSTART !== '0';
}

/** The live daemon, started when needed. @throws CliError daemon_unavailable (exit 3). */
export function daemon(): Promise<DaemonInfo> {
  return ensureDaemon(configDir(), dataDir(), autostart());
}

/** Where a call's tabId came from, to word a closed-tab error. */
interface TabSource {
  tabId: number;
  remembered: boolean;
}

/**
 * Fills `tabId` from the remembered tab (`use --tab N`) when the tool takes
 * an optional tabId, the caller gave none, and no `ref` names the tab.
 */
export function withRememberedTab(tool: string, args: Record<string, unknown>): { args: Record<string, unknown>; tab?: TabSource } {
  if (typeof args.tabId === 'number') return { args, tab: { tabId: args.tabId, remembered: false } };
  const schema = treeTool(tool)?.inputSchema;
  if (!schema?.properties?.tabId || schema.required?.includes('tabId') || args.ref !== undefined) return { args };
  const remembered = rememberedTab(dataDir(), currentScope());
  if (!remembered) return { args };
  return { args: { ...args, tabId: remembered.tabId }, tab: { tabId: remembered.tabId, remembered: true } };
}

/** The error a call ended with, as the CLI prints it (other structured fields, like diagnostics, ride along). */
function toolError(result: ToolResult): CliErrorData {
  const { error, ...rest } = result.structuredContent ?? {};
  const data = error as CliErrorData | undefined;
  const text = (result.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');
  return { ...rest, ...(data ?? { type: 'internal', message: text || 'The tool failed without saying why.', hint: 'Check <data dir>/daemon.log.' }) };
}

/**
 * Calls `tool` with `args` on the daemon (the remembered tab filled in).
 * `rawBody` sends this exact JSON text instead of `args` (large inputs).
 * @throws CliError for a rejection before dispatch (exit by HTTP status), a failed call (exit by error type), or an unreachable daemon (3).
 */
export async function callTool(tool: string, args: Record<string, unknown>, rawBody?: string): Promise<ToolResult> {
  const filled = rawBody === undefined ? withRememberedTab(tool, args) : { args };
  const info = await daemon();
  let waiting: { stop(): void } | undefined;
  // Without a terminal nobody can answer here: the daemon then asks through the dashboard or the extension only, and
  // fails at once (consent_unavailable) when neither can (docs/dashboard.md, "Consent").
  const canAsk = canAskHere();
  const response = await streamTool(info, tool, rawBody ?? JSON.stringify(filled.args), process.cwd(), {
    progress: p => {
      if (!waiting) showProgress(p);
    },
    consent: question => {
      waiting?.stop();
      const asked = askConsent(question as { text?: string; expiresAt?: string; offers?: unknown });
      waiting = asked;
      void asked.answer.then(async answer => {
        if (!answer || typeof question.questionId !== 'string') return;
        await daemonRequest(info, 'POST', `/v1/consent/${encodeURIComponent(question.questionId)}`, { body: { answer } }).catch(() => undefined);
      });
    },
    consentClosed: closed => {
      waiting?.stop();
      waiting = undefined;
      clearStatus();
      if (closed.message) process.stderr.write(`tabwright: ${closed.message}\n`);
    },
  }, canAsk ? {} : { 'x-tabwright-consent': 'none' }).finally(() => {
    waiting?.stop();
    clearStatus();
  });
  const body = response.body;
  if (body.outcome !== 'completed') {
    const error = (body.error ?? { type: 'internal', message: `The daemon answered HTTP ${response.status}.`, hint: 'Check <data dir>/daemon.log.' }) as CliErrorData;
    throw new CliError(error, exitCodeOf(error.type, response.status), { outcome: body.outcome ?? 'failed' });
  }
  const result = (body.result ?? {}) as ToolResult;
  if (result.isError) {
    const error = toolError(result);
    if (error.type === 'tab_not_found' && filled.tab?.remembered) {
      const { cwd, scope } = currentScope();
      throw cliError('tab_not_found', `Tab ${filled.tab.tabId}, remembered for ${cwd}${scope ? ` (scope ${scope})` : ''} by \`tabwright use --tab\`, is not open any more.`,
        'Run `tabwright tabs` to see the open tabs, then `tabwright use --tab N` to pick one (or pass --tab N).');
    }
    throw new CliError(error, exitCodeOf(error.type));
  }
  return result;
}

/** The text parts of a result, joined by newlines. */
export function textOf(result: ToolResult): string {
  return (result.content ?? []).filter(c => c.type === 'text' && c.text).map(c => c.text).join('\n');
}
