/**
 * The consent gate: every WebMCP call passes it right before the
 * tool is dispatched, and so does every call of a tool that runs the agent's
 * code (`execute`, `add_element`; src/tools/codeConsent.ts, ./codeGrant.ts). The tool's permission (./rules.ts: override, rules
 * file, defaults) decides: `allow` runs at once, `deny` fails at once with
 * `consent_denied`, `prompt` asks a human and blocks until they answer, up
 * to 5 minutes (`consent_expired` after). `--auto-allow` / `--auto-deny`
 * answer prompts without asking. The human is asked through every surface
 * that can reach them at once: the companion extension's window, the
 * caller's channel (MCP elicitation, the CLI's terminal) else the server's
 * terminal, and the consent hub (./hub.ts: the local dashboard and
 * `tabwright consent answer`); the first answer wins and the others are
 * withdrawn (docs/dashboard.md, "Consent"). With none of them the call
 * fails with `consent_unavailable`. While a prompt waits, progress
 * notifications go out at least every 10 s: one when it opens (here), then
 * the front's heartbeat (src/dispatch/callWatch.ts), told through
 * `GateCall.waiting` what the call waits for and how fast to tick. Every
 * decision is appended to the audit log (./audit.ts), without the call's arguments.
 */
import { rulesPath, ConsentPolicy, type ConsentSubject } from './rules.js';
import { appendAudit, type AuditChannel, type AuditEntry } from './audit.js';
import { AnsweredElsewhere, CODE_ANSWERS, ConsentPending, offeredAnswers, TerminalChannel, terminalAvailable, type ConsentAnswer, type ConsentQuestion, type PromptChannel } from './channel.js';
import { consentHub, type ConsentHub } from './hub.js';
import { saveOverride, type Override } from './overrides.js';
import type { Config } from '../config.js';
import { ToolError } from '../errors.js';
import { logger } from '../log.js';
import { raceTimeout } from '../util/wait.js';

const log = logger('consent');

/**
 * The progress message of a consent wait: "Waiting for the user to allow buy (295 s left)", plus where to answer
 * when the dashboard asks and no MCP client does ("; answer in the tabwright dashboard: http://127.0.0.1:19682/").
 */
export function consentProgress(w: ConsentWaiting, now = Date.now()): string {
  const left = Math.max(0, Math.round((w.expiresAt - now) / 1000));
  const where = w.dashboardUrl && !w.askedIn?.includes('elicitation') ? `; answer in the tabwright dashboard: ${w.dashboardUrl}` : '';
  return `Waiting for the user to allow ${w.tool} (${left} s left)${where}`;
}

/** The longest gap between two progress notifications while a prompt waits, in ms (at least every 10 s). */
export const PROGRESS_EVERY_MS = 10_000;

/** How often a waiting prompt reports progress: every 10 s, or a tenth of a shortened (test) expiry, at least 100 ms. */
export function promptTickMs(timeoutMs: number): number {
  return Math.min(PROGRESS_EVERY_MS, Math.max(100, Math.floor(timeoutMs / 10)));
}

/** One gated call: the tool, where it lives, and the agent's arguments (shown to the human, never logged). */
export interface GatedCall extends ConsentSubject {
  /** The page's description of the tool. */
  description: string;
  tabId?: number;
  arguments: unknown;
  /** The prompt of the browser the tab lives in (the companion extension's consent window): asked first when present. */
  browserPrompt?: PromptChannel;
}

/** What the gate tells the call's front while a prompt waits (one state of src/tools/waiting.ts's WaitingFor); times are epoch ms. */
export interface ConsentWaiting {
  kind: 'consent';
  tool: string;
  origin: string;
  tabId?: number;
  expiresAt: number;
  /** Where the human is asked, in the order tried: the channels' names, and `dashboard` for the hub. */
  askedIn?: Array<PromptChannel['name'] | 'dashboard'>;
  /** The dashboard's address (no secret in it) when the hub asks too. */
  dashboardUrl?: string;
  /** How often the wait reports progress, in ms (a tenth of a shortened expiry). */
  everyMs?: number;
}

/**
 * The part of a tool call the gate uses (src/tools/context.ts CallContext has it all): the config, the
 * caller's signal, progress reporter, consent channel and protocol era, and its waiting hook.
 */
export interface GateCall {
  config: Config;
  /** Aborted when the caller cancels: the question is withdrawn and the call fails with `cancelled`. */
  signal: AbortSignal;
  progress(done: number, total?: number, message?: string): Promise<void>;
  client: { era?: 'legacy' | 'modern' };
  /** The caller's way to ask its human; undefined: the server's terminal, if any. */
  prompt?: PromptChannel;
  /** Hears the wait start (a ConsentWaiting) and end (undefined). */
  waiting?(what: ConsentWaiting | undefined): void;
}

/** How the call got through. */
export interface GateResult {
  channel: AuditChannel;
  answer?: ConsentAnswer;
}

/** Where the gate asks: the caller's channels and the hub (or none of it). */
interface Asking {
  channels: PromptChannel[];
  hub?: ConsentHub;
}

const terminal = new TerminalChannel();

/** The caller's channel: its own, else the terminal when there is one, else none. */
function pickChannel(call: GateCall): PromptChannel | undefined {
  if (call.prompt) return call.prompt;
  if (call.config.consent.terminal && terminalAvailable()) return terminal;
  return undefined;
}

/**
 * Every way to ask at once: the browser's prompt (the extension's window), the caller's channel, and the hub while a
 * surface is attached. A channel that asks only in the call's result (2026-07-28 elicitation) asks alone: the call
 * ends with its question, and its retry carries the answer.
 */
function asking(call: GateCall, gated: GatedCall, hub: ConsentHub): Asking {
  const own = pickChannel(call);
  if (own?.inResult && !gated.browserPrompt) return { channels: [own] };
  const channels = [gated.browserPrompt, own?.inResult ? undefined : own].filter((c): c is PromptChannel => c !== undefined);
  return { channels, hub: hub.available ? hub : undefined };
}

/**
 * Asks through every channel of `ask` and the hub; the first answer wins and the others are withdrawn (their signal
 * aborts with AnsweredElsewhere). A channel that fails leaves the others asking; the last failure is thrown when all
 * failed. ConsentPending (the question went out in the result) ends the race at once.
 * @returns the answer and the audit channel it came through.
 */
function race(ask: Asking, question: ConsentQuestion, signal: AbortSignal): Promise<{ answer: ConsentAnswer; channel: AuditChannel }> {
  const local = new AbortController();
  const onAbort = () => local.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const askers: Array<() => Promise<{ answer: ConsentAnswer; channel: AuditChannel }>> = ask.channels.map(c => async () => ({ answer: await c.ask(question, local.signal), channel: c.name }));
  const hub = ask.hub;
  if (hub) askers.push(async () => {
    const { answer, surface } = await hub.ask(question, local.signal, ask.channels.map(c => c.name));
    return { answer, channel: surface };
  });
  return new Promise<{ answer: ConsentAnswer; channel: AuditChannel }>((resolve, reject) => {
    let left = askers.length;
    let settled = false;
    const end = (fn: () => void, by?: AuditChannel) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (!local.signal.aborted) local.abort(new AnsweredElsewhere(by ?? 'none'));
      fn();
    };
    for (const run of askers) {
      run().then(got => end(() => resolve(got), got.channel), (error: unknown) => {
        if (error instanceof ConsentPending || local.signal.aborted) return end(() => reject(error));
        log.debug('a consent channel failed while others ask:', error);
        if (--left === 0) end(() => reject(error));
      });
    }
  });
}

function preview(args: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(args ?? {}) ?? '{}';
  } catch {
    text = '(arguments that cannot be shown as JSON)';
  }
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}

/**
 * The override an answer saves, if any: `always` / `never` for the origin + tool (or script + tool); for a code
 * tool (`builtin`) also `code`, for this code's hash on the origin, and `everywhere`, for origin `*`.
 */
export function savedAnswer(gated: GatedCall, answer: ConsentAnswer): Omit<Override, 'created'> | undefined {
  if (answer === 'once' || answer === 'deny') return undefined;
  const permission: Override['permission'] = answer === 'never' ? 'deny' : 'allow';
  if (!gated.builtin) return { origin: gated.origin, tool: gated.name, scriptId: gated.scriptId, permission };
  const base = { tool: gated.name, builtin: true as const, permission };
  if (answer === 'code') return gated.codeHash ? { ...base, origin: gated.origin, codeHash: gated.codeHash } : undefined;
  return { ...base, origin: answer === 'everywhere' ? '*' : gated.origin };
}

/**
 * Lets `gated` through or throws.
 * @returns how the call was allowed (the audit channel; the human's answer if one was asked).
 * @throws ToolError consent_denied (a deny override or rule, `--auto-deny`, or the human said no),
 *   consent_expired (no answer within config.consent.timeoutMs), consent_unavailable (prompt and no
 *   channel), cancelled (the caller cancelled while the prompt waited), ConsentPending (the question
 *   went to the MCP client in the result; the retry carries the answer).
 */
export async function consentGate(call: GateCall, gated: GatedCall, hub: ConsentHub = consentHub): Promise<GateResult> {
  const { config } = call;
  const resolved = ConsentPolicy.load(config).resolve(gated);
  const audit = (decision: AuditEntry['decision'], channel: AuditChannel, answer?: ConsentAnswer) =>
    appendAudit(config.dataDir, { time: new Date().toISOString(), origin: gated.origin, tool: gated.name, scriptId: gated.scriptId, tabId: gated.tabId, decision, channel, answer });
  const what = gated.builtin ? `tabwright tool ${gated.name} (the agent's code) on ${gated.origin}` : `WebMCP tool "${gated.name}" of ${gated.origin}`;

  if (resolved.permission === 'allow') {
    // A code tool with no rule or answer about it runs as it did before it was gated: nothing decided, nothing logged.
    if (!(gated.builtin && resolved.source === 'default')) audit('allowed', resolved.source);
    return { channel: resolved.source };
  }
  if (resolved.permission === 'deny') {
    audit('denied', resolved.source);
    const why = resolved.source === 'override' ? 'a saved "always deny" answer' : resolved.source === 'script' ? 'the AgentScript\'s @webmcp declaration' : `rule ${resolved.rule} of ${rulesPath(config.configDir)}`;
    const fix = resolved.source === 'override' ? 'ask the user to clear it (`tabwright permissions reset`)' : resolved.source === 'script' ? 'ask the user to change the script\'s @webmcp line or add an allow rule' : `ask the user to change that rule in ${rulesPath(config.configDir)}`;
    throw new ToolError('consent_denied', `Calling the ${what} is denied by ${why}.`, `Do not retry: the user's settings refuse it. If the call is needed, ${fix}.`);
  }
  if (config.consent.auto) {
    audit(config.consent.auto === 'allow' ? 'allowed' : 'denied', 'auto');
    if (config.consent.auto === 'allow') return { channel: 'auto' };
    throw new ToolError('consent_denied', `Calling the ${what} needs the user's approval and the server runs with --auto-deny.`, 'Do not retry; the server refuses every call that would ask the user.');
  }
  const ask = asking(call, gated, hub);
  if (!ask.channels.length && !ask.hub) {
    audit('unavailable', 'none');
    throw new ToolError('consent_unavailable', `Calling the ${what} needs the user's approval, and there is no way to ask: the caller offers no channel (an MCP client without elicitation, a CLI without a terminal, a daemon HTTP call without \`Accept: text/event-stream\`), the server has no terminal, and no dashboard runs (TABWRIGHT_DASHBOARD_PORT=off).`, `Add a rule to ${rulesPath(config.configDir)} (e.g. {"rules":[{"origin":"${gated.origin}","tool":"${gated.name}",${gated.builtin ? '"source":"tabwright",' : ''}"permission":"allow"}]}), or start the server with --auto-allow (unattended runs) or with its dashboard on, or call from an MCP client with elicitation (or the CLI in a terminal).`);
  }
  // The name the audit records when nothing answered: the first way asked.
  const firstWay: AuditChannel = ask.channels[0]?.name ?? 'dashboard';

  const timeoutMs = config.consent.timeoutMs;
  const question: ConsentQuestion = {
    origin: gated.origin,
    tool: gated.name,
    description: gated.description,
    annotations: gated.annotations ?? {},
    source: gated.source,
    scriptId: gated.scriptId,
    tabId: gated.tabId,
    argumentsPreview: preview(gated.arguments),
    expiresAt: Date.now() + timeoutMs,
    ...(gated.builtin ? { offers: CODE_ANSWERS, ...(gated.codeHash ? { codeHash: gated.codeHash } : {}) } : {}),
  };
  const expired = new ToolError('consent_expired', `Nobody answered the consent prompt for the ${what} within ${Math.round(timeoutMs / 1000)} s.`, 'The user may be away. Do not re-issue calls with side effects in a loop; ask the user, then try once more.');
  const controller = new AbortController();
  const onCallAbort = () => controller.abort(new ToolError('cancelled', 'The call was cancelled while waiting for consent.', 'Send the call again if it is still wanted.'));
  call.signal.addEventListener('abort', onCallAbort, { once: true });
  const timer = setTimeout(() => controller.abort(expired), timeoutMs);
  // The front's heartbeat ticks from here on, with this wording (src/tools/waiting.ts) and this pace.
  const dashboardUrl = ask.hub?.surfaceUrl;
  const waiting: ConsentWaiting = {
    kind: 'consent', tool: gated.name, origin: gated.origin, tabId: gated.tabId, expiresAt: question.expiresAt,
    askedIn: [...ask.channels.map(c => c.name), ...(ask.hub ? ['dashboard' as const] : [])],
    ...(dashboardUrl ? { dashboardUrl } : {}),
    everyMs: promptTickMs(timeoutMs),
  };
  call.waiting?.(waiting);
  let answer: ConsentAnswer;
  let channel: AuditChannel;
  try {
    // 2026-07-28 elicitation hands the question out in the result at once: nothing waits, nothing to report.
    if (!(ask.channels.length === 1 && !ask.hub && ask.channels[0]!.name === 'elicitation' && call.client.era === 'modern')) {
      call.progress(1, undefined, consentProgress(waiting)).catch(error => log.debug('progress failed:', error));
    }
    ({ answer, channel } = await raceTimeout(race(ask, question, controller.signal), { signal: controller.signal }));
  } catch (error) {
    if (error instanceof ConsentPending) throw error;
    const type = error instanceof ToolError ? error.type : undefined;
    if (type === 'consent_expired') audit('expired', firstWay);
    else if (type === 'cancelled') audit('cancelled', firstWay);
    else audit('unavailable', firstWay);
    if (error instanceof ToolError) throw error;
    log.warn(`asking through ${firstWay} failed:`, error);
    throw new ToolError('consent_unavailable', `Asking the user about the ${what} failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500), `Add a rule to ${rulesPath(config.configDir)} or start the server with --auto-allow.`);
  } finally {
    clearTimeout(timer);
    call.waiting?.(undefined);
    call.signal.removeEventListener('abort', onCallAbort);
  }

  if (!offeredAnswers(question).includes(answer)) {
    // The surfaces take only what the question offers (src/dashboard/server.ts); a channel that did not is a refusal.
    log.warn(`the ${channel} channel answered "${answer}", which the question did not offer: taken as deny`);
    answer = 'deny';
  }
  const saved = savedAnswer(gated, answer);
  if (saved) saveOverride(config.configDir, saved);
  const allowed = answer !== 'deny' && answer !== 'never';
  audit(allowed ? 'allowed' : 'denied', channel, answer);
  if (allowed) return { channel, answer };
  throw new ToolError('consent_denied', `The user did not allow the ${what}${answer === 'never' ? ' and chose "always deny"' : ''}.`, 'Do not retry this call; ask the user what to do instead.');
}
