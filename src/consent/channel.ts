/**
 * Prompt channels: who the human is asked through when a WebMCP tool's
 * permission is `prompt`. The MCP front implements one over
 * elicitation (src/mcp/consentChannel.ts), this file one over the server's
 * terminal, and the extension issue adds an in-browser modal. A channel
 * must never be reachable from page scripts: none of these read anything a
 * page can write (the terminal reads /dev/tty, elicitation goes to the MCP
 * client, the modal belongs to the extension's own UI, not the page's DOM).
 */
import { closeSync, openSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { ReadStream, WriteStream } from 'node:tty';
import { ToolError } from '../errors.js';
import type { ToolHints } from './rules.js';

/** What the human is asked about. Page-supplied text is shortened and kept on one line. */
export interface ConsentQuestion {
  origin: string;
  tool: string;
  /** The page's own description of the tool (page-controlled text: shown as such). */
  description: string;
  annotations: ToolHints;
  source: string;
  scriptId?: string;
  tabId?: number;
  /** The agent's arguments as JSON, at most 500 characters (shown to the human, never logged). */
  argumentsPreview: string;
  /** Epoch ms after which the question expires. */
  expiresAt: number;
  /**
   * The answers this question takes (ConsentAnswer), in the order surfaces show them; absent: the four of a WebMCP
   * tool (WEBMCP_ANSWERS). A code tool's question (`source` `tabwright`) offers CODE_ANSWERS.
   */
  offers?: readonly ConsentAnswer[];
  /** A code tool's question: the hash of its code (src/consent/codeGrant.ts), which a `code` answer saves. */
  codeHash?: string;
}

/**
 * The consent prompt's answers (docs/webmcp.md, "Consent gate"; docs/policy.md, "Consent for code"): `once` =
 * approve this call, `always` = approve and save an allow override (a WebMCP tool on this origin; a code tool, any
 * code on this origin), `deny` = refuse this call, `never` = refuse and save a deny override. A code tool's prompt
 * also offers `code` = approve and save an allow override for this exact code on this origin, and `everywhere` =
 * approve and save one for any code on every origin.
 */
export type ConsentAnswer = 'once' | 'code' | 'always' | 'everywhere' | 'deny' | 'never';

/** What a code tool's prompt offers (`execute`, `add_element`): every answer. */
export const CODE_ANSWERS: readonly ConsentAnswer[] = ['once', 'code', 'always', 'everywhere', 'deny', 'never'];

/** Every answer, as every surface takes them (daemon API, dashboard, `tabwright consent answer`). */
export const CONSENT_ANSWERS: readonly ConsentAnswer[] = CODE_ANSWERS;

/** What a WebMCP tool's prompt offers. */
export const WEBMCP_ANSWERS: readonly ConsentAnswer[] = ['once', 'always', 'deny', 'never'];

/** True for a consent answer (ConsentAnswer). */
export function isConsentAnswer(value: unknown): value is ConsentAnswer {
  return typeof value === 'string' && (CONSENT_ANSWERS as readonly string[]).includes(value);
}

/** The answers `question` takes. */
export function offeredAnswers(question: Pick<ConsentQuestion, 'offers'>): readonly ConsentAnswer[] {
  return question.offers ?? WEBMCP_ANSWERS;
}

/** Each answer in words, for a code tool's prompt (`code`) or a WebMCP tool's (`tool`). */
export function answerLabel(answer: ConsentAnswer, code: boolean): string {
  switch (answer) {
    case 'once': return 'Allow once';
    case 'code': return 'Always allow this exact code on this site';
    case 'always': return code ? 'Always allow any code on this site' : 'Always allow this tool on this site';
    case 'everywhere': return 'Always allow any code on every site';
    case 'deny': return 'Deny';
    case 'never': return code ? 'Always deny code on this site' : 'Always deny this tool on this site';
  }
}

/** A way to ask the human. `name` is what the audit log records as the channel. */
export interface PromptChannel {
  readonly name: 'elicitation' | 'terminal' | 'browser' | 'cli' | 'run';
  /**
   * True for a channel that can ask only in the call's own result (the
   * 2026-07-28 `input_required` flow): it cannot ask once that result went
   * out, e.g. after the call answered pending (src/dispatch/pending.ts).
   */
  readonly inResult?: boolean;
  /**
   * Asks and resolves with the human's answer. Rejects with a ToolError
   * (`consent_expired`, `cancelled`) when `signal` aborts, or with
   * ConsentPending when the question went out in the call's result and the
   * answer comes with the caller's retry (2026-07-28 input_required).
   */
  ask(question: ConsentQuestion, signal: AbortSignal): Promise<ConsentAnswer>;
}

/**
 * Thrown by a channel that handed the question to the caller instead of
 * waiting (the MCP front on 2026-07-28: an `input_required` result). Not a
 * decision: the gate neither audits it nor maps it to a consent error.
 */
export class ConsentPending extends ToolError {
  constructor() {
    super('consent_unavailable', 'The consent question was handed to the MCP client.', 'Answer the elicitation and retry the call.');
  }
}

/** Where an answer came from, in words for the human ("the tabwright dashboard"). */
export function surfaceName(channel: string): string {
  switch (channel) {
    case 'dashboard': return 'the tabwright dashboard';
    case 'consent_cli': return '`tabwright consent answer`';
    case 'elicitation': return 'the MCP client';
    case 'browser': return 'the tabwright extension\'s window';
    case 'cli': return 'the CLI\'s terminal';
    case 'terminal': return 'the server\'s terminal';
    case 'run': return 'run_respond (a task run\'s question)';
    default: return channel;
  }
}

/**
 * The reason a channel's question is withdrawn when another surface answered it first (the gate asks through all at
 * once, ./gate.ts). `by`: the audit channel that answered (`dashboard`, `elicitation`, ...).
 */
export class AnsweredElsewhere extends ToolError {
  constructor(readonly by: string) {
    super('cancelled', `The consent question was answered through ${surfaceName(by)}.`, 'Nothing to do: the call goes on with that answer.');
  }
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The question as text for a human (terminal, elicitation message). */
export function questionText(q: ConsentQuestion): string {
  const seconds = Math.max(0, Math.round((q.expiresAt - Date.now()) / 1000));
  if (q.source === 'tabwright') {
    return [
      `An agent wants to run tabwright's ${oneLine(q.tool, 64)} in ${oneLine(q.origin, 200)}${q.tabId !== undefined ? ` (tab ${q.tabId})` : ''}: code the agent wrote, with the page's full authority.`,
      `Code: ${oneLine(q.argumentsPreview, 500)}`,
      `Allow it? (expires in ${seconds} s)`,
    ].join('\n');
  }
  if (q.source === 'task') {
    return [
      `A tabwright task run (run_task, act mode) in ${oneLine(q.origin, 200)}${q.tabId !== undefined ? ` (tab ${q.tabId})` : ''} wants to take a consequential step: ${oneLine(q.description, 300)}`,
      `Step: ${oneLine(q.tool, 64)} ${oneLine(q.argumentsPreview, 500)}`,
      `Allow it? (expires in ${seconds} s)`,
    ].join('\n');
  }
  if (q.source === 'userscript') {
    return [
      `A userscript${q.scriptId ? ` (script ${oneLine(q.scriptId, 100)})` : ''} running in ${oneLine(q.origin, 200)}${q.tabId !== undefined ? ` (tab ${q.tabId})` : ''} asks to reach ${oneLine(q.tool.replace(/^@connect /, ''), 200)}.`,
      oneLine(q.description, 300),
      `Request: ${oneLine(q.argumentsPreview, 500)}`,
      `Allow it? "always" lets this script reach this host from now on. (expires in ${seconds} s)`,
    ].join('\n');
  }
  const hints = Object.entries(q.annotations).filter(([, v]) => v).map(([k]) => k).join(', ');
  return [
    `An agent wants to call the WebMCP tool "${oneLine(q.tool, 128)}" of ${oneLine(q.origin, 200)}${q.tabId !== undefined ? ` (tab ${q.tabId})` : ''}${q.scriptId ? `, registered by script ${oneLine(q.scriptId, 100)}` : ''}.`,
    `The page describes it as: "${oneLine(q.description, 200)}"${hints ? ` [${hints}]` : ''}`,
    `Arguments: ${oneLine(q.argumentsPreview, 500)}`,
    `Allow it? (expires in ${seconds} s)`,
  ].join('\n');
}

/** A terminal to ask on: opened per question, closed after. */
export interface TerminalStreams {
  input: Readable;
  output: Writable;
  close(): void;
}

/** The key a terminal takes for each answer. */
const TERMINAL_KEYS: Record<ConsentAnswer, string> = { once: 'y', code: 'c', always: 'a', everywhere: 'e', deny: 'n', never: 'd' };

/** The terminal's line of choices for `offers`: `[y] allow once  [a] always allow  [n] deny  [d] always deny`. */
export function terminalChoices(offers: readonly ConsentAnswer[], code: boolean): string {
  const label: Record<ConsentAnswer, string> = {
    once: 'allow once', code: 'always allow this code here', always: code ? 'always allow any code here' : 'always allow',
    everywhere: 'always allow any code anywhere', deny: 'deny', never: 'always deny',
  };
  return offers.map(a => `[${TERMINAL_KEYS[a]}] ${label[a]}`).join('  ');
}

/** Parses a typed answer among `offers`; undefined = not understood (ask again). Empty = deny. */
export function parseTerminalAnswer(line: string, offers: readonly ConsentAnswer[] = WEBMCP_ANSWERS): ConsentAnswer | undefined {
  const word = line.trim().toLowerCase();
  let answer: ConsentAnswer | undefined;
  if (word === 'y' || word === 'yes' || word === 'once') answer = 'once';
  else if (word === 'c' || word === 'code') answer = 'code';
  else if (word === 'a' || word === 'always') answer = 'always';
  else if (word === 'e' || word === 'everywhere') answer = 'everywhere';
  else if (word === '' || word === 'n' || word === 'no' || word === 'deny') answer = 'deny';
  else if (word === 'd' || word === 'never') answer = 'never';
  return answer && offers.includes(answer) ? answer : undefined;
}

/**
 * Asks on a terminal: the question, then
 * `[y] allow once  [a] always allow  [n] deny  [d] always deny`. One
 * question at a time (concurrent calls queue). The stdio server's stdin is
 * the MCP stream, so openTerminal() reads /dev/tty, not stdin.
 */
export class TerminalChannel implements PromptChannel {
  readonly name = 'terminal' as const;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly open: () => TerminalStreams = openTerminal) {}

  ask(question: ConsentQuestion, signal: AbortSignal): Promise<ConsentAnswer> {
    const turn = this.queue.then(() => this.askNow(question, signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private askNow(question: ConsentQuestion, signal: AbortSignal): Promise<ConsentAnswer> {
    if (signal.aborted) return Promise.reject(abortError(signal));
    const streams = this.open();
    const lines = createInterface({ input: streams.input, terminal: false });
    return new Promise<ConsentAnswer>((resolve, reject) => {
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        lines.close();
        streams.close();
        fn();
      };
      const onAbort = () => finish(() => {
        streams.output.write(signal.reason instanceof AnsweredElsewhere ? `\n(answered through ${surfaceName(signal.reason.by)})\n` : '\n(no answer in time: not allowed)\n');
        reject(abortError(signal));
      });
      signal.addEventListener('abort', onAbort, { once: true });
      const offers = offeredAnswers(question);
      streams.output.write(`\n[tabwright] ${questionText(question)}\n${terminalChoices(offers, question.source === 'tabwright')}: `);
      lines.on('line', line => {
        const answer = parseTerminalAnswer(line, offers);
        if (answer) finish(() => resolve(answer));
        else {
          const keys = offers.map(a => TERMINAL_KEYS[a]);
          streams.output.write(`Please type ${keys.slice(0, -1).join(', ')} or ${keys.at(-1)}: `);
        }
      });
      lines.on('close', () => {
        finish(() => resolve('deny')); // end of input: nobody can answer
      });
    });
  }
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason instanceof ToolError ? signal.reason : new ToolError('cancelled', 'The call was cancelled while waiting for consent.', 'Send the call again if it is still wanted.');
}

/** Opens /dev/tty for one question. @throws when the process has no controlling terminal. */
export function openTerminal(): TerminalStreams {
  const inFd = openSync('/dev/tty', 'r');
  let outFd: number;
  try {
    outFd = openSync('/dev/tty', 'w');
  } catch (error) {
    closeSync(inFd);
    throw error;
  }
  const input = new ReadStream(inFd);
  const output = new WriteStream(outFd);
  return {
    input,
    output,
    close() {
      input.destroy();
      output.end();
    },
  };
}

/** True when this process has a controlling terminal a human can answer on (/dev/tty opens). */
export function terminalAvailable(): boolean {
  try {
    closeSync(openSync('/dev/tty', 'r+'));
    return true;
  } catch {
    return false;
  }
}
