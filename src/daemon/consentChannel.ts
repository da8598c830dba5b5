/**
 * Consent over HTTP (docs/daemon.md "Consent"): the daemon has no
 * terminal, so a streaming tool call's consent question goes to its caller
 * as an `event: consent`, and the answer comes back as
 * `POST /v1/consent/{questionId}` with the daemon's token. Page scripts
 * cannot answer: they have neither the token nor a loopback Origin.
 */
import { randomBytes } from 'node:crypto';
import { AnsweredElsewhere, questionText, type ConsentAnswer, type ConsentQuestion, type PromptChannel } from '../consent/channel.js';
import { ToolError } from '../errors.js';
import type { SseStream } from './sse.js';

/** The questions waiting for an answer, by questionId (one registry per daemon). */
export class PendingQuestions {
  private readonly waiting = new Map<string, (answer: ConsentAnswer) => void>();

  /** Registers a question; `settle` is called with the answer. Returns its id and a remover. */
  add(settle: (answer: ConsentAnswer) => void): { id: string; remove(): void } {
    const id = randomBytes(16).toString('hex');
    this.waiting.set(id, settle);
    return { id, remove: () => void this.waiting.delete(id) };
  }

  /** Delivers an answer; false when no such question waits (answered, expired, or its call ended). */
  answer(id: string, answer: ConsentAnswer): boolean {
    const settle = this.waiting.get(id);
    if (!settle) return false;
    this.waiting.delete(id);
    settle(answer);
    return true;
  }

  get size(): number {
    return this.waiting.size;
  }
}

/** A prompt channel bound to one streaming request: asks through its SSE stream. */
export class HttpPromptChannel implements PromptChannel {
  readonly name = 'cli' as const;

  constructor(private readonly stream: SseStream, private readonly pending: PendingQuestions) {}

  /**
   * Sends `event: consent` {questionId, text, ...question} and waits for the
   * answer. Rejects with the signal's reason (the gate's consent_expired, or
   * cancelled) when `signal` aborts first, and with consent_unavailable when
   * the stream cannot carry the question.
   */
  ask(question: ConsentQuestion, signal: AbortSignal): Promise<ConsentAnswer> {
    return new Promise<ConsentAnswer>((resolve, reject) => {
      if (signal.aborted) return reject(reasonOf(signal));
      const entry = this.pending.add(answer => {
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      });
      const onAbort = () => {
        entry.remove();
        const reason = reasonOf(signal);
        // The caller stops asking its human: answered through another surface, expired or cancelled.
        void this.stream.send('consent_closed', {
          questionId: entry.id,
          ...(signal.reason instanceof AnsweredElsewhere ? { answeredBy: signal.reason.by } : {}),
          message: reason instanceof ToolError ? reason.message : 'The consent question was withdrawn.',
        });
        reject(reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      void this.stream.send('consent', { questionId: entry.id, text: questionText(question), ...question }).then(sent => {
        if (sent) return;
        entry.remove();
        signal.removeEventListener('abort', onAbort);
        reject(new ToolError('consent_unavailable', 'The consent question could not be sent to the caller (its stream closed or is full).', 'Call again; answer the consent event with POST /v1/consent/{questionId}.'));
      });
    });
  }
}

function reasonOf(signal: AbortSignal): unknown {
  return signal.reason instanceof ToolError ? signal.reason : new ToolError('cancelled', 'The call was cancelled while waiting for consent.', 'Send the call again if it is still wanted.');
}
