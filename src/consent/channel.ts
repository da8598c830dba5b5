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
}

/**
 * The consent prompt's three answers plus a plain "no" (docs/webmcp.md,
 * "Consent gate"): `once` = approve this
 * call, `always` = approve and save an allow override, `deny` = refuse this
 * call, `never` = refuse and save a deny override.
 */
export type ConsentAnswer = 'once' | 'always' | 'deny' | 'never';

/** The four answers, as every surface takes them (daemon API, dashboard, `tabwright consent answer`). */
export const CONSENT_ANSWERS: readonly ConsentAnswer[] = ['once', 'always', 'deny', 'never'];

/** True for the four consent answers (ConsentAnswer). */
export function isConsentAnswer(value: unknown): value is ConsentAnswer {
  return typeof value === 'string' && (CONSENT_ANSWERS as readonly string[]).includes(value);
}

/** A way to ask the human. `name` is what the audit log records as the channel. */
export interface PromptChannel {
  readonly name: 'elicitation' | 'terminal' | 'browser' | 'cli';
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
  const hints = Object.entries(q.annotations).filter(([, v]) => v).map(([k]) => k).join(', ');
  const seconds = Math.max(0, Math.round((q.expiresAt - Date.now()) / 1000));
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

/** Parses a typed answer; undefined = not understood (ask again). Empty = deny. */
export function parseTerminalAnswer(line: string): ConsentAnswer | undefined {
  const word = line.trim().toLowerCase();
  if (word === 'y' || word === 'yes' || word === 'once') return 'once';
  if (word === 'a' || word === 'always') return 'always';
  if (word === '' || word === 'n' || word === 'no' || word === 'deny') return 'deny';
  if (word === 'd' || word === 'never') return 'never';
  return undefined;
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
      streams.output.write(`\n[tabwright] ${questionText(question)}\n[y] allow once  [a] always allow  [n] deny  [d] always deny: `);
      lines.on('line', line => {
        const answer = parseTerminalAnswer(line);
        if (answer) finish(() => resolve(answer));
        else streams.output.write('Please type y, a, n or d: ');
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
