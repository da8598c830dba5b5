/**
 * The consent hub: the prompts the gate (./gate.ts) is asking now, held where every surface of the human can see and
 * answer them besides the call's own channel: the local dashboard (src/dashboard/) and `tabwright consent answer`
 * from another shell, which reaches the dashboard's API with its token (docs/dashboard.md, "Consent"). One hub per
 * process: the process that dispatches calls (the relay's leader, or a standalone process) runs the gate, so its hub
 * holds every prompt of every caller, followers' included.
 *
 * A prompt counts as answerable here only while a surface is attached (the dashboard listens); the gate then races
 * the hub with the call's own channels, and the first answer wins (./gate.ts). Nothing a page or an MCP tool can reach
 * answers through the hub: the dashboard's API needs its token, which lives in a 0600 file of the user's.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import type { ConsentAnswer, ConsentQuestion } from './channel.js';

/** The human surfaces that answer through the hub: the dashboard page, or `tabwright consent answer`. */
export type HubSurface = 'dashboard' | 'consent_cli';

/** A prompt waiting for an answer, as the human's surfaces list it. */
export interface HubPrompt {
  /** Random id (32 hex characters), what `tabwright consent answer ID` takes. */
  id: string;
  question: ConsentQuestion;
  /** When it was asked, epoch ms. */
  askedAt: number;
  /** The other channels asking the same question at once (`elicitation`, `terminal`, `cli`, `browser`). */
  alsoAskedBy: string[];
}

/** What a surface attached to the hub says of itself. */
export interface HubSurfaceInfo {
  /** Where the human answers, without any secret: `http://127.0.0.1:19682/`. Named in progress and pending texts. */
  url: string;
}

/** The hub's events: `change` after a prompt was added, answered or withdrawn. */
export interface HubEvents {
  change: [];
}

/**
 * The prompts of this process. `ask` adds one and waits; `answer` settles it; `list` shows them; `change` tells
 * listeners (the dashboard's live feed) that the list moved.
 */
export class ConsentHub extends EventEmitter<HubEvents> {
  private readonly waiting = new Map<string, { prompt: HubPrompt; settle(answer: ConsentAnswer, surface: HubSurface): void }>();
  private readonly surfaces = new Set<HubSurfaceInfo>();

  /**
   * Attaches a surface (the dashboard once it listens): prompts are answerable through the hub while one is attached.
   * @returns the detach function (call it when the surface stops serving).
   */
  attach(info: HubSurfaceInfo): () => void {
    this.surfaces.add(info);
    return () => {
      this.surfaces.delete(info);
    };
  }

  /** The first attached surface's URL, or undefined when nothing can answer through the hub. */
  get surfaceUrl(): string | undefined {
    for (const surface of this.surfaces) return surface.url;
    return undefined;
  }

  /** True while a surface is attached. */
  get available(): boolean {
    return this.surfaces.size > 0;
  }

  /** The prompts waiting now, oldest first. */
  list(): HubPrompt[] {
    return [...this.waiting.values()].map(w => w.prompt);
  }

  /**
   * Adds `question` and resolves with the first answer given through a surface. Rejects with `signal`'s reason when
   * it aborts first (the gate aborts it when the question expires, the call is cancelled, or another channel answered);
   * the prompt is withdrawn then.
   */
  ask(question: ConsentQuestion, signal: AbortSignal, alsoAskedBy: string[] = []): Promise<{ answer: ConsentAnswer; surface: HubSurface }> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const id = randomBytes(16).toString('hex');
      const onAbort = () => {
        if (this.waiting.delete(id)) this.emit('change');
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, {
        prompt: { id, question, askedAt: Date.now(), alsoAskedBy },
        settle: (answer, surface) => {
          signal.removeEventListener('abort', onAbort);
          resolve({ answer, surface });
        },
      });
      this.emit('change');
    });
  }

  /**
   * Answers prompt `id` through `surface`.
   * @returns false when no such prompt waits (answered elsewhere, expired, withdrawn, or never asked).
   */
  answer(id: string, answer: ConsentAnswer, surface: HubSurface): boolean {
    const waiting = this.waiting.get(id);
    if (!waiting) return false;
    this.waiting.delete(id);
    waiting.settle(answer, surface);
    this.emit('change');
    return true;
  }
}

/** This process's hub (the gate asks through it; the dashboard serves it). */
export const consentHub = new ConsentHub();
